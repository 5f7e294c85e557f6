"""Text embeddings the learned retrievers score with: every entity name and relation text of a
KG, from the offline sentence encoder and its on-disk cache, kept per context."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.embed.encoder import TextEncoder, get_encoder
from kgviz.embed.kg_index import entity_name_vectors, relation_vectors
from kgviz.embed.met_vectors import MetVectors, required
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.base import ReasonerContext

CONTEXT_KEY = "_kg_text_embeddings"
MET_VECTORS_KEY = "_met_name_vectors"


@dataclass
class TextEmbeddings:
    """Unit vectors of the entity names `(num_entities, dim)` and relation texts
    `(num_relations, dim)`; a KG behind an endpoint has no table of all its names' vectors:
    those of the entities a question meets are read from its vector index as asked."""

    kg: KnowledgeGraph
    encoder: TextEncoder
    entities: torch.Tensor | MetVectors
    relations: torch.Tensor

    def entity_vectors(self, ids: torch.Tensor) -> torch.Tensor:
        """The name vectors of entities `ids`."""
        if isinstance(self.entities, MetVectors):
            return torch.from_numpy(self.entities[ids.numpy()])
        return self.entities[ids]

    def questions(self, texts: list[str], cache: EmbeddingCache | None = None) -> torch.Tensor:
        """Question vectors; with a cache (training, measuring) they persist between runs."""
        if cache is None:
            return torch.from_numpy(self.encoder.encode(texts))
        return torch.from_numpy(embed_with_cache(self.encoder, texts, cache))


def kg_text_embeddings(
    kg: KnowledgeGraph,
    encoder: TextEncoder | None = None,
    progress: bool = False,
    met: MetVectors | None = None,
) -> TextEmbeddings:
    """Embed (or read from the cache) all entity names and relation texts of `kg`; a KG behind
    an endpoint has its names' vectors read from its vector index as asked, `met`."""
    encoder = encoder or get_encoder()
    relations = torch.from_numpy(relation_vectors(kg, encoder))
    if kg.fetches:
        return TextEmbeddings(kg, encoder, required(met), relations)
    entities = torch.from_numpy(entity_name_vectors(kg, encoder, progress))
    return TextEmbeddings(kg, encoder, entities, relations)


def met_name_vectors(context: ReasonerContext) -> MetVectors | None:
    """The name vectors of the entities the context's KG meets, read from its vector index and
    held once per context, where the KG is behind an endpoint (None in memory)."""
    if not context.kg.fetches:
        return None

    def read() -> MetVectors:
        index = context.index
        return MetVectors(context.kg, index.entity_vectors, index.encoder.dim)

    return context.memo(MET_VECTORS_KEY, read)


def context_text_embeddings(context: ReasonerContext) -> TextEmbeddings:
    """`kg_text_embeddings` of the context's KG, computed on first use and kept on the context."""
    return context.memo(
        CONTEXT_KEY, lambda: kg_text_embeddings(context.kg, met=met_name_vectors(context))
    )
