"""What a graph view hands to `network_frame`: nodes, edges, the KG neighbourhoods a click shows,
and the sections (collapsible groups, e.g. one per ego-graph or match) the nodes may belong to."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

SECTION_STYLE = {
    "shape": "box",
    "color": {"background": "#ffffff", "border": "#555555"},
    "font": {"face": "monospace"},
}


@dataclass(frozen=True)
class VisNode:
    """A drawn node: its id, its (data) label and tooltip, vis-network style options, the column
    it stands in when the view gives one (`level`), and the key of its `Section` ('' for none)."""

    id: str
    label: str
    title: str = ""
    style: Mapping[str, Any] = field(default_factory=dict)
    level: int | None = None
    section: str = ""


@dataclass(frozen=True)
class VisEdge:
    """A directed edge between node ids, with a (data) label, tooltip and style; a `score` in
    [0, 1] puts the graph's edges under a score filter. An edge not `opening` is hidden until the
    page's "show all" control reveals it (with the nodes only it reaches)."""

    source: str
    target: str
    label: str = ""
    title: str = ""
    style: Mapping[str, Any] = field(default_factory=dict)
    score: float | None = None
    opening: bool = True


@dataclass(frozen=True)
class Neighbourhood:
    """What clicking a drawn node adds to its graph (another click takes it away): `nodes` and
    the `edges` joining them to it, and how many more the cap left out."""

    nodes: tuple[VisNode, ...]
    edges: tuple[VisEdge, ...]
    more: int = 0


@dataclass(frozen=True)
class Section:
    """A group of nodes laid out apart under a header box `label` (hover: `title`), shown or
    hidden by a checkbox of the page; `open` when the page opens."""

    key: str
    label: str
    title: str = ""
    open: bool = True

    @property
    def header_id(self) -> str:
        return f"section:{self.key}"

    def header(self) -> VisNode:
        """The box heading the section."""
        title = self.title or self.label
        return VisNode(self.header_id, self.label, title, SECTION_STYLE, None, self.key)


def prefixed(key: str) -> Callable[[str], str]:
    """Node ids of one section: an entity's name under the section's `key`, so that an entity
    drawn in several sections is a node in each."""
    return lambda name: f"{key}:{name}"
