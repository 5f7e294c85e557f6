"""Offline backend: a verified GGUF model run in-process by llama.cpp (`xllamacpp`).

Each model is loaded lazily, once per process, and shared by every backend object that asks for
the same file and parameters. It serves `slots` requests at once (llama.cpp's parallel slots,
decoded together by continuous batching); further callers wait for a free slot, so widgets and
eval workers may call from any thread. Each slot keeps its last prompt's KV cache and llama.cpp
keeps recent prompts' caches in RAM (`PROMPT_CACHE_MIB`), so a prefix shared across questions,
such as a method's few-shot examples or instructions, is evaluated once, even when methods take
turns.
"""

from __future__ import annotations

import importlib.metadata
import os
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgviz.llm.base import Message, RawReply
from kgviz.llm.deadline import RequestWatch
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.in_process import InProcessBackend
from kgviz.llm.model_files import DEFAULT_MODEL, ModelSpec, get_spec, verify_model
from kgviz.llm.openai_format import chat_body, streamed, take_chunk, take_completion
from kgviz.llm.prefix_state import PREFIX_ENV, PrefixStates, SlotPrefixes, prefix_cache_on
from kgviz.llm.repetition import LoopGuard
from kgviz.llm.stream_state import StreamState

THREADS_ENV = "KGVIZ_LLM_THREADS"
SLOTS_ENV = "KGVIZ_LLM_SLOTS"
MAX_DEFAULT_THREADS = 8  # token generation is bound by memory bandwidth beyond a few cores
PROMPT_CACHE_MIB = 2048  # prompt KV caches kept in RAM for reuse (a 1.5B model: ~28 KiB/token)
# Everything xllamacpp's Server can raise: Cython's `except +` turns a C++ exception into one of
# these (std::runtime_error and any exception it does not recognise become RuntimeError), and
# serialising a dict request to JSON adds TypeError/ValueError. OverflowError is an ArithmeticError.
BINDING_ERRORS = (
    RuntimeError,
    ValueError,
    TypeError,
    OSError,
    MemoryError,
    IndexError,
    ArithmeticError,
)


def _positive_env(name: str, default: int) -> int:
    value = os.environ.get(name, str(default))
    if not value.isdigit() or int(value) < 1:
        raise LLMError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def default_threads() -> int:
    """Threads for llama.cpp: `KGVIZ_LLM_THREADS`, else every core this process may use, up to
    `MAX_DEFAULT_THREADS`. On 2 cores, 2 threads answered 1.8x as many questions per hour as 1
    on a quiet machine and as many as 1 with the other core busy (bench/bench_throughput.py)."""
    return _positive_env(THREADS_ENV, min(usable_cores(), MAX_DEFAULT_THREADS))


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the OS has one)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_slots() -> int:
    """Requests served at once: `KGVIZ_LLM_SLOTS`, else 1."""
    return _positive_env(SLOTS_ENV, 1)


@dataclass
class LoadedModel:
    """A llama.cpp server object, the gate admitting one call per slot, its load time, and its
    one slot's saved prompt prefixes (None with several slots or `KGVIZ_PREFIX_CACHE=off`)."""

    server: Any
    gate: threading.Semaphore
    load_s: float
    prefixes: SlotPrefixes | None = None


_LOADED: dict[tuple[str, int, int, int, bool], LoadedModel] = {}
_LOADING = threading.Lock()


def _load(spec: ModelSpec, path: Path, n_ctx: int, threads: int, slots: int) -> LoadedModel:
    """Load `path` once per process for these parameters (later calls return the same object).
    Every slot gets a context of `n_ctx` tokens. With one slot, the prompt-prefix states on disk
    are used (`prefix_state`): the server then also listens on a loopback port for its slot
    routes."""
    key = (str(path), n_ctx, threads, slots, prefix_cache_on())
    with _LOADING:
        if key not in _LOADED:
            try:
                import xllamacpp
            except ImportError as exc:
                raise LLMUnavailable(
                    "xllamacpp is not installed: pip install xllamacpp==2026.10.11549"
                ) from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(path)
            params.n_ctx = n_ctx * slots  # llama.cpp splits the context between the slots
            params.n_parallel = slots
            params.cache_ram_mib = PROMPT_CACHE_MIB
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            params.verbosity = 0
            cpu_only = not any(map(is_gpu, xllamacpp.get_device_info()))
            # On a CPU alone, llama.cpp's fitting of layers to device memory has nothing to fit,
            # and its repacked copy of the weights measured slower here (2 AVX2 cores, the 1.5B
            # Q4_K_M model: loading 3.4 -> 1.6 s, prompts 35 -> 44 tokens/s, replies 9.5 -> 10.5).
            params.fit_params = not cpu_only
            params.no_extra_bufts = cpu_only
            states = None
            if slots == 1 and prefix_cache_on():
                version = importlib.metadata.version("xllamacpp")
                build = f"{version} no_extra_bufts={cpu_only}"  # the weights' layout sets numerics
                states = PrefixStates.for_model(spec.sha256, n_ctx, build)
                states.folder.mkdir(parents=True, exist_ok=True)
                params.slot_save_path = f"{states.folder}{os.sep}"  # joined as a plain string
                params.hostnames, params.port = ["127.0.0.1"], free_port()
            start = time.perf_counter()
            try:
                server = xllamacpp.Server(params)
            except BINDING_ERRORS as exc:
                raise LLMError(f"llama.cpp could not load {path}: {exc}") from exc
            prefixes = SlotPrefixes(states, f"http://127.0.0.1:{params.port}") if states else None
            _LOADED[key] = LoadedModel(
                server, threading.Semaphore(slots), time.perf_counter() - start, prefixes
            )
        return _LOADED[key]


