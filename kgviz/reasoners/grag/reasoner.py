"""GRAG (Hu et al., 2024): retrieve k-hop ego-graphs, prune them softly, describe them as text."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgviz.checkpoints.store import checkpoint_dir, find_checkpoint
from kgviz.errors import InputError, OptionError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.soft_prompt import SoftPrompt, text_only_error
from kgviz.reasoners.answers import evidence_entities, mentioned_entities
from kgviz.reasoners.base import (
    Reasoner,
    ReasonerContext,
)
from kgviz.reasoners.grag.config import TOKEN_CHECKPOINT, GRAGConfig
from kgviz.reasoners.grag.describe import describe_graph
from kgviz.reasoners.grag.ego_index import EgoIndex, build_ego_index
from kgviz.reasoners.grag.gate import SoftPruner, load_pruner
from kgviz.reasoners.grag.prompt import qa_messages, stance_messages
from kgviz.reasoners.grag.pruning import prune
from kgviz.reasoners.grag.records import (
    DESCRIPTION,
    EGO_GRAPHS,
    GRAPH_TOKEN,
    PRUNING,
    Description,
    EgoRetrieval,
    GraphToken,
    PrunedEgoGraph,
    RetrievedEgo,
    TokenGraph,
)
from kgviz.reasoners.grag.retrieval import Retrieved, candidate_centres, retrieve
from kgviz.reasoners.grounding import link_and_ground
from kgviz.reasoners.linking import LINKING, entity_names
from kgviz.reasoners.prompting import generate_answer, generate_listed_answer
from kgviz.reasoners.text_features import met_name_vectors
from kgviz.trace import StringTriple, Trace

if TYPE_CHECKING:  # the graph token's module imports torch_geometric: loaded only when it is on
    from kgviz.reasoners.grag.graph_token import GraphTokenEncoder

STANCES = ("support", "counter")
STANCE_REASK = "Your reply gave no stance. Reply again with one word: support or counter."
STANCE_DOMAIN = "commonsense"  # ExplaGraphs
QUESTION_GRAPHS = "_grag_question_graphs"


@dataclass(frozen=True)
class GRAGFound:
    """What retrieval hands to generation: the task, the question, its topics, the descriptions
    and the graph token (None without one)."""

    task: str
    question: str
    topics: tuple[str, ...]
    descriptions: list[Description]
    graph_token: SoftPrompt | None = None


def trained_reader(card: dict[str, Any]) -> str:
    """The reader a graph-token encoder's card says it was trained through ('' if none)."""
    return str(card.get("reader", {}).get("model", ""))


def soft_prompt_of(record: GraphToken) -> SoftPrompt:
    """The recorded graph token as the soft prompt the reader takes."""
    import torch

    return SoftPrompt(torch.tensor([record.vector], dtype=torch.float32))


def question_graphs(context: ReasonerContext) -> dict[str, tuple[StringTriple, ...]]:
    """Each question of the dataset that carries its own graph, mapped to that graph (cached)."""
    dataset = context.dataset

    def read() -> dict[str, tuple[StringTriple, ...]]:
        files = {path for path in dataset.split_files.values() if path.is_file()}
        return {
            record.question: record.graph
            for path in sorted(files)
            for record in dataset.read_split(path)
            if record.graph
        }

    return context.memo(QUESTION_GRAPHS, read)


