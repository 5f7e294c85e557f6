"""The summary of results rows: hits@1 on committed answers and friends, overall and per method
and hop count (the last stdout line of `kgviz eval`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from kgviz.eval.rows import ResultRow
from kgviz.scoring.attribution import attribution_stages
from kgviz.scoring.metrics import row_value


def summarize(rows: list[ResultRow]) -> dict[str, Any]:
    """`no_answer` is the share of replies that committed to no answer, `truncated` the share
    that ran to their token limit (over the rows that recorded it; None when none did)."""
    stages = attribution_stages(str(row["method"]) for row in rows)

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
            "ungrounded": sum(1 for r in subset if r.get("grounded") is False),
            "failed_at": {
                stage: sum(1 for r in subset if r.get("failed_stage") == stage) for stage in stages
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
