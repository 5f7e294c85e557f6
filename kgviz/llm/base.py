"""The one interface every reasoner uses to talk to an LLM, and the shared backend skeleton."""

from __future__ import annotations

import dataclasses
import logging
import time
from abc import ABC, abstractmethod
from typing import Any, NamedTuple

from kgviz.llm.completion import Completion
from kgviz.llm.deadline import llm_timeout, run_with_deadline
from kgviz.llm.errors import LLMError, LLMOutputError, LLMTimeout, LLMTransient
from kgviz.llm.parsing import parse_reply
from kgviz.llm.repetition import cut_loop
from kgviz.llm.soft_prompt import SOFT_PROMPT_OPTION, SoftPrompt, text_only_error
from kgviz.llm.streaming import emit, emitted

log = logging.getLogger(__name__)
# Pauses before the retries of a transient failure (HTTP 5xx, dropped connection, timeout).
RETRY_PAUSES_S = (1.0, 4.0)

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}

ROLES = frozenset({"system", "user", "assistant"})
# Deterministic by default: greedy decoding with a fixed seed. `loop_guard` stops a free-text
# reply that has started to repeat itself (`repetition.py`); it is part of every cache key.
DEFAULT_OPTIONS: dict[str, Any] = {
    "temperature": 0.0,
    "seed": 0,
    "max_tokens": 512,
    "stop": None,
    "loop_guard": True,
}


class RawReply(NamedTuple):
    """What a backend returns before the common bookkeeping."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    truncated: bool = False  # generation stopped at max_tokens
    looped: bool = False  # the loop guard stopped generation and cut the repeating tail
    reused_tokens: int = 0  # prompt tokens the server took from its prompt cache, not read


def check_messages(messages: list[Message]) -> None:
    """Reject malformed chat messages early, with the offending index."""
    if not messages:
        raise LLMError("no messages to send to the LLM")
    for i, message in enumerate(messages):
        if set(message) != {"role", "content"} or message["role"] not in ROLES:
            raise LLMError(f"message {i} must be {{'role': system|user|assistant, 'content': str}}")
        if not isinstance(message["content"], str):
            raise LLMError(f"message {i} content must be a string")


class LLM(ABC):
    """A chat model: `complete(messages, schema=None, **options) -> Completion`.

    `name` is the backend ("ollama", "llamacpp", "openai"), `model` the model it runs.
    Options: temperature, seed, max_tokens, stop, loop_guard (see `DEFAULT_OPTIONS`).
    """

    name: str
    model: str
    # How many calls may usefully be in flight at once (an in-process model serialises them).
    parallel_requests: int = 1
    # A white-box reader takes soft prompts (vectors into its embedding layer) besides text.
    takes_embeddings: bool = False
    # Whether a JSON schema constrains decoding (llama.cpp's grammar, Ollama's and OpenAI-compatible
    # servers' structured output), not only the parsing of the reply afterwards.
    constrains_json: bool = True

    @abstractmethod
    def complete(
        self,
        messages: list[Message],
        schema: dict | None = None,
        *,
        soft_prompt: SoftPrompt | None = None,
        **options: Any,
    ) -> Completion:
        """Send `messages`; with a JSON `schema`, the reply is constrained and parsed. A
        `soft_prompt` goes before the text (white-box readers only)."""

    @abstractmethod
    def options(self, **overrides: Any) -> dict[str, Any]:
        """The full generation options a call with `overrides` would use."""

    def describe(self) -> str:
        return f"{self.name}:{self.model}"

    def identity(self) -> str:
        """Where the model runs, as replies cached from it are keyed: a server's URL (no
        password), or '' for a model in this process (its verified file names it)."""
        return ""

    def warm_up(self) -> None:
        """Load the model now if this backend loads one (the in-process model does)."""

    def hidden_size(self) -> int:
        """The width of the model's token embeddings, which a soft prompt must have."""
        raise LLMError(text_only_error(self.describe()))