def is_gpu(device: dict[str, Any]) -> bool:
    """Whether a device of `xllamacpp.get_device_info()` is a GPU (discrete or integrated)."""
    return device["type"].name in ("GGML_BACKEND_DEVICE_TYPE_GPU", "GGML_BACKEND_DEVICE_TYPE_IGPU")


def free_port() -> int:
    """A loopback port no one listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaCppBackend(InProcessBackend):
    """`complete()` on an offline model from `model_files.MODELS`, verified before first use.
    The deadline, cancellation and Ctrl-C are checked between streamed tokens (a prompt being
    read is not interrupted)."""

    name = "llamacpp"
    # A CPU reading a long prompt and writing 384 tokens on one busy thread can take minutes;
    # nothing in-process can hang the way a server can, and max_tokens bounds the rest.
    default_timeout_s = 600.0

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        *,
        spec: ModelSpec | None = None,
        n_ctx: int = 4096,
        threads: int | None = None,
        slots: int | None = None,
        **defaults: Any,
    ) -> None:
        self.spec = spec or get_spec(model)
        super().__init__(self.spec.name, **defaults)
        self.n_ctx = n_ctx
        self.threads = threads or default_threads()
        self.slots = slots or default_slots()
        self.parallel_requests = self.slots
        self._loaded: LoadedModel | None = None

    def warm_up(self) -> None:
        self.load()

    def keep_prefix(self, prefix: list[Message]) -> int:
        """Read `prefix` once (a one-token request after it) so that its state is saved on
        disk; the prompt tokens read, 0 when its state was kept already."""
        if not prefix_cache_on():
            raise LLMError(f"prompt-prefix states are off ({PREFIX_ENV}=off)")
        loaded = self.load()
        if loaded.prefixes is None:
            raise LLMError(f"prompt-prefix states need one slot ({SLOTS_ENV}=1)")
        messages = [*prefix, {"role": "user", "content": "?"}]
        body = chat_body(self.model, messages, None, self.options(max_tokens=1))
        with loaded.gate:
            key = loaded.prefixes.before(messages)
            state = StreamState(LoopGuard(watching=False))
            take_completion(state, self._call(loaded, {**body, "stream": False}))
            loaded.prefixes.after(key, keep_now=True)
        reply = state.reply()
        return reply.prompt_tokens - reply.reused_tokens

    def load(self) -> LoadedModel:
        """Verify the model file (size + sha256) and load it if this process has not yet."""
        if self._loaded is None:
            path = verify_model(self.spec)
            self._loaded = _load(self.spec, path, self.n_ctx, self.threads, self.slots)
        return self._loaded

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        watch = self.watch()
        loaded = self.load()
        body = chat_body(self.model, messages, schema, options)
        guard = LoopGuard(watching=schema is None and options["loop_guard"])
        return self._stream(loaded, body, guard, watch)

    @staticmethod
    def _call(loaded: LoadedModel, body: dict[str, Any], on_chunk: Any = None) -> Any:
        """One request to the in-process server (the caller holds a slot)."""
        try:
            data = (
                loaded.server.handle_chat_completions(body)
                if on_chunk is None
                else loaded.server.handle_chat_completions(body, on_chunk)
            )
        except BINDING_ERRORS as exc:  # invalid request, context overflow, ...
            raise LLMError(f"llama.cpp rejected the request: {exc}") from exc
        if isinstance(data, dict) and "error" in data:
            raise LLMError(f"llama.cpp rejected the request: {data['error']}")
        return data

    def _stream(
        self,
        loaded: LoadedModel,
        body: dict[str, Any],
        guard: LoopGuard,
        watch: RequestWatch | None,
    ) -> RawReply:
        """Stream the reply, stopping when the loop guard sees a loop or the request expires. A
        stopped stream reports no token counts: a one-token request for the same prompt (its
        prefix is cached, so it costs one token) gives the prompt's."""
        stream = StreamState(guard)
        interrupted: list[BaseException] = []

        def on_chunk(chunk: Any) -> bool:
            try:
                return take_chunk(stream, chunk) or bool(watch and watch.expired())
            except BaseException as error:  # noqa: BLE001  (Ctrl-C lands here: stop, re-raise)
                interrupted.append(error)
                return True

        with loaded.gate:
            key = loaded.prefixes.before(body["messages"]) if loaded.prefixes else None
            self._call(loaded, streamed(body), on_chunk)
            if interrupted:
                raise interrupted[0]
            if stream.error is not None:
                raise LLMError(f"llama.cpp rejected the request: {stream.error}")
            if watch is not None and watch.expired():
                watch.raise_expired()
            if not stream.usage:
                probe = self._call(loaded, {**body, "max_tokens": 1, "stream": False})
                stream.count((probe.get("usage") or {}).get("prompt_tokens", 0), None)
            if loaded.prefixes is not None:
                loaded.prefixes.after(key)
        return stream.reply()

    def describe(self) -> str:
        return (
            f"{self.name}:{self.model} ({self.threads} thread(s), {self.slots} slot(s), "
            f"n_ctx {self.n_ctx})"
        )
