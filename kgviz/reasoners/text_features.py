"""Text embeddings the learned retrievers score with: every entity name and relation text of a
KG, from the offline sentence encoder and its on-disk cache, kept per context."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from kgviz.embed.cache import EmbeddingCache, cache_for, embed_with_cache
from kgviz.embed.encoder import TextEncoder, get_encoder
from kgviz.embed.kg_index import relation_text
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.base import ReasonerContext

CONTEXT_KEY = "_kg_text_embeddings"


@dataclass
class TextEmbeddings:
    """Unit vectors of the entity names `(num_entities, dim)` and relation texts
    `(num_relations, dim)`; a KG behind an endpoint has no table of all its names' vectors
    (`entities` is None): those of the entities a question meets are read as asked."""

    kg: KnowledgeGraph
    encoder: TextEncoder
    entities: torch.Tensor | None
    relations: torch.Tensor

    def entity_vectors(self, ids: torch.Tensor) -> torch.Tensor:
        """The name vectors of entities `ids`."""
        if self.entities is not None:
            return self.entities[ids]
        names = self.kg.entities.names_of(ids.tolist())
        vectors = embed_with_cache(self.encoder, names, cache_for(self.encoder))
        return torch.from_numpy(vectors).reshape(len(names), -1)

    def questions(self, texts: list[str], cache: EmbeddingCache | None = None) -> torch.Tensor:
        """Question vectors; with a cache (training, measuring) they persist between runs."""
        if cache is None:
            return torch.from_numpy(self.encoder.encode(texts))
        return torch.from_numpy(embed_with_cache(self.encoder, texts, cache))


def kg_text_embeddings(
    kg: KnowledgeGraph, encoder: TextEncoder | None = None, progress: bool = False
) -> TextEmbeddings:
    """Embed (or read from the cache) all entity names (of a KG in memory) and relation texts
    of `kg`."""
    encoder = encoder or get_encoder()
    cache = cache_for(encoder)
    relations = embed_with_cache(encoder, [relation_text(r) for r in kg.relations], cache)
    if kg.fetches:
        return TextEmbeddings(kg, encoder, None, torch.from_numpy(relations))
    entities = embed_with_cache(
        encoder, list(kg.entities), cache, progress=progress, desc=f"{kg.name} entities"
    )
    return TextEmbeddings(kg, encoder, torch.from_numpy(entities), torch.from_numpy(relations))


def context_text_embeddings(context: ReasonerContext) -> TextEmbeddings:
    """`kg_text_embeddings` of the context's KG, computed on first use and kept on the context."""
    return context.memo(CONTEXT_KEY, lambda: kg_text_embeddings(context.kg))
