"""SimGRAG as a Reasoner: pattern (LLM) -> candidate pools -> top-k subgraph search -> answer (LLM).

Stages recorded in the trace: `pattern` (QueryPattern or None), `pools` (PatternPools), `search`
(SearchRecord), `subgraphs` (list[Subgraph]) and `generation` (SimGRAGGeneration), named in
`records`. A missing pattern, no match or a search stopped by its budget is a warning; the LLM
then answers from what was found.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from kgviz.embed.kg_index import relation_text
from kgviz.llm.base import Message
from kgviz.llm.errors import LLMOutputError
from kgviz.reasoners.answers import evidence_entities, mentioned_entities
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.grounding import GROUNDING, note_grounding, question_grounding
from kgviz.reasoners.linking import entity_names
from kgviz.reasoners.llm_calls import ask_json, ask_text
from kgviz.reasoners.prompting import generate_listed_answer, reask_messages
from kgviz.reasoners.simgrag import prompts, subgraphs
from kgviz.reasoners.simgrag.config import VOCABULARY_RELATIONS, SimGRAGConfig
from kgviz.reasoners.simgrag.joint import widened_topk
from kgviz.reasoners.simgrag.paper_answers import paper_answer_messages
from kgviz.reasoners.simgrag.pools import PatternPools, build_pools, pattern_mentions
from kgviz.reasoners.simgrag.query_pattern import (
    Component,
    PatternError,
    QueryPattern,
    merge_unknown_parallels,
    parse_pattern,
    pattern_problems,
)
from kgviz.reasoners.simgrag.records import (
    GENERATION,
    PATTERN,
    POOLS,
    SEARCH,
    SUBGRAPHS,
    ComponentSearch,
    SearchRecord,
    SimGRAGGeneration,
)
from kgviz.reasoners.simgrag.search import SearchResult, algorithm1_topk, optimized_topk
from kgviz.trace import REASK_STAGE, StringTriple, Trace

PATTERN_REASK_STAGE = "pattern_reask"


@dataclass
class SearchBudget:
    """What one question's searches may still spend: expansions, and a monotonic deadline."""

    expansions: int
    deadline: float


