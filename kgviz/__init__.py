"""kgviz: a notebook-first lab for knowledge-graph retrieval-augmented generation."""

__version__ = "0.1.0"
