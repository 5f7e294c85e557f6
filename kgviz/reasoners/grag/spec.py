"""GRAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="grag",
    summary="top-N k-hop ego-graphs, soft-pruned by a learned gate and described as text (GRAG)",
    # the paper's graph-token soft prompt needs a white-box LLM: only its hard prompt is here
    label="grag (hard prompt)",
    reasoner="kgviz.reasoners.grag.reasoner:GRAG",
    config="kgviz.reasoners.grag.config:GRAGConfig",
    views="kgviz.reasoners.grag.views:VIEWS",
    trainer="kgviz.reasoners.grag.train:main",
)
