"""Text embeddings the learned retrievers score with: every entity name and relation text of a
KG, from the offline sentence encoder and its on-disk cache, kept per context."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from kgviz.embed.cache import EmbeddingCache, cache_for, embed_with_cache
from kgviz.embed.encoder import TextEncoder, get_encoder
from kgviz.embed.kg_index import KGIndex, relation_text
from kgviz.embed.met_vectors import MetVectors
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.base import ReasonerContext

CONTEXT_KEY = "_kg_text_embeddings"


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
    index: KGIndex | None = None,
) -> TextEmbeddings:
    """Embed (or read from the cache) all entity names and relation texts of `kg`; a KG behind
    an endpoint reads its names' vectors from its vector `index` as they are asked for."""
    if kg.fetches:
        if index is None:
            raise ValueError("a KG behind an endpoint reads its names' vectors from its index")
        met = MetVectors(kg, index.entity_vectors, index.encoder.dim)
        return TextEmbeddings(kg, index.encoder, met, _relation_vectors(kg, index.encoder))
    encoder = encoder or get_encoder()
    entities = embed_with_cache(
        encoder,
        list(kg.entities),
        cache_for(encoder),
        progress=progress,
        desc=f"{kg.name} entities",
    )
    return TextEmbeddings(kg, encoder, torch.from_numpy(entities), _relation_vectors(kg, encoder))


def _relation_vectors(kg: KnowledgeGraph, encoder: TextEncoder) -> torch.Tensor:
    texts = [relation_text(r) for r in kg.relations]
    return torch.from_numpy(embed_with_cache(encoder, texts, cache_for(encoder)))


def context_text_embeddings(context: ReasonerContext) -> TextEmbeddings:
    """`kg_text_embeddings` of the context's KG, computed on first use and kept on the context."""
    kg = context.kg

    def build() -> TextEmbeddings:
        return kg_text_embeddings(kg, index=context.index if kg.fetches else None)

    return context.memo(CONTEXT_KEY, build)
