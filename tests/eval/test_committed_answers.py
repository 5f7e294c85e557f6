"""Scores of hand-written replies: hits@1 on the committed answers, with hit, named, committed
and truncated beside it. The replies go through SubgraphRAG's real `ans:` extraction and the real
row builder; only the replies themselves are written by hand."""

import pytest

from kgviz.datasets.base import QARecord
from kgviz.eval.rescore import rescore_rows
from kgviz.eval.rows import result_row
from kgviz.eval.summary import summarize
from kgviz.reasoners.answers import listed_names, stated_items
from kgviz.reasoners.llm_only.reasoner import LLMOnly
from kgviz.reasoners.subgraphrag.prompt import committed_answers
from kgviz.reasoners.subgraphrag.reasoner import SubgraphRAG
from kgviz.runs.run import judged_run
from kgviz.scoring.metrics import score_answers
from kgviz.trace import LLMCall, Trace

EVIDENCE = [
    ("Forrest Gump", "directed_by", "Robert Zemeckis"),
    ("Forrest Gump", "starred_actors", "Tom Hanks"),
    ("Apollo 13", "directed_by", "Ron Howard"),
    ("Apollo 13", "starred_actors", "Tom Hanks"),
    ("The Champ", "starred_actors", "Jon Voight"),
]
RECORD = QARecord(
    "who directed the films Tom Hanks acted in",
    ("Robert Zemeckis", "The Champ"),
    ("Tom Hanks",),
    hops=2,
    qid="q1",
)
LOOPING = "The films are " + "The Champ, " * 40


def row_for(reply: str, truncated: bool = False) -> dict:
    """The eval row of a SubgraphRAG run whose one reply was `reply`."""
    trace = Trace(
        method="subgraphrag",
        question=RECORD.question,
        answer=reply,
        answers=committed_answers(reply, EVIDENCE, RECORD.topic_entities),
        evidence=list(EVIDENCE),
    )
    trace.llm_calls.append(
        LLMCall(
            "generation",
            [],
            reply,
            900,
            384 if truncated else 40,
            9.0,
            "llamacpp",
            "qwen2.5-coder-1.5b",
            truncated=truncated,
        )
    )
    return result_row(judged_run(trace, RECORD))


@pytest.mark.parametrize(
    "reply, truncated, expected",
    [
        # a looping reply cut at the token cap names a gold answer by accident, and commits to
        # nothing
        (LOOPING, True, {"hit1": False, "hit": False, "named": True, "committed": False}),
        # the gold answer named only as a rejected option
        (
            "It was not Robert Zemeckis: the triples show Ron Howard.\nans: Ron Howard",
            False,
            {"hit1": False, "hit": False, "named": True, "committed": True},
        ),
        # the gold answer listed second
        (
            "Two directors.\nans: Ron Howard\nans: Robert Zemeckis",
            False,
            {"hit1": False, "hit": True, "named": True, "committed": True},
        ),
        # "No answer found" with the answer in the explanation
        (
            (
                "No answer found. The director is Robert Zemeckis (Forrest Gump, directed by, "
                "Robert Zemeckis)."
            ),
            False,
            {"hit1": False, "hit": False, "named": True, "committed": False},
        ),
        # an `ans:`-formatted reply
        (
            "Tom Hanks acted in Forrest Gump, directed by Robert Zemeckis.\nans: Robert Zemeckis",
            False,
            {"hit1": True, "hit": True, "named": True, "committed": True},
        ),
    ],
)
def test_hand_written_replies(reply, truncated, expected):
    row = row_for(reply, truncated)
    assert {key: row[key] for key in expected} == expected
    assert row["truncated"] is truncated
    assert row["hit1"] == (bool(row["answers"]) and row["answers"][0] in RECORD.answers)


def test_a_miss_says_how_the_reply_missed():
    assert "committing" in row_for(LOOPING, truncated=True)["failure"]
    assert "wrong answer first" in row_for("ans: Ron Howard\nans: Robert Zemeckis")["failure"]
    assert row_for("ans: Robert Zemeckis")["failed_stage"] is None


def test_precision_recall_and_case():
    score = score_answers(
        "ans: robert zemeckis, Ron Howard", ["robert zemeckis", "Ron Howard"], ["Robert Zemeckis"]
    )
    assert score.hit1 and (score.precision, score.recall) == (0.5, 1.0)


