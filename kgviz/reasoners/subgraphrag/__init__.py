"""SubgraphRAG (Li, Miao and Li, 2025): score every candidate triple around the topic entities in
parallel with an MLP over text embeddings and directional distance encodings, keep the top K, and
let the LLM answer from them with an explanation.

Modules: `candidates` (the rough subgraph), `dde` (structural features), `scorer` (the MLP and its
checkpoint), `features` (text embeddings), `samples` (labelled questions for training and
measuring), `prompt` (the reasoning prompt) and `reasoner` (the Reasoner).
"""
