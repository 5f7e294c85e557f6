"""SimGRAG's options (a light module: listing methods imports no model code)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kgviz.errors import OptionError
from kgviz.reasoners.base import (
    Bounds,
    ListAnsweringConfig,
    option,
)
from kgviz.reasoners.simgrag import prompts

Algorithm = Literal["optimized", "algorithm1"]
AnswerFormat = Literal["json", "paper"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = ("json", "paper")
ALGORITHMS: tuple[Algorithm, ...] = ("optimized", "algorithm1")
TASKS: tuple[prompts.Task, ...] = ("qa", "verify")
POOL_SIZES: Bounds = (1, 4096)  # candidates per pattern node or relation
VOCABULARY_RELATIONS = 100  # most KG relations a pattern's relation is constrained to


@dataclass
class SimGRAGConfig(ListAnsweringConfig):
    """k subgraphs; pool sizes k(n), k(r); pattern size cap; search budget; prompt task;
    `relation_hint`, `relation_vocabulary`, `reask_lost_topics`, `pattern_checks` and
    `own_knowledge` are kgviz's additions (the `paper` preset turns them off)."""

    k: int = option(3, "subgraphs retrieved: the top k by graph semantic distance", range=(1, 100))
    k_nodes: int = option(
        16, "candidates per pattern node, by vector search: k(n)", range=POOL_SIZES
    )
    k_relations: int = option(
        16, "candidates per pattern relation, by vector search: k(r)", range=POOL_SIZES
    )
    max_triples: int = option(6, "most triples a pattern may have", range=(1, 20))
    max_expansions: int = option(
        200_000,
        "search budget: most partial matches expanded per question",
        range=(1, 100_000_000),
    )
    time_limit_s: float = option(
        10.0, "search time limit per question, in seconds", range=(0.01, 3600)
    )
    record_tree: bool = option(False, "record the search tree for its view (slower)")
    max_tree_nodes: int = option(5000, "most search-tree nodes recorded", range=(1, 1_000_000))
    algorithm: Algorithm = option(
        "optimized", "optimized (pruned) search, or the paper's Algorithm 1"
    )
    task: prompts.Task = option("qa", "qa: answer the question; verify: judge a claim")
    relation_hint: bool = option(
        True,
        "name the KG family's relations in the pattern prompt (not in the paper)",
    )
    relation_vocabulary: bool = option(
        False,
        "the pattern's relations are constrained to the KG's relation names (or UNKNOWN "
        f"relation n) when it has at most {VOCABULARY_RELATIONS}, so the LLM cannot write a "
        "relation the KG lacks (not in the paper; off, a written relation meets the KG's in "
        "its candidate pool)",
    )
    reask_lost_topics: bool = option(
        True,
        "re-ask once, naming the topic entity, a pattern with no node for it (not in the "
        "paper; it feeds the dataset's topic entity to a method meant to need none)",
    )
    pattern_phrases: bool = option(
        True,
        "the pattern reply splits the question into phrases before its triples, as in the "
        "paper; off, it writes the triples alone, about half the tokens",
    )
    pattern_checks: bool = option(
        True,
        "check the pattern against the question (not in the paper): a named node the question "
        "does not name is re-asked like a malformation, the re-ask restates the question, "
        "of several triples between the same two UNKNOWN nodes only the last is searched, and "
        "a self-loop on an UNKNOWN node that restates a kept triple there (same relation) is "
        "dropped without a re-ask",
    )
    own_knowledge: bool = option(
        True,
        "the answer prompt adds 'if no graph fits, answer from your own knowledge' (not in the "
        "paper)",
    )

    answer_format: AnswerFormat = option(
        "json",
        "json: kgviz's answer prompt (2 examples, a JSON reply; with answer_list, the list of "
        "answers alone); paper: the paper's (12 examples of the dataset's family, a free-text "
        "answer citing its graphs, the evidence entities it names as answers)",
    )

    def __post_init__(self) -> None:
        if self.answer_format not in ANSWER_FORMATS:
            raise OptionError(f"simgrag: answer_format must be one of {', '.join(ANSWER_FORMATS)}")
        if self.answer_format == "paper" and self.task != "qa":
            raise OptionError("simgrag: answer_format=paper has the qa task's prompt only")
        if self.algorithm not in ALGORITHMS:
            raise OptionError(f"simgrag: algorithm must be one of {', '.join(ALGORITHMS)}")
        if self.task not in TASKS:
            raise OptionError(f"simgrag: task must be one of {', '.join(TASKS)}")
