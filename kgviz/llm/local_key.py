"""A key of this user's, made once per folder and readable by the user only, to sign what kgviz
writes and later trusts (verified-model records, cached replies): a record copied in from
elsewhere, or edited by hand, fails its check and is not used."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import tempfile
import threading
from pathlib import Path

KEY_NAME = ".kgviz-key"
_keys: dict[Path, bytes] = {}
_lock = threading.Lock()


def folder_key(folder: Path, create: bool = True) -> bytes | None:
    """The key of `folder`, made now unless it exists or `create` is off (then None)."""
    path = folder / KEY_NAME
    with _lock:
        if path in _keys:
            return _keys[path]
        if not path.is_file():
            if not create:
                return None
            folder.mkdir(parents=True, exist_ok=True)
            fd, fresh = tempfile.mkstemp(prefix=f"{KEY_NAME}.", dir=folder)  # mode 0600
            with os.fdopen(fd, "wb") as handle:
                handle.write(secrets.token_bytes(32))
            try:
                os.link(fresh, path)  # publish only if absent: concurrent first runs agree
            except FileExistsError:
                pass
            finally:
                os.unlink(fresh)
        _keys[path] = path.read_bytes()
        return _keys[path]


def record_mac(record: object, key: bytes) -> str:
    """The HMAC of a JSON-able record (canonical form: sorted keys) under `key`."""
    message = json.dumps(record, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def same_mac(stored: object, expected: str) -> bool:
    return isinstance(stored, str) and hmac.compare_digest(stored, expected)
