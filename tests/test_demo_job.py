"""The main job (`make demo` runs `kgviz demo`): every method on a 1-, a 2- and a 3-hop demo
question with the real offline model, a summary, and a self-contained page whose path it prints.
Replies come from the LLM response cache once recorded, as in `make demo`."""

from __future__ import annotations

import re

from kgviz.cli import main
from kgviz.reasoners.registry import method_label, method_names
from kgviz.viz.page import external_scripts


def test_kgviz_demo_answers_with_every_method_and_prints_its_page(tmp_path, capsys):
    page = tmp_path / "demo.html"
    assert main(["demo", "--llm", "local", "--page", str(page)]) == 0
    out = capsys.readouterr().out
    assert f"page: {page.resolve()}" in out
    for method in method_names():
        assert len(re.findall(rf"^\[{re.escape(method)}\] ", out, re.MULTILINE)) == 3
        assert re.search(rf"^{re.escape(method)}\s+\d/3\s+\d/3$", out, re.MULTILINE)
    html = page.read_text(encoding="utf-8")
    assert external_scripts(html) == []
    assert all(method_label(method) in html or method in html for method in method_names())
