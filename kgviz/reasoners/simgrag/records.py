"""SimGRAG's trace records and the names of its stages (views and attribution use these)."""

from __future__ import annotations

from dataclasses import dataclass, field

from kgviz.reasoners.simgrag.search_tree import SearchTree

PATTERN = "pattern"  # QueryPattern | None
POOLS = "pools"  # PatternPools
SEARCH = "search"  # SearchRecord
SUBGRAPHS = "subgraphs"  # list[Subgraph]
GENERATION = "generation"  # SimGRAGGeneration


@dataclass
class ComponentSearch:
    """How the search of one pattern component went (`component` indexes the searched ones)."""

    component: int
    pattern_nodes: tuple[int, ...]
    pattern_edges: tuple[int, ...]
    status: str
    expanded: int
    pruned: int
    elapsed_s: float
    matches: int
    tree: SearchTree | None = None


@dataclass
class SearchRecord:
    """The search stage: its algorithm, the matches asked of each component (`width`: k, or
    more when a disconnected pattern's joint top-k needed longer lists) and each search."""

    algorithm: str
    width: int
    components: list[ComponentSearch] = field(default_factory=list)


@dataclass
class SimGRAGGeneration:
    """The answer step: the LLM's reason and answer list (qa) or verdict (verify)."""

    task: str
    reason: str = ""
    answer: list[str] = field(default_factory=list)
    verdict: str = ""
    raw: str = ""
