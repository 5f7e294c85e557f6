"""Colours shared by the views, so a pattern element keeps its colour from pattern to subgraph and
scores (probabilities, gates) read the same in every view. The element palettes hold no grey: grey
means unknown, unused or merely neighbouring, never a named element."""

from __future__ import annotations

from plotly.colors import sample_colorscale

NODE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf")
RELATION_COLOURS = ("#d62728", "#bcbd22", "#7b4173", "#393b79", "#637939", "#8c6d31", "#843c39")
UNUSED = "#c7c7c7"  # UNKNOWN pattern elements, candidates no subgraph used, pruned edges
ANSWER = "#d62728"
EVIDENCE = "#97c2fc"
TOPIC = "#525252"
KG_NEIGHBOUR = "#e3e3e3"  # entities shown from the KG, not retrieved
TRIPLE = "#6f8aa6"  # an evidence triple without a score
CITED = "#d95f02"  # an evidence triple a committed answer rests on


def node_colour(index: int) -> str:
    """The colour of pattern node `index`."""
    return NODE_COLOURS[index % len(NODE_COLOURS)]


def relation_colour(index: int) -> str:
    """The colour of pattern edge (relation) `index`."""
    return RELATION_COLOURS[index % len(RELATION_COLOURS)]


def score_colour(score: float) -> str:
    """A score in [0, 1] (a probability or gate) on one blue scale, light to dark."""
    return sample_colorscale("Blues", 0.25 + 0.75 * max(0.0, min(1.0, score)))[0]


def score_key(name: str) -> list[tuple[str, str]]:
    """Legend items for the ends of the score scale of `name`."""
    return [(f"{name} 0", score_colour(0.0)), (f"{name} 1", score_colour(1.0))]
