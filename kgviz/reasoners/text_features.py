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
    `(num_relations, dim)`."""

    kg: KnowledgeGraph
    encoder: TextEncoder
    entities: torch.Tensor
    relations: torch.Tensor

    def questions(self, texts: list[str], cache: EmbeddingCache | None = None) -> torch.Tensor:
        """Question vectors; with a cache (training, measuring) they persist between runs."""
        if cache is None:
            return torch.from_numpy(self.encoder.encode(texts))
        return torch.from_numpy(embed_with_cache(self.encoder, texts, cache))


def kg_text_embeddings(
    kg: KnowledgeGraph, encoder: TextEncoder | None = None, progress: bool = False
) -> TextEmbeddings:
    """Embed (or read from the cache) all entity names and relation texts of `kg`."""
    encoder = encoder or get_encoder()
    cache = cache_for(encoder)
    entities = embed_with_cache(
        encoder, list(kg.entities), cache, progress=progress, desc=f"{kg.name} entities"
    )
    relations = embed_with_cache(encoder, [relation_text(r) for r in kg.relations], cache)
    return TextEmbeddings(kg, encoder, torch.from_numpy(entities), torch.from_numpy(relations))


def context_text_embeddings(context: ReasonerContext) -> TextEmbeddings:
    """`kg_text_embeddings` of the context's KG, computed on first use and kept on the context."""
    return context.memo(CONTEXT_KEY, lambda: kg_text_embeddings(context.kg))
