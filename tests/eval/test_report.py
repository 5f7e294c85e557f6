"""Result tables, the Markdown and HTML reports, and `kgviz report`."""

import json
import subprocess
import sys

import pytest

from kgviz.errors import KgvizError
from kgviz.eval.tables import attribution_table, hits_by_hop, method_hop_table, rows_frame
from kgviz.viz.report import html_report, markdown_report, tables_html


def row(method, qid, hops, hit, stage=None, error=None, answer="", seconds=1.0):
    return {
        "method": method,
        "qid": qid,
        "hops": hops,
        "hit1": hit,
        "hit": hit,
        "named": hit,
        "committed": hit or stage == "generation",
        "truncated": False,
        "f1": float(hit),
        "evidence_recall": stage != "retrieval",
        "evidence_size": 4,
        "prompt_tokens": 100,
        "llm_calls": 1,
        "seconds": seconds + 0.5,
        "timings": {"retrieval": 0.5},
        "failed_stage": stage,
        "failure": "why" if stage else "",
        "error": error,
        "answer": answer,
    }


ROWS = [
    row("simgrag", "q1", 1, True),
    row("simgrag", "q2", 2, False, "pattern"),
    row("simgrag", "q3", 2, False, "retrieval"),
    row("kaping", "q1", 1, False, "generation"),
    row("kaping", "q2", 2, False, error="LLMOutputError: bad"),
    row("kaping", "q3", 2, True, seconds=3.0),
]


def test_tables_count_what_the_rows_say():
    frame = rows_frame(ROWS)
    hits = hits_by_hop(frame)
    assert list(hits.index) == ["simgrag", "kaping"]  # the order the rows came in
    assert hits.loc["simgrag", "1-hop"] == 1.0 and hits.loc["simgrag", "2-hop"] == 0.0
    assert hits.loc["kaping", "overall"] == pytest.approx(1 / 3)
    table = method_hop_table(frame)
    assert table.loc[("kaping", 2), "median seconds"] == pytest.approx((1.5 + 3.5) / 2)
    assert table.loc[("kaping", 2), "n"] == 2
    html = "".join(tables_html({"per hop": table}))
    counts = table["prompt tokens"]
    assert all(f"<td>{count}</td>" in html for count in counts)  # counts print as counts
    attribution = attribution_table(frame)
    assert attribution.loc["simgrag"].to_dict() == {
        "n": 3,
        "misses": 2,
        "pattern": 1,
        "retrieval": 1,
        "generation": 0,
        "error": 0,
    }
    assert attribution.loc["kaping", "error"] == 1 and attribution.loc["kaping", "generation"] == 1


def test_markdown_report_has_the_four_tables():
    text = markdown_report(ROWS)
    assert text.count("### ") == 4 and text.startswith("6 answers by an unrecorded LLM.\n")
    one_llm = markdown_report([{**r, "llm": "llamacpp:qwen2.5-coder-1.5b"} for r in ROWS])
    assert one_llm.startswith("6 answers by llamacpp:qwen2.5-coder-1.5b.\n")
    assert "| simgrag | 1.00 | 0.00 | 0.33 | 0.06–0.79 | 0.33 | 0.33 | 0.33 | 0.67 | 3 |" in text
    assert "| simgrag | kaping | 3 | 0.33 | 0.33 | 1 | 1 | 1 |" in text
    assert "| method | n | misses | pattern | retrieval | generation | error |" in text


def test_html_report_escapes_data_text():
    hostile = [
        row(
            "<script>alert(1)</script>",
            "q9",
            1,
            False,
            "generation",
            answer="<img src=x onerror=alert(2)>",
        )
    ]
    page = html_report(hostile)
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page


