"""Where kgviz reads data and keeps caches; both are overridable by environment variables."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path


def data_root() -> Path:
    """Root of downloaded datasets (`KGVIZ_DATA`, default: a per-user data folder)."""
    configured = os.environ.get("KGVIZ_DATA")
    if configured:
        return Path(configured).expanduser().resolve()
    base = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(base) / "kgviz"


def cache_root() -> Path:
    """Root of caches: processed graphs, embeddings, indexes, models (`KGVIZ_CACHE`)."""
    configured = os.environ.get("KGVIZ_CACHE")
    if configured:
        return Path(configured).expanduser().resolve()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kgviz"


def models_root() -> Path:
    """Where offline LLM files live (`KGVIZ_MODELS`, default `<cache root>/models`)."""
    configured = os.environ.get("KGVIZ_MODELS")
    return Path(configured).expanduser().resolve() if configured else cache_root() / "models"


def repo_data_dir() -> Path:
    """The `data/` folder shipped with kgviz (holds the built-in demo dataset)."""
    return Path(__file__).resolve().parent.parent / "data"


def cache_name(name: str) -> str:
    """A file-name-safe stand-in for a dataset or graph name (`custom:/any/long/path`): its
    safe characters, cut to 40, and a hash of the whole name, so that any name works.

    >>> cache_name("custom:/home/me/my kg").startswith("custom_home_me_my_kg-")
    True
    """
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.")[:40] or "kg"
    return f"{slug}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:10]}"
