"""GNN-RAG (Mavromatis and Karypis, 2024): a question-conditioned GNN over a dense subgraph picks
answer candidates; shortest topic -> candidate paths, verbalised, are the LLM's evidence."""
