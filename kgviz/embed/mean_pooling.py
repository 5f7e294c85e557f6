"""Query vectors without importing sentence-transformers (7 s of a fresh process on the slower
machine measured, about 1.3 s on the faster one).

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
OTHER_POOLING_FLAGS = (
    "pooling_mode_cls_token",
    "pooling_mode_max_tokens",
    "pooling_mode_mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens",
    "pooling_mode_lasttoken",
)
# The transformer module's settings run here (any other key changes how it tokenizes, loads or
# runs), and the values of two more that are the same as leaving them out.
TRANSFORMER_KEYS = {"max_seq_length", "do_lower_case"}
DEFAULT_TRANSFORMER_IO = {
    "modality_config": {"text": {"method": "forward", "method_output_name": "last_hidden_state"}},
    "module_output_name": "token_embeddings",
}
PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json")


@dataclass(frozen=True)
class MeanPoolingStack:
    """What the folder's modules do: the tokenizer's length limit and how many L2
    normalisations follow the pooling (the folder's own, plus `encode`'s)."""

    max_seq_length: int
    normalisations: int


def _read_json(path: Path) -> Any:
    """The parsed file, or None when it is missing or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _modules(folder: Path) -> list[dict[str, Any]] | None:
    """`modules.json`'s entries when each names a type and a relative path."""
    modules = _read_json(folder / "modules.json")
    if not isinstance(modules, list):
        return None
    well_formed = all(
        isinstance(m, dict) and isinstance(m.get("type"), str) and isinstance(m.get("path"), str)
        for m in modules
    )
    return modules if well_formed else None


def _plain_transformer_length(folder: Path) -> int | None:
    """The length limit of a root transformer module that transformers' `AutoTokenizer` and
    `AutoModel` run as sentence-transformers would: no settings beyond `TRANSFORMER_KEYS`, no
    lower-casing or processor of its own, an encoder-only float32 model."""
    config = _read_json(folder / "sentence_bert_config.json")
    model = _read_json(folder / "config.json")
    if not isinstance(config, dict) or not isinstance(model, dict):
        return None
    for key, value in config.items():
        if key not in TRANSFORMER_KEYS and DEFAULT_TRANSFORMER_IO.get(key) != value:
            return None
    if config.get("do_lower_case") or any((folder / name).exists() for name in PROCESSOR_FILES):
        return None
    dtype = model.get("dtype", model.get("torch_dtype"))
    if model.get("is_encoder_decoder") or dtype not in (None, "float32"):
        return None
    length = config.get("max_seq_length")
    return length if isinstance(length, int) and length > 0 else None


def _mean_only(pooling: Any) -> bool:
    """A pooling config that averages the tokens and does nothing else."""
    if not isinstance(pooling, dict):
        return False
    if "pooling_mode" in pooling:
        return pooling["pooling_mode"] in ("mean", ["mean"])
    return pooling.get("pooling_mode_mean_tokens") is True and not any(
        pooling.get(flag) for flag in OTHER_POOLING_FLAGS
    )


def _normalises_sentences(folder: Path) -> bool:
    """A Normalize module that normalises the sentence vector (its default)."""
    config = _read_json(folder / "config.json") or {}
    return isinstance(config, dict) and config.get("module_input_name") in (
        None,
        "sentence_embedding",
    )


def mean_pooling_stack(folder: Path) -> MeanPoolingStack | None:
    """The folder's stack if it is transformer → mean pooling → [normalise] as
    `_plain_transformer_length` allows, with no default prompt; None for anything else
    (sentence-transformers then runs it)."""
    modules = _modules(folder)
    st_config = _read_json(folder / "config_sentence_transformers.json") or {}
    if modules is None or len(modules) not in (2, 3) or not isinstance(st_config, dict):
        return None
    types = [module["type"] for module in modules]
    if types[:2] != [TRANSFORMER, POOLING] or types[2:] not in ([], [NORMALIZE]):
        return None
    if modules[0]["path"] or st_config.get("default_prompt_name"):
        return None
    if not _mean_only(_read_json(folder / modules[1]["path"] / "config.json")):
        return None
    if len(modules) == 3 and not _normalises_sentences(folder / modules[2]["path"]):
        return None
    length = _plain_transformer_length(folder)
    if length is None:
        return None
    return MeanPoolingStack(max_seq_length=length, normalisations=len(modules) - 1)


class MeanPoolingModel:
    """A `MeanPoolingStack` folder loaded with transformers' `AutoModel` on the CPU."""

    def __init__(self, folder: Path, stack: MeanPoolingStack) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.stack = stack
        self.tokenizer = AutoTokenizer.from_pretrained(str(folder))
        self.model = AutoModel.from_pretrained(str(folder)).eval()
        if self.model.dtype != torch.float32:
            raise ValueError(f"{folder} loads as {self.model.dtype}, not float32")

    @property
    def dim(self) -> int:
        """The vectors' dimension (mean pooling keeps the transformer's hidden size)."""
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
