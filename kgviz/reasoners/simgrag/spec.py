"""SimGRAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="simgrag",
    summary="pattern graph from the LLM, candidate pools, top-k subgraphs by graph semantic "
    "distance (SimGRAG)",
    reasoner="kgviz.reasoners.simgrag.reasoner:SimGRAG",
    config="kgviz.reasoners.simgrag.config:SimGRAGConfig",
    views="kgviz.reasoners.simgrag.views:VIEWS",
    diagnosis="kgviz.reasoners.simgrag.diagnosis:pattern_problem",
    stages=("pattern",),
    recording_options={"record_tree": True},
)
