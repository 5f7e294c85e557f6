"""White-box offline backend: the verified GGUF model of `local`, run in PyTorch by transformers.

transformers reads the GGUF file (with `gguf` installed) and dequantises its weights: fp32 on a
CPU, about 4 bytes a parameter (a 1.5B model holds about 9 GB), bf16 or fp16 on a GPU. The model
is loaded lazily, once per process, and serves one request at a time. Unlike `local`, it takes
soft prompts (`SoftPrompt`, vectors fed into the embedding layer before the text, such as GRAG's
graph token) and gives trainers the model itself (`load().model`).

It reads the prompt in chunks and generates token by token in the calling thread, so the
deadline, cancellation and Ctrl-C are checked between chunks and between tokens. A JSON schema
is not enforced while decoding (llama.cpp's grammar has no counterpart here): the reply is
parsed afterwards and re-asked, as on any backend.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgviz.llm.base import Message, RawReply
from kgviz.llm.deadline import RequestWatch
from kgviz.llm.errors import LLMError, LLMUnavailable
from kgviz.llm.in_process import InProcessBackend
from kgviz.llm.model_files import DEFAULT_MODEL, ModelSpec, get_spec, verify_model
from kgviz.llm.repetition import LoopGuard
from kgviz.llm.soft_prompt import SOFT_PROMPT_OPTION, SoftPrompt
from kgviz.llm.stream_state import StreamState
from kgviz.paths import cache_root
from kgviz.storage.cache_repair import CORRUPT, set_aside

PROMPT_CHUNK = 256  # prompt tokens read per forward pass (the deadline is checked between)
NEEDS = ("gguf", "accelerate")
INSTALL = "pip install gguf==0.19.0 accelerate==1.15.0"
END_TOKENS = ("<|im_end|>", "<|endoftext|>")


@dataclass
class LoadedReader:
    """A transformers model and tokenizer, where they run, what ends a reply, and the lock
    admitting one request at a time."""

    model: Any
    tokenizer: Any
    device: str
    end_ids: frozenset[int]
    lock: threading.Lock


_LOADED: dict[str, LoadedReader] = {}
_LOADING = threading.Lock()


def missing_packages() -> list[str]:
    """The packages of `NEEDS` this environment lacks."""
    return [name for name in NEEDS if importlib.util.find_spec(name) is None]


def tokenizer_folder(spec: ModelSpec) -> Path:
    """Where the tokenizer converted from `spec`'s GGUF file is kept (converting it takes
    seconds; reading it back, a fraction of one)."""
    return cache_root() / "hf-tokenizers" / spec.sha256[:16]


def load_tokenizer(spec: ModelSpec, path: Path) -> Any:
    """The tokenizer of the GGUF file at `path`, converted once and kept (atomically) under
    `tokenizer_folder`; an unreadable kept copy is set aside and converted again."""
    from transformers import AutoTokenizer

    folder = tokenizer_folder(spec)
    if folder.exists():
        try:
            return AutoTokenizer.from_pretrained(folder)
        except CORRUPT as error:
            set_aside(folder, error)
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    staging = folder.with_name(f".{folder.name}.{uuid.uuid4().hex}.tmp")
    try:
        tokenizer.save_pretrained(staging)
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staging, folder)
    except OSError:  # another process published it first, or the cache is not writable
        pass
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return tokenizer


def _device() -> tuple[str, Any]:
    """A GPU when torch sees one (bf16 where supported, else fp16), else the CPU in fp32."""
    import torch

    if torch.cuda.is_available():
        return "cuda", torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    return "cpu", torch.float32


def _load(spec: ModelSpec, path: Path) -> LoadedReader:
    """Load `path` once per process (later calls return the same reader)."""
    with _LOADING:
        if str(path) not in _LOADED:
            missing = missing_packages()
            if missing:
                raise LLMUnavailable(f"the hf backend needs {' and '.join(missing)}: {INSTALL}")
            from transformers import AutoModelForCausalLM

            device, dtype = _device()
            try:
                tokenizer = load_tokenizer(spec, path)
                model: Any = AutoModelForCausalLM.from_pretrained(
                    path.parent, gguf_file=path.name, dtype=dtype
                )
            except (OSError, ValueError, RuntimeError, KeyError) as error:
                raise LLMError(f"transformers could not load {path}: {error}") from error
            model.to(device).eval().requires_grad_(False)
            ends = {tokenizer.convert_tokens_to_ids(token) for token in END_TOKENS}
            ends.add(tokenizer.eos_token_id)
            _LOADED[str(path)] = LoadedReader(
                model,
                tokenizer,
                device,
                frozenset(i for i in ends if isinstance(i, int) and i >= 0),
                threading.Lock(),
            )
        return _LOADED[str(path)]


class HFBackend(InProcessBackend):
    """`complete()` on an offline model from `model_files.MODELS` through transformers, with
    soft prompts; verified (size and sha256) before first use."""

    name = "hf"
    takes_embeddings = True
    constrains_json = False  # a schema is checked after decoding, not enforced during it
    # fp32 on 2 CPU cores reads about 40 prompt tokens a second and writes 2-3 (bench_white_box)
    default_timeout_s = 1800.0

    def __init__(self, model: str = DEFAULT_MODEL, **defaults: Any) -> None:
        self.spec = get_spec(model)
        super().__init__(self.spec.name, **defaults)

    def load(self) -> LoadedReader:
        """Verify the model file and load it if this process has not yet (or has unloaded it)."""
        loaded = _LOADED.get(str(self.spec.path))
        return loaded if loaded is not None else _load(self.spec, verify_model(self.spec))

    def warm_up(self) -> None:
        self.load()

    def unload(self) -> None:
        """Free the model (about 9 GB for the 1.5B on a CPU) for every backend object of this
        process sharing it; the next request loads it again."""
        with _LOADING:
            _LOADED.pop(str(self.spec.path), None)

    def hidden_size(self) -> int:
        return int(self.load().model.config.hidden_size)

    def prompt_ids(self, messages: list[Message]) -> Any:
        """The chat-templated token ids of `messages`, ready for the reply, as a (1, n) tensor."""
        loaded = self.load()
        encoded = loaded.tokenizer.apply_chat_template(
            messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
        )
        return encoded["input_ids"].to(loaded.device)

    def prompt_embeddings(self, messages: list[Message], soft_prompt: SoftPrompt | None) -> Any:
        """The (1, n, hidden) input of `messages`: the soft prompt's vectors, then the text's
        token embeddings (GRAG's order: graph token, then the text)."""
        import torch

        loaded = self.load()
        text = loaded.model.get_input_embeddings()(self.prompt_ids(messages))
        if soft_prompt is None:
            return text
        width = loaded.model.config.hidden_size
        if soft_prompt.vectors.ndim != 2 or soft_prompt.vectors.shape[1] != width:
            raise LLMError(
                f"a soft prompt for {self.model} must be (tokens, {width}); got "
                f"{tuple(soft_prompt.vectors.shape)}"
            )
        soft = soft_prompt.vectors.to(device=text.device, dtype=text.dtype)
        return torch.cat([soft.unsqueeze(0), text], dim=1)

    def answer_loss(
        self, messages: list[Message], answer: str, soft_prompt: SoftPrompt | None = None
    ) -> Any:
        """The frozen model's mean cross entropy of `answer` as the reply to `messages` after
        `soft_prompt`: a scalar tensor whose gradient reaches whatever made the soft prompt."""
        import torch

        loaded = self.load()
        prompt = self.prompt_embeddings(messages, soft_prompt)
        reply = f"{answer}{END_TOKENS[0]}"
        ids = loaded.tokenizer(reply, add_special_tokens=False, return_tensors="pt")["input_ids"]
        ids = ids.to(loaded.device)
        embeds = torch.cat([prompt, loaded.model.get_input_embeddings()(ids)], dim=1)
        ignored = torch.full((1, prompt.shape[1]), -100, device=loaded.device)
        return loaded.model(inputs_embeds=embeds, labels=torch.cat([ignored, ids], dim=1)).loss

    def _generate(
        self, messages: list[Message], schema: dict | None, options: dict[str, Any]
    ) -> RawReply:
        import torch

        loaded = self.load()
        watch = self.watch()
        stream = StreamState(LoopGuard(watching=schema is None and options["loop_guard"]))
        with loaded.lock, torch.inference_mode():
            embeds = self.prompt_embeddings(messages, options.get(SOFT_PROMPT_OPTION))
            cache, logits = read_prompt(loaded.model, embeds, watch)
            writer = ReplyWriter(loaded.tokenizer, stream, options["stop"])
            sampler = torch.Generator().manual_seed(int(options["seed"]))
            stream.finish = "length"
            for _ in range(options["max_tokens"]):
                token = pick_token(logits, float(options["temperature"]), sampler)
                if token in loaded.end_ids or writer.add(token):
                    stream.finish = "stop"
                    break
                if watch is not None and watch.expired():
                    watch.raise_expired()
                step = torch.tensor([[token]], device=loaded.device)
                out = loaded.model(
                    input_ids=step, past_key_values=cache, use_cache=True, logits_to_keep=1
                )
                logits = out.logits[0, -1]
            writer.flush()
        stream.count(embeds.shape[1], writer.tokens)
        return stream.reply()

    def describe(self) -> str:
        loaded = _LOADED.get(str(self.spec.path))
        where = loaded.device if loaded is not None else "cuda or cpu"
        return f"{self.name}:{self.model} (transformers on {where})"


def read_prompt(model: Any, embeds: Any, watch: RequestWatch | None) -> tuple[Any, Any]:
    """Run the prompt through `model` `PROMPT_CHUNK` positions at a time; its key-value cache
    and the logits of its last position."""
    from transformers import DynamicCache

    cache = DynamicCache()
    logits = None
    for start in range(0, embeds.shape[1], PROMPT_CHUNK):
        if watch is not None and watch.expired():
            watch.raise_expired()
        out = model(
            inputs_embeds=embeds[:, start : start + PROMPT_CHUNK],
            past_key_values=cache,
            use_cache=True,
            logits_to_keep=1,
        )
        logits = out.logits[0, -1]
    return cache, logits


def pick_token(logits: Any, temperature: float, sampler: Any) -> int:
    """Greedy at temperature 0, else a draw from the tempered distribution."""
    import torch

    if temperature <= 0:
        return int(logits.argmax())
    probabilities = torch.softmax(logits.float() / temperature, dim=-1)
    return int(torch.multinomial(probabilities.cpu(), 1, generator=sampler))


class ReplyWriter:
    """Turns generated tokens into the streamed reply: it decodes the whole reply each time (a
    character may span tokens), hands the new text on, and stops at a stop string, holding back
    any tail that could be the start of one."""

    def __init__(self, tokenizer: Any, stream: StreamState, stop: list[str] | None) -> None:
        self.tokenizer, self.stream = tokenizer, stream
        self.stops = [s for s in (stop or []) if s]
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.ids: list[int] = []
        self.shown = 0  # characters handed on
        self.text = ""

    @property
    def tokens(self) -> int:
        return len(self.ids)

    def add(self, token: int) -> bool:
        """Take one token; True when the reply must end (a stop string, or the loop guard)."""
        self.ids.append(token)
        self.text = self.tokenizer.decode(self.ids, skip_special_tokens=True)
        if self.text.endswith("\ufffd"):  # half of a character: wait for the rest
            return False
        ends = [i for i in (self.text.find(s) for s in self.stops) if i >= 0]
        if ends:
            self.text = self.text[: min(ends)]
            return self._pass_on(len(self.text)) or True
        return self._pass_on(len(self.text) - self.hold)

    def flush(self) -> None:
        """Hand on what was held back (the reply has ended, unless the loop guard ended it)."""
        if not self.stream.guard.looped:
            self._pass_on(len(self.text.rstrip("\ufffd")))

    def _pass_on(self, upto: int) -> bool:
        if upto <= self.shown:
            return False
        piece, self.shown = self.text[self.shown : upto], upto
        return self.stream.add_text(piece)
