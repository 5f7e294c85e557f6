"""Question inputs of the GNN: the sentence vector and the contextual token vectors the per-step
instructions attend over (from the same offline sentence encoder)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from kgviz.embed.encoder import SentenceEncoder


def question_tokens(encoder: SentenceEncoder, texts: Sequence[str]) -> list[torch.Tensor]:
    """Unit-length contextual token vectors `(tokens, dim)` of each text ([CLS], [SEP] included)."""
    if not texts:
        return []
    with torch.no_grad():
        found = encoder.model.encode(
            list(texts),
            output_value="token_embeddings",
            convert_to_numpy=False,
            show_progress_bar=False,
            batch_size=64,
        )
    return [torch.nn.functional.normalize(t.float().cpu(), dim=-1) for t in found]


def pad_tokens(tokens: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """Stacked `(B, T, dim)`, zeros after each text's end, and the `(B, T)` mask of real tokens."""
    stacked = torch.nn.utils.rnn.pad_sequence(list(tokens), batch_first=True)
    lengths = torch.tensor([len(t) for t in tokens])
    return stacked, torch.arange(stacked.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)
