"""The stages a run of the demo records, in order, as several tests expect them."""

SIMGRAG_STAGES = ("pattern", "pools", "grounding", "search", "subgraphs", "citations")
GRAG_STAGES = ("linking", "grounding", "ego_graphs", "pruning", "description", "citations")
SHARED_TABS = ("prompt", "timing")  # after a run's own stages, in every method's tabs
SIMGRAG_TABS = (*SIMGRAG_STAGES, *SHARED_TABS)
# a SimGRAG trace built by hand, or saved before grounding and citations were recorded
HAND_BUILT_SIMGRAG_STAGES = ("pattern", "pools", "search", "subgraphs")
