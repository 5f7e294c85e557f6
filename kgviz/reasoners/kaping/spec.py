"""KAPING as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="kaping",
    summary="the triples around the topic entities most similar to the question (KAPING)",
    reasoner="kgviz.reasoners.kaping.reasoner:Kaping",
    config="kgviz.reasoners.kaping.config:KapingConfig",
    views="kgviz.reasoners.kaping.views:VIEWS",
)
