"""Regenerate: a run's answer asked again on its evidence, edited. Each method's prompt is made
from the edited evidence (the LLM here is a stub on loopback that records what it is sent, and
says so); with the real offline model, a planted triple is followed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from kgviz.cli import main

DROP = "Forrest Gump | directed_by | Robert Zemeckis"
ADD = "Forrest Gump | directed_by | Ada Lovelace"
LISTED = '{{"answers": ["{}"]}}'  # the tuned presets' answer list
ANSWERS = {
    "kaping": "{}",
    "simgrag": LISTED,
    "subgraphrag": LISTED,
    "gnnrag": LISTED,
    "grag": LISTED,
}
PATTERN = {
    "phrases": ["Forrest Gump was directed by someone"],
    "triples": [["Forrest Gump", "directed by", "UNKNOWN person 1"]],
}


def reply(text: str) -> bytes:
    return json.dumps(
        {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3},
        }
    ).encode()


@pytest.mark.parametrize("method", ["kaping", "simgrag", "subgraphrag", "gnnrag", "grag"])
def test_the_prompt_is_made_from_the_edited_evidence(method, fault_server, capsys):
    bodies: list[str] = []

    def script(number: int, body: str):
        bodies.append(body)
        if method == "simgrag" and "question:" in body and len(bodies) == 1:
            return 200, reply(json.dumps(PATTERN)), 0
        name = "Ada Lovelace" if "Ada Lovelace" in body else "Robert Zemeckis"
        return 200, reply(ANSWERS[method].format(name)), 0

    server = fault_server(script)
    llm = f"openai:{server.url}/v1#stub"
    ask = ["ask", "who directed Forrest Gump", "--method", method, "--llm", llm]
    assert main([*ask, "--cache", "off", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert ["Forrest Gump", "directed_by", "Robert Zemeckis"] in first["evidence"]
    sent = len(bodies)
    again = ["regenerate", first["run_id"], "--drop", DROP, "--add", ADD, "--llm", llm]
    assert main([*again, "--cache", "off", "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    before = json.loads(bodies[sent - 1])["messages"][-1]["content"]
    prompt = json.loads(bodies[sent])["messages"][-1]["content"]
    assert "Ada Lovelace" in prompt and "Ada Lovelace" not in before, prompt
    assert prompt.count("Robert Zemeckis") < before.count("Robert Zemeckis"), prompt
    assert second["parent"] == first["run_id"] and second["run_id"] != first["run_id"]
    assert second["edit"] == {
        "dropped": [["Forrest Gump", "directed_by", "Robert Zemeckis"]],
        "added": [["Forrest Gump", "directed_by", "Ada Lovelace"]],
    }
    assert ["Forrest Gump", "directed_by", "Ada Lovelace"] in second["evidence"]
    assert second["answers"] == ["Ada Lovelace"]


def test_dropping_a_triple_the_run_does_not_hold_is_one_line(fault_server, capsys):
    server = fault_server(lambda n, body: (200, reply("ans: Robert Zemeckis"), 0))
    llm = f"openai:{server.url}/v1#stub"
    assert (
        main(["ask", "who directed Forrest Gump", "--method", "kaping", "--llm", llm, "--json"])
        == 0
    )
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["regenerate", run_id, "--drop", "A | b | C", "--llm", llm]) == 2
    assert "not in the run's evidence: A | b | C" in capsys.readouterr().err
    assert main(["regenerate", run_id, "--drop", "A | b", "--llm", llm]) == 2
    assert "expected 'head | relation | tail'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.llm
def test_a_planted_director_is_followed_by_the_real_model():
    """The issue's own case: SimGRAG with the offline model, then its evidence edited."""

    def kgviz(*args: str) -> dict:
        done = subprocess.run(
            [sys.executable, "-m", "kgviz", *args, "--json"],
            capture_output=True,
            text=True,
            check=False,
            timeout=900,
        )
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    first = kgviz("ask", "who directed Forrest Gump", "--dataset", "demo", "--method", "simgrag")
    assert first["answers"] == ["Robert Zemeckis"]
    second = kgviz("regenerate", first["run_id"], "--drop", DROP, "--add", ADD)
    assert "Ada Lovelace" in second["answers"] and "Robert Zemeckis" not in second["answers"]
    assert second["parent"] == first["run_id"] and second["edit"]["added"] == [ADD.split(" | ")]
