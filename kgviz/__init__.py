"""kgviz: a notebook-first lab for knowledge-graph retrieval-augmented generation."""

from kgviz.version import __version__

__all__ = ["__version__"]
