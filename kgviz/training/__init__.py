"""Training of the learned retrievers: data splits, weak labels, checkpoints."""
