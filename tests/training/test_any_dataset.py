"""Training on a dataset other than MetaQA (here the built-in demo KG and its questions): the
checkpoint lands in the user cache under the dataset, the methods then run with it, and before
that they run with the packaged MetaQA checkpoint and say so in the trace and the eval row."""

from __future__ import annotations

import json
import shutil

import pytest

from kgviz.checkpoints.store import CHECKPOINTS, user_checkpoints
from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.errors import KgvizError
from kgviz.eval.rows import result_row
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.runs.run import judged_run


def test_a_dataset_trained_checkpoint_replaces_the_metaqa_fallback(tmp_cache, capsys):
    dataset = get_dataset("demo")
    record = dataset.questions("dev")[0]
    before = make_reasoner("subgraphrag", ReasonerContext(dataset, llm=None)).retrieve_only(
        record.question, record.topic_entities
    )
    assert "(trained on metaqa)" in before.checkpoint
    assert any(
        "no checkpoint trained on demo" in w and "--dataset demo" in w for w in before.warnings
    )
    row = result_row(judged_run(before, record))
    assert row["checkpoint"] == before.checkpoint

    assert main(["train", "subgraphrag", "--dataset", "demo", "--quick"]) == 0
    folder = user_checkpoints("demo") / "subgraphrag"
    card = json.loads((folder / "card.json").read_text())
    assert card["data"]["dataset"] == "demo" and card["data"]["split"] == "dev"
    assert card["training"]["epochs_max"] == 3 and str(folder) in capsys.readouterr().out

    after = make_reasoner("subgraphrag", ReasonerContext(dataset, llm=None)).retrieve_only(
        record.question, record.topic_entities
    )
    assert after.checkpoint == f"{folder} (trained on demo)"
    assert not any("no checkpoint trained" in w for w in after.warnings)


@pytest.mark.slow
def test_metaqa_runs_with_the_packaged_checkpoint_without_a_warning(
    shared_data, tmp_path, monkeypatch
):
    """With no checkpoint of the user's for MetaQA (the MetaQA vectors stay in the user's
    cache, built once), the packaged one runs and nothing is borrowed."""
    monkeypatch.setattr(
        "kgviz.checkpoints.store.user_checkpoints", lambda dataset: tmp_path / dataset
    )
    dataset = get_dataset("metaqa-1hop", root=shared_data)
    record = dataset.questions("dev")[0]
    trace = make_reasoner("subgraphrag", ReasonerContext(dataset, llm=None)).retrieve_only(
        record.question, record.topic_entities
    )
    assert trace.checkpoint.endswith("(trained on metaqa)") and not trace.warnings


def test_the_paper_gnn_trains_and_runs_beside_kgvizs_own(tmp_cache):
    """`kgviz train gnnrag` with the paper's flags writes `gnnrag-paper` (no name vectors, no
    reachability prior); `gnn=paper` runs with it while the tuned GNN stays the packaged one."""
    dataset = get_dataset("demo")
    record = dataset.questions("dev")[0]
    paper_flags = ["--no-names", "--no-reach-prior", "--max-nodes", "2000", "--out", "gnnrag-paper"]
    assert main(["train", "gnnrag", "--dataset", "demo", "--quick", *paper_flags]) == 0
    folder = user_checkpoints("demo") / "gnnrag-paper"
    card = json.loads((folder / "card.json").read_text())
    assert card["method"] == "gnnrag" and card["retrieval"]["max_nodes"] == 2000
    assert card["model"]["settings"]["reach_prior"] is False
    assert card["model"]["settings"]["use_names"] is False

    context = ReasonerContext(dataset, llm=None)
    paper = make_reasoner("gnnrag", context, gnn="paper", max_nodes=2000, reach_prior=False)
    trace = paper.retrieve_only(record.question, record.topic_entities)
    assert trace.checkpoint == f"{folder} (trained on demo)"
    assert paper.checkpoint[0].reach_scale is None and trace.evidence
    tuned = make_reasoner("gnnrag", context).retrieve_only(record.question, record.topic_entities)
    assert "(trained on metaqa)" in tuned.checkpoint
    assert any("kgviz train gnnrag --dataset demo" in w for w in tuned.warnings)

    with pytest.raises(KgvizError, match="^gnnrag reach_prior=true: .* set reach_prior=false$"):
        make_reasoner("gnnrag", context, gnn="paper").retrieve_only(
            record.question, record.topic_entities
        )
    tuned_root = user_checkpoints("demo").parent / "tuned-as-paper"
    (tuned_root / "gnnrag-paper").parent.mkdir(parents=True)
    shutil.copytree(CHECKPOINTS / "gnnrag", tuned_root / "gnnrag-paper")
    mislabelled = make_reasoner(
        "gnnrag", context, gnn="paper", reach_prior=False, checkpoint_root=str(tuned_root)
    )
    with pytest.raises(KgvizError, match="^gnnrag gnn=paper: .* trained with the reachability"):
        mislabelled.retrieve_only(record.question, record.topic_entities)
