"""Every request the model receives is an `LLMCall` in the trace: a JSON re-ask after a reply in
prose, a transient failure that was retried, the answer. The LLM is a stub on loopback that
scripts those replies (it says so), driven through `kgviz ask` and the real OpenAI-protocol
backend over the demo KG."""

from __future__ import annotations

import json

from kgviz.cli import main
from kgviz.trace import Trace

QUESTION = "who directed Forrest Gump"
PATTERN = {
    "phrases": ["Forrest Gump was directed by someone"],
    "triples": [["Forrest Gump", "directed by", "UNKNOWN person 1"]],
}
ANSWER = {"answers": ["Robert Zemeckis"]}  # the tuned answer list
PROMPT_TOKENS, COMPLETION_TOKENS = 100, 7


def reply(content: str) -> bytes:
    return json.dumps(
        {
            "choices": [{"message": {"content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS},
        }
    ).encode()


def ask(fault_server, script, tmp_path, capsys) -> tuple[dict, Trace, int]:
    server = fault_server(script)
    saved = tmp_path / "trace.json"
    code = main(
        [
            "ask",
            QUESTION,
            "--dataset",
            "demo",
            "--method",
            "simgrag",
            "--llm",
            f"openai:{server.url}/v1#stub",
            "--cache",
            "off",
            "--json",
            "--trace",
            str(saved),
        ]
    )
    assert code == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out), Trace.load(saved), server.requests


def test_a_json_reask_is_its_own_call_and_counts_its_tokens(fault_server, tmp_path, capsys):
    replies = [
        "The director of Forrest Gump is someone.",  # prose where JSON was asked for
        json.dumps(PATTERN),
        json.dumps(ANSWER),
    ]
    answer, trace, requests = ask(
        fault_server, lambda n, body: (200, reply(replies[min(n, 2)]), 0), tmp_path, capsys
    )
    assert requests == len(trace.llm_calls) == 3
    first, again, generation = trace.llm_calls
    assert (first.stage, again.stage, generation.stage) == ("pattern", "pattern", "generation")
    assert "invalid JSON" in first.problem and not again.problem and not generation.problem
    assert again.messages[-2] == {"role": "assistant", "content": replies[0]}
    assert answer["tokens"] == {
        "prompt": requests * PROMPT_TOKENS,
        "completion": requests * COMPLETION_TOKENS,
    }
    assert answer["answers"] == ["Robert Zemeckis"]


def test_a_retried_failure_is_its_own_call(fault_server, tmp_path, capsys):
    def script(number: int, body: str):
        if number == 0:
            return 503, b'{"error": "busy"}', 0
        return 200, reply(json.dumps(PATTERN if number == 1 else ANSWER)), 0

    answer, trace, requests = ask(fault_server, script, tmp_path, capsys)
    assert requests == len(trace.llm_calls) == 3
    failed = trace.llm_calls[0]
    assert failed.stage == "pattern" and "503" in failed.problem and failed.prompt_tokens == 0
    assert answer["tokens"]["prompt"] == 2 * PROMPT_TOKENS  # a failed request reports none
