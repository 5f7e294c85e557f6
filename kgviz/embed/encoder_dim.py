"""An encoder's vector dimension remembered on disk, so that checking the embedding caches and
vector indexes against it loads no model (nor torch) in a run whose texts are all cached.

The record is keyed by the model's files (path, size and modification time of each): a model
folder that changes is a miss, and its dimension is read from the loaded model again.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from pathlib import Path

from kgviz.paths import cache_root
from kgviz.storage.atomic import WriteError, write_text_atomic
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside

log = logging.getLogger(__name__)


def model_files_key(folder: Path) -> str:
    """A digest of the model folder's files: their paths, sizes and modification times."""
    digest = hashlib.blake2b(str(folder.resolve()).encode("utf-8"), digest_size=16)
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            path = Path(root) / name
            stat = path.stat()
            relative = path.relative_to(folder).as_posix()
            digest.update(f"\0{relative}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


def record_path(model_name: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", model_name).strip("_") or "model"
    return cache_root() / "encoders" / f"{safe}.json"


def remembered_dim(model_name: str, files_key: str) -> int | None:
    """The dimension recorded for this model and these files, if any; a record that does not
    read as one is set aside."""
    path = record_path(model_name)
    if not path.is_file():
        return None
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        dim = record["dim"]
        if not isinstance(dim, int) or isinstance(dim, bool) or dim <= 0:
            raise CorruptCache(f"dimension {dim!r} is not a positive whole number")
        if record["model"] != model_name or record["files"] != files_key:
            return None  # another model under the same name, or changed files
    except CORRUPT as error:
        set_aside(path, error)
        return None
    return dim


def remember_dim(model_name: str, files_key: str, dim: int) -> None:
    """Record the dimension (atomically); a cache that cannot be written only means the model
    is loaded again next time."""
    record = {"model": model_name, "files": files_key, "dim": dim}
    try:
        write_text_atomic(record_path(model_name), json.dumps(record) + "\n")
    except WriteError as error:
        log.debug("kgviz: %s", error)
