"""SimGRAG's own stage for error attribution: a pattern that visibly cannot lead to the answer."""

from __future__ import annotations

from kgviz.datasets.base import QARecord
from kgviz.reasoners.simgrag.records import PATTERN, POOLS, SEARCH, SUBGRAPHS, SearchRecord
from kgviz.trace import Trace


def pattern_problem(trace: Trace, record: QARecord) -> tuple[str, str] | None:
    """`("pattern", why)` when the recorded query pattern cannot lead to the answer: no pattern,
    a topic entity missing from every candidate pool, fewer pattern triples than hops, or a
    shape no KG subgraph has (a search that ran to its end and matched nothing)."""
    if PATTERN not in trace.stages:
        return None
    pattern = trace.stages[PATTERN]
    if pattern is None:
        return PATTERN, "no usable pattern"
    pools = trace.stages.get(POOLS)
    missing = [name for name, found in getattr(pools, "topic_in_pools", {}).items() if not found]
    if missing:
        return PATTERN, f"topic entity not in any candidate pool: {', '.join(missing)}"
    if record.hops and len(pattern.edges) < record.hops:
        return PATTERN, f"{len(pattern.edges)} pattern triple(s) for a {record.hops}-hop question"
    if _searched_to_the_end(trace.stages.get(SEARCH)) and not trace.stages.get(SUBGRAPHS):
        shape = "; ".join(" → ".join(triple) for triple in pattern.triples())
        return PATTERN, f"no KG subgraph has the pattern's shape ({shape})"
    return None


def _searched_to_the_end(search: SearchRecord | None) -> bool:
    """Whether every component's search ran to its end (no budget or time limit stopped it)."""
    return search is not None and all(part.status == "complete" for part in search.components)
