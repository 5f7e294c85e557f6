"""GRAG (Hu et al., 2024): retrieve the k-hop ego-graphs most similar to the question, prune their
nodes and edges with a learned gate, and give the LLM a lossless hierarchical text description.

Modules: `spec` (the registry entry), `reasoner` (the Reasoner and its config), `records` (trace
records, stage names), `views`, `ego_index` (ego-graphs and their pooled vectors), `retrieval`
(top-N by cosine), `gate` (the pruning MLPs and their checkpoint), `pruning` (gate values and
kept triples), `describe` (description and its parser), `samples` (labelled questions for
training and measuring), `prompt` and `train`.
"""
