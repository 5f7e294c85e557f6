"""The README is a front page: what kgviz is, the two commands, where to go next. Results, logs and
details live in docs/, so its length and line widths stay those of a page one reads."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def prose_and_cells() -> tuple[list[str], list[str], int]:
    """The README's prose lines (outside code blocks and tables), its table cells, its length."""
    lines = README.read_text(encoding="utf-8").splitlines()
    prose, cells, in_code = [], [], False
    for line in lines:
        if line.startswith("```"):
            in_code = not in_code
        elif in_code:
            continue
        elif line.startswith("|"):
            cells += [cell.strip() for cell in line.strip("|").split("|")]
        else:
            prose.append(line)
    return prose, cells, len(lines)


def test_the_readme_is_a_front_page():
    prose, cells, length = prose_and_cells()
    assert length <= 250
    assert [line for line in prose if len(line) > 120] == []
    assert [cell for cell in cells if len(cell) > 200] == []


def test_the_readme_names_the_two_commands_and_the_docs():
    text = README.read_text(encoding="utf-8")
    assert "make demo" in text and "make test" in text
    for page in ("usage", "results", "benchmarks", "design", "reliability"):
        assert f"(docs/{page}.md)" in text
