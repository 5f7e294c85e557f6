"""Query vectors without importing sentence-transformers (about 7 s of a fresh process).

A sentence-transformers folder whose modules are a transformer, mean pooling and optionally
L2 normalisation is run here with transformers alone: the same tokenizer call, one padded
batch, the same pooling sums and the same normalisations in the same order, so a small batch
gets the very vectors `SentenceTransformer.encode(..., normalize_embeddings=True)` gives
(tests/embed/test_mean_pooling.py compares them bit for bit).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

TRANSFORMER = "sentence_transformers.models.Transformer"
POOLING = "sentence_transformers.models.Pooling"
NORMALIZE = "sentence_transformers.models.Normalize"
POOLING_FLAGS = (
    "pooling_mode_cls_token",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)


@dataclass(frozen=True)
class MeanPoolingStack:
    """What the folder's modules do: the tokenizer's length limit and how many L2
    normalisations follow the pooling (the folder's own, plus `encode`'s)."""

    max_seq_length: int
    normalisations: int


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _mean_only(pooling: Any) -> bool:
    """A pooling config that averages the tokens and does nothing else."""
    if not isinstance(pooling, dict):
        return False
    if "pooling_mode" in pooling:
        return pooling["pooling_mode"] in ("mean", ["mean"])
    return pooling.get("pooling_mode_mean_tokens") is True and not any(
        pooling.get(flag) for flag in POOLING_FLAGS
    )


def mean_pooling_stack(folder: Path) -> MeanPoolingStack | None:
    """The folder's stack if it is transformer → mean pooling → [normalise], with no prompts and
    no lower-casing of its own; None for anything else (sentence-transformers then runs it)."""
    modules = _read_json(folder / "modules.json")
    config = _read_json(folder / "sentence_bert_config.json")
    st_config = _read_json(folder / "config_sentence_transformers.json") or {}
    if not isinstance(modules, list) or not isinstance(config, dict) or len(modules) not in (2, 3):
        return None
    types = [module.get("type") for module in modules]
    if types[:2] != [TRANSFORMER, POOLING] or types[2:] not in ([], [NORMALIZE]):
        return None
    if modules[0].get("path") or config.get("do_lower_case"):
        return None
    if st_config.get("prompts") or st_config.get("default_prompt_name"):
        return None
    if not _mean_only(_read_json(folder / modules[1]["path"] / "config.json")):
        return None
    length = config.get("max_seq_length")
    if not isinstance(length, int):
        return None
    return MeanPoolingStack(max_seq_length=length, normalisations=len(modules) - 1)


class MeanPoolingModel:
    """A `MeanPoolingStack` folder loaded with transformers' `AutoModel` on the CPU."""

    def __init__(self, folder: Path, stack: MeanPoolingStack) -> None:
        from transformers import AutoModel, AutoTokenizer

        self.stack = stack
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
        self.model = AutoModel.from_pretrained(str(folder)).eval()

    @property
    def dim(self) -> int:
        return int(self.model.config.hidden_size)

    def encode(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 vectors of `texts`, computed as one batch (longest first, as
        sentence-transformers orders a batch)."""
        import torch

        order = np.argsort([-len(text) for text in texts])
        features = self.tokenizer(
            [texts[i] for i in order],
            padding=True,
            truncation="longest_first",
            max_length=self.stack.max_seq_length,
            return_tensors="pt",
        )
        with torch.inference_mode():
            tokens = self.model(**features, return_dict=True).last_hidden_state
            mask = features["attention_mask"].unsqueeze(-1).to(tokens.dtype)
            sums = (tokens * mask).sum(dim=1, dtype=torch.float32)
            vectors = sums / torch.clamp(mask.sum(dim=1, dtype=torch.float32), min=1e-9)
            for _ in range(self.stack.normalisations):
                vectors = torch.nn.functional.normalize(vectors, p=2, dim=1)
        result = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
        result[order] = vectors.numpy()
        return result
