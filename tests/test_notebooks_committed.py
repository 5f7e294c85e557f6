"""The notebooks as committed: valid nbformat 4.5 (every cell has an id, which nbformat will
soon require) and without bulky outputs (nbval runs them; the repository keeps their sources)."""

import json
import warnings
from pathlib import Path

import nbformat
import pytest
from nbformat.warnings import MissingIDFieldWarning

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
MAX_OUTPUT_CHARS = 2_000  # a printed line or two; plots and tables belong to a run, not a commit


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 6


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_notebook_is_valid_and_light(path):
    raw = json.loads(path.read_text())
    missing = [i for i, cell in enumerate(raw["cells"]) if "id" not in cell]
    assert not missing, f"{path.name}: cells {missing} have no id (nbformat.validator.normalize)"
    with warnings.catch_warnings():
        warnings.simplefilter("error", MissingIDFieldWarning)
        nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
    outputs = sum(len(json.dumps(cell.get("outputs", []))) for cell in raw["cells"])
    assert outputs <= MAX_OUTPUT_CHARS, f"{path.name}: {outputs} characters of outputs committed"
