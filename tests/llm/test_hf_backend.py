"""The white-box backend (`--llm hf:NAME`) on the real 0.5B GGUF read by transformers: the same
contract as the other backends (chat template, streaming, stop strings, deadlines, cancellation,
the response cache, one-line errors, token counts) plus soft prompts and gradients."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from kgviz.llm.cache import CachedLLM
from kgviz.llm.deadline import cancel_requests
from kgviz.llm.errors import LLMCancelled, LLMError, LLMTimeout
from kgviz.llm.hf_backend import HFBackend, load_tokenizer, tokenizer_folder
from kgviz.llm.llamacpp_backend import LlamaCppBackend
from kgviz.llm.model_files import get_spec
from kgviz.llm.select import choose_llm
from kgviz.llm.soft_prompt import SoftPrompt
from kgviz.llm.streaming import streaming_to

QUESTION = [
    {"role": "system", "content": "You answer factual questions with the answer only."},
    {"role": "user", "content": "What is the capital of France?"},
]
LONG = [{"role": "user", "content": "Summarise: " + "the graph has nodes and edges. " * 300}]


@pytest.fixture(scope="module")
def reader(model_0_5b: Path) -> Iterator[HFBackend]:
    backend = HFBackend("qwen2.5-coder-0.5b", max_tokens=16)
    backend.warm_up()
    yield backend
    backend.unload()  # 4 GB the rest of the test session does not need


def test_it_answers_through_the_chat_template_and_streams_what_it_returns(reader) -> None:
    pieces: list[str] = []
    with streaming_to(pieces.append):
        completion = reader.complete(QUESTION)
    assert "Paris" in completion.text
    assert "".join(pieces) == completion.text and len(pieces) > 1
    assert completion.backend == "hf" and completion.model == "qwen2.5-coder-0.5b"
    ids = reader.prompt_ids(QUESTION)
    assert completion.prompt_tokens == ids.shape[1] > 20
    assert 0 < completion.completion_tokens <= 16 and not completion.truncated
    assert reader.complete(QUESTION).text == completion.text  # greedy: the same reply again


def test_max_tokens_and_stop_strings_end_the_reply(reader) -> None:
    counting = [{"role": "user", "content": "Count from 1 to 50, one number per line."}]
    cut = reader.complete(counting, max_tokens=3)
    assert cut.truncated and cut.completion_tokens == 3
    full = reader.complete(QUESTION).text
    stop = full[len(full) // 2 :][:3]
    stopped = reader.complete(QUESTION, stop=[stop])
    assert stop not in stopped.text and full.startswith(stopped.text)


def test_a_schema_reply_is_parsed(reader) -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    asked = [{"role": "user", "content": 'Reply with JSON {"city": ...}: the capital of Italy.'}]
    assert reader.complete(asked, schema, max_tokens=24).parsed == {"city": "Rome"}


def test_a_soft_prompt_goes_before_the_text_and_is_counted(reader) -> None:
    width = reader.hidden_size()
    assert width == 896
    soft = SoftPrompt(torch.zeros(2, width))
    completion = reader.complete(QUESTION, soft_prompt=soft)
    assert completion.soft_tokens == 2
    assert completion.prompt_tokens == reader.prompt_ids(QUESTION).shape[1] + 2
    loud = reader.complete(QUESTION, soft_prompt=SoftPrompt(torch.full((1, width), 3.0)))
    assert loud.text != completion.text  # the vectors reach the model
    with pytest.raises(LLMError, match=r"must be \(tokens, 896\)"):
        reader.complete(QUESTION, soft_prompt=SoftPrompt(torch.zeros(1, 64)))


def test_gradients_reach_what_made_the_soft_prompt(reader) -> None:
    projector = torch.nn.Linear(8, reader.hidden_size())
    soft = SoftPrompt(projector(torch.randn(1, 8)))
    loss = reader.answer_loss(QUESTION, "Paris", soft)
    loss.backward()
    assert loss.item() > 0 and projector.weight.grad is not None
    assert projector.weight.grad.abs().sum() > 0
    model = reader.load().model
    assert all(p.grad is None for p in model.parameters())  # the reader stays frozen


def test_a_text_only_reader_refuses_a_soft_prompt_in_one_line(tmp_path) -> None:
    soft = SoftPrompt(torch.zeros(1, 1536))
    local = LlamaCppBackend("qwen2.5-coder-1.5b")  # refused before any model is loaded
    for llm in (local, CachedLLM(local, tmp_path, "ro")):
        with pytest.raises(LLMError, match="takes text only") as caught:
            llm.complete(QUESTION, soft_prompt=soft)
        assert "\n" not in str(caught.value) and "--llm hf" in str(caught.value)


def test_the_cache_keys_the_soft_prompt(reader, tmp_path) -> None:
    cached = CachedLLM(reader, tmp_path, "rw")
    quiet, loud = SoftPrompt(torch.zeros(1, 896)), SoftPrompt(torch.full((1, 896), 3.0))
    first = cached.complete(QUESTION, soft_prompt=quiet)
    assert not first.cached and first.soft_tokens == 1
    assert cached.complete(QUESTION, soft_prompt=quiet).cached
    assert not cached.complete(QUESTION, soft_prompt=loud).cached
    assert not cached.complete(QUESTION).cached  # text alone is another request


def test_the_deadline_stops_a_long_prompt_between_chunks(model_0_5b) -> None:
    hasty = HFBackend("qwen2.5-coder-0.5b", timeout_s=0.3)
    start = time.monotonic()
    with pytest.raises(LLMTimeout, match="did not finish within 0.3 s"):
        hasty.complete(LONG)
    assert time.monotonic() - start < 10  # one chunk of 256 positions, not the whole prompt


def test_cancelling_stops_a_reply_between_tokens(reader) -> None:
    timer = threading.Timer(1.0, cancel_requests)
    timer.start()
    try:
        with pytest.raises(LLMCancelled):
            reader.complete(LONG, max_tokens=512)
    finally:
        timer.cancel()


def test_the_spec_picks_it_and_names_its_model(model_0_5b) -> None:
    choice = choose_llm("hf:qwen2.5-coder-0.5b")
    assert isinstance(choice.llm, HFBackend) and "white-box" in choice.reason
    assert choice.llm.takes_embeddings and not LlamaCppBackend().takes_embeddings


def test_the_converted_tokenizer_is_kept_and_a_corrupt_copy_rebuilt(
    model_0_5b, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path))
    spec = get_spec("qwen2.5-coder-0.5b")
    folder = tokenizer_folder(spec)
    folder.mkdir(parents=True)
    (folder / "tokenizer.json").write_text("{not json")  # a torn copy
    rebuilt = load_tokenizer(spec, model_0_5b)
    assert folder.with_name(folder.name + ".corrupt").is_dir()
    assert (folder / "tokenizer.json").read_text().startswith("{\n")
    kept = load_tokenizer(spec, model_0_5b)  # read back, not converted again
    assert kept.encode("Forrest Gump") == rebuilt.encode("Forrest Gump")
    assert kept.apply_chat_template(QUESTION, tokenize=False).startswith("<|im_start|>system")
