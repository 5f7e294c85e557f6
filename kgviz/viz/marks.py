"""Gold answers and topic entities, marked the same way in every view that draws entities.

A trace knows its question's gold answers when the question came with them (an example in the
lab, an evaluation row: `Trace.gold`) and its topic entities once linking ran. Graph nodes of a
gold answer get a thick gold border and "gold answer" on hover; topic entities a dark border;
plotly charts star a gold answer's label."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kgviz.reasoners.linking import LINKING
from kgviz.scoring.metrics import answer_key
from kgviz.trace import Trace

GOLD = "#e6a700"
TOPIC_BORDER = "#252525"
STAR = "★ "


@dataclass(frozen=True)
class Marks:
    """The names to mark: gold answers and topic entities (compared as answers are)."""

    gold: frozenset[str] = frozenset()
    topics: frozenset[str] = frozenset()

    @classmethod
    def of(cls, trace: Trace) -> Marks:
        """The trace's gold answers, and its topic entities: those linking found, else those
        the run was given (SimGRAG takes them without a linking stage)."""
        linking = trace.stages.get(LINKING)
        topics = linking.names if linking is not None else trace.topics
        return cls.from_names(trace.gold, topics)

    @classmethod
    def from_names(cls, gold: Iterable[str] = (), topics: Iterable[str] = ()) -> Marks:
        return cls(frozenset(map(answer_key, gold)), frozenset(map(answer_key, topics)))

    def is_gold(self, name: str) -> bool:
        return answer_key(name) in self.gold

    def is_topic(self, name: str) -> bool:
        return answer_key(name) in self.topics

    def role(self, name: str) -> str:
        """`gold answer`, `topic entity` or '' for the hover text of `name`."""
        return (
            "gold answer" if self.is_gold(name) else "topic entity" if self.is_topic(name) else ""
        )

    def star(self, name: str) -> str:
        """A plotly label: `★ name` for a gold answer, else the name."""
        return STAR + name if self.is_gold(name) else name

    def vis_style(self, name: str, style: Mapping[str, Any]) -> dict[str, Any]:
        """`style` of a vis-network node named `name`, with its role's border."""
        border = GOLD if self.is_gold(name) else TOPIC_BORDER if self.is_topic(name) else None
        if border is None:
            return dict(style)
        colour = style.get("color")
        background = colour.get("background") if isinstance(colour, Mapping) else colour
        return {
            **style,
            "borderWidth": 4,
            "color": {
                "background": background or "#97c2fc",
                "border": border,
                "highlight": {"background": background or "#97c2fc", "border": border},
            },
        }

    def legend_items(self, names: Iterable[str]) -> list[tuple[str, str]]:
        """The legend entries of the roles that `names` hold."""
        names = list(names)
        return [
            (label, colour)
            for label, colour, present in (
                ("gold answer (gold border)", GOLD, any(map(self.is_gold, names))),
                ("topic entity (dark border)", TOPIC_BORDER, any(map(self.is_topic, names))),
            )
            if present
        ]
