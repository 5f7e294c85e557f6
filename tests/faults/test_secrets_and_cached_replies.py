"""Replies cached from one server are not served for another, a planted reply is not served, and
neither a password in an LLM URL nor an API key reaches the screen or a file kgviz writes, even
from a server that echoes its request's headers. The servers are stubs on loopback (they say
what they send); the cache, the backends and the CLI are kgviz's own."""

from __future__ import annotations

import json

from kgviz.llm.cache import CachedLLM, request_key
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.llm.redact import redact_text, redact_url

PASSWORD = "pw-Zq81xkT"
KEY = "sk-kgviz-planted-4431"


def completion(text: str) -> bytes:
    return json.dumps(
        {"choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {}}
    ).encode()


def test_a_reply_cached_from_one_server_is_not_served_for_another(
    fault_server, kgviz_cli, ask_llm_only, tmp_path
):
    server = fault_server(lambda n, body: (200, completion("Ron Howard"), 0))
    asked = ask_llm_only[:-1]
    first = kgviz_cli(*asked, f"openai:{server.url}/v1#m", "--json")
    assert first.returncode == 0, first.stderr
    server.close()
    # the same model name at an address where nothing listens: no reply from the first server
    again = kgviz_cli(*ask_llm_only, "--json")
    assert again.returncode != 0 and "no OpenAI-compatible server" in again.error


def test_a_planted_reply_is_not_served(fault_server, tmp_path):
    server = fault_server(lambda n, body: (200, completion("Ron Howard"), 0))
    llm = CachedLLM(OpenAIBackend(f"{server.url}/v1", "m"), tmp_path / "replies", "rw")
    messages = [{"role": "user", "content": "who directed Apollo 13"}]
    assert llm.complete(messages).text == "Ron Howard"
    per_ask = server.requests  # requests one answer takes
    assert llm.complete(messages).cached and server.requests == per_ask  # replayed
    (entry,) = (tmp_path / "replies").glob("*/*.json")
    record = json.loads(entry.read_text())
    record["completion"]["text"] = "Stanley Kubrick"  # the same entry, another answer
    entry.write_text(json.dumps(record))
    assert llm.complete(messages).text == "Ron Howard" and server.requests == 2 * per_ask
    assert entry.with_name(entry.name + ".corrupt").is_file()  # set aside
    record.pop("mac")  # and one planted without a signature is asked again too
    entry.write_text(json.dumps(record))
    assert llm.complete(messages).text == "Ron Howard" and server.requests == 3 * per_ask
    key = request_key({**record["request"]})
    assert entry.name == f"{key}.json" and "server" in record["request"]


def test_no_password_or_key_reaches_the_screen_or_a_file(
    fault_server, kgviz_cli, ask_llm_only, tmp_path
):
    def echo(number: int, body: str) -> tuple[int, bytes, float]:  # a server echoing headers
        error = {"error": {"message": f"denied: Authorization: Bearer {KEY} for {body[:40]}"}}
        return 401, json.dumps(error).encode(), 0

    server = fault_server(echo)
    host = server.url.removeprefix("http://")
    runs = tmp_path / "runs"
    env = {"KGVIZ_OPENAI_API_KEY": KEY, "KGVIZ_RUNS": str(runs)}
    shown = []
    for url in (f"http://me:{PASSWORD}@{host}/v1", f"http://me:{PASSWORD}@127.0.0.1:9/v1"):
        run = kgviz_cli(*ask_llm_only[:-1], f"openai:{url}#m", env=env)
        assert run.returncode != 0 and "me:***@" in run.stderr, run.stderr
        shown.append(run.stderr)
    asked = kgviz_cli(
        "ask",
        "who directed the movies that Zorblax Quintavius acted in",
        "--method",
        "kaping",
        "--set",
        "on_ungrounded=abstain",
        "--llm",
        f"openai:http://me:{PASSWORD}@{host}/v1#m",
        env=env,
    )  # kept in the run store, with its LLM named
    shown.append(asked.stderr)
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.parent.name == "runs" for path in written)
    for text in [*shown, *(path.read_bytes().decode("utf-8", "replace") for path in written)]:
        assert PASSWORD not in text and KEY not in text


def test_urls_and_texts_lose_their_secrets():
    assert (
        redact_url(f"http://me:{PASSWORD}@h/v1?token=t&a=1") == "http://me:***@h/v1?token=***&a=1"
    )
    text = f'Authorization: Bearer {KEY}; "api_key": "k-9" at https://u:{PASSWORD}@x/y'
    cleaned = redact_text(text)
    assert KEY not in cleaned and PASSWORD not in cleaned and "k-9" not in cleaned
