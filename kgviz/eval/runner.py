"""Evaluation runs: one JSON line per (method, question), appended as it goes, resumable."""

from __future__ import annotations

import json
import math
import os
import random
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, cast

from kgviz.datasets.base import QARecord
from kgviz.datasets.splits import PARTS, split_records
from kgviz.errors import DataFormatError, KgvizError
from kgviz.eval.attribution import STAGES, failed_stage
from kgviz.eval.metrics import evidence_recall, row_value, score_trace
from kgviz.eval.rows import ResultRow
from kgviz.eval.writer_lock import sole_writer
from kgviz.llm.base import LLM
from kgviz.llm.deadline import allow_requests, cancel_requests
from kgviz.llm.errors import LLMUnavailable, ModelIntegrityError
from kgviz.reasoners.base import Reasoner
from kgviz.session import Session
from kgviz.trace import Trace


@dataclass(frozen=True)
class EvalPlan:
    """Which questions: a split, optionally one of its train/val/heldout parts, then
    sample/limit."""

    split: str
    part: str | None = None
    limit: int | None = None
    sample_seed: int | None = None

    def select(self, records: Sequence[QARecord]) -> list[QARecord]:
        chosen = list(records)
        if self.part is not None:
            if self.part not in PARTS:
                raise KgvizError(f"unknown part {self.part!r}; choose from {', '.join(PARTS)}")
            chosen = split_records(chosen)[self.part]
        if self.sample_seed is not None:
            chosen = random.Random(self.sample_seed).sample(chosen, len(chosen))
        return chosen[: self.limit] if self.limit is not None else chosen


def record_key(method: str, qid: str) -> str:
    return f"{method}\t{qid}"


def llm_identity(llm: LLM) -> str:
    """Which model answered: backend and model name (threads, cache and timeouts do not change
    what it replies)."""
    return f"{llm.name}:{llm.model}"


def check_one_llm(rows: Iterable[ResultRow], llm: str, out: Path) -> None:
    """A results file holds one LLM's answers: refuse to resume it with another (rows from
    different models would be pooled in every table)."""
    others = sorted({row.get("llm") or "an unrecorded LLM" for row in rows} - {llm})
    if others:
        raise KgvizError(
            f"{out} holds answers from {', '.join(others)}, but this run uses {llm}; "
            "write to another --out file so the results of different LLMs stay apart"
        )


def check_same_settings(
    rows: Iterable[ResultRow], methods: Sequence[str], settings: dict[str, Any], out: Path
) -> None:
    """A results file holds one setting of each method: refuse to resume a method's answers with
    other options (a `settings` variant goes to a file of its own, and reports label it)."""
    clashing = sorted(
        {
            row["method"]
            for row in rows
            if row["method"] in methods and row.get("settings", {}) != settings
        }
    )
    if clashing:
        raise KgvizError(
            f"{out} holds {', '.join(clashing)} answers with other options than "
            f"{settings_label(settings) or 'the defaults'}; write to another --out "
            "file so each setting's results stay apart"
        )


def settings_label(settings: dict[str, Any]) -> str:
    """`top_k=30 hops=2`: the options a run set, as a label ('' for the defaults)."""
    return " ".join(f"{key}={json.dumps(value)}" for key, value in sorted(settings.items()))


def result_row(method: str, record: QARecord, trace: Trace, retrieves: bool = True) -> ResultRow:
    """The JSON line for one answered question, naming it by `qid` (`with_question` adds its
    text and gold answers)."""
    stage, reason = failed_stage(trace, record, retrieves)
    score = score_trace(trace, record.answers)
    return {
        "method": method,
        "qid": record.qid,
        "hops": record.hops,
        "qtype": record.qtype,
        "answer": trace.answer,
        "answers": trace.answers,
        "hit1": score.hit1,
        "hit": score.hit,
        "named": score.named,
        "committed": score.committed,
        "precision": score.precision,
        "recall": score.recall,
        "f1": score.f1,
        "truncated": trace.truncated,
        "reasked": trace.reasked,
        "evidence_recall": evidence_recall(trace.evidence, record.answers),
        "evidence_size": len(trace.evidence),
        "checkpoint": trace.checkpoint,
        "prompt_tokens": trace.prompt_tokens,
        "completion_tokens": trace.completion_tokens,
        "llm_calls": len(trace.llm_calls),
        "seconds": round(trace.cost_seconds, 4),
        "llm_seconds": round(trace.llm_seconds, 4),
        "cached_calls": sum(call.cached for call in trace.llm_calls),
        "timings": {k: round(v, 4) for k, v in trace.timings.items()},
        "failed_stage": stage,
        "failure": reason,
        "warnings": trace.warnings,
        "error": None,
    }


