"""ToG's walk: relation pruning, entity pruning and the "enough?" decision at each depth, then
the answer from the paths. The KG is read only through an entity's neighbours (`KnowledgeGraph.
neighbors` after `reach`), so the walk is the same in memory and behind a SPARQL endpoint."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from kgviz.embed.kg_index import relation_text
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.errors import LLMOutputError
from kgviz.reasoners.answers import evidence_entities, listed_names, mentioned_entities
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.grounding import link_and_ground
from kgviz.reasoners.linking import LINKING, EntityLinking, entity_names
from kgviz.reasoners.llm_calls import ask_json, ask_text
from kgviz.reasoners.prompting import GENERATION, generate_listed_answer
from kgviz.reasoners.tog import prompts
from kgviz.reasoners.tog.config import ToGConfig
from kgviz.reasoners.tog.records import (
    ENTITY_PRUNING,
    REASONING,
    RELATION_PRUNING,
    WALK,
    Candidate,
    Decision,
    Depth,
    RelationChoice,
    Walk,
)
from kgviz.trace import StringTriple, Trace

Step = tuple[int, bool]  # a relation id and whether the walk follows it head to tail


@dataclass(frozen=True)
class Path:
    """A beam item: the topic entity it starts at, its triples from there, the entity it ends
    at, the relation it came by (not walked back) and its score."""

    start: str
    triples: tuple[StringTriple, ...]
    end: int
    came_by: Step | None
    score: float


@dataclass(frozen=True)
class ToGFound:
    """What the walk hands to generation: the question, its topics, and the decision that
    ended it (None when the walk ended without "enough", or for a regenerated run)."""

    question: str
    topics: tuple[str, ...]
    decision: Decision | None
    walked: bool = True  # False for a regenerated run: its evidence is no longer the walk's


class ToG(Reasoner[ToGFound]):
    """Think-on-Graph: the LLM walks the KG by beam search and says when it has enough."""

    name = "tog"
    config_class = ToGConfig
    config: ToGConfig

    @property
    def _listed(self) -> bool:
        return self.config.lists_answers(self.context.llm)

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> ToGFound:
        linking = link_and_ground(
            trace, self.context, question, topic_entities, self.config.on_ungrounded
        )
        walk = Walk()
        trace.record(WALK, walk)
        names = self.context.kg.entities
        beam = [Path(names[entity], (), entity, None, 1.0) for entity in dict.fromkeys(linking.ids)]
        decision = None
        walk.ended = "no topic entity" if not beam else "depth"
        rng = np.random.default_rng(self.config.seed)
        for depth in range(1, self.config.depth + 1):
            if not beam:
                break
            before = len(trace.llm_calls)
            step = Depth(depth, [self.context.kg.entities[path.end] for path in beam])
            walk.depths.append(step)
            beam = self._step(trace, linking.question, beam, step, rng)
            if not beam:
                walk.ended = "no candidates"
                self._count(trace, step, before)
                break
            walk.paths = [list(path.triples) for path in beam]
            walk.starts = [path.start for path in beam]
            trace.evidence = self._evidence(walk)
            with trace.stage(REASONING):
                decision = step.decision = self._decide(trace, linking.question, walk)
            self._count(trace, step, before)
            if decision.enough:
                walk.ended = "enough"
                break
        trace.evidence = self._evidence(walk)
        return ToGFound(
            linking.question, tuple(linking.names), decision if walk.ended == "enough" else None
        )

    @staticmethod
    def _count(trace: Trace, step: Depth, before: int) -> None:
        calls = trace.llm_calls[before:]
        step.calls = len(calls)
        step.tokens = sum(call.prompt_tokens + call.completion_tokens for call in calls)

    @staticmethod
    def _evidence(walk: Walk) -> list[StringTriple]:
        """Every triple of the kept paths, in the order the walk found them."""
        return list(dict.fromkeys(triple for path in walk.paths for triple in path))

    # ------------------------------------------------------------------ one depth
    def _step(
        self, trace: Trace, question: str, beam: list[Path], step: Depth, rng: np.random.Generator
    ) -> list[Path]:
        """Relation pruning and entity pruning from `beam`: the next beam (best first)."""
        kg = self.context.kg.reach([path.end for path in beam], 1)
        scored: list[tuple[Path, Candidate]] = []
        for path in beam:
            with trace.stage(RELATION_PRUNING):
                relations = self._relations(trace, question, path, kg, step)
            with trace.stage(ENTITY_PRUNING):
                for (relation, forward), relation_score in relations:
                    scored += self._candidates(
                        trace, question, path, relation, forward, relation_score, kg, rng
                    )
        scored.sort(key=lambda item: -item[1].score)
        cut = self._beam_size(scored)
        for rank, (_, candidate) in enumerate(scored):
            candidate.kept = rank < cut and candidate.score > 0
            if not candidate.kept and not candidate.why:
                candidate.why = f"outside the beam's {cut} best"
        step.candidates = [candidate for _, candidate in scored]
        return [
            Path(
                path.start,
                (*path.triples, self._triple(candidate)),
                kg.entity_id(candidate.neighbour),
                self._came_by(candidate, kg),
                candidate.score,
            )
            for path, candidate in scored
            if candidate.kept
        ]

    def _beam_size(self, scored: list[tuple[Path, Candidate]]) -> int:
        """How many candidates the beam keeps: `width` paths (ToG), or every sampled end of the
        `width` best relation chains (ToG-R)."""
        if self.config.beam == "entity":
            return self.config.width
        chains = list(dict.fromkeys((id(path), c.relation, c.forward) for path, c in scored))
        best = set(chains[: self.config.width])
        return sum((id(path), c.relation, c.forward) in best for path, c in scored)

    @staticmethod
    def _triple(candidate: Candidate) -> StringTriple:
        if candidate.forward:
            return (candidate.entity, candidate.relation, candidate.neighbour)
        return (candidate.neighbour, candidate.relation, candidate.entity)

    @staticmethod
    def _came_by(candidate: Candidate, kg: KnowledgeGraph) -> Step:
        """The step back the next depth must not take: the same relation, the other way."""
        return kg.relation_id(candidate.relation), not candidate.forward

    def _relations(
        self, trace: Trace, question: str, path: Path, kg: KnowledgeGraph, step: Depth
    ) -> list[tuple[Step, float]]:
        """The entity's relations (both directions, the one it came by aside), the `width` best
        with their scores; recorded in `step`."""
        entity = kg.entities[path.end]
        steps = sorted(  # by name, so a KG behind an endpoint (other ids) walks the same
            {(relation, forward) for _, relation, _, forward in kg.neighbors(path.end)}
            - ({path.came_by} if path.came_by else set()),
            key=lambda step: (kg.relations[step[0]], step[1]),
        )
        labels = self._labels(kg, steps)
        choice = RelationChoice(entity, list(labels), [], [])
        step.relations.append(choice)
        if not steps:
            choice.note = "no relation left to walk"
            return []
        if self.config.pruner == "llm":
            picked = self._llm_relations(trace, question, entity, list(labels), choice)
        else:
            shown = [relation_text(label) for label in labels]
            back = dict(zip(shown, labels, strict=True))
            best = self._similar(question, shown, self.config.width)
            picked = [(back[text], score) for text, score in best]
        total = sum(score for _, score in picked)
        choice.kept = [label for label, _ in picked]
        choice.scores = [  # summing to 1; alike when none scored above 0
            round(score / total if total > 0 else 1 / len(picked), 4) for _, score in picked
        ]
        by_label = dict(zip(labels, steps, strict=True))
        return [(by_label[label], score) for label, score in zip(choice.kept, choice.scores)]

    @staticmethod
    def _labels(kg: KnowledgeGraph, steps: list[Step]) -> list[str]:
        """How the LLM sees each relation: its name, marked `(inverse)` where the entity also has
        it the other way."""
        both = {r for r, f in steps if (r, not f) in steps}
        return [
            kg.relations[r] + (" (inverse)" if r in both and not forward else "")
            for r, forward in steps
        ]

    def _llm_relations(
        self, trace: Trace, question: str, entity: str, labels: list[str], choice: RelationChoice
    ) -> list[tuple[str, float]]:
        shown = [relation_text(label) for label in labels]
        reply = ask_text(
            trace,
            RELATION_PRUNING,
            self.context.llm,
            prompts.relation_messages(question, entity, shown, self.config.width),
            **self._exploration(),
        )
        read = prompts.read_relations(reply, shown, self.config.width)
        if not read:
            choice.note = "the LLM's reply named no listed relation with a score"
        back = dict(zip(shown, labels, strict=True))
        return [(back[name], score) for name, score in read]

    def _candidates(
        self,
        trace: Trace,
        question: str,
        path: Path,
        relation: int,
        forward: bool,
        relation_score: float,
        kg: KnowledgeGraph,
        rng: np.random.Generator,
    ) -> list[tuple[Path, Candidate]]:
        """The neighbours over one kept relation (sampled when there are many and the LLM
        scores them), each scored relation score x entity score."""
        on_path = {name for triple in path.triples for name in (triple[0], triple[2])}
        entity = kg.entities[path.end]
        names = sorted(
            {
                kg.entities[neighbour]
                for _, r, neighbour, f in kg.neighbors(path.end)
                if r == relation and f == forward
            }
            - on_path
        )
        sampled = self.config.pruner == "llm" or self.config.beam == "relation"
        if sampled and len(names) >= self.config.sample_above:
            picked = rng.choice(len(names), self.config.keep_entities, replace=False)
            names = [names[i] for i in sorted(picked.tolist())]
        if not names:
            return []
        label = kg.relations[relation]
        scores = self._entity_scores(trace, question, label, names)
        return [
            (path, Candidate(entity, label, name, forward, round(relation_score * score, 5), False))
            for name, score in zip(names, scores, strict=True)
        ]

    def _entity_scores(
        self, trace: Trace, question: str, relation: str, names: list[str]
    ) -> list[float]:
        """Each candidate's score, summing to 1: uniform (one candidate, or ToG-R), by
        similarity to the question, or by the LLM (uniform when its reply gives no scores)."""
        uniform = [1.0 / len(names)] * len(names)
        if len(names) == 1 or self.config.beam == "relation":
            return uniform
        if self.config.pruner == "embedding":
            similar = dict(self._similar(question, names, len(names)))
            raw = [similar.get(name, 0.0) for name in names]
        else:
            reply = ask_text(
                trace,
                ENTITY_PRUNING,
                self.context.llm,
                prompts.entity_messages(question, relation_text(relation), names),
                **self._exploration(),
            )
            raw = prompts.read_scores(reply, len(names)) or uniform
        total = sum(max(score, 0.0) for score in raw)
        return [max(score, 0.0) / total for score in raw] if total > 0 else uniform

    def _similar(self, question: str, texts: list[str], n: int) -> list[tuple[str, float]]:
        """The `n` texts most similar to the question (cosine, at least 0), best first."""
        scores = np.clip(self.context.index.similarities(question, texts), 0.0, None)
        order = np.argsort(-scores, kind="stable")[:n]
        return [(texts[i], float(scores[i])) for i in order.tolist()]

    def _exploration(self) -> dict[str, object]:
        return {
            "temperature": self.config.exploration_temperature,
            "seed": self.config.seed,
            "max_tokens": self.config.max_tokens,
        }

    # ------------------------------------------------------------------ decisions and answers
    def _lines(self, walk: Walk | None, evidence: list[StringTriple]) -> list[str]:
        """How the LLM reads what was found: each kept path as a chain from its topic entity
        (`paths_as=chains`), or the evidence's triples (the paper's, and a regenerated run's)."""
        if self.config.paths_as == "chains" and walk is not None and walk.starts:
            return [prompts.chain_line(s, p) for s, p in zip(walk.starts, walk.paths, strict=True)]
        return prompts.triples_lines(evidence)

    def _decide(self, trace: Trace, question: str, walk: Walk) -> Decision:
        """The depth's "enough?" call: JSON constrained to the paths' names (tuned), or the
        paper's free text."""
        llm = self.context.llm
        evidence = trace.evidence
        lines = self._lines(walk, evidence)
        if self._listed:
            choices = self._choices(evidence, trace)
            try:
                reply = ask_json(
                    trace,
                    REASONING,
                    llm,
                    prompts.enough_messages(question, lines, listed=True),
                    prompts.enough_schema(choices),
                    max_tokens=192,
                )
            except LLMOutputError as error:
                trace.warnings.append(f"{REASONING}: {error}")
                return Decision(False, "no valid decision")
            answers = [str(name) for name in reply["answers"]]
            return Decision(bool(reply["enough"]), str(reply["reason"]).strip(), answers)
        reply = ask_text(
            trace,
            REASONING,
            llm,
            prompts.enough_messages(question, lines, listed=False),
            max_tokens=self.config.max_tokens,
        ).strip()
        enough = prompts.read_decision(reply)
        return Decision(enough, reply, self._named(reply, evidence, trace) if enough else [])

    def _choices(self, evidence: list[StringTriple], trace: Trace) -> list[str]:
        """The names an answer may be: the paths' entities but the topic entities."""
        linking = trace.stages.get(LINKING)
        topics = set(linking.names) if isinstance(linking, EntityLinking) else set()
        return [name for name in evidence_entities(evidence) if name not in topics]

    def _named(self, reply: str, evidence: list[StringTriple], trace: Trace) -> list[str]:
        """The answers a free-text reply commits to: its braced names, as the paths' entities
        where they are (else as KG names, else as written)."""
        choices = self._choices(evidence, trace)
        found: list[str] = []
        for braced in prompts.braced_names(reply):
            found += (
                mentioned_entities(braced, choices)
                or listed_names(braced, entity_names(self.context))
                or [braced]
            )
        return list(dict.fromkeys(found))

    def found_from(self, trace: Trace) -> ToGFound:
        """A regenerated run answers from its (edited) evidence, whatever the walk decided."""
        linking = trace.stages[LINKING]
        return ToGFound(linking.question, tuple(linking.names), None, walked=False)

    def generate(self, trace: Trace, question: str, found: ToGFound) -> None:
        """The answer: the one the "enough" decision gave, else an answer call from the paths
        (from the LLM's own knowledge when there are none)."""
        decision = found.decision
        walk = trace.stages.get(WALK) if found.walked else None
        lines = self._lines(walk if isinstance(walk, Walk) else None, trace.evidence)
        if decision is not None and decision.answers:
            with trace.stage(GENERATION):
                trace.answer = decision.reason if not self._listed else ", ".join(decision.answers)
                trace.answers = list(decision.answers)
            return
        if self._listed:
            generate_listed_answer(
                trace,
                self.context.llm,
                prompts.answer_messages(found.question, lines, listed=True),
                self._choices(trace.evidence, trace),
                self.config.answer_reask,
            )
            return
        with trace.stage(GENERATION):
            reply = ask_text(
                trace,
                GENERATION,
                self.context.llm,
                prompts.answer_messages(found.question, lines, listed=False),
                max_tokens=self.config.max_tokens,
            ).strip()
            trace.answer, trace.answers = reply, self._named(reply, trace.evidence, trace)
