"""SubgraphRAG (Li, Miao and Li, 2025): score every candidate triple around the topic entities in
parallel with an MLP over text embeddings and directional distance encodings, keep the top K, and
let the LLM answer from them with an explanation.

Modules: `spec` (the registry entry), `reasoner` (the Reasoner and its config), `records` (trace
records, stage names), `views`, `candidates` and `retrieval` (the rough subgraph and its
scoring), `dde` (structural features), `scorer` (the MLP and its checkpoint), `samples`
(labelled questions for training and measuring), `prompt` (the reasoning prompt) and `train`.
"""
