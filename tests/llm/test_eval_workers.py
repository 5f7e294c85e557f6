"""`run_eval` with several questions in flight, against a real OpenAI-protocol llama.cpp server."""

import threading

from kgviz.datasets import get_dataset
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.reasoners.base import ReasonerContext
from kgviz.session import Session


class CountingBackend(OpenAIBackend):
    """The real HTTP backend, counting how many of its calls overlap (instrumentation only)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.lock = threading.Lock()
        self.in_flight = self.most_in_flight = 0

    def _generate(self, messages, schema, options):
        with self.lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return super()._generate(messages, schema, options)
        finally:
            with self.lock:
                self.in_flight -= 1


def test_questions_run_concurrently_and_each_is_written_once(llamacpp_http, tmp_path) -> None:
    dataset = get_dataset("demo")
    llm = CountingBackend(llamacpp_http, "qwen2.5-coder-0.5b", max_tokens=24)
    session = Session(dataset, ReasonerContext(dataset, llm), "test server")
    out = tmp_path / "r.jsonl"
    summary = run_eval(
        session, ["llm-only"], EvalPlan("dev", limit=4), out, progress=False, workers=2
    )
    rows = read_results(out)
    assert summary["n"] == 4 and len({row["qid"] for row in rows}) == 4
    assert llm.most_in_flight == 2
    assert all(row["error"] is None and row["llm_calls"] == 1 + row["reasked"] for row in rows)
