"""GNN-RAG as a Reasoner: topic entities -> dense subgraph (k-hop, PageRank-pruned) -> GNN answer
probabilities -> candidates -> shortest topic -> candidate paths (optionally united with another
method's evidence) -> one LLM call over the verbalised paths.

Stages recorded: `linking` (EntityLinking), `subgraph` (SubgraphRecord), `gnn` (NodeScores: every
subgraph node's answer probability), `candidates` (GNNRAGCandidates), `paths` (PathRecord),
`augmentation` (Augmentation, when `augment_with` is set; the LLM calls of the borrowed retrieval,
such as SimGRAG's pattern, are recorded under this stage). The GNN loads lazily from
`kgviz/checkpoints/gnnrag/`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from kgviz.embed.cache import cache_for
from kgviz.errors import CheckpointError
from kgviz.reasoners.answers import evidence_entities, mentioned_entities
from kgviz.reasoners.base import Reasoner
from kgviz.reasoners.gnnrag.augment import augmenting_reasoner, borrowed_retrieval
from kgviz.reasoners.gnnrag.config import GNNRAGConfig, GNNRAGRetrieval
from kgviz.reasoners.gnnrag.gnn import GNNReasoner
from kgviz.reasoners.gnnrag.model import GNNS, load_gnn
from kgviz.reasoners.gnnrag.paths import PathStep, ReasoningPath, evidence_paths
from kgviz.reasoners.gnnrag.prompt import path_messages
from kgviz.reasoners.gnnrag.records import (
    AUGMENTATION,
    CANDIDATES,
    GNN,
    PATHS,
    SUBGRAPH,
    Augmentation,
    GNNRAGCandidates,
    NodeScore,
    NodeScores,
    PathRecord,
    SubgraphRecord,
)
from kgviz.reasoners.gnnrag.retrieval import (
    encode_questions,
    gnn_paths,
    node_probabilities,
    select_candidates,
    topic_mask,
)
from kgviz.reasoners.gnnrag.subgraph import DenseSubgraph, dense_subgraph
from kgviz.reasoners.grounding import link_and_ground
from kgviz.reasoners.linking import LINKING, EntityLinking, entity_names
from kgviz.reasoners.prompting import GENERATION, generate_answer, generate_listed_answer
from kgviz.reasoners.text_features import context_text_embeddings
from kgviz.trace import StringTriple, Trace


@dataclass(frozen=True)
class GNNRAGFound:
    """What retrieval hands to generation: the linked topics and the reasoning paths."""

    linking: EntityLinking
    paths: list[ReasoningPath]


def unique_triples(paths: list[ReasoningPath]) -> list[StringTriple]:
    return list(dict.fromkeys(triple for path in paths for triple in path.triples))


class GNNRAG(Reasoner[GNNRAGFound]):
    """A GNN picks answer candidates; the paths reaching them are the LLM's evidence."""

    name = "gnnrag"
    config_class = GNNRAGConfig
    config: GNNRAGConfig

    @property
    def checkpoint_name(self) -> str:
        return GNNS[self.config.gnn].folder_name

    @property
    def train_command(self) -> str:
        return GNNS[self.config.gnn].train_command

    @cached_property
    def checkpoint(self) -> tuple[GNNReasoner, dict[str, Any]]:
        """The trained GNN `gnn` and its card (a missing checkpoint names its train command). A
        GNN trained with the reachability prior is not the paper's, and one trained without it
        has no prior to add: either mismatch is a one-line error, so rows record what ran."""
        model, card = load_gnn(self.chosen_checkpoint, self.config.gnn)
        folder = self.checkpoint_folder
        if self.config.gnn == "paper" and model.shape.reach_prior:
            raise CheckpointError(
                f"gnnrag gnn=paper: the GNN in {folder} was trained with the reachability prior; "
                f"train one without it with `{self.train_command}`"
            )
        if self.config.reach_prior and not model.shape.reach_prior:
            raise CheckpointError(
                f"gnnrag reach_prior=true: the GNN in {folder} was trained without the "
                "reachability prior, so there is none to add; set reach_prior=false"
            )
        return model, card

    @cached_property
    def augmenter(self) -> Reasoner:
        """The `augment_with` method, built once."""
        return augmenting_reasoner(self.context, self.config.augment_with or "")

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> GNNRAGFound:
        settings = self.config.retrieval
        model, card = self.checkpoint
        self.note_checkpoint(trace, card)
        with trace.stage(LINKING):
            linking = link_and_ground(
                trace, self.context, question, topic_entities, self.config.on_ungrounded
            )
        paths: list[ReasoningPath] = []
        if linking.ids:
            paths = self._gnn_paths(trace, model, card, linking, settings)
        if self.config.augment_with:
            paths = self._augment(trace, linking, paths)
        trace.evidence = unique_triples(paths)
        return GNNRAGFound(linking, paths)

    def found_from(self, trace: Trace) -> GNNRAGFound:
        """The recorded paths whose triples the evidence keeps, then each triple it adds as a
        one-step path (recorded again under `paths`)."""
        record: PathRecord = trace.stages[PATHS]
        augmentation = trace.stages.get(AUGMENTATION)
        paths = [*record.paths, *(augmentation.added if augmentation else [])]
        kept = set(trace.evidence)
        paths = [path for path in paths if set(path.triples) <= kept]
        known = {t for path in paths for t in path.triples}
        paths += [
            ReasoningPath(head, [PathStep(relation, tail, True)], origin="edit")
            for head, relation, tail in trace.evidence
            if (head, relation, tail) not in known
        ]
        trace.record(PATHS, PathRecord(paths, [path.text for path in paths]))
        return GNNRAGFound(trace.stages[LINKING], paths)

    def generate(self, trace: Trace, question: str, found: GNNRAGFound) -> None:
        if not self.config.reader:
            self._answer_with_candidates(trace)
            return
        linking = found.linking
        names = set(evidence_entities(trace.evidence)) - set(linking.names)
        paths = [path.text for path in found.paths]
        if self.config.lists_answers(self.context.llm):
            scores = trace.stages.get(GNN)
            probability = {node.name: node.probability for node in scores.nodes} if scores else {}
            generate_listed_answer(
                trace,
                self.context.llm,
                path_messages(linking.question, paths, listed=True),
                names,
                self.config.answer_reask,
                rank=(lambda name: probability.get(name, 0.0))
                if self.config.rank_answers
                else None,
            )
            return
        messages = path_messages(linking.question, paths)
        generate_answer(
            trace,
            self.context.llm,
            messages,
            self.config.max_tokens,
            lambda reply: mentioned_entities(reply, names),
            fallback=lambda reply: self.listed_answers(reply, entity_names(self.context)),
            answer_reask=self.config.answer_reask,
        )

    @staticmethod
    def _answer_with_candidates(trace: Trace) -> None:
        """The GNN-only answer: the candidates, most probable first, committed as they are."""
        with trace.stage(GENERATION):
            record = trace.stages.get(CANDIDATES)
            names = list(record.names) if record is not None else []
            trace.answer = ", ".join(names) or "(the GNN found no candidate)"
            trace.answers = names

    def _gnn_paths(
        self,
        trace: Trace,
        model: GNNReasoner,
        card: dict[str, Any],
        linking: EntityLinking,
        settings: GNNRAGRetrieval,
    ) -> list[ReasoningPath]:
        kg = self.context.kg
        with trace.stage(SUBGRAPH):
            subgraph = dense_subgraph(
                kg, linking.ids, settings.hops, settings.max_nodes, settings.alpha
            )
            trace.record(
                SUBGRAPH,
                SubgraphRecord(
                    linking.names,
                    settings.hops,
                    settings.max_nodes,
                    settings.alpha,
                    subgraph.khop_nodes,
                    subgraph.khop_edges,
                    subgraph.num_nodes,
                    len(subgraph.edges),
                ),
            )
        with trace.stage(GNN):
            text = context_text_embeddings(self.context)
            cache = cache_for(text.encoder)
            question = encode_questions(text, [linking.question], cache)[0]
            probabilities = node_probabilities(
                model, text, question, subgraph, self.config.reach_prior
            )
            candidates = select_candidates(
                subgraph, probabilities, settings.mass, settings.max_candidates
            )
            trace.record(
                GNN,
                node_scores(
                    kg.entities,
                    subgraph,
                    probabilities,
                    candidates,
                    settings.mass,
                    card.get("command", ""),
                ),
            )
        with trace.stage(CANDIDATES):
            trace.record(
                CANDIDATES,
                GNNRAGCandidates(
                    [kg.entities[int(subgraph.nodes[i])] for i in candidates],
                    [round(float(probabilities[i]), 5) for i in candidates],
                    settings.mass,
                    round(float(probabilities[candidates].sum()), 5),
                    settings.max_candidates,
                ),
            )
        with trace.stage(PATHS):
            found = gnn_paths(kg, subgraph, probabilities, candidates, settings)
            kept, reached = found[: settings.max_paths], {path.end for path in found}
            trace.record(
                PATHS,
                PathRecord(
                    kept,
                    [path.text for path in kept],
                    [name for name in trace.stages[CANDIDATES].names if name not in reached],
                    len(found) - len(kept),
                ),
            )
        return kept

    def _augment(
        self, trace: Trace, linking: EntityLinking, paths: list[ReasoningPath]
    ) -> list[ReasoningPath]:
        """The union of the GNN's paths with the `augment_with` method's evidence as paths."""
        method = self.config.augment_with or ""
        with trace.stage(AUGMENTATION):
            started = time.perf_counter()
            borrowed, calls = borrowed_retrieval(self.augmenter, linking.question, linking.names)
            trace.llm_calls.extend(replace(call, stage=AUGMENTATION) for call in calls)
            borrowed = borrowed[: self.config.augment_triples]
            extra = evidence_paths(borrowed, linking.names, self.config.hops, method)
            seen = {tuple(path.triples) for path in paths}
            added = [path for path in extra if tuple(path.triples) not in seen]
            trace.record(
                AUGMENTATION,
                Augmentation(
                    method,
                    len(borrowed),
                    len(extra),
                    added,
                    [path.text for path in added],
                    round(time.perf_counter() - started, 4),
                ),
            )
        return paths + added


def node_scores(
    names,
    subgraph: DenseSubgraph,
    probabilities: np.ndarray,
    candidates: np.ndarray,
    mass: float,
    command: str,
) -> NodeScores:
    """Every subgraph node with its probability and PageRank, most probable first."""
    chosen, topics = set(candidates.tolist()), topic_mask(subgraph)
    order = np.argsort(-probabilities, kind="stable").tolist()
    return NodeScores(
        [
            NodeScore(
                names[int(subgraph.nodes[i])],
                round(float(probabilities[i]), 5),
                round(float(subgraph.ppr[i]), 6),
                bool(topics[i]),
                i in chosen,
            )
            for i in order
        ],
        mass,
        command,
    )
