"""Text embeddings (offline sentence-transformers), their on-disk cache, and vector indexes."""

from kgviz.embed.cache import EmbeddingCache, embed_with_cache
from kgviz.embed.encoder import DEFAULT_MODEL, SentenceEncoder, TextEncoder, get_encoder
from kgviz.embed.index import FaissIndex, VectorIndex
from kgviz.embed.kg_index import KGIndex, Neighbour, relation_text
from kgviz.embed.milvus_index import MilvusIndex

__all__ = [
    "DEFAULT_MODEL",
    "EmbeddingCache",
    "FaissIndex",
    "KGIndex",
    "MilvusIndex",
    "Neighbour",
    "SentenceEncoder",
    "TextEncoder",
    "VectorIndex",
    "embed_with_cache",
    "get_encoder",
    "relation_text",
]
