"""Every learned method trains with `--quick` on a user's own `custom:` folder (a small family KG
written here), and `kgviz eval` rows then name the new checkpoint; the real offline LLM answers."""

from __future__ import annotations

import json

import pytest

from kgviz.checkpoints.store import user_checkpoints
from kgviz.cli import main
from kgviz.datasets.family_kg import write_family_kg

LEARNED = ("subgraphrag", "gnnrag", "grag")


@pytest.mark.llm
def test_all_learned_methods_quick_train_on_a_custom_kg(tmp_path, tmp_cache, capsys):
    folder = tmp_path / "my-family-kg"
    write_family_kg(folder, people=150)
    dataset = f"custom:{folder}"
    for method in LEARNED:
        quick = ["--quick", "--per-hop", "30", "--val-per-hop", "10"]  # smaller still: a test
        assert main(["train", method, "--dataset", dataset, *quick]) == 0
        card = json.loads((user_checkpoints(dataset) / method / "card.json").read_text())
        assert card["data"]["dataset"] == dataset and card["data"]["split"] == "dev"
        assert card["training"]["seed"] == 0 and card["training"]["epochs_max"] == 3
        assert card["data"]["parts"]["train"] == {"1-hop": 30, "2-hop": 30, "3-hop": 30}
        assert card["format"] == 2 and card["method"] == method and card["weights"]["sha256"]
    out = tmp_path / "rows.jsonl"
    argv = ["eval", "--dataset", dataset, "--split", "dev", "--part", "heldout", "--limit", "1"]
    assert main([*argv, "--method", ",".join(LEARNED), "--llm", "local", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["method"] for r in rows) == sorted(LEARNED)
    for row in rows:
        folder_of = user_checkpoints(dataset) / row["method"]
        assert row["checkpoint"] == f"{folder_of} (trained on {dataset})"
        assert not any("no checkpoint trained" in w for w in row["warnings"])
