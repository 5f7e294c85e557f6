"""Result rows as tables: per method and hop, error attribution, and the misses themselves."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from kgviz.errors import RunStoreError
from kgviz.eval.resume import variant_label
from kgviz.eval.rows import ResultRow
from kgviz.eval.significance import wilson_interval
from kgviz.reasoners.presets import DEFAULT_PRESET
from kgviz.reasoners.registry import method_label
from kgviz.scoring.attribution import GROUNDING_STAGE, attribution_stages
from kgviz.scoring.metrics import row_value

# Table column -> row field. hits@1 (the first committed answer is gold) leads; `hit` (some
# committed answer is gold) and `named` (a gold answer named anywhere, SimGRAG's lenient check)
# stand beside it, never instead.
METRICS = {
    "hits@1": "hit1",
    "hit": "hit",
    "named": "named",
    "f1": "f1",
    "no answer": "no_answer",
    "truncated": "truncated",
    "evidence recall": "evidence_recall",
    "evidence triples": "evidence_size",
    "prompt tokens": "prompt_tokens",
    "LLM calls": "llm_calls",
}


def label_variants(rows: Sequence[ResultRow]) -> list[ResultRow]:
    """Rows run with another preset or options get the method label `method [paper top_k=30]`,
    and rows from more than one LLM `method · llm`, so the tables set the variants side by side
    instead of pooling them (rows from before presets ran the default one)."""
    several_llms = len({row.get("llm") for row in rows}) > 1

    def label(row: ResultRow) -> str:
        options = variant_label(row.get("preset", DEFAULT_PRESET), row.get("settings") or {})
        llm = f" · {row.get('llm') or 'unrecorded LLM'}" if several_llms else ""
        name = method_label(row["method"], row.get("options"), row.get("llm") or "")
        return name + (f" [{options}]" if options else "") + llm

    return [{**row, "method": label(row)} for row in rows]


def common_questions(rows: Sequence[ResultRow]) -> list[ResultRow]:
    """Only the rows of questions that every method answered, so methods compare on equal terms
    while a run is still going (or one method was run on more questions)."""
    methods: dict[str, set[str]] = {}
    for row in rows:
        methods.setdefault(row["method"], set()).add(row["qid"])
    shared = set.intersection(*methods.values()) if methods else set()
    return [row for row in rows if row["qid"] in shared]


def rows_frame(rows: Sequence[ResultRow]) -> pd.DataFrame:
    """One line per (method, question): numeric metrics and `seconds`, what answering cost."""
    frame = pd.DataFrame(
        [
            {
                "method": row["method"],
                "qid": row["qid"],
                "hops": row.get("hops") or 0,
                **{name: row_value(row, key) for name, key in METRICS.items()},
                "seconds": float(row.get("seconds", 0.0)),
                "failed stage": row.get("failed_stage") or ("error" if row.get("error") else None),
                "grounded": row.get("grounded"),
            }
            for row in rows
        ]
    )
    if frame.empty:
        raise RunStoreError("no result rows to tabulate")
    order = list(dict.fromkeys(frame["method"]))
    frame["method"] = pd.Categorical(frame["method"], categories=order, ordered=True)
    return frame


def method_hop_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Means per (method, hops): Hits@1, F1, evidence recall and size, prompt tokens, and the
    median seconds per question, with the number of questions."""
    grouped = frame.groupby(["method", "hops"], observed=True)
    table = grouped[list(METRICS)].mean()
    table["prompt tokens"] = table["prompt tokens"].round().astype("Int64")  # a count
    table["median seconds"] = grouped["seconds"].median()
    table["n"] = grouped.size()
    return table


def hits_by_hop(frame: pd.DataFrame) -> pd.DataFrame:
    """Hits@1 with methods as rows and hop counts as columns, plus every question together with
    its 95% (Wilson) interval, and the overall hit, named and no-answer rates beside it."""
    table = frame.pivot_table(
        index="method", columns="hops", values="hits@1", aggfunc="mean", observed=True
    )
    table.columns = [f"{h}-hop" if h else "all" for h in table.columns]
    per_method = frame.groupby("method", observed=True)["hits@1"]
    table["overall"] = per_method.mean()
    table["95% interval"] = per_method.agg(
        lambda hits: "{:.2f}–{:.2f}".format(*wilson_interval(int(hits.sum()), len(hits)))
    )
    grouped = frame.groupby("method", observed=True)
    for column in ("hit", "named", "f1", "no answer"):
        table[column] = grouped[column].mean()
    table["n"] = per_method.size()
    return table


def attribution_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per method: questions, misses, and how many misses failed at each stage (or errored);
    where the rows checked grounding, how many questions were not grounded in the KG."""
    checked = frame["grounded"].notna().any()
    methods = map(str, frame["method"].cat.categories)
    stages = [s for s in attribution_stages(methods) if checked or s != GROUNDING_STAGE]
    counts = pd.crosstab(frame["method"], frame["failed stage"]).reindex(
        index=frame["method"].cat.categories, columns=[*stages, "error"], fill_value=0
    )
    counts.insert(0, "misses", counts.sum(axis=1))
    if checked:
        ungrounded = (frame["grounded"] == False).groupby(frame["method"], observed=True).sum()
        counts.insert(0, "ungrounded", ungrounded)
    counts.insert(0, "n", frame.groupby("method", observed=True).size())
    counts.index.name = "method"
    counts.columns.name = None
    return counts


def clipped(text: str, limit: int = 240) -> str:
    """`text` cut to `limit` characters with an ellipsis (a looping reply can run to pages)."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def gold_list(gold: Sequence[str], shown: int = 6) -> str:
    """The first `shown` gold answers, and how many more there are."""
    more = f" (+{len(gold) - shown} more)" if len(gold) > shown else ""
    return ", ".join(gold[:shown]) + more


def misses_table(rows: Sequence[ResultRow], per_method: int = 8) -> pd.DataFrame:
    """Each method's first `per_method` misses with their stage and reason (question text and
    gold answers when attached; long answers and gold lists clipped)."""
    shown: dict[str, int] = {}
    misses = []
    for row in rows:
        if not row.get("hit1") and shown.get(row["method"], 0) < per_method:
            shown[row["method"]] = shown.get(row["method"], 0) + 1
            misses.append(row)
    return pd.DataFrame(
        [
            {
                "method": row["method"],
                "qid": row["qid"],
                "question": row.get("question", ""),
                "gold": gold_list(row.get("gold", [])),
                "answer": clipped(row.get("answer", "")),
                "stage": row.get("failed_stage") or "error",
                "reason": row.get("failure") or row.get("error"),
            }
            for row in misses
        ]
    )