class GRAG(Reasoner[GRAGFound]):
    """GRAG: hard prompt, and the graph token (soft prompt) with a white-box reader.

    Stages: topic-entity linking; ego-graph retrieval (top-N by cosine of mean-pooled ego-graph
    vectors to the question); soft pruning (a trained gate per node and edge); the hierarchical
    description of each pruned ego-graph; the graph token (`soft_prompt`: a gated GAT over the
    retrieved ego-graphs, projected into the reader's embeddings); generation. On the stance
    task the whole question graph is described, unpruned, as the paper does for ExplaGraphs.
    """

    name = "grag"
    config_class = GRAGConfig
    config: GRAGConfig

    @cached_property
    def checkpoint(self) -> tuple[SoftPruner, dict[str, Any]]:
        """The trained gate and its card (a missing checkpoint names `kgviz train grag`)."""
        return load_pruner(self.chosen_checkpoint)

    @cached_property
    def token_root(self) -> Path:
        """The root holding the graph-token encoder for the dataset in use."""
        root = self.config.checkpoint_root
        return find_checkpoint(
            TOKEN_CHECKPOINT, self.context.dataset.name, Path(root) if root else None
        )

    @cached_property
    def token_encoder(self) -> tuple[GraphTokenEncoder, dict[str, Any]]:
        """The trained encoder and its card; it must have been trained through this reader."""
        from kgviz.reasoners.grag.graph_token import load_token_encoder

        encoder, card = load_token_encoder(self.token_root)
        reader = trained_reader(card)
        llm = self.context.reader
        if llm is not None and reader != llm.model:
            folder = checkpoint_dir(TOKEN_CHECKPOINT, self.token_root)
            raise OptionError(
                f"grag: the graph-token encoder in {folder} was trained through "
                f"{reader or 'an unnamed reader'}, not {llm.model}; train one with "
                f"`kgviz train grag --graph-token --llm hf:{llm.model}`"
            )
        return encoder, card

    def graph_token_on(self) -> bool:
        """Whether this run feeds the graph token: `soft_prompt`, or (None) whether the reader
        is white-box; asking for it with a text-only reader is a one-line error."""
        llm = self.context.reader
        white_box = llm is not None and llm.takes_embeddings
        if self.config.soft_prompt and not white_box:
            reader = llm.describe() if llm is not None else "no LLM"
            raise OptionError(f"grag soft_prompt=true: {text_only_error(reader)}")
        return white_box if self.config.soft_prompt is None else self.config.soft_prompt

    @cached_property
    def ego_index(self) -> EgoIndex:
        one_question = self.context.graph is not None  # small, and never asked again
        return self.context.memo(
            f"grag ego index {self.config.hops} {self.config.max_degree}",
            lambda: build_ego_index(
                self.context.kg,
                self.config.hops,
                self.config.max_degree,
                progress=not one_question,
                persist=not one_question,
                met=met_name_vectors(self.context),
            ),
        )

    def _task(self) -> str:
        if self.config.task != "auto":
            return self.config.task
        return "stance" if self.context.dataset.domain == STANCE_DOMAIN else "qa"

    def retrieve(self, trace: Trace, question: str, topic_entities: tuple[str, ...]) -> GRAGFound:
        """Every stage before generation (under the `retrieval` timing); sets the evidence."""
        if self._task() == "stance":
            return self._retrieve_question_graph(trace, question)
        config = self.config
        pruner, card = self.checkpoint  # a missing checkpoint fails before any work
        token_on = self.graph_token_on()
        if token_on:
            self.token_encoder  # noqa: B018  (a missing or mismatched encoder fails before any work)
        self.note_checkpoint(trace, card)
        linking = link_and_ground(
            trace, self.context, question, topic_entities, self.config.on_ungrounded
        )
        index = self.ego_index
        with trace.stage(EGO_GRAPHS):
            vector = index.embed_question(linking.question)
            retrieved = retrieve(index, vector, linking.ids, config.top_n, config.scope_hops)
            centres = candidate_centres(index.kg, linking.ids, config.scope_hops)
            scope = (
                "whole KG" if centres is None else f"topic entities ({config.scope_hops} hop(s))"
            )
            count = index.kg.num_entities if centres is None else len(centres)
            trace.record(EGO_GRAPHS, self._retrieval_record(index.kg, retrieved, scope, count))
        with trace.stage(PRUNING):
            pruned = (
                prune(pruner, index, vector, retrieved, config.description_tokens)
                if retrieved
                else []
            )
            trace.record(PRUNING, pruned)
        with trace.stage(DESCRIPTION):
            descriptions = self._describe([(g.centre, g.kept_triples) for g in pruned])
            trace.record(DESCRIPTION, descriptions)
        trace.evidence = list(dict.fromkeys(t for p in pruned for t in p.kept_triples))
        token = None
        if token_on and retrieved:
            with trace.stage(GRAPH_TOKEN):
                record = self._graph_token(index, vector, retrieved)
                trace.record(GRAPH_TOKEN, record)
            token = soft_prompt_of(record)
        return GRAGFound("qa", linking.question, tuple(linking.names), descriptions, token)

    def _graph_token(self, index: EgoIndex, vector: Any, retrieved: list[Retrieved]) -> GraphToken:
        """Eq. 9-10 on the retrieved ego-graphs, recorded with what each one gave the token."""
        import torch

        from kgviz.reasoners.grag.graph_token import ego_tensors

        encoder, card = self.token_encoder
        graphs = [ego_tensors(index, r.ego) for r in retrieved]
        with torch.no_grad():
            token, inside = encoder(torch.from_numpy(vector), graphs)
        return GraphToken(
            str(checkpoint_dir(TOKEN_CHECKPOINT, self.token_root)),
            trained_reader(card),
            [round(v, 6) for v in token[0].tolist()],
            [
                TokenGraph(
                    index.kg.entities[r.ego.centre],
                    [round(g, 4) for g in nodes.tolist()],
                    [round(g, 4) for g in edges.tolist()],
                    [round(a, 4) for a in attention.tolist()],
                )
                for r, nodes, edges, attention in zip(
                    retrieved, inside.node_gates, inside.edge_gates, inside.attention, strict=True
                )
            ],
        )

    def _retrieve_question_graph(self, trace: Trace, question: str) -> GRAGFound:
        """ExplaGraphs: the question's own graph is the source, described whole (no pruning)."""
        graph = question_graphs(self.context).get(question)
        if graph is None:
            raise OptionError(
                "grag: the stance task needs a question of a dataset whose records "
                "carry their own graph (ExplaGraphs)"
            )
        kg = KnowledgeGraph.from_triples(graph, name="question-graph")
        index = build_ego_index(kg, self.config.hops, self.config.max_degree, persist=False)
        with trace.stage(EGO_GRAPHS):
            vector = index.embed_question(question)
            retrieved = retrieve(index, vector, [], kg.num_entities, None)
            trace.record(
                EGO_GRAPHS, self._retrieval_record(kg, retrieved, "question graph", kg.num_entities)
            )
        with trace.stage(DESCRIPTION):
            centre = kg.entities[retrieved[0].ego.centre]
            text = describe_graph(graph, centre, self.config.description)
            descriptions = [Description(centre, len(graph), text)]
            trace.record(DESCRIPTION, descriptions)
        trace.evidence = list(dict.fromkeys(graph))
        return GRAGFound("stance", question, (), descriptions)

    def found_from(self, trace: Trace) -> GRAGFound:
        """The pruned ego-graphs described again with only the triples the evidence keeps, and
        the triples it adds described as one more graph (recorded again under
        `description`)."""
        if PRUNING not in trace.stages:
            raise InputError("grag: only a question-answering run's evidence can be edited")
        kept = set(trace.evidence)
        pruned: list[PrunedEgoGraph] = trace.stages[PRUNING]
        descriptions = self._describe(
            [(g.centre, [t for t in g.kept_triples if t in kept]) for g in pruned]
        )
        known = {t for g in pruned for t in g.kept_triples}
        added = [t for t in trace.evidence if t not in known]
        if added:
            descriptions += self._describe([(added[0][0], added)])
        trace.record(DESCRIPTION, descriptions)
        linking = trace.stages[LINKING]
        token = trace.stages.get(GRAPH_TOKEN)
        return GRAGFound(
            "qa",
            linking.question,
            tuple(linking.names),
            descriptions,
            soft_prompt_of(token) if token is not None else None,
        )

    def generate(self, trace: Trace, question: str, found: GRAGFound) -> None:
        described = [(d.centre, d.text) for d in found.descriptions]
        if found.task == "stance":
            generate_answer(
                trace,
                self.context.llm,
                stance_messages(question, described, self.config.description),
                self.config.max_tokens,
                lambda reply: mentioned_entities(reply, STANCES)[:1],
                STANCE_REASK,
                answer_reask=self.config.answer_reask,
            )
            return
        names = set(evidence_entities(trace.evidence)) - set(found.topics)
        if self.config.lists_answers(self.context.llm):
            generate_listed_answer(
                trace,
                self.context.llm,
                qa_messages(found.question, described, self.config.description, listed=True),
                names,
                self.config.answer_reask,
                soft_prompt=found.graph_token,
            )
            return
        generate_answer(
            trace,
            self.context.llm,
            qa_messages(found.question, described, self.config.description),
            self.config.max_tokens,
            lambda reply: mentioned_entities(reply, names),
            fallback=lambda reply: self.listed_answers(reply, entity_names(self.context)),
            soft_prompt=found.graph_token,
            answer_reask=self.config.answer_reask,
        )

    def _retrieval_record(
        self, kg: KnowledgeGraph, retrieved: list[Retrieved], scope: str, candidates: int
    ) -> EgoRetrieval:
        return EgoRetrieval(
            self.config.hops,
            scope,
            candidates,
            [
                RetrievedEgo(
                    kg.entities[r.ego.centre], round(r.score, 4), len(r.ego.nodes), len(r.ego.edges)
                )
                for r in retrieved
            ],
        )

    def _describe(self, graphs: list[tuple[str, list[StringTriple]]]) -> list[Description]:
        """One description per graph (centre, kept triples) with triples; a triple already
        described under a better-ranked ego-graph is not repeated (the ego-graphs of a KG
        overlap heavily)."""
        described: set[StringTriple] = set()
        descriptions = []
        for centre, triples in graphs:
            fresh = [t for t in triples if t not in described]
            if fresh:
                described.update(fresh)
                text = describe_graph(fresh, centre, self.config.description)
                descriptions.append(Description(centre, len(fresh), text))
        return descriptions
