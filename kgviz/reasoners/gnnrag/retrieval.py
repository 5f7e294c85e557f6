"""One question's GNN-RAG retrieval: dense subgraph -> GNN answer probabilities -> candidates ->
shortest topic -> candidate paths. The reasoner times these steps as stages; `retrieve` chains
them for training, tests and benchmarks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from kgviz.embed.cache import EmbeddingCache
from kgviz.embed.encoder import SentenceEncoder
from kgviz.errors import OptionError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.gnnrag.config import GNNRAGRetrieval
from kgviz.reasoners.gnnrag.gnn import GNNReasoner, GraphInputs
from kgviz.reasoners.gnnrag.paths import ReasoningPath, candidate_paths
from kgviz.reasoners.gnnrag.questions import pad_tokens, question_tokens
from kgviz.reasoners.gnnrag.subgraph import DenseSubgraph, dense_subgraph
from kgviz.reasoners.text_features import TextEmbeddings


@dataclass
class Retrieval:
    """What one question's retrieval found (positions index `subgraph.nodes`)."""

    subgraph: DenseSubgraph
    probabilities: np.ndarray
    candidates: np.ndarray
    paths: list[ReasoningPath]


def topic_mask(subgraph: DenseSubgraph) -> np.ndarray:
    return np.isin(subgraph.nodes, subgraph.topics)


@dataclass
class Question:
    """A question's sentence vector `(text_dim,)` and token vectors `(tokens, text_dim)`."""

    vector: torch.Tensor
    tokens: torch.Tensor


def encode_questions(
    text: TextEmbeddings, texts: Sequence[str], cache: EmbeddingCache | None = None
) -> list[Question]:
    """Sentence vectors (from the cache when given) and token vectors of the questions."""
    if not isinstance(text.encoder, SentenceEncoder):
        raise OptionError(
            "GNN-RAG reads the question's token vectors, which only the "
            "sentence-transformers encoder gives"
        )
    vectors = text.questions(list(texts), cache)
    return [Question(v, t) for v, t in zip(vectors, question_tokens(text.encoder, texts))]


def graph_inputs(
    text: TextEmbeddings,
    subgraphs: Sequence[DenseSubgraph],
    questions: Sequence[Question],
    use_names: bool,
) -> GraphInputs:
    """The subgraphs with their questions as one disjoint graph."""
    offsets = np.cumsum([0] + [s.num_nodes for s in subgraphs])
    triples = np.concatenate(
        [s.local + [offset, 0, offset] for s, offset in zip(subgraphs, offsets)]
    )
    nodes = torch.from_numpy(np.concatenate([s.nodes for s in subgraphs]))
    tokens, token_mask = pad_tokens([q.tokens for q in questions])
    return GraphInputs(
        questions=torch.stack([q.vector for q in questions]),
        tokens=tokens,
        token_mask=token_mask,
        relations=text.relations,
        triples=torch.from_numpy(triples),
        topic_mask=torch.from_numpy(np.concatenate([topic_mask(s) for s in subgraphs])),
        graph=torch.from_numpy(np.repeat(np.arange(len(subgraphs)), np.diff(offsets))),
        names=text.entity_vectors(nodes) if use_names else None,
    )


def gnn_logits(
    model: GNNReasoner,
    text: TextEmbeddings,
    question: Question,
    subgraph: DenseSubgraph,
    reach_prior: bool = True,
) -> torch.Tensor:
    """One answer logit per node of one question's subgraph."""
    return model(graph_inputs(text, [subgraph], [question], model.shape.use_names), reach_prior)


def node_probabilities(
    model: GNNReasoner,
    text: TextEmbeddings,
    question: Question,
    subgraph: DenseSubgraph,
    reach_prior: bool = True,
) -> np.ndarray:
    """The answer distribution over the subgraph's nodes (they sum to 1)."""
    with torch.no_grad():
        logits = gnn_logits(model, text, question, subgraph, reach_prior)
        return torch.softmax(logits, dim=0).numpy()


def select_candidates(
    subgraph: DenseSubgraph, probabilities: np.ndarray, mass: float, max_candidates: int
) -> np.ndarray:
    """The paper's rule (App. C): non-topic nodes, most probable first, until their probability
    sums to at least `mass` (the node that crosses it included); at most `max_candidates`."""
    return candidates_by_mass(probabilities, topic_mask(subgraph), mass, max_candidates)


def candidates_by_mass(
    probabilities: np.ndarray, excluded: np.ndarray, mass: float, max_candidates: int
) -> np.ndarray:
    """Positions of the most probable nodes not `excluded`, best first, until their
    probabilities sum to at least `mass`: at least one (when any is left), at most
    `max_candidates`. Probabilities equal to 1e-9 keep the nodes' order."""
    order = np.argsort(-np.round(probabilities, 9), kind="stable")
    order = order[~excluded[order]]
    below = int(np.searchsorted(np.cumsum(probabilities[order]), mass, side="left"))
    return order[: min(below + 1, max_candidates)]


def gnn_paths(
    kg: KnowledgeGraph,
    subgraph: DenseSubgraph,
    probabilities: np.ndarray,
    candidates: np.ndarray,
    settings: GNNRAGRetrieval,
) -> list[ReasoningPath]:
    """Shortest KG paths from the topic entities to each candidate, best candidates first (not yet
    cut to `max_paths`)."""
    probability = dict(zip(subgraph.nodes.tolist(), probabilities.tolist()))
    topics = subgraph.topics.tolist()
    paths: list[ReasoningPath] = []
    for candidate in subgraph.nodes[candidates].tolist():
        paths += candidate_paths(
            kg, topics, candidate, probability, settings.hops, settings.paths_per_candidate
        )
    return paths


def retrieve(
    kg: KnowledgeGraph,
    model: GNNReasoner,
    text: TextEmbeddings,
    question: Question,
    topics: list[int],
    settings: GNNRAGRetrieval,
) -> Retrieval:
    """All retrieval steps for one question whose topic entities are `topics` (KG ids)."""
    subgraph = dense_subgraph(kg, topics, settings.hops, settings.max_nodes, settings.alpha)
    probabilities = node_probabilities(model, text, question, subgraph)
    candidates = select_candidates(subgraph, probabilities, settings.mass, settings.max_candidates)
    paths = gnn_paths(kg, subgraph, probabilities, candidates, settings)
    return Retrieval(subgraph, probabilities, candidates, paths[: settings.max_paths])
