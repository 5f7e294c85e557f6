"""A response cache around any LLM: replay notebooks and benchmarks cheaply and reproducibly."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from kgviz.llm.base import LLM, Completion, Message
from kgviz.llm.errors import LLMCacheMiss, LLMError
from kgviz.llm.local_key import folder_key, record_mac, same_mac
from kgviz.llm.soft_prompt import SoftPrompt, text_only_error
from kgviz.llm.streaming import emit
from kgviz.paths import cache_root
from kgviz.storage.atomic import write_text_atomic
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside

CacheMode = Literal["rw", "ro", "off"]
MODES = ("rw", "ro", "off")


def default_cache_dir() -> Path:
    return cache_root() / "llm-responses"


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of a request (sorted keys, no whitespace)."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CachedLLM(LLM):
    """Wraps `inner`; one JSON file per request under `path`, keyed by backend, server (its URL
    without a password; none for the in-process model), model, messages, schema and the fully
    resolved options. Each entry is signed with the folder's key (`local_key`): one that fails
    its check (copied in, edited, planted) is set aside and asked again.

    Modes: "rw" replays hits and records misses, "ro" replays and raises `LLMCacheMiss` on a
    miss, "off" always calls `inner`. Replayed completions have `cached=True` and keep the
    token counts and latency of the original call.
    """

    def __init__(self, inner: LLM, path: str | Path | None = None, mode: CacheMode = "rw") -> None:
        if mode not in MODES:
            raise LLMError(f"unknown LLM cache mode {mode!r}; use one of {', '.join(MODES)}")
        self.inner = inner
        self.path = Path(path) if path is not None else default_cache_dir()
        self.mode = mode
        self.name = inner.name
        self.model = inner.model
        self.parallel_requests = inner.parallel_requests
        self.takes_embeddings = inner.takes_embeddings
        self.constrains_json = inner.constrains_json

    def options(self, **overrides: Any) -> dict[str, Any]:
        return self.inner.options(**overrides)

    def describe(self) -> str:
        return f"{self.inner.describe()} [cache {self.mode}]"

    def warm_up(self) -> None:
        self.inner.warm_up()

    def hidden_size(self) -> int:
        return self.inner.hidden_size()

    def entry_path(self, key: str) -> Path:
        return self.path / key[:2] / f"{key}.json"

    def complete(
        self,
        messages: list[Message],
        schema: dict | None = None,
        *,
        soft_prompt: SoftPrompt | None = None,
        **options: Any,
    ) -> Completion:
        if soft_prompt is not None and not self.takes_embeddings:
            raise LLMError(text_only_error(self.inner.describe()))
        if self.mode == "off":
            return self.inner.complete(messages, schema, soft_prompt=soft_prompt, **options)
        request = {
            "backend": self.name,
            "model": self.model,
            "messages": messages,
            "schema": schema,
            "options": self.options(**options),
        }
        server = self.inner.identity()
        if server:  # absent for the in-process model: its earlier keys stay valid
            request["server"] = server
        if soft_prompt is not None:  # absent otherwise: text-only requests keep their keys
            request["soft_prompt"] = soft_prompt.fingerprint()
        entry = self.entry_path(request_key(request))
        hit = self._read(entry)
        if hit is not None:
            emit(hit.text)  # a replayed reply arrives whole
            return hit
        if self.mode == "ro":
            raise LLMCacheMiss(
                f"no cached reply for this request in {self.path} (read-only cache, "
                f"{self.describe()}); record it with cache mode rw"
            )
        completion = self.inner.complete(messages, schema, soft_prompt=soft_prompt, **options)
        stored = dataclasses.asdict(dataclasses.replace(completion, retried=()))
        record: dict[str, Any] = {"request": request, "completion": stored}
        key = folder_key(self.path)
        assert key is not None  # made when absent
        record["mac"] = record_mac(record, key)
        text = json.dumps(record, ensure_ascii=False, indent=1)
        write_text_atomic(entry, text, "the cache keeps the replies it held")
        return completion

    def _read(self, entry: Path) -> Completion | None:
        """The stored completion, or None when absent. An unreadable entry, one whose fields
        have the wrong types, or a folder where it or a file where its folders should be, is set
        aside and re-recorded (left alone, and a miss, in mode "ro"), as is one whose signature
        fails; an unsigned one (from before entries were signed) is a miss, recorded again."""
        read_only = self.mode == "ro"
        for folder in (self.path, entry.parent):
            if folder.exists() and not folder.is_dir():
                set_aside(folder, NotADirectoryError("a file where a folder should be"), read_only)
                return None
        if entry.exists() and not entry.is_file():
            set_aside(entry, IsADirectoryError("a folder where a file should be"), read_only)
            return None
        if not entry.is_file():
            return None
        try:
            record = json.loads(entry.read_text(encoding="utf-8"))
            if not isinstance(record, dict):
                raise CorruptCache(f"it holds a JSON {type(record).__name__}, not an entry")
            mac = record.pop("mac", None)
            completion = Completion(**{**record["completion"], "cached": True, "retried": ()})
            check_types(completion)
            if mac is None:
                return None  # unsigned (written before entries were signed): asked again
            key = folder_key(self.path, create=not read_only)
            if key is None or not same_mac(mac, record_mac(record, key)):
                raise CorruptCache("its signature does not match this cache's key")
            return completion
        except (*CORRUPT, UnicodeDecodeError) as error:
            set_aside(entry, error, read_only)
            return None


def check_types(completion: Completion) -> None:
    """`CorruptCache` unless every field of `completion` has its declared type."""
    expected: dict[str, type | tuple[type, ...]] = {
        "text": str,
        "prompt_tokens": int,
        "completion_tokens": int,
        "latency_s": (int, float),
        "backend": str,
        "model": str,
        "truncated": bool,
        "looped": bool,
    }
    for name, kind in expected.items():
        value = getattr(completion, name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise CorruptCache(f"field {name} is {type(value).__name__}")
