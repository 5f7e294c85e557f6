"""The main job (`make demo` runs `kgviz demo`): every method on a 1-, a 2- and a 3-hop demo
question with the real offline model, a summary, and a self-contained page whose path it prints.
Replies come from the LLM response cache once recorded, as in `make demo`."""

from __future__ import annotations

import re

import pytest

from kgviz import __version__
from kgviz.cli import main
from kgviz.demo import demo_page, method_totals
from kgviz.reasoners.base import borrowed_checkpoint_note
from kgviz.reasoners.registry import method_label, method_names
from kgviz.runs.run import judged_run
from kgviz.trace import Trace
from kgviz.viz.page import external_scripts

# method, hits@1 and hit of 3, mean F1, gold in evidence of 3 (— without retrieval), seconds
TOTALS = r"^{method}\s+\d/3\s+\d/3\s+[01]\.\d\d\s+(\d/3|—)\s+\d+\.\d$"


@pytest.mark.llm
def test_kgviz_demo_answers_with_every_method_and_prints_its_page(tmp_path, capsys):
    page = tmp_path / "demo.html"
    assert main(["demo", "--llm", "local", "--page", str(page)]) == 0
    out = capsys.readouterr().out
    assert f"page: {page.resolve()}" in out
    assert re.search(r"^LLM: llamacpp:\S+ \(", out, re.MULTILINE)
    assert f"kgviz: {__version__}" in out
    assert re.search(r"^date: \d{4}-\d\d-\d\d", out, re.MULTILINE)
    for method in method_names():
        assert len(re.findall(rf"^\[{re.escape(method)}\] ", out, re.MULTILINE)) == 3
        assert re.search(TOTALS.format(method=re.escape(method)), out, re.MULTILINE), method
    notes = re.findall(r"^  note: (.*)$", out, re.MULTILINE)
    assert len(notes) == len(set(notes))  # a borrowed checkpoint is said once, not per question
    assert "warning: " + "gnnrag: no checkpoint" not in out
    html = page.read_text(encoding="utf-8")
    assert external_scripts(html) == []
    assert all(method_label(method) in html or method in html for method in method_names())
    assert "<th>LLM</th><td>llamacpp:" in html and "Totals per method" in html


def test_the_demo_page_names_its_context_and_totals_each_method():
    """Hand-made runs (no LLM): SubgraphRAG's list of ten names with one gold among them scores
    hit but F1 0.18; the page gives it per row and per method, and a borrowed checkpoint once
    (and in the method's own section)."""
    note = borrowed_checkpoint_note("subgraphrag", "demo", "metaqa")
    names = ["Robert Zemeckis", *(f"Director {n}" for n in range(9))]
    runs = [
        judged_run(
            Trace(
                method="subgraphrag",
                question=f"who directed Forrest Gump {n}",
                dataset="demo",
                answer=", ".join(names),
                answers=names,
                gold=["Robert Zemeckis"],
                evidence=[("Forrest Gump", "directed_by", "Robert Zemeckis")],
                warnings=[note],
                timings={"total": 2.0},
            )
        )
        for n in range(2)
    ]
    totals = method_totals(runs)["subgraphrag"]
    assert totals.cells() == ("2/2", "2/2", "0.18", "2/2", "4.0")
    header = {"dataset": "demo (47 entities)", "LLM": "llamacpp:<m>", "date": "2026-01-02 03:04"}
    html = demo_page(runs, {**header, "kgviz": __version__})
    assert "<th>LLM</th><td>llamacpp:&lt;m&gt;</td>" in html  # escaped, like every cell
    assert "<th>date</th><td>2026-01-02 03:04</td>" in html and __version__ in html
    assert "<td>subgraphrag</td><td>2/2</td><td>2/2</td><td>0.18</td><td>2/2</td>" in html
    assert html.count("<td>0.18</td>") == 4  # the total, each run, the facts of its section
    assert html.count(f'<p class="note">note: {note}</p>') == 1  # in the header, once
    assert html.count(f"note: {note}") == 2 and f"warning: {note}" not in html  # + the section
