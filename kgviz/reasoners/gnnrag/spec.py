"""GNN-RAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="gnnrag",
    summary="answer candidates from a question-conditioned GNN, the shortest paths to them as "
    "evidence (GNN-RAG)",
    reasoner="kgviz.reasoners.gnnrag.reasoner:GNNRAG",
    config="kgviz.reasoners.gnnrag.config:GNNRAGConfig",
    views="kgviz.reasoners.gnnrag.views:VIEWS",
    trainer="kgviz.reasoners.gnnrag.train:main",
)
