"""Error attribution of misses: pattern, retrieval or generation, on hand-built SimGRAG traces."""

from kgviz.datasets.base import QARecord
from kgviz.eval.summary import summarize
from kgviz.reasoners.answers import mentioned_entities
from kgviz.reasoners.grounding import GroundedMention, Grounding
from kgviz.reasoners.simgrag.pools import PatternPools
from kgviz.reasoners.simgrag.query_pattern import PatternEdge, PatternNode, QueryPattern
from kgviz.reasoners.simgrag.records import ComponentSearch, SearchRecord
from kgviz.scoring.attribution import failed_stage
from kgviz.trace import LLMCall, Trace

RECORD = QARecord(
    "who directed the movies that Tom Hanks acted in", ("Robert Zemeckis",), ("Tom Hanks",), hops=2
)
TWO_HOPS = QueryPattern(
    ["Tom Hanks", "acted in", "directed by"],
    [
        PatternNode("Tom Hanks", False),
        PatternNode("UNKNOWN movie 1", True, "movie"),
        PatternNode("UNKNOWN person 1", True, "person"),
    ],
    [PatternEdge(1, 0, "starred actors", False), PatternEdge(1, 2, "directed by", False)],
)
EVIDENCE = [
    ("Forrest Gump", "starred_actors", "Tom Hanks"),
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),
]


def simgrag_trace(
    answer: str, pattern=TWO_HOPS, topic_found=True, evidence=EVIDENCE, answers=None
) -> Trace:
    """A hand-built trace whose committed answers are the evidence entities `answer` names."""
    names = {name for h, _, t in evidence for name in (h, t)} - {"Tom Hanks"}
    committed = mentioned_entities(answer, names) if answers is None else answers
    trace = Trace(
        method="simgrag",
        question=RECORD.question,
        answer=answer,
        answers=committed,
        evidence=list(evidence),
    )
    trace.record("pattern", pattern)
    trace.record("pools", PatternPools([], [], {"Tom Hanks": topic_found}))
    return trace


def test_a_hit_has_no_failed_stage():
    assert failed_stage(simgrag_trace("Robert Zemeckis directed them."), RECORD) == (None, "")


def test_pattern_failures():
    assert failed_stage(simgrag_trace("unknown", pattern=None), RECORD)[0] == "pattern"
    stage, reason = failed_stage(simgrag_trace("unknown", topic_found=False), RECORD)
    assert stage == "pattern" and "Tom Hanks" in reason
    one_hop = QueryPattern([], TWO_HOPS.nodes[:2], TWO_HOPS.edges[:1])
    stage, reason = failed_stage(simgrag_trace("unknown", pattern=one_hop), RECORD)
    assert stage == "pattern" and "1 pattern triple(s) for a 2-hop question" in reason


def test_retrieval_and_generation_failures():
    assert (
        failed_stage(simgrag_trace("Ron Howard", evidence=EVIDENCE[:1]), RECORD)[0] == "retrieval"
    )
    assert failed_stage(simgrag_trace("Ron Howard"), RECORD)[0] == "generation"
    kaping = Trace(method="kaping", question=RECORD.question, answer="Ron Howard", evidence=[])
    assert failed_stage(kaping, RECORD)[0] == "retrieval"  # no pattern stage: never "pattern"


def test_generation_misses_say_how_the_reply_missed():
    stage, reason = failed_stage(simgrag_trace("Forrest Gump, then Robert Zemeckis"), RECORD)
    assert stage == "generation" and "wrong answer first and a gold one later" in reason
    stage, reason = failed_stage(simgrag_trace("Not Robert Zemeckis.", answers=[]), RECORD)
    assert stage == "generation" and "committed to no answer" in reason
    named = simgrag_trace("Not Robert Zemeckis but Forrest Gump", answers=["Forrest Gump"])
    assert "named a gold answer without committing to it" in failed_stage(named, RECORD)[1]


def test_a_reply_cut_at_its_token_limit_is_named():
    trace = simgrag_trace("Forrest Gump was directed by, directed by, directed by", answers=[])
    trace.llm_calls.append(
        LLMCall("generation", [], trace.answer, 900, 384, 30.0, "llamacpp", "m", truncated=True)
    )
    stage, reason = failed_stage(trace, RECORD)
    assert stage == "generation" and "token limit" in reason


def test_summary_counts_failed_stages():
    rows = [
        {
            "method": "simgrag",
            "hops": 2,
            "hit1": False,
            "f1": 0.0,
            "evidence_recall": False,
            "evidence_size": 0,
            "prompt_tokens": 0,
            "error": None,
            "failed_stage": stage,
        }
        for stage in ("pattern", "pattern", "generation")
    ]
    assert summarize(rows)["failed_at"] == {
        "grounding": 0,
        "pattern": 2,
        "retrieval": 0,
        "generation": 1,
    }


def test_method_without_retrieval_fails_at_generation():
    trace = Trace(method="llm-only", question=RECORD.question, answer="Ron Howard", evidence=[])
    stage, reason = failed_stage(trace, RECORD, retrieves=False)
    assert stage == "generation" and "without retrieval" in reason


def test_a_search_that_matched_nothing_is_blamed_on_the_pattern():
    reversed_edge = QueryPattern(
        [],
        TWO_HOPS.nodes,
        [PatternEdge(0, 1, "starred actors", False), PatternEdge(1, 2, "directed by", False)],
    )
    trace = simgrag_trace("unknown", pattern=reversed_edge, evidence=[])
    trace.record("search", SearchRecord("optimized", 3, [complete_search()]))
    trace.record("subgraphs", [])
    stage, reason = failed_stage(trace, RECORD)
    assert stage == "pattern" and "no KG subgraph has the pattern's shape" in reason
    trace.stages["search"].components[0].status = "time_limit"  # stopped: retrieval's, not shape
    assert failed_stage(trace, RECORD)[0] == "retrieval"


def test_a_miss_on_an_ungrounded_question_is_blamed_on_grounding():
    trace = simgrag_trace("Ron Howard", evidence=EVIDENCE[:1])
    absent = GroundedMention("Zorblax", "Tom Hanks", "vector", 1.1, False, "name")
    trace.record("grounding", Grounding([absent]))
    stage, reason = failed_stage(trace, RECORD)
    assert stage == "grounding" and "'Zorblax' is not in this KG; nearest: Tom Hanks" in reason


def complete_search() -> ComponentSearch:
    return ComponentSearch(0, (0, 1, 2), (0, 1), "complete", 12, 3, 0.001, 0)


def test_a_regenerated_run_whose_edit_removed_the_gold_fails_at_the_edit():
    from kgviz.runs.run import EvidenceEdit

    trace = simgrag_trace("Ron Howard", evidence=EVIDENCE[:1], answers=["Ron Howard"])
    trace.record("edit", EvidenceEdit(dropped=(EVIDENCE[1],)))
    stage, reason = failed_stage(trace, RECORD)
    assert stage == "edit" and "removed from the evidence" in reason
    trace.stages["edit"] = EvidenceEdit(dropped=(EVIDENCE[0],))  # the gold was never there
    assert failed_stage(trace, RECORD)[0] != "edit"