def with_question(row: ResultRow, record: QARecord) -> ResultRow:
    """`row` with the question text and gold answers after its `qid`."""
    head: ResultRow = {
        "method": row["method"],
        "qid": row["qid"],
        "question": record.question,
        "gold": list(record.answers),
    }
    return {**head, **row}


def attach_questions(rows: list[ResultRow], records: Sequence[QARecord]) -> list[ResultRow]:
    """Rows with the question text and gold answers of their `qid` added (unknown ids get none)."""
    by_id = {record.qid: record for record in records}
    return [with_question(row, by_id[row["qid"]]) if row["qid"] in by_id else row for row in rows]


def read_results(path: Path) -> list[ResultRow]:
    """Rows already written; a torn last line (the run was killed mid-write) is dropped."""
    if not path.is_file():
        return []
    rows: list[ResultRow] = []
    lines = path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if number >= len(lines) - 1:  # only the final line may be torn
                break
            raise DataFormatError(path, number, "not a JSON results line") from None
        if not (
            isinstance(row, dict)
            and isinstance(row.get("method"), str)
            and isinstance(row.get("qid"), str)
        ):
            raise DataFormatError(
                path,
                number,
                "not a results row (an object with 'method' "
                "and 'qid' strings, as `kgviz eval` writes)",
            )
        rows.append(cast(ResultRow, row))
    return rows


def _rewrite_complete(path: Path, rows: list[ResultRow]) -> None:
    """Drop a torn tail so that appending continues on a line boundary."""
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    if path.is_file() and path.read_text(encoding="utf-8") != text:
        from kgviz.atomic import write_text_atomic

        write_text_atomic(path, text)


def summarize(rows: list[ResultRow]) -> dict[str, Any]:
    """Hits@1 on committed answers and friends over rows, overall and per method and hop count.

    `no_answer` is the share of replies that committed to no answer, `truncated` the share that
    ran to their token limit (over the rows that recorded it; None when none did)."""

    def block(subset: Sequence[ResultRow]) -> dict[str, Any]:
        n = len(subset)

        def mean(values: Iterable[float]) -> float:
            return round(sum(values) / n, 4) if n else 0.0

        recorded = [t for t in (row_value(r, "truncated") for r in subset) if not math.isnan(t)]
        return {
            "hits@1": mean(float(r["hit1"]) for r in subset),
            "hit": mean(row_value(r, "hit") for r in subset),
            "named": mean(row_value(r, "named") for r in subset),
            "f1": mean(r["f1"] for r in subset),
            "no_answer": mean(row_value(r, "no_answer") for r in subset),
            "truncated": round(sum(recorded) / len(recorded), 4) if recorded else None,
            "reasked": mean(float(bool(r.get("reasked"))) for r in subset),
            "evidence_recall": mean(float(r["evidence_recall"]) for r in subset),
            "evidence_size": mean(r["evidence_size"] for r in subset),
            "prompt_tokens": mean(r["prompt_tokens"] for r in subset),
            "seconds": mean(r.get("seconds", 0.0) for r in subset),
            "errors": sum(1 for r in subset if r["error"]),
            "failed_at": {
                stage: sum(1 for r in subset if r.get("failed_stage") == stage) for stage in STAGES
            },
            "n": n,
        }

    summary = block(rows)
    methods = sorted({r["method"] for r in rows})
    if len(methods) > 1 or any(r.get("hops") for r in rows):
        summary["by_method"] = {}
        for method in methods:
            mine = [r for r in rows if r["method"] == method]
            summary["by_method"][method] = block(mine)
            hops = sorted({h for r in mine if (h := r.get("hops"))})
            if len(hops) > 1:
                summary["by_method"][method]["by_hops"] = {
                    str(h): block([r for r in mine if r.get("hops") == h]) for h in hops
                }
    return summary


# Failures that end a run at once: no server or model, a model file that fails its check.
FATAL = (LLMUnavailable, ModelIntegrityError)
# Consecutive failed questions after which the run stops (the LLM server is likely down).
MAX_FAILURES_IN_A_ROW = 3


def _answer(reasoner: Reasoner, method: str, record: QARecord, questions: bool) -> ResultRow:
    """The row of one answered question; a failure raises (and the question stays pending)."""
    reasoner = reasoner.on_question(record)
    trace = reasoner.run(record.question, topic_entities=record.topic_entities, gold=record.answers)
    row = result_row(method, record, trace, reasoner.retrieves)
    return with_question(row, record) if questions else row


