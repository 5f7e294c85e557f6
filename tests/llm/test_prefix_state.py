"""The prompt-prefix states kept on disk: which prefixes are kept, a damaged state set aside, and
(with the real 0.5B model, each ask in a fresh process) a restored prefix that is not read again
and changes no reply."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kgviz.llm.prefix_state import MIN_PREFIX_CHARS, PrefixStates, fixed_prefix

SYSTEM = "You answer questions about films in one short sentence. " * 12  # ~130 tokens

ASK = """
import json, sys
from kgviz.llm.llamacpp_backend import LlamaCppBackend
reply = LlamaCppBackend("qwen2.5-coder-0.5b").complete(
    [{"role": "system", "content": sys.argv[1]}, {"role": "user", "content": sys.argv[2]}],
    max_tokens=16,
)
counts = {"prompt": reply.prompt_tokens, "reused": reply.reused_tokens}
print(json.dumps({"text": reply.text, **counts}))
"""


def test_only_a_prefix_long_enough_to_pay_for_its_restore_is_kept() -> None:
    question = {"role": "user", "content": "who directed Heat?"}
    assert fixed_prefix([question]) is None  # no prefix at all
    short = {"role": "system", "content": "x" * (MIN_PREFIX_CHARS - 1)}
    assert fixed_prefix([short, question]) is None
    kept = {"role": "system", "content": SYSTEM}
    assert fixed_prefix([kept, question]) == [kept]


def _saved(states: PrefixStates, key: str, payload: bytes) -> None:
    states.folder.mkdir(parents=True, exist_ok=True)
    (states.folder / states.scratch(key)).write_bytes(payload)
    states.publish(key, tokens=3)


def test_a_state_that_does_not_match_its_note_is_set_aside(tmp_path: Path) -> None:
    states = PrefixStates(tmp_path / "states", json.dumps(["sha", 4096, "build"]))
    key = states.key([{"role": "system", "content": SYSTEM}])
    _saved(states, key, b"kv" * 100)
    assert states.usable(key)
    states.state(key).write_bytes(b"kv" * 99 + b"xx")  # same size, other bytes
    assert not states.usable(key)
    assert not states.state(key).exists() and not states.note(key).exists()
    assert states.state(key).with_name(states.state(key).name + ".corrupt").is_file()


def test_a_state_without_its_note_is_set_aside(tmp_path: Path) -> None:
    states = PrefixStates(tmp_path / "states", "identity")
    key = states.key([{"role": "system", "content": SYSTEM}])
    _saved(states, key, b"kv" * 100)
    states.note(key).unlink()
    assert not states.usable(key) and not states.state(key).exists()


def test_keys_differ_by_model_context_and_build() -> None:
    prefix = [{"role": "system", "content": SYSTEM}]
    folder = Path("unused")
    keys = {
        PrefixStates(folder, json.dumps(identity)).key(prefix)
        for identity in (["a", 4096, "1"], ["b", 4096, "1"], ["a", 2048, "1"], ["a", 4096, "2"])
    }
    assert len(keys) == 4


def _ask_fresh(question: str, env: dict[str, str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", ASK, SYSTEM, question],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_fresh_process_restores_the_prefix_and_replies_the_same(model_0_5b, tmp_cache) -> None:
    """Each ask is a new process: the first notes the prefix; the second, seeing it again,
    saves its state; the third restores it and reads only the question; a reply with the states
    off is the same; a damaged state is set aside, the ask still answers the same, and the
    state is saved again."""
    env = {**os.environ, "KGVIZ_PREFIX_CACHE": "on"}
    states = tmp_cache / "llm-prefix-states"
    assert _ask_fresh("Who directed Jaws?", env)["reused"] < 10
    assert not list(states.glob("*.bin"))  # seen once: a re-ask's prefix would stop here
    assert _ask_fresh("Who directed Alien?", env)["reused"] < 10
    saved = sorted(states.glob("*.bin"))
    assert len(saved) == 1

    restored = _ask_fresh("Who directed Heat?", env)
    question_tokens = restored["prompt"] - restored["reused"]
    assert restored["reused"] > 100 and question_tokens < 20
    off = _ask_fresh("Who directed Heat?", {**env, "KGVIZ_PREFIX_CACHE": "off"})
    assert off["reused"] == 0 and off["prompt"] == restored["prompt"]
    assert off["text"] == restored["text"]

    damaged = saved[0].read_bytes()
    saved[0].write_bytes(damaged[: len(damaged) // 2])
    again = _ask_fresh("Who directed Heat?", env)
    assert again["text"] == restored["text"] and again["reused"] < 10
    assert saved[0].with_name(saved[0].name + ".corrupt").is_file()
    assert saved[0].is_file()  # saved again after the ask
    assert _ask_fresh("Who directed Heat?", env)["reused"] > 100


def _prepare(env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "kgviz", "model", "prepare", "qwen2.5-coder-0.5b"]
        + ["--prefixes", "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if line.startswith("prompt prefix of")]


@pytest.mark.slow
def test_model_prepare_keeps_every_long_method_prefix_once(model_0_5b, tmp_cache) -> None:
    """`kgviz model prepare --prefixes demo` reads each method's fixed prefix for the demo's
    domain and keeps one state per prefix; run again, it reads none of them."""
    from kgviz.reasoners.prompt_prefixes import prompt_prefixes

    expected = prompt_prefixes("movies")
    assert {"simgrag pattern", "simgrag answer", "subgraphrag", "gnnrag"} <= set(expected)
    env = {**os.environ, "KGVIZ_PREFIX_CACHE": "on"}
    first = _prepare(env)
    assert len(first) == len(expected) and all("read" in line for line in first)
    assert len(list((tmp_cache / "llm-prefix-states").glob("*.bin"))) == len(expected)
    again = _prepare(env)
    assert len(again) == len(expected) and all(line.endswith(": kept") for line in again)
