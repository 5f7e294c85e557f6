"""A batch: methods over a plan's questions, as the lab's Batch tab runs them through
`run_eval`. It names its results file (one per dataset, split and LLM, under the run store,
so a batch resumes from any earlier one that answered the same questions) and the
`kgviz eval` / `kgviz report` commands that give the same rows and tables."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kgviz.datasets.base import QARecord
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.resume import record_key
from kgviz.eval.rows import ResultRow
from kgviz.eval.tables import label_variants
from kgviz.paths import cache_name
from kgviz.reasoners.presets import DEFAULT_PRESET


@dataclass(frozen=True)
class Batch:
    """`methods` over the questions `plan` selects from `dataset`, answered by `llm` (the
    session's LLM identity, e.g. `llamacpp:qwen2.5-coder-1.5b`) with every method's `preset`."""

    dataset: str
    llm: str
    methods: tuple[str, ...]
    plan: EvalPlan
    preset: str = DEFAULT_PRESET

    def results_file(self, runs_root: Path) -> Path:
        """Where the batch's rows go: `batches/<dataset>-<split>-<llm>[-<preset>].jsonl` in the
        run store (a results file holds one LLM's answers and one preset of each method)."""
        preset = "" if self.preset == DEFAULT_PRESET else f"-{self.preset}"
        name = f"{cache_name(self.dataset)}-{self.plan.split}-{cache_name(self.llm)}{preset}.jsonl"
        return runs_root / "batches" / name

    def rows(self, path: Path, records: Sequence[QARecord]) -> list[ResultRow]:
        """The rows of `path` that answer this batch (its methods on `records`), in question
        order per method, labelled as `kgviz report` labels them."""
        wanted = {record_key(m, r.qid): (i, m) for m in self.methods for i, r in enumerate(records)}
        order = {method: position for position, method in enumerate(self.methods)}
        found = [
            row for row in read_results(path) if record_key(row["method"], row["qid"]) in wanted
        ]
        found.sort(
            key=lambda row: (order[row["method"]], wanted[record_key(row["method"], row["qid"])][0])
        )
        return label_variants(found)

    def commands(self, path: Path, llm_spec: str) -> str:
        """The shell commands that run the same questions into `path` with the LLM of
        `llm_spec` and report them."""
        out = shlex.quote(str(path))
        preset = "" if self.preset == DEFAULT_PRESET else f" --preset {self.preset}"
        return (
            f"kgviz eval --dataset {shlex.quote(self.dataset)} {self.plan.describe()} "
            f"--method {','.join(self.methods)}{preset} --llm {shlex.quote(llm_spec)} "
            f"--keep-traces --out {out}\nkgviz report {out}"
        )