def test_no_rows_is_a_clear_error(tmp_path):
    with pytest.raises(KgvizError, match="no result rows"):
        markdown_report([])
    empty, missing = tmp_path / "empty.jsonl", tmp_path / "missing.jsonl"
    empty.write_text("")
    for paths, message in (([empty], "no result rows"), ([empty, missing], "no results file")):
        done = subprocess.run(
            [sys.executable, "-m", "kgviz", "report", *map(str, paths)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 2 and done.stderr.startswith(f"kgviz: error: {message}")
        assert "Traceback" not in done.stderr


def test_report_command_writes_html_and_markdown(tmp_path):
    results = tmp_path / "r.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    html, markdown = tmp_path / "report.html", tmp_path / "report.md"
    command = [
        sys.executable,
        "-m",
        "kgviz",
        "report",
        str(results),
        "--html",
        str(html),
        "--markdown",
        str(markdown),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == markdown.read_text()
    page = html.read_text()
    assert page.count("plotly.js") >= 1 and page.count("Plotly.newPlot") == 3


def test_misses_are_listed_per_method():
    from kgviz.eval.tables import misses_table

    table = misses_table(ROWS, per_method=1)
    assert list(table["method"]) == ["simgrag", "kaping"]
    assert list(table["stage"]) == ["pattern", "generation"]


def test_misses_clip_looping_answers_and_long_gold_lists():
    from kgviz.eval.tables import misses_table

    looping = {
        **row("subgraphrag", "q1", 2, False, "generation", answer="drama, " * 300),
        "gold": [f"Film {i}" for i in range(20)],
    }
    miss = misses_table([looping]).iloc[0]
    assert len(miss["answer"]) == 240 and miss["answer"].endswith("…")
    assert miss["gold"] == "Film 0, Film 1, Film 2, Film 3, Film 4, Film 5 (+14 more)"


def test_common_questions_keeps_what_every_method_answered():
    from kgviz.eval.tables import common_questions

    rows = [*ROWS, row("simgrag", "q4", 3, True)]
    assert {r["qid"] for r in common_questions(rows)} == {"q1", "q2", "q3"}
    assert len(common_questions(rows)) == 6 and common_questions([]) == []


def test_rows_of_two_llms_are_labelled_not_pooled(tmp_path):
    from kgviz.viz.report import load_rows

    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    for path, llm in ((small, "llamacpp:qwen2.5-coder-0.5b"), (large, "ollama:llama3.1:8b")):
        path.write_text("".join(json.dumps({**r, "llm": llm}) + "\n" for r in ROWS))
    hits = hits_by_hop(rows_frame(load_rows([small, large])))
    assert list(hits.index) == [
        "simgrag · llamacpp:qwen2.5-coder-0.5b",
        "kaping · llamacpp:qwen2.5-coder-0.5b",
        "simgrag · ollama:llama3.1:8b",
        "kaping · ollama:llama3.1:8b",
    ]
    assert list(hits["n"]) == [3, 3, 3, 3]
    assert [r["method"] for r in load_rows([small])] == [r["method"] for r in ROWS]


def test_one_method_report_leaves_out_the_paired_differences():
    text = markdown_report([r for r in ROWS if r["method"] == "simgrag"])
    assert text.count("### ") == 3 and "Paired differences" not in text
    assert "Paired differences" not in html_report([r for r in ROWS if r["method"] == "kaping"])


def test_a_method_without_misses_keeps_its_count():
    rows = [*ROWS, row("gnnrag", "q1", 1, True), row("gnnrag", "q2", 2, True)]
    attribution = attribution_table(rows_frame(rows))
    assert list(attribution.index) == ["simgrag", "kaping", "gnnrag"]
    assert attribution.loc["gnnrag"].to_dict() == {
        "n": 2,
        "misses": 0,
        "pattern": 0,
        "retrieval": 0,
        "generation": 0,
        "error": 0,
    }


def test_accuracy_chart_draws_each_bars_wilson_interval():
    from kgviz.eval.significance import wilson_interval
    from kgviz.viz.eval_charts import accuracy_chart

    rows = [row("gnnrag", f"q{i}", 1, i < 3) for i in range(4)]  # 3 of 4 right
    bar = accuracy_chart(rows_frame(rows)).data[0]
    low, high = wilson_interval(3, 4)
    assert list(bar.y) == [0.75]
    assert bar.error_y.array[0] == pytest.approx(high - 0.75)
    assert bar.error_y.arrayminus[0] == pytest.approx(0.75 - low)


def test_tables_name_grag_by_what_it_runs(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps({**r, "method": "grag"}) + "\n" for r in ROWS[:1]))
    from kgviz.viz.report import load_rows

    assert [r["method"] for r in load_rows([path])] == ["grag (hard prompt)"]


@pytest.mark.parametrize(
    ("soft_prompt", "llm", "shown"),
    [
        (None, "llamacpp:qwen2.5-coder-1.5b", "grag (hard prompt)"),
        (None, "hf:qwen2.5-coder-1.5b", "grag (hard and soft prompt)"),
        (False, "hf:qwen2.5-coder-1.5b", "grag (hard prompt) [soft_prompt=false]"),
        (True, "hf:qwen2.5-coder-1.5b", "grag (hard and soft prompt) [soft_prompt=true]"),
    ],
)
def test_a_grag_row_is_named_by_the_prompts_its_reader_was_fed(soft_prompt, llm, shown):
    """The default `soft_prompt` (unset) feeds the graph token exactly to a white-box reader."""
    from kgviz.eval.tables import label_variants

    settings = {} if soft_prompt is None else {"soft_prompt": soft_prompt}
    grag = {**ROWS[0], "method": "grag", "llm": llm, "settings": settings}
    grag["options"] = {"top_n": 5, "soft_prompt": soft_prompt}
    assert [r["method"] for r in label_variants([grag])] == [shown]
