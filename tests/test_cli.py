"""The command line as a user runs it: a subprocess, contract JSON on stdout, one-line errors."""

import json
import os
import subprocess
import sys

import pytest


def run_cli(*args, env_extra=None, timeout=600):
    env = {**os.environ, **(env_extra or {})}
    # check=False: the tests inspect the return code, including expected failures
    return subprocess.run(
        [sys.executable, "-m", "kgviz", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )


def assert_one_line_error(result):
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stderr.startswith("kgviz: error:")


def test_data_info_metaqa_contract(shared_data):
    result = run_cli(
        "data", "info", "metaqa-2hop", "--json", env_extra={"KGVIZ_DATA": str(shared_data)}
    )
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout.strip().splitlines()[-1])
    assert (info["entities"], info["relations"], info["triples"]) == (43_234, 9, 133_582)
    assert info["splits"] == {"dev": 14_872}


def test_data_info_demo():
    result = run_cli("data", "info", "demo", "--json")
    info = json.loads(result.stdout)
    assert info["triples"] > 300 and info["splits"]["dev"] >= 36


def test_unknown_dataset_is_one_line():
    result = run_cli("data", "info", "no-such-set")
    assert_one_line_error(result)
    assert "unknown dataset 'no-such-set'" in result.stderr


def test_missing_data_names_folder(tmp_path):
    result = run_cli("data", "info", "metaqa-1hop", env_extra={"KGVIZ_DATA": str(tmp_path)})
    assert_one_line_error(result)
    assert str(tmp_path) in result.stderr and "MetaQA" in result.stderr


def test_doctor_reports_every_part(shared_data):
    result = run_cli("doctor", "--json", env_extra={"KGVIZ_DATA": str(shared_data)})
    assert result.returncode == 0, result.stderr
    rows = {row["component"]: row for row in json.loads(result.stdout)}
    assert rows["dataset demo"]["status"] == "ok"
    assert rows["dataset metaqa-2hop"]["status"] == "ok"
    assert rows["dataset wc2014"]["status"] == "missing" and rows["dataset wc2014"]["fix"]
    assert any(name.startswith("ollama") for name in rows)
    assert any(name.startswith("offline model") for name in rows)
    assert all(row["fix"] for row in rows.values() if row["status"] != "ok")


@pytest.mark.parametrize("args", [["data"], ["frobnicate"]])
def test_bad_arguments_exit_nonzero(args):
    result = run_cli(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_importing_the_views_loads_no_llm_backend():
    """`import kgviz.viz` (and the LLM package itself) loads no backend or client library."""
    code = (
        "import sys, kgviz.viz; "
        "print(sorted(m for m in sys.modules if m.endswith('_backend') "
        "or m in ('ollama', 'xllamacpp', 'httpx')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_a_fully_cached_ask_loads_no_encoder_and_asks_no_llm(fault_server, tmp_cache):
    """The second `kgviz ask` replays every reply and reads every vector from the caches: it
    sends no request and imports neither torch nor sentence-transformers."""
    pattern = {
        "phrases": ["Forrest Gump was directed by someone"],
        "triples": [["Forrest Gump", "directed by", "UNKNOWN person 1"]],
    }
    answer = {"answers": ["Robert Zemeckis"]}

    def reply(number: int, body: str) -> tuple[int, bytes, float]:
        content = json.dumps(pattern if number == 0 else answer)
        return 200, json.dumps({"choices": [{"message": {"content": content}}]}).encode(), 0

    server = fault_server(reply)
    ask = ["-X", "importtime", "-m", "kgviz", "ask", "who directed Forrest Gump"]
    ask += ["--method", "simgrag", "--llm", f"openai:{server.url}/v1#stub", "--json"]
    runs = []
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, *ask], capture_output=True, text=True, timeout=600, check=False
        )
        assert result.returncode == 0, result.stderr[-2000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
        runs.append((json.loads(result.stdout), imported, server.requests))
    (first, first_imports, requests), (again, again_imports, requests_after) = runs
    assert "torch" in first_imports and requests > 0  # the first run embeds and asks
    assert {"torch", "sentence_transformers"}.isdisjoint(again_imports)
    assert requests_after == requests
    assert again["answers"] == first["answers"] == ["Robert Zemeckis"]
    assert again["answer"] == first["answer"] and again["evidence"] == first["evidence"]
