"""Colours shared by the views, so a pattern element keeps its colour from pattern to subgraph."""

from __future__ import annotations

NODE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
RELATION_COLOURS = ("#d62728", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#8c6d31", "#843c39")
UNUSED = "#c7c7c7"
ANSWER = "#d62728"
EVIDENCE = "#97c2fc"


def node_colour(index: int) -> str:
    """The colour of pattern node `index`."""
    return NODE_COLOURS[index % len(NODE_COLOURS)]


def relation_colour(index: int) -> str:
    """The colour of pattern edge (relation) `index`."""
    return RELATION_COLOURS[index % len(RELATION_COLOURS)]