def test_summary_rates():
    rows = [
        row_for(LOOPING, truncated=True),
        row_for("ans: Robert Zemeckis"),
        row_for("ans: Ron Howard\nans: Robert Zemeckis"),
    ]
    summary = summarize(rows)
    assert summary["hits@1"] == pytest.approx(1 / 3, abs=1e-4) and summary["hit"] == pytest.approx(
        2 / 3, abs=1e-4
    )
    assert summary["named"] == 1.0 and summary["no_answer"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["truncated"] == pytest.approx(1 / 3, abs=1e-4)


class Names:
    """The KG names of EVIDENCE plus a film called Unknown (MetaQA has one), looked up exactly."""

    names = {name for head, _, tail in EVIDENCE for name in (head, tail)} | {"Unknown", "1994"}

    def canonical(self, text: str) -> str | None:
        return text if text in self.names else None


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Tom Hanks", ["Tom Hanks"]),  # the topic entity: a wrong, committed answer
        ("1994", ["1994"]),  # a KG entity outside the evidence
        ("- Ron Howard\n- Tom Hanks", ["Ron Howard", "Tom Hanks"]),
        ("Unknown", []),
        ("None", []),
        ("N/A.", []),  # refusals, though a film is called Unknown
        ("The director is Ron Howard.", []),  # prose is not a list
    ],
)
def test_the_last_resort_reads_only_list_like_replies(reply, expected):
    assert listed_names(reply, Names()) == expected


def test_subgraphrag_lists_only_its_ans_lines():
    assert SubgraphRAG.listed_answers("Tom Hanks\nans: Tom Hanks", Names()) == ["Tom Hanks"]
    assert SubgraphRAG.listed_answers("Tom Hanks\nans: not available", Names()) == []


def test_rescore_applies_the_last_resort_to_rows_that_committed_to_nothing():
    uncommitted = {**row_for("Robert Zemeckis, Ron Howard"), "method": "kaping"}
    uncommitted["answers"] = []
    names = {RECORD.qid: Names()}
    rescored = rescore_rows([uncommitted], {RECORD.qid: RECORD.answers}, names)[0]
    assert rescored["answers"] == ["Robert Zemeckis", "Ron Howard"]
    assert rescored["committed"] and rescored["hit1"] and rescored["failed_stage"] is None
    without_names = rescore_rows([uncommitted], {RECORD.qid: RECORD.answers})[0]
    assert not without_names["committed"] and without_names["answers"] == []


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("J.K. Rowling", ["J.K. Rowling"]),  # a name the KG does not hold
        ("2017.", ["2017"]),  # a year, not a numbered bullet
        ("The Last Summer, The Last Summer", ["The Last Summer"]),
        ("1. Kim Tae-ho\n2. Lee Sang-ho (actor)", ["Kim Tae-ho", "Lee Sang-ho"]),
        ('Films include "Heat" (1995), "Ronin" (1998)', ["Heat", "Ronin"]),  # quoted titles
        ("The actor in Between Your Legs also appears in many other films", []),
        ("Heat (1995) (film), heat, HEAT", ["Heat"]),  # every aside dropped, case-blind repeats
        ("“Heat” (1995)", ["Heat"]),
        ("Answer: Heat", ["Heat"]),
        ("None", []),
        ("N/A.", []),
        ("Unknown.", []),
        # hedges and refusals state nothing, even beside a guess or split by commas
        ("I don't know.", []),
        ("Sorry, not sure", []),
        ("I'm not sure, but I think it's J.K. Rowling.", []),
        ("The answer is N/A", []),
        ("N/A, N/A", []),
        ("There is no such film", []),
        # a line with a piece of prose states nothing, though its other pieces are short
        ("The actor also appears in many films of that decade, Heat, Ronin", []),
    ],
)
def test_stated_items_are_the_short_pieces_of_a_list_like_reply(reply, expected):
    assert stated_items(reply) == expected


def test_llm_only_commits_to_names_outside_the_kg_only_when_it_lists_no_kg_name():
    assert LLMOnly.listed_answers("J.K. Rowling", Names()) == ["J.K. Rowling"]
    assert LLMOnly.listed_answers("J.K. Rowling, Tom Hanks", Names()) == ["Tom Hanks"]
    assert LLMOnly.listed_answers("Unknown", Names()) == []
    # an item the KG holds, which the list rule missed for its aside, is given its KG name
    assert LLMOnly.listed_answers('"tom hanks" (1956)', CaseBlindNames()) == ["Tom Hanks"]


class CaseBlindNames(Names):
    """`Names`, matched case-insensitively (as the KG's normalised lookup does)."""

    def canonical(self, text: str) -> str | None:
        return next((name for name in self.names if name.casefold() == text.casefold()), None)


def test_rescore_counts_an_llm_only_answer_outside_the_kg_as_committed_and_wrong():
    row = {**row_for("J.K. Rowling"), "method": "llm-only", "answers": []}
    rescored = rescore_rows([row], {RECORD.qid: RECORD.answers}, {RECORD.qid: Names()})[0]
    assert rescored["answers"] == ["J.K. Rowling"]
    assert rescored["committed"] and not rescored["hit1"] and not rescored["named"]
    assert rescored["failed_stage"] == "generation"
