"""Prompt prefixes kept on disk: a fresh process restores the KV state of a prompt's fixed
prefix (a method's instructions and few-shot examples) instead of reading it again.

llama.cpp saves and restores a slot's KV cache (its server's slot save/restore). After a
request whose prefix (every message but the last) is long and was seen before (by any process:
a re-ask's prefix holds its question and is never seen again, so it is not kept), the slot is
saved under a key made of the model file's hash, the prefix messages, the context size and the
llama.cpp build with its weight layout; before a request whose prefix has a saved state the slot
does not hold, that state is restored, and llama.cpp then reads only the tokens after the common
prefix. States are written under a temporary name, hashed, and published with a JSON note of
their hash and size; a state whose note is missing or does not match is set aside and saved
again.
`KGVIZ_PREFIX_CACHE=off` turns all of this off.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from kgviz.llm.base import Message
from kgviz.paths import cache_root
from kgviz.storage.atomic import write_text_atomic
from kgviz.storage.cache_repair import CORRUPT, CorruptCache, set_aside

log = logging.getLogger(__name__)
PREFIX_ENV = "KGVIZ_PREFIX_CACHE"
# A prefix shorter than this (in characters, ~4 a token) is read rather than restored: on 2 cores
# reading takes ~25 ms a token, restoring a saved state ~50 ms whatever its length (measured).
MIN_PREFIX_CHARS = 200


def prefix_cache_on() -> bool:
    return os.environ.get(PREFIX_ENV, "on").strip().lower() not in ("off", "0", "no", "false")


def fixed_prefix(messages: Sequence[Message]) -> list[Message] | None:
    """Every message but the last, when there are such and they are long enough to keep."""
    prefix = list(messages[:-1])
    if not prefix or sum(len(m["content"]) for m in prefix) < MIN_PREFIX_CHARS:
        return None
    return prefix


@dataclass(frozen=True)
class PrefixStates:
    """The saved prefix states of one model file under one context size and llama.cpp build
    (with its weight layout, which changes the numerics)."""

    folder: Path
    identity: str  # model sha256, context size, llama.cpp build and weight layout

    @classmethod
    def for_model(cls, model_sha256: str, n_ctx: int, build: str) -> PrefixStates:
        folder = cache_root() / "llm-prefix-states"
        return cls(folder, json.dumps([model_sha256, n_ctx, build]))

    def key(self, prefix: Sequence[Message]) -> str:
        text = json.dumps([self.identity, list(prefix)], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]

    def state(self, key: str) -> Path:
        return self.folder / f"{key}.bin"

    def note(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def scratch(self, key: str) -> str:
        """The name llama.cpp writes a new state under, inside `folder` (then published)."""
        return f".{key}.{os.getpid()}.tmp"

    def usable(self, key: str) -> bool:
        """Whether `key` has a state whose note matches its size and hash; a state that does not
        match is set aside (and saved again after the next request)."""
        state, note = self.state(key), self.note(key)
        if not state.is_file():
            return False
        try:
            recorded = json.loads(note.read_text(encoding="utf-8"))
            if recorded["size"] != state.stat().st_size or recorded["sha256"] != _digest(state):
                raise CorruptCache("its size or hash differs from its note")
        except (*CORRUPT, UnicodeDecodeError) as error:
            set_aside(state, error)
            note.unlink(missing_ok=True)
            return False
        return True

    def recurs(self, key: str) -> bool:
        """Whether a request with this prefix was seen before; the first time, note it."""
        seen = self.folder / "seen" / key
        if seen.exists():
            return True
        try:
            seen.parent.mkdir(parents=True, exist_ok=True)
            seen.touch()
        except OSError:  # a read-only or full disk: nothing is kept
            pass
        return False

    def publish(self, key: str, tokens: int) -> None:
        """Make the state llama.cpp wrote under `scratch(key)` the state of `key`."""
        written = self.folder / self.scratch(key)
        note = {"size": written.stat().st_size, "sha256": _digest(written), "tokens": tokens}
        write_text_atomic(self.note(key), json.dumps(note))
        os.replace(written, self.state(key))


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class SlotPrefixes:
    """Restores and saves the one slot of an in-process llama.cpp server through its loopback
    slot routes, keeping track of which prefix the slot holds. Its owner serialises calls."""

    def __init__(self, states: PrefixStates, url: str) -> None:
        self.states, self.url = states, url
        self.holds: str | None = None  # the key of the prefix state the slot holds now
        self._checked: set[str] = set()  # keys whose saved state was found sound

    def _saved(self, key: str) -> bool:
        if key not in self._checked and self.states.usable(key):
            self._checked.add(key)
        return key in self._checked

    def before(self, messages: Sequence[Message]) -> str | None:
        """Restore the saved state of the request's prefix unless the slot holds it; its key."""
        prefix = fixed_prefix(messages)
        if prefix is None:
            self.holds = None
            return None
        key = self.states.key(prefix)
        wanted = self.holds != key and self._saved(key)
        if wanted and self._slot("restore", self.states.state(key).name) is None:
            set_aside(self.states.state(key), CorruptCache("llama.cpp could not restore it"))
            self.states.note(key).unlink(missing_ok=True)
            self._checked.discard(key)
        self.holds = None  # until the request succeeds (`after`)
        return key

    def after(self, key: str | None, keep_now: bool = False) -> None:
        """Save the slot under the request's prefix key when no state is saved for it yet and
        the prefix recurs (or at once, `keep_now`)."""
        if key is None or self._saved(key) or not (keep_now or self.states.recurs(key)):
            self.holds = key
            return
        self.states.folder.mkdir(parents=True, exist_ok=True)
        saved = self._slot("save", self.states.scratch(key))
        if saved is not None:
            try:
                self.states.publish(key, int(saved.get("n_saved", 0)))
            except OSError as error:  # a full disk: the next process reads the prefix again
                log.warning("kgviz: prefix state %s not kept: %s", key, error.strerror)
        self.holds = key

    def _slot(self, action: str, filename: str) -> dict | None:
        """One slot action; None (logged) when llama.cpp refuses it."""
        try:
            response = httpx.post(
                f"{self.url}/slots/0?action={action}", json={"filename": filename}, timeout=120
            )
            if response.status_code == 200:
                return response.json()
            reason = response.text[:200]
        except (httpx.HTTPError, ValueError) as error:
            reason = str(error)
        log.warning("kgviz: llama.cpp slot %s of %s failed: %s", action, filename, reason)
        return None