class SimGRAG(Reasoner[list[subgraphs.Subgraph]]):
    """Similar-subgraph retrieval by Graph Semantic Distance (Cai et al.), every stage traced."""

    name = "simgrag"
    config_class = SimGRAGConfig
    config: SimGRAGConfig

    def retrieve(
        self, trace: Trace, question: str, topic_entities: tuple[str, ...]
    ) -> list[subgraphs.Subgraph]:
        """Grounding of the question's names (said at once, before any LLM call, when one is
        missing), pattern (an LLM call), candidate pools, grounding of the pattern's named nodes
        (the grounding stage, recorded once), top-k search; the subgraphs found."""
        found: list[subgraphs.Subgraph] = []
        names, on_ungrounded = entity_names(self.context), self.config.on_ungrounded
        grounding = question_grounding(self.context.index, names, question, topic_entities)
        if grounding.missing:  # said (or abstained on) before the pattern's LLM call
            with trace.stage(GROUNDING):
                note_grounding(trace, grounding, on_ungrounded)
        with trace.stage(PATTERN):
            pattern, parts = self._pattern(trace, question, topic_entities)
            trace.record(PATTERN, pattern)
        pools = None
        if pattern is not None:
            with trace.stage(POOLS):
                pools = build_pools(
                    self.context.index,
                    pattern,
                    self.config.k_nodes,
                    self.config.k_relations,
                    topic_entities,
                )
                trace.record(POOLS, pools)
        if GROUNDING not in trace.stages:
            with trace.stage(GROUNDING):
                if pools is not None:
                    grounding.add(pattern_mentions(pools, names))
                note_grounding(trace, grounding, on_ungrounded)
        if pattern is not None and pools is not None:
            with trace.stage(SEARCH):
                found = self._search(trace, pattern, parts, pools)
        trace.record(SUBGRAPHS, found)
        trace.evidence = subgraphs.evidence(found)
        return found

    def generate(self, trace: Trace, question: str, found: list[subgraphs.Subgraph]) -> None:
        graphs = [s.triples for s in found]
        config = self.config
        listed = config.lists_answers(self.context.llm)
        if listed and config.answer_format == "json" and config.task == "qa":
            self._generate_listed(trace, question, graphs)
            return
        with trace.stage(GENERATION):
            self._generate(trace, question, graphs)

    def found_from(self, trace: Trace) -> list[subgraphs.Subgraph]:
        """The recorded subgraphs cut to the evidence, and the triples added to it as one more
        graph (recorded again under `subgraphs`)."""
        found = subgraphs.edited(trace.stages.get(SUBGRAPHS) or [], trace.evidence)
        trace.record(SUBGRAPHS, found)
        return found

    # ----------------------------------------------------------------- stages
    def _pattern(
        self, trace: Trace, question: str, topics: tuple[str, ...]
    ) -> tuple[QueryPattern | None, list[Component]]:
        """The parsed pattern and the components to search; (None, []) with a warning on failure.
        A malformed pattern, or one without a node for a given topic entity, is re-asked once."""
        messages = prompts.pattern_messages(
            self.context.dataset.domain,
            question,
            self.config.relation_hint,
            self.config.pattern_phrases,
        )
        try:
            reply = ask_json(trace, PATTERN, self.context.llm, messages, self._pattern_schema)
            pattern = parse_pattern(reply, self.config.max_triples, self.config.pattern_checks)
        except (LLMOutputError, PatternError) as error:
            trace.warnings.append(f"pattern: {error}; answering without retrieved evidence")
            return None, []
        topics = topics if self.config.reask_lost_topics else ()
        asked = question if self.config.pattern_checks else None
        if pattern_problems(pattern, topics, asked):
            pattern = self._reask_pattern(trace, messages, pattern, topics, asked)
        if self.config.pattern_checks:
            pattern = merge_unknown_parallels(pattern)
        parts = pattern.searchable()
        trace.warnings.extend(f"pattern repaired: {note}" for note in pattern.repairs)
        return pattern, parts

    @cached_property
    def _pattern_schema(self) -> dict:
        """The pattern's JSON schema: bounded, and with the KG's relation names as its relation
        vocabulary when `relation_vocabulary` is on and the KG has few enough of them."""
        relations: tuple[str, ...] = ()
        names = self.context.kg.relations
        if self.config.relation_vocabulary and len(names) <= VOCABULARY_RELATIONS:
            relations = tuple(sorted({relation_text(name) for name in names}))
        return prompts.pattern_schema(
            self.config.max_triples, relations, self.config.pattern_phrases
        )

    def _reask_pattern(
        self,
        trace: Trace,
        messages: list[Message],
        first: QueryPattern,
        topics: tuple[str, ...],
        question: str | None,
    ) -> QueryPattern:
        """One re-ask quoting what is wrong (stage `pattern_reask`), restating the `question`
        when given; the new pattern unless it is worse (more problems, names foreign to the
        `question` counted) or unusable, when the first is repaired instead."""
        problems = pattern_problems(first, topics, question)
        trace.warnings.append("pattern re-asked: " + "; ".join(problems))
        follow_up = reask_messages(
            messages,
            trace.llm_calls[-1].text,
            prompts.pattern_reask(problems, question, self.config.pattern_phrases),
        )
        try:
            reply = ask_json(
                trace,
                PATTERN_REASK_STAGE,
                self.context.llm,
                follow_up,
                self._pattern_schema,
            )
            again = parse_pattern(reply, self.config.max_triples, self.config.pattern_checks)
        except (LLMOutputError, PatternError) as error:
            trace.warnings.append(f"pattern re-ask: {error}; the first pattern is repaired")
            return first
        return again if len(pattern_problems(again, topics, question)) <= len(problems) else first

    def _search(
        self, trace: Trace, pattern: QueryPattern, parts: list[Component], pools: PatternPools
    ) -> list[subgraphs.Subgraph]:
        """The top-k subgraphs within one expansion budget and deadline: of the one component,
        or joined from a match of each (`joint.py`), each component's list widened until the
        joint top-k is exact (`widened_topk`)."""
        budget = SearchBudget(
            self.config.max_expansions, time.monotonic() + self.config.time_limit_s
        )
        results, found, width = widened_topk(
            lambda part, width: self._search_one(parts[part], pools, width, budget),
            len(parts),
            self.config.k,
        )
        self._record_search(trace, parts, results, width)
        if not found:
            trace.warnings.append("search: no KG subgraph matches the pattern")
        kg = self.context.kg
        return subgraphs.ranked(
            [
                subgraphs.joined(
                    [
                        subgraphs.describe(
                            kg, pattern, pools, i, parts[i], results[i].matches[pick]
                        )
                        for i, pick in enumerate(joint.picks)
                    ],
                    joint.gsd,
                )
                for joint in found
            ]
        )

    def _record_search(
        self, trace: Trace, parts: list[Component], results: list[SearchResult], width: int
    ) -> None:
        record = SearchRecord(self.config.algorithm, width)
        for number, (part, result) in enumerate(zip(parts, results)):
            record.components.append(
                ComponentSearch(
                    number,
                    part.nodes,
                    part.edges,
                    result.status,
                    result.expanded,
                    result.pruned,
                    result.elapsed_s,
                    len(result.matches),
                    result.tree,
                )
            )
            if result.status != "complete":
                trace.warnings.append(
                    f"search stopped by its {result.status.replace('_', ' ')} after "
                    f"{result.expanded:,} expansions; using the best {len(result.matches)} "
                    f"match(es) found so far"
                )
        trace.record(SEARCH, record)

    def _search_one(
        self, part: Component, pools: PatternPools, k: int, budget: SearchBudget
    ) -> SearchResult:
        """The top-k of one component, charged to the run's shared `budget`."""
        config, kg = self.config, self.context.kg
        search_pools = pools.for_component(part)
        seconds = max(0.0, budget.deadline - time.monotonic())
        if config.algorithm == "algorithm1":
            result = algorithm1_topk(
                kg,
                part.graph,
                search_pools,
                k,
                max_expansions=budget.expansions,
                time_limit_s=seconds,
            )
        else:
            result = optimized_topk(
                kg,
                part.graph,
                search_pools,
                k,
                max_expansions=budget.expansions,
                time_limit_s=seconds,
                record_tree=config.record_tree,
                max_tree_nodes=config.max_tree_nodes,
            )
        budget.expansions = max(0, budget.expansions - result.expanded)
        return result

    def _generate(self, trace: Trace, question: str, graphs: list[list[StringTriple]]) -> None:
        if self.config.answer_format == "paper":
            self._generate_as_paper(trace, question, graphs)
            return
        task = self.config.task
        messages = prompts.answer_messages(task, question, graphs, self.config.own_knowledge)
        generation = SimGRAGGeneration(task)
        trace.record(GENERATION, generation)
        try:
            reply = ask_json(
                trace, GENERATION, self.context.llm, messages, prompts.answer_schema(task)
            )
        except LLMOutputError as error:
            trace.warnings.append(f"generation: {error}; the raw reply is used as the answer")
            generation.raw = error.raw
            trace.answer = error.raw.strip()
            trace.answers = self._answer_entities(
                trace, question, trace.answer
            ) or self.listed_answers(trace.answer, entity_names(self.context))
            return
        if task == "verify":
            generation.reason = str(reply.get("reason", "")).strip()
            generation.verdict = reply["verdict"]
            trace.answer = f"{generation.verdict}. {generation.reason}".strip()
            trace.answers = [generation.verdict]
            return
        self._take_answer(trace, question, generation, reply)
        if not trace.answers and self.config.answer_reask:  # one re-ask saying what was wrong
            reask = self._answer_reask(trace, question, generation)
            follow_up = reask_messages(messages, trace.llm_calls[-1].text, reask)
            try:
                again = ask_json(
                    trace, REASK_STAGE, self.context.llm, follow_up, prompts.answer_schema(task)
                )
            except LLMOutputError as error:
                trace.warnings.append(f"generation re-ask: {error}")
            else:
                self._take_answer(trace, question, generation, again)
        if not trace.answers:  # the last resort of every method (`listed_names`)
            trace.answers = self.listed_answers(
                "\n".join(generation.answer), entity_names(self.context)
            )

    def _generate_listed(
        self, trace: Trace, question: str, graphs: list[list[StringTriple]]
    ) -> None:
        """The answer as a JSON list of the subgraphs' entities (the question's own aside; any
        short text when no subgraph was found, answered from the model's own knowledge)."""
        messages = prompts.answer_messages("qa", question, graphs, listed=True)
        generation = SimGRAGGeneration("qa")
        trace.record(GENERATION, generation)
        names, asked = self._evidence_entities(trace, question)
        choices = [name for name in names if name not in asked]
        generation.answer = generate_listed_answer(
            trace, self.context.llm, messages, choices, self.config.answer_reask
        )

    def _generate_as_paper(
        self, trace: Trace, question: str, graphs: list[list[StringTriple]]
    ) -> None:
        """The paper's answer step: its prompt, a free-text reply, and as answers the evidence
        entities the reply names (the question's own aside)."""
        family = prompts.family_of(self.context.dataset.domain)
        messages = paper_answer_messages(family, question, graphs)
        generation = SimGRAGGeneration("qa")
        trace.record(GENERATION, generation)
        reply = ask_text(trace, GENERATION, self.context.llm, messages).strip()
        generation.reason = reply
        generation.answer = self._answer_entities(trace, question, reply)
        trace.answer = reply
        trace.answers = list(generation.answer)

    def _take_answer(
        self, trace: Trace, question: str, generation: SimGRAGGeneration, reply: dict[str, Any]
    ) -> None:
        generation.reason = str(reply.get("reason", "")).strip()
        generation.answer = [" ".join(str(a).split()) for a in reply["answer"] if str(a).strip()]
        named = ", ".join(generation.answer) or "No answer found"
        trace.answer = f"{named}. {generation.reason}".strip()
        trace.answers = self._answer_entities(trace, question, "\n".join(generation.answer))

    @staticmethod
    def _evidence_entities(trace: Trace, question: str) -> tuple[list[str], set[str]]:
        """The evidence's entities in order of appearance, and those the question names."""
        names = evidence_entities(trace.evidence)
        return names, set(mentioned_entities(question, set(names)))

    @classmethod
    def _answer_entities(cls, trace: Trace, question: str, text: str) -> list[str]:
        """Evidence entities named in `text`, except those the question itself names."""
        names, asked = cls._evidence_entities(trace, question)
        return [name for name in mentioned_entities(text, set(names)) if name not in asked]

    @classmethod
    def _answer_reask(cls, trace: Trace, question: str, generation: SimGRAGGeneration) -> str:
        """The re-ask of an answer naming no evidence entity but those the question names."""
        names, asked = cls._evidence_entities(trace, question)
        listed = mentioned_entities("\n".join(generation.answer), set(names))
        return prompts.answer_reask(
            question,
            generation.answer,
            [name for name in listed if name in asked],
            [name for name in names if name not in asked],
        )
