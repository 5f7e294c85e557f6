"""`kgviz runs export --format openinference`: a SimGRAG and a GNN-RAG run of the real offline
model on the demo, kept in a run store and exported by the command, load as OTLP JSON
(`opentelemetry-proto`'s `ExportTraceServiceRequest`, unknown fields refused) and pass the
OpenInference conventions' checks: known span kinds, only the conventions' attribute keys, JSON
where the conventions hold JSON, and every span under the run's."""

from __future__ import annotations

import base64
import json
import re

import pytest
from google.protobuf import json_format
from openinference.semconv.trace import (
    DocumentAttributes,
    MessageAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.runs.run import judged_run
from kgviz.runs.store import RunStore

QUESTION = "who directed the movies that Tom Hanks acted in"
SPAN_KEYS = {v for k, v in vars(SpanAttributes).items() if k.isupper()}
MESSAGE_KEYS = {v for k, v in vars(MessageAttributes).items() if k.isupper()}
DOCUMENT_KEYS = {v for k, v in vars(DocumentAttributes).items() if k.isupper()}
INDEXED = re.compile(r"^(?P<list>[a-z_.]+)\.(\d+)\.(?P<key>[a-z_.]+)$")
JSON_KEYS = {SpanAttributes.METADATA, DocumentAttributes.DOCUMENT_METADATA}


def known(key: str) -> bool:
    """A key of the conventions: a span attribute, or an indexed message or document one."""
    if key in SPAN_KEYS:
        return True
    found = INDEXED.match(key)
    if found is None:
        return False
    lists = {
        SpanAttributes.LLM_INPUT_MESSAGES: MESSAGE_KEYS,
        SpanAttributes.LLM_OUTPUT_MESSAGES: MESSAGE_KEYS,
        SpanAttributes.RETRIEVAL_DOCUMENTS: DOCUMENT_KEYS,
    }
    return found["key"] in lists.get(found["list"], set())


def as_protobuf_json(exported: dict) -> str:
    """OTLP/JSON writes ids in hex; protobuf's JSON mapping reads bytes as base64."""
    text = json.dumps(exported)
    for hex_id in set(re.findall(r'"(?:traceId|spanId|parentSpanId)": "([0-9a-f]+)"', text)):
        text = text.replace(f'"{hex_id}"', f'"{base64.b64encode(bytes.fromhex(hex_id)).decode()}"')
    return text


@pytest.mark.parametrize("method", ["simgrag", "gnnrag"])
def test_an_exported_run_is_otlp_with_openinference_spans(
    method, local_llm, tmp_path, monkeypatch, capsys
):
    monkeypatch.setenv("KGVIZ_RUNS", str(tmp_path / "runs"))
    dataset = get_dataset("demo")
    trace = make_reasoner(method, ReasonerContext(dataset, local_llm)).run(QUESTION)
    run_id = RunStore().save(judged_run(trace, options={}, llm="llamacpp:test")).id
    out = tmp_path / "spans.json"
    assert main(["runs", "export", run_id, "--format", "openinference", "--out", str(out)]) == 0
    exported = json.loads(out.read_text())

    request = json_format.Parse(as_protobuf_json(exported), ExportTraceServiceRequest())
    spans = [s for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans]
    assert {len(s.trace_id) for s in spans} == {16} and {len(s.span_id) for s in spans} == {8}
    ids = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id]
    assert len(roots) == 1 and all(s.parent_span_id in ids for s in spans if s.parent_span_id)
    assert all(s.start_time_unix_nano <= s.end_time_unix_nano for s in spans)

    kinds = {kind.value for kind in OpenInferenceSpanKindValues}
    by_kind: dict[str, list[dict]] = {}
    for span in spans:
        attributes = {a.key: json_format.MessageToDict(a.value) for a in span.attributes}
        values = {key: next(iter(value.values())) for key, value in attributes.items()}
        assert all(known(key) for key in values), [k for k in values if not known(k)]
        assert values[SpanAttributes.OPENINFERENCE_SPAN_KIND] in kinds
        for key, value in values.items():
            if key in JSON_KEYS or key.endswith(DocumentAttributes.DOCUMENT_METADATA):
                json.loads(value)
        by_kind.setdefault(values[SpanAttributes.OPENINFERENCE_SPAN_KIND], []).append(values)

    (run,) = [v for v in by_kind["CHAIN"] if SpanAttributes.METADATA in v]
    assert run[SpanAttributes.INPUT_VALUE] == QUESTION and run[SpanAttributes.OUTPUT_VALUE]
    assert json.loads(run[SpanAttributes.METADATA])["answers"] == trace.answers
    (retriever,) = by_kind["RETRIEVER"]
    documents = [k for k in retriever if k.endswith(DocumentAttributes.DOCUMENT_CONTENT)]
    assert len(documents) == len(trace.evidence) > 0
    cited = [
        json.loads(v)["cited"] for k, v in retriever.items() if k.endswith("document.metadata")
    ]
    assert sum(cited) == len(trace.cited()) > 0
    assert len(by_kind["LLM"]) == len(trace.llm_calls)
    for call, llm in zip(trace.llm_calls, by_kind["LLM"], strict=True):
        assert llm[SpanAttributes.LLM_TOKEN_COUNT_PROMPT] == str(call.prompt_tokens)
        assert llm[f"{SpanAttributes.LLM_OUTPUT_MESSAGES}.0.message.content"] == call.text
