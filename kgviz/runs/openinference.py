"""A kept run as OpenTelemetry spans in OTLP JSON, named by the OpenInference semantic conventions,
so that tools that read those traces (Phoenix, Langfuse, any OTLP collector) show kgviz runs.

The spans: the run (CHAIN) with the question in and the answer out; its retrieval (RETRIEVER),
each evidence triple a document (its metadata says whether an answer cites it); its answering
(CHAIN); and one LLM span per LLM call, under retrieval for the calls retrieval makes (SimGRAG's
pattern, ToG's pruning) and under answering for the answer and its re-asks, with the messages,
the reply and the token counts. A trace records each stage's duration and each call's latency,
not their start times: the spans are laid out one after another from the run's start (its end
less its total), which is the order they ran in.

Ids are derived from the run id, so exporting a run twice gives the same file.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from openinference.semconv.resource import ResourceAttributes
from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceMimeTypeValues,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)

from kgviz.reasoners.prompting import ANSWERING_STAGES, GENERATION
from kgviz.runs.run import Run
from kgviz.trace import LLMCall
from kgviz.version import code_version

SPAN_KIND_INTERNAL = 1  # OTLP's enum: every kgviz span is work inside one process
STATUS_OK = 1
NANOS = 1_000_000_000


@dataclass
class Span:
    """One span being built: its name, kind, parent, times (epoch seconds) and attributes."""

    name: str
    kind: OpenInferenceSpanKindValues
    span_id: str
    parent_id: str
    start: float
    end: float
    attributes: dict[str, Any] = field(default_factory=dict)

    def otlp(self, trace_id: str) -> dict[str, Any]:
        attributes = {SpanAttributes.OPENINFERENCE_SPAN_KIND: self.kind.value, **self.attributes}
        span = {
            "traceId": trace_id,
            "spanId": self.span_id,
            "name": self.name,
            "kind": SPAN_KIND_INTERNAL,
            "startTimeUnixNano": str(int(self.start * NANOS)),
            "endTimeUnixNano": str(int(self.end * NANOS)),
            "attributes": [attribute(key, value) for key, value in attributes.items()],
            "status": {"code": STATUS_OK},
        }
        if self.parent_id:
            span["parentSpanId"] = self.parent_id
        return span


def attribute(key: str, value: Any) -> dict[str, Any]:
    """An OTLP key-value: text, integer (as a decimal string, OTLP's int64), float or bool."""
    typed: dict[str, Any]
    if isinstance(value, bool):
        typed = {"boolValue": value}
    elif isinstance(value, int):
        typed = {"intValue": str(value)}
    elif isinstance(value, float):
        typed = {"doubleValue": value}
    else:
        typed = {"stringValue": str(value)}
    return {"key": key, "value": typed}


def hex_id(run_id: str, what: str, length: int) -> str:
    """A stable id of `length` bytes, in hex, for `what` in run `run_id`."""
    return hashlib.sha256(f"{run_id}\0{what}".encode()).hexdigest()[: 2 * length]


def run_spans(run: Run, run_id: str) -> list[Span]:
    """The run's spans, the run itself first (see the module docstring)."""
    trace = run.trace
    total = trace.timings.get("total", trace.llm_seconds)
    start = run.finished - total
    root = Span(
        f"kgviz.{trace.method}",
        OpenInferenceSpanKindValues.CHAIN,
        hex_id(run_id, "run", 8),
        "",
        start,
        run.finished,
        {
            SpanAttributes.INPUT_VALUE: trace.question,
            SpanAttributes.INPUT_MIME_TYPE: OpenInferenceMimeTypeValues.TEXT.value,
            SpanAttributes.OUTPUT_VALUE: trace.answer,
            SpanAttributes.OUTPUT_MIME_TYPE: OpenInferenceMimeTypeValues.TEXT.value,
            SpanAttributes.METADATA: json.dumps(run_metadata(run, run_id), ensure_ascii=False),
        },
    )
    retrieval_s = trace.timings.get("retrieval", 0.0)
    retrieval = Span(
        "retrieval",
        OpenInferenceSpanKindValues.RETRIEVER,
        hex_id(run_id, "retrieval", 8),
        root.span_id,
        start,
        start + retrieval_s,
        {SpanAttributes.INPUT_VALUE: trace.question, **documents(run)},
    )
    answering_calls = [c for c in trace.llm_calls if c.stage in ANSWERING_STAGES]
    answering_s = trace.timings.get(GENERATION, sum(c.latency_s for c in answering_calls))
    answering = Span(
        "answering",
        OpenInferenceSpanKindValues.CHAIN,
        hex_id(run_id, "answering", 8),
        root.span_id,
        retrieval.end,
        retrieval.end + answering_s,
        {SpanAttributes.INPUT_VALUE: trace.question, SpanAttributes.OUTPUT_VALUE: trace.answer},
    )
    spans = [root, retrieval, answering]
    cursors = {retrieval.span_id: retrieval.start, answering.span_id: answering.start}
    for number, call in enumerate(trace.llm_calls):
        parent = answering if call.stage in ANSWERING_STAGES else retrieval
        begin = cursors[parent.span_id]
        cursors[parent.span_id] = begin + call.latency_s
        spans.append(
            Span(
                f"llm.{call.stage}",
                OpenInferenceSpanKindValues.LLM,
                hex_id(run_id, f"call {number}", 8),
                parent.span_id,
                begin,
                begin + call.latency_s,
                dict(llm_attributes(call)),
            )
        )
    return spans


def run_metadata(run: Run, run_id: str) -> dict[str, Any]:
    trace = run.trace
    return {
        "kgviz.run": run_id,
        "kgviz.version": code_version(),
        "dataset": trace.dataset,
        "method": trace.method,
        "preset": run.preset,
        "options": run.options,
        "llm": run.llm,
        "answers": list(trace.answers),
        "grounded": run.grounded_text(),
        "gold": list(run.outcome.gold),
        "cited": [list(t) for t in trace.cited()],
    }


def documents(run: Run) -> dict[str, Any]:
    """`retrieval.documents.N.document.*` of each evidence triple."""
    cited = set(run.trace.cited())
    found: dict[str, Any] = {}
    for number, triple in enumerate(run.trace.evidence):
        prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{number}."
        found[prefix + DocumentAttributes.DOCUMENT_ID] = " | ".join(triple)
        found[prefix + DocumentAttributes.DOCUMENT_CONTENT] = "({}, {}, {})".format(*triple)
        found[prefix + DocumentAttributes.DOCUMENT_METADATA] = json.dumps(
            {"triple": list(triple), "cited": triple in cited}, ensure_ascii=False
        )
    return found


def llm_attributes(call: LLMCall) -> Iterator[tuple[str, Any]]:
    """An LLM call's model, messages, reply and token counts."""
    yield SpanAttributes.LLM_MODEL_NAME, call.model
    for number, message in enumerate(call.messages):
        prefix = f"{SpanAttributes.LLM_INPUT_MESSAGES}.{number}."
        yield prefix + MessageAttributes.MESSAGE_ROLE, message["role"]
        yield prefix + MessageAttributes.MESSAGE_CONTENT, message["content"]
    prefix = f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0."
    yield prefix + MessageAttributes.MESSAGE_ROLE, "assistant"
    yield prefix + MessageAttributes.MESSAGE_CONTENT, call.text
    yield SpanAttributes.OUTPUT_VALUE, call.text
    yield SpanAttributes.LLM_TOKEN_COUNT_PROMPT, call.prompt_tokens
    yield SpanAttributes.LLM_TOKEN_COUNT_COMPLETION, call.completion_tokens
    yield SpanAttributes.LLM_TOKEN_COUNT_TOTAL, call.prompt_tokens + call.completion_tokens
    yield (
        SpanAttributes.METADATA,
        json.dumps({"stage": call.stage, "backend": call.backend, "cached": call.cached}),
    )


def openinference_json(run: Run, run_id: str, project: str = "kgviz") -> dict[str, Any]:
    """The run as one OTLP/JSON `ExportTraceServiceRequest` (ids in hex, as OTLP/JSON has
    them)."""
    trace_id = hex_id(run_id, "trace", 16)
    resource: Mapping[str, Any] = {
        "service.name": "kgviz",
        ResourceAttributes.PROJECT_NAME: project,
    }
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": [attribute(k, v) for k, v in resource.items()]},
                "scopeSpans": [
                    {
                        "scope": {"name": "kgviz", "version": code_version()},
                        "spans": [span.otlp(trace_id) for span in run_spans(run, run_id)],
                    }
                ],
            }
        ]
    }
