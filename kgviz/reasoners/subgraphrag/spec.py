"""SubgraphRAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="subgraphrag",
    summary="top-K triples scored by an MLP over text embeddings and directional distance "
    "encodings (SubgraphRAG)",
    reasoner="kgviz.reasoners.subgraphrag.reasoner:SubgraphRAG",
    config="kgviz.reasoners.subgraphrag.config:SubgraphRAGConfig",
    views="kgviz.reasoners.subgraphrag.views:VIEWS",
    trainer="kgviz.reasoners.subgraphrag.train:main",
)
