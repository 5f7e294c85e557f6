"""Live replies: the offline model's tokens reach a listener as they are generated, a cached
reply arrives whole, the lab's live box shows them escaped, and `kgviz ask` streams to stderr."""

from __future__ import annotations

import subprocess
import sys

from kgviz.app.ask import LiveReply
from kgviz.llm.cache import CachedLLM
from kgviz.llm.streaming import begin_call, streaming_to

MESSAGES = [{"role": "user", "content": "Name three colours, comma separated."}]


def test_tokens_stream_from_the_offline_model_and_a_cached_reply_arrives_whole(counting, tmp_path):
    llm = CachedLLM(counting(), tmp_path)
    pieces: list[str] = []
    with streaming_to(pieces.append):
        first = llm.complete(MESSAGES, max_tokens=16)
    assert len(pieces) > 1 and "".join(pieces).startswith(first.text)
    pieces.clear()
    with streaming_to(pieces.append):
        again = llm.complete(MESSAGES, max_tokens=16)
    assert again.cached and pieces == [first.text]
    llm.complete(MESSAGES, max_tokens=16)  # nobody listening: nothing breaks


def test_the_live_box_shows_the_stage_and_escaped_text():
    live = LiveReply()
    with streaming_to(live.add, live.start):
        begin_call("generation")
        live.shown_at = 0.0
        live.add("<b>Robert</b> Zemeckis")
    assert "generation" in live.value and "&lt;b&gt;Robert&lt;/b&gt; Zemeckis" in live.value
    live.clear()
    assert live.value == ""


def test_ask_streams_the_reply_to_the_terminal():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "kgviz",
            "ask",
            "who directed Forrest Gump",
            "--dataset",
            "demo",
            "--method",
            "llm-only",
            "--llm",
            "local",
            "--cache",
            "off",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "── generation: the LLM writes …\n│ " in result.stderr
    assert "── generation done in" in result.stderr
    streamed = result.stderr.split("the LLM writes …\n│ ", 1)[1].split("\n── ", 1)[0]
    assert streamed.strip() and streamed.strip().splitlines()[0] in result.stdout
