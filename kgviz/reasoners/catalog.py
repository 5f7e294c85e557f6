"""Every method kgviz knows, registered by import path (importing this loads none of them)."""

from kgviz.reasoners.registry import register_method

register_method("simgrag", "kgviz.reasoners.simgrag.reasoner:SimGRAG")
register_method("llm-only", "kgviz.reasoners.llm_only:LLMOnly")
register_method("kaping", "kgviz.reasoners.kaping:Kaping")
register_method("subgraphrag", "kgviz.reasoners.subgraphrag.reasoner:SubgraphRAG")
register_method("grag", "kgviz.reasoners.grag.reasoner:GRAG")
register_method("gnnrag", "kgviz.reasoners.gnnrag.reasoner:GNNRAG")
