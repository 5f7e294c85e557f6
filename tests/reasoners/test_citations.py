"""Cited against consulted evidence, on hand-built traces: the rule (shortest evidence paths
from the nearest topic entity) and where it shows (trace JSON, answer box, the citations tab's
evidence graph)."""

from __future__ import annotations

import json

from kgviz.reasoners.citations import cite, record_citations
from kgviz.runs.run import judged_run
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.answer_view import answer_html
from tests.viz.graph_pages import vis_data

HANKS_FILMS = [
    ("Forrest Gump", "starred_actors", "Tom Hanks"),
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),
    ("Forrest Gump", "written_by", "Eric Roth"),
    ("Cast Away", "starred_actors", "Tom Hanks"),
    ("Cast Away", "directed_by", "Robert Zemeckis"),
    ("Big", "starred_actors", "Tom Hanks"),
    ("Big", "directed_by", "Penny Marshall"),
    ("Heat", "directed_by", "Michael Mann"),  # consulted: no path from Tom Hanks
]


def trace_of(answers: list[str], answer: str = "", topics=("Tom Hanks",)) -> Trace:
    trace = Trace(method="kaping", question="who directed the films Tom Hanks acted in")
    trace.evidence, trace.answers, trace.topics = list(HANKS_FILMS), answers, list(topics)
    trace.answer = answer or json.dumps({"answers": answers})
    return trace


def test_an_answer_cites_every_shortest_path_from_the_topic_and_nothing_else():
    citations = cite(trace_of(["Robert Zemeckis", "Penny Marshall"]))
    zemeckis, marshall = citations.answers
    assert zemeckis.linked and set(zemeckis.triples) == {
        HANKS_FILMS[0],
        HANKS_FILMS[1],
        HANKS_FILMS[3],
        HANKS_FILMS[4],
    }
    assert set(marshall.triples) == {HANKS_FILMS[5], HANKS_FILMS[6]}
    assert HANKS_FILMS[2] not in citations.cited() and HANKS_FILMS[7] not in citations.cited()
    assert citations.sentences == ()  # a JSON reply: its answers are cited apart


def test_an_answer_off_the_topics_paths_is_marked_not_linked_and_unknown_ones_skipped():
    citations = cite(trace_of(["Michael Mann", "Steven Spielberg"]))
    (mann,) = citations.answers  # Spielberg is not in the evidence: nothing to cite
    assert not mann.linked and mann.triples == (HANKS_FILMS[7],)
    no_topics = cite(trace_of(["Robert Zemeckis"], topics=()))
    assert not no_topics.answers[0].linked
    assert set(no_topics.answers[0].triples) == {HANKS_FILMS[1], HANKS_FILMS[4]}


def test_each_sentence_of_a_free_text_reply_links_to_the_triples_it_names():
    reply = (
        "Tom Hanks starred in Forrest Gump, which Robert Zemeckis directed. "
        "He also made Big.\nHeat is unrelated."
    )
    citations = cite(trace_of(["Robert Zemeckis"], answer=reply))
    first, big, heat = citations.sentences
    assert set(first.triples) == {HANKS_FILMS[0], HANKS_FILMS[1]}  # both ends named
    assert big.triples == (HANKS_FILMS[5], HANKS_FILMS[6])  # one end named: Big's triples
    assert heat.triples == (HANKS_FILMS[7],)


def test_cited_triples_reach_the_trace_json_the_answer_box_and_the_graph():
    trace = trace_of(["Penny Marshall"])
    record_citations(trace)
    cited = [list(t) for t in (HANKS_FILMS[5], HANKS_FILMS[6])]
    assert trace.to_json()["cited"] == cited
    box = answer_html(judged_run(trace))
    assert 'class="kgviz-cited"' in box and "2 triples cited of 8 evidence triples" in box
    assert "<b>Penny Marshall</b> ← (Big, starred_actors, Tom Hanks)" in box
    tab = stage_views(trace)["citations"]  # the evidence graph, cited apart from consulted
    _, edges = vis_data(tab)
    marked = [e for e in edges if e["title"].endswith("cited: a committed answer rests on it")]
    assert len(marked) == 2 and len(edges) == len(HANKS_FILMS) and "consulted triple" in tab
    assert "<td" in tab and "Penny Marshall" in tab  # and the table of each answer's triples
    plain = stage_views(trace)["evidence"]  # the other views keep their look during a run
    assert "cited: a committed answer" not in plain
