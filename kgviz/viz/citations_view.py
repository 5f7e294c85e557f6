"""Cited and consulted evidence: each committed answer with the triples it rests on, each
sentence of a free-text reply with the triples it speaks of, and the count of the rest."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.citations import Citations
from kgviz.trace import StringTriple, Trace
from kgviz.viz.escape import esc
from kgviz.viz.evidence_view import CITED_MARK, evidence_graph
from kgviz.viz.marks import Marks
from kgviz.viz.palette import CITED
from kgviz.viz.wording import counted

CELL = "padding:2px 10px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top"


def triple_text(triple: StringTriple) -> str:
    return "({}, {}, {})".format(*triple)


def cited_summary(citations: Citations, evidence: int) -> str:
    """One line: how many of the evidence triples are cited, the rest consulted."""
    cited = len(citations.cited())
    return (
        f"{counted(cited, 'triple')} cited of {counted(evidence, 'evidence triple')}; "
        f"{evidence - cited} consulted only"
    )


def cited_lines(citations: Citations, evidence: int) -> str:
    """HTML for the answer box: each committed answer ← its triples, then the summary."""
    lines = []
    for support in citations.answers:
        how = "" if support.linked else " <i>(names it; not linked to a topic entity)</i>"
        triples = " · ".join(esc(triple_text(t)) for t in support.triples) or "(none)"
        lines.append(
            f'<br><span style="color:{CITED}">■</span> <b>{esc(support.answer)}</b> ← '
            f"{triples}{how}"
        )
    summary = esc(cited_summary(citations, evidence))
    return (
        f'<div class="kgviz-cited" style="font-size:13px"><b>cited</b>: {summary}'
        f"{''.join(lines)}</div>"
    )


def citations_html(citations: Citations, trace: Trace, kg: KnowledgeGraph | None = None) -> str:
    """The citations stage: the evidence graph with the cited triples drawn apart from the
    consulted ones, a table of each answer's support, then each sentence's. (The stage views
    drawn while the run went on keep their look: a graph zoomed then stays as it is.)"""
    cited = {triple: CITED_MARK for triple in citations.cited()}
    graph = evidence_graph(
        trace.evidence, trace.answers, marks=Marks.of(trace), kg=kg, edge_marks=cited
    )
    how = {True: "path from a topic entity", False: "names it"}
    answers = [(esc(s.answer), triples_cell(s.triples), how[s.linked]) for s in citations.answers]
    intro = (
        f"<p>{esc(cited_summary(citations, len(trace.evidence)))}. A committed answer cites "
        "the shortest evidence paths from the nearest topic entity to it.</p>"
    )
    empty = ("(no committed answer in the evidence)", "", "")
    parts = [intro, table(("answer", "cited triples", "how"), answers or [empty])]
    if citations.sentences:
        sentences = [(esc(s.sentence), triples_cell(s.triples)) for s in citations.sentences]
        parts.append(table(("sentence", "its triples"), sentences))
    body = "".join(parts)
    return f'{graph}<div class="kgviz-citations" style="font:13px sans-serif">{body}</div>'


def triples_cell(triples: tuple[StringTriple, ...]) -> str:
    return "<br>".join(esc(triple_text(t)) for t in triples)


def table(heads: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table of `rows` (cells that are HTML already) under `heads`."""
    head = "".join(f'<th style="{CELL}">{name}</th>' for name in heads)
    body = "".join(
        "<tr>" + "".join(f'<td style="{CELL}">{cell}</td>' for cell in row) + "</tr>"
        for row in rows
    )
    return f'<table style="border-collapse:collapse;margin-top:8px"><tr>{head}</tr>{body}</table>'