class Backend(LLM):
    """Shared skeleton: option defaults, message checks, a total deadline per request, bounded
    retries of transient failures, timing, the loop guard and JSON parsing of the reply.

    `timeout_s` is the total seconds one request may take (default: `KGVIZ_LLM_TIMEOUT`, 120).
    """

    retries_transient = True  # a server's 5xx, drops and timeouts may pass on a retry
    # True: the backend emits tokens and applies the loop guard itself as it streams
    streams = False
    default_timeout_s: float | None = None  # the backend's own default, else KGVIZ_LLM_TIMEOUT's

    def __init__(
        self,
        model: str,
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        seed: int = 0,
        timeout_s: float | None = None,
    ) -> None:
        self.model = model
        self.timeout_s = llm_timeout(self.default_timeout_s) if timeout_s is None else timeout_s
        self.defaults = {
            **DEFAULT_OPTIONS,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
        }

    def options(self, **overrides: Any) -> dict[str, Any]:
        unknown = set(overrides) - set(DEFAULT_OPTIONS)
        if unknown:
            raise LLMError(
                f"unknown LLM option(s) {sorted(unknown)}; known: {sorted(DEFAULT_OPTIONS)}"
            )
        return {**self.defaults, **overrides}

    def complete(
        self,
        messages: list[Message],
        schema: dict | None = None,
        *,
        soft_prompt: SoftPrompt | None = None,
        **options: Any,
    ) -> Completion:
        check_messages(messages)
        resolved = self.options(**options)
        if soft_prompt is not None:
            if not self.takes_embeddings:
                raise LLMError(text_only_error(self.describe()))
            resolved = {**resolved, SOFT_PROMPT_OPTION: soft_prompt}
        if log.isEnabledFor(logging.DEBUG):  # prompts only at debug level: they can be long
            log.debug(
                "%s prompt:\n%s",
                self.describe(),
                "\n".join(f"[{m['role']}] {m['content']}" for m in messages),
            )
        start = time.perf_counter()
        reply, retried = self._generate_with_retries(messages, schema, resolved)
        log.debug("%s reply (%d tokens): %s", self.describe(), reply.completion_tokens, reply.text)
        if not self.streams:  # a streaming backend emitted and guarded the reply as it came
            emit(reply.text)
            if schema is None and resolved["loop_guard"]:
                text, looped = cut_loop(reply.text)
                reply = reply._replace(text=text, looped=looped)
        completion = Completion(
            reply.text,
            None,
            reply.prompt_tokens,
            reply.completion_tokens,
            time.perf_counter() - start,
            self.name,
            self.model,
            reply.truncated,
            looped=reply.looped,
            retried=retried,
            reused_tokens=reply.reused_tokens,
            soft_tokens=soft_prompt.tokens if soft_prompt is not None else 0,
        )
        if schema is None:
            return completion
        parsed, problem = parse_reply(reply.text, schema)
        if reply.truncated:
            problem = (
                f"the reply was cut at max_tokens={resolved['max_tokens']} "
                "(raise max_tokens or bound the schema with maxItems)"
            )
        if problem:
            raise LLMOutputError(
                f"{self.describe()} returned invalid JSON: {problem}", reply.text, completion
            )
        return dataclasses.replace(completion, parsed=parsed)

    def _generate_with_retries(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> tuple[RawReply, tuple[str, ...]]:
        """`_bounded_generate`, retried after a transient failure (with growing pauses); the
        reply and the failures retried before it. The deadline covers the request as a whole,
        retries and pauses included: a timeout is never retried, and neither is a failure when
        the pause would outlast the deadline, nor one after part of the reply was streamed (a
        retry would show it twice)."""
        deadline = time.monotonic() + self.timeout_s
        pauses = RETRY_PAUSES_S if self.retries_transient else ()
        retried: list[str] = []
        for attempt, pause in enumerate((*pauses, None), start=1):
            shown = emitted()
            try:
                reply = self._bounded_generate(messages, schema, options, deadline)
                return reply, tuple(retried)
            except LLMTimeout:
                raise
            except LLMTransient as error:
                if emitted() > shown:
                    raise type(error)(f"{error} (mid-reply: not retried)") from error
                if pause is None or time.monotonic() + pause >= deadline:
                    raise type(error)(f"{error} ({attempt} attempt(s))") from error
                log.warning("%s; retrying in %g s", error, pause)
                retried.append(str(error))
                time.sleep(pause)
        raise AssertionError("unreachable")

    def _bounded_generate(
        self,
        messages: list[Message],
        schema: dict | None,
        options: dict[str, Any],
        deadline: float,
    ) -> RawReply:
        """One attempt, stopped at `deadline` (monotonic time); backends that check it
        themselves override."""
        return run_with_deadline(
            lambda: self._generate(messages, schema, options),
            self.timeout_s,
            self._abort,
            self.describe(),
            deadline,
        )

    def _abort(self) -> None:
        """Drop the connection of a request given up on (deadline, cancellation, Ctrl-C)."""

    @abstractmethod
    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        """Run one chat request with fully resolved options."""