def run_eval(
    session: Session,
    methods: Sequence[str],
    plan: EvalPlan,
    out: Path,
    progress: bool = True,
    workers: int = 1,
    questions: bool = True,
    settings: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Answer every selected question with every method, appending one line each to `out`
    (each line names the LLM; a file holds one LLM's answers). Lines carry the question text and
    gold answers unless `questions` is False (then only the `qid`, for results published apart
    from the dataset; `attach_questions` joins them back). `settings` override every method's
    options (`kgviz eval --set`); the lines record them and a file holds one setting per method.

    The run holds `out`'s writer lock throughout: a second run on the same file is refused.
    Questions already in `out` for a method are skipped, so an interrupted run resumes where it
    stopped; each line is flushed and fsynced as soon as its answer is in. A question whose run
    fails (after the LLM backend's own retries) gets no line and stays pending for the next run;
    the summary counts such questions under `failed`. No LLM server or model, a model file that
    fails its check, or three failed questions in a row end the run. Ctrl-C cancels the requests
    in flight and stops at once. With `workers` > 1 (capped by what the LLM backend serves at
    once) questions run concurrently; lines are written in question order as they finish.
    """
    records = plan.select(session.dataset.questions(plan.split))
    if out.is_dir():
        raise KgvizError(f"--out {out} is a folder; give a results file such as {out / 'r.jsonl'}")
    llm = llm_identity(session.context.llm)
    settings = settings or {}
    reasoners = {m: session.reasoner(m, **settings) for m in methods}  # bad options fail here
    with sole_writer(out):
        return _run_locked(
            session, methods, records, reasoners, out, llm, settings, progress, workers, questions
        )


def _run_locked(
    session: Session,
    methods: Sequence[str],
    records: Sequence[QARecord],
    reasoners: dict[str, Reasoner],
    out: Path,
    llm: str,
    settings: dict[str, Any],
    progress: bool,
    workers: int,
    questions: bool,
) -> dict[str, Any]:
    done_rows = read_results(out)
    check_one_llm(done_rows, llm, out)
    check_same_settings(done_rows, methods, settings, out)
    _rewrite_complete(out, done_rows)  # safe: this run is the file's only writer
    done = {record_key(row["method"], row["qid"]) for row in done_rows}
    todo = [(m, r) for m in methods for r in records if record_key(m, r.qid) not in done]
    workers = max(1, min(workers, session.context.llm.parallel_requests))
    if todo:  # load the index, encoder and LLM now, not inside the first question's time
        session.warm_up(any(reasoner.retrieves for reasoner in reasoners.values()))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        total = len(methods) * len(records)
        bar = tqdm(
            total=total,
            initial=total - len(todo),
            unit="q",
            file=sys.stderr,
            desc=f"eval {session.dataset.name} x{workers}",
        )
    failed = in_a_row = 0  # questions that failed (no row: the next run retries them)
    try:
        handle = open(out, "a", encoding="utf-8")  # noqa: SIM115  (closed by the with below)
    except OSError as error:
        raise KgvizError(f"cannot write results to {out}: {error.strerror}") from error
    pool = ThreadPoolExecutor(workers)
    with handle:
        pending = enumerate(todo)
        submitted: dict[Future[ResultRow], tuple[int, str, str]] = {}

        def submit(count: int) -> set[Future[ResultRow]]:
            futures = set()
            for position, (method, record) in islice(pending, count):
                future = pool.submit(_answer, reasoners[method], method, record, questions)
                submitted[future] = (position, method, record.qid)
                futures.add(future)
            return futures

        running = submit(2 * workers)
        try:
            while running:
                finished, running = wait(running, return_when=FIRST_COMPLETED)
                for future in sorted(finished, key=lambda f: submitted[f][0]):  # question order
                    _, method, qid = submitted[future]
                    try:
                        answered = future.result()
                    except FATAL:
                        raise
                    except KgvizError as error:
                        failed += 1
                        print(
                            f"kgviz eval: {method} {qid} failed (left for the next run): {error}",
                            file=sys.stderr,
                        )
                        in_a_row += 1
                        if in_a_row >= MAX_FAILURES_IN_A_ROW:
                            raise KgvizError(
                                f"{in_a_row} questions in a row failed, the last with: {error}"
                            ) from error
                        continue
                    in_a_row = 0
                    row = cast(
                        ResultRow,
                        {"llm": llm, **({"settings": settings} if settings else {}), **answered},
                    )
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                    handle.flush()
                    os.fsync(handle.fileno())
                    done_rows.append(row)
                    if bar is not None:
                        bar.update(1)
                        bar.set_postfix(hits=f"{summarize(done_rows)['hits@1']:.3f}")
                running |= submit(len(finished))
        except BaseException:
            cancel_requests(until_allowed=True)  # Ctrl-C or a fatal error: stop every request
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            allow_requests()
            if bar is not None:
                bar.close()
    keys = {record_key(m, r.qid) for m in methods for r in records}
    summary = summarize([row for row in done_rows if record_key(row["method"], row["qid"]) in keys])
    summary["failed"] = failed
    return summary
