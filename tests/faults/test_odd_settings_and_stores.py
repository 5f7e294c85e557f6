"""Odd input a careless user gives and what an odd store sends: a blank question, an overlong
name in an edit, a setting that is not a number, an LLM spec naming no model, a count of
thousands of digits, a result too large to hold, a hand-appended line in a results file, a first
`kb.sparql` holding only a URL, a file where the results folder should be. Each is refused in
one line, or accepted with the rest kept; the SPARQL endpoints here are stubs on loopback."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kgviz.errors import KgvizError, UnknownNameError
from kgviz.eval.results_file import ResultsWriter
from kgviz.llm.select import choose_llm
from kgviz.runs.run import parse_triple
from kgviz.triplestore.client import SparqlClient, SparqlError, count_value
from kgviz.triplestore.config import EndpointConfig

ROW = {"method": "kaping", "qid": "demo/dev/1", "answers": ["Ron Howard"]}


@pytest.mark.parametrize("question", ["", "   ", "\n"])
def test_a_blank_question_is_refused_before_any_llm(kgviz_cli, ask_llm_only, question):
    run = kgviz_cli(ask_llm_only[0], question, *ask_llm_only[2:])
    assert (
        run.returncode == 2 and run.error == "kgviz: error: the question is empty: type a question"
    )


def test_an_edit_naming_an_overlong_entity_is_refused():
    with pytest.raises(KgvizError, match="a name of 10,000 characters .* at most 1,000"):
        parse_triple(f"Forrest Gump | directed_by | {'x' * 10_000}")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("KGVIZ_MAX_NAME_CHARS", "abc"),
        ("KGVIZ_MAX_LITERAL_CHARS", "0"),
        ("KGVIZ_LLM_THREADS", "two"),
        ("KGVIZ_PREFIX_CACHE", "maybe"),
        ("KGVIZ_INDEX_KIND", "btree"),
    ],
)
def test_a_setting_that_is_not_one_is_a_one_line_error_whatever_the_command(kgviz_cli, name, value):
    run = kgviz_cli("methods", env={name: value})
    assert run.returncode == 2 and name in run.error and repr(value) in run.error


def test_an_llm_spec_naming_no_model_is_refused():
    for spec in ("hf:", "local:", "ollama: "):
        with pytest.raises(UnknownNameError, match="nothing after"):
            choose_llm(spec)


def test_a_count_of_thousands_of_digits_is_one_line(fault_server):
    """The stub answers a COUNT with 5,000 digits (error handling only)."""
    count = {"results": {"bindings": [{"n": {"type": "literal", "value": "9" * 5000}}]}}
    server = fault_server(lambda n, _: (200, json.dumps(count).encode(), 0.0))
    store = SparqlClient(server.url, timeout_s=5.0)
    (row,) = store.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    with pytest.raises(SparqlError, match="not a count"):
        count_value(row, server.url)


SERVE_HUGE = textwrap.dedent(
    """
    import sys
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from kgviz.triplestore.client import SparqlClient, SparqlError, count_value

    class Huge(BaseHTTPRequestHandler):  # a valid result of 700 MB, streamed in pieces
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            row = b'{"s": {"type": "uri", "value": "http://x/' + b"a" * 200 + b'"}},'
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.end_headers()
            try:
                self.wfile.write(b'{"results": {"bindings": [')
                for _ in range(700_000_000 // len(row) // 1000):
                    self.wfile.write(row * 1000)
                self.wfile.write(b'{}]}}')
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    import threading
    server = ThreadingHTTPServer(("127.0.0.1", 0), Huge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        SparqlClient(f"http://127.0.0.1:{server.server_address[1]}", 120.0).select("SELECT")
    except SparqlError as error:
        print(error)
    # VmHWM is this program's own high-water mark: ru_maxrss would also count the pytest
    # worker's memory this process was forked from (a model it had loaded)
    hwm = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    print(f"peak {int(hwm.split()[1]) // 1024} MB")
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc (Linux)")
def test_a_result_over_the_cap_is_refused_in_bounded_memory():
    """A 700 MB result from a stub endpoint in its own process: refused at the cap with what to
    do, and the process peaks under 1 GB."""
    done = subprocess.run(
        [sys.executable, "-c", SERVE_HUGE], capture_output=True, text=True, timeout=600, check=False
    )
    said, peak = done.stdout.strip().splitlines()
    assert "sent more than 256 MB for one query; lower `page` and `batch`" in said, done.stderr
    assert int(peak.split()[1]) < 1000, peak


def test_a_hand_appended_line_does_not_stop_a_resume(tmp_path, caplog):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(ROW) + "\nmy note: rerun the 2-hop ones\n")
    with caplog.at_level(logging.WARNING), ResultsWriter(path) as writer:
        assert [row["qid"] for row in writer.rows] == ["demo/dev/1"]
        writer.append({**ROW, "qid": "demo/dev/2"})
    assert "r.jsonl:2: not a JSON results line; left in the file, skipped" in caplog.text
    lines = path.read_text().splitlines()
    assert (
        lines[1] == "my note: rerun the 2-hop ones" and json.loads(lines[2])["qid"] == "demo/dev/2"
    )


def test_a_first_kb_sparql_holding_only_the_url_is_read(tmp_path):
    (tmp_path / "kb.sparql").write_text("http://127.0.0.1:7878/query\n")
    assert EndpointConfig.read(tmp_path / "kb.sparql").endpoint == "http://127.0.0.1:7878/query"
    (tmp_path / "kb.sparql").write_text("the endpoint is http://x/query\n")
    with pytest.raises(KgvizError, match="write the endpoint's URL alone, or endpoint = \"http"):
        EndpointConfig.read(tmp_path / "kb.sparql")


def test_a_file_where_the_results_folder_should_be_is_named(tmp_path):
    (tmp_path / "afile").write_text("not a folder")
    with pytest.raises(KgvizError, match="afile is a file, not a folder"):
        ResultsWriter(tmp_path / "afile" / "r.jsonl").__enter__()
