"""KAPING (Baek et al., 2023): the triples around the topic entities most similar to the question,
verbalised before the question; no training."""
