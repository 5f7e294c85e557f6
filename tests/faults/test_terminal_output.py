"""Escape sequences in a question or an LLM reply (a colour, an OSC title, a bell) never reach the
terminal raw: `kgviz ask`'s text and JSON output, `runs list` and `runs show` print them as their
escapes. The LLM is a stub on loopback that replies with them (a real model cannot be made to)."""

from __future__ import annotations

import json

import pytest

from kgviz.cli.terminal import visible
from tests.commands import run_kgviz

HOSTILE = "\x1b[31mRon\x1b]0;pwned\x07 Howard\x9b2J\x08"
RAW = ("\x1b", "\x07", "\x9b", "\x08")


def completion(text: str) -> bytes:
    return json.dumps(
        {"choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {}}
    ).encode()


@pytest.mark.parametrize("as_json", [False, True])
def test_a_hostile_question_and_reply_are_printed_as_escapes(fault_server, tmp_path, as_json):
    server = fault_server(lambda n, body: (200, completion(HOSTILE), 0))
    env = {"KGVIZ_CACHE": str(tmp_path / "cache"), "KGVIZ_RUNS": str(tmp_path / "runs")}
    question = f"who directed {HOSTILE}"
    ask = ["ask", question, "--method", "llm-only", "--llm", f"openai:{server.url}/v1#m"]
    done = run_kgviz(*ask, *(["--json"] if as_json else []), env=env)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert not any(raw in stream for raw in RAW), repr(stream)
    if as_json:
        shown = json.loads(done.stdout)
        assert shown["answer"] == HOSTILE  # the JSON is the same data, its escapes JSON's
    else:
        assert visible(HOSTILE) in done.stdout
    listed = run_kgviz("runs", "list", env=env)
    (run_id,) = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    shown_run = run_kgviz("runs", "show", run_id, env=env)
    for stream in (listed.stdout, shown_run.stdout, shown_run.stderr):
        assert not any(raw in stream for raw in RAW), repr(stream)
    # (the question's "[...]" reads as a topic mark, so its brackets go; its escapes stay)
    assert "\\x1b" in listed.stdout and "\\x07" in shown_run.stdout
