"""Knowledge-graph storage: vocabularies, integer triples, CSR adjacency, readers, cache."""

from kgviz.kg.graph import Csr, KnowledgeGraph
from kgviz.kg.readers import read_triples
from kgviz.kg.vocab import Vocabulary

__all__ = ["Csr", "KnowledgeGraph", "Vocabulary", "read_triples"]
