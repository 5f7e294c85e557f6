"""Every method kgviz knows, registered by import path (importing this module loads none of them)."""

from kgviz.reasoners.registry import register_method

register_method("simgrag", "kgviz.reasoners.simgrag.reasoner:SimGRAG")
