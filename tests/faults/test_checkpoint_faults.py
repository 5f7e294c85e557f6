"""Checkpoints under faults: another method's files in a method's folder, a card that does not
match its weights, a checkpoint of another dataset, two trainers on one folder, and a disk that
refuses the save. The checkpoints are the packaged ones, copied and mixed up as a user might."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from safetensors.torch import load_file, save_file

from kgviz.checkpoints.store import CARD, CHECKPOINTS, WEIGHTS, user_checkpoints
from kgviz.cli import main
from kgviz.datasets import get_dataset
from kgviz.errors import KgvizError
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.gnnrag.model import load_gnn
from kgviz.reasoners.grag.gate import load_pruner
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.subgraphrag.scorer import load_scorer
from kgviz.training.run import LOCK
from tests.commands import with_file_limit


def planted(root: Path, method: str, source: str, part: str = "both") -> Path:
    """`root/method` holding the packaged card and weights of `method`, with `part` ("card",
    "weights" or "both") taken from `source`'s instead."""
    folder = root / method
    folder.mkdir(parents=True)
    card_from = source if part in ("card", "both") else method
    weights_from = source if part in ("weights", "both") else method
    shutil.copy(CHECKPOINTS / card_from / CARD, folder / CARD)
    shutil.copy(CHECKPOINTS / weights_from / WEIGHTS, folder / WEIGHTS)
    return folder


def one_line_error(load, root: Path) -> str:
    with pytest.raises(KgvizError) as caught:
        load(root)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    return message


def edit_card(folder: Path, edit) -> None:
    card = json.loads((folder / CARD).read_text())
    edit(card)
    (folder / CARD).write_text(json.dumps(card))


def test_another_methods_checkpoint_is_refused_in_one_line(tmp_path, tmp_cache):
    folder = planted(tmp_path, "gnnrag", "subgraphrag")
    message = one_line_error(load_gnn, tmp_path)
    assert message == f"{folder}: the card says method subgraphrag, but gnnrag is loading it"
    reasoner = make_reasoner(
        "gnnrag", ReasonerContext(get_dataset("demo"), llm=None), checkpoint_root=str(tmp_path)
    )
    with pytest.raises(KgvizError, match="the card says method subgraphrag"):
        reasoner.retrieve_only("who directed Forrest Gump", ["Forrest Gump"])


@pytest.mark.parametrize(
    "load, method, source, names",
    [
        (
            load_gnn,
            "gnnrag",
            "subgraphrag",
            ("GNNReasoner", "the model has no first.bias, first.weight and 4"),
        ),
        (
            load_scorer,
            "subgraphrag",
            "grag",
            ("TripleScorer", "lacks first.weight, first.bias and 4 more"),
        ),
        (
            load_pruner,
            "grag",
            "gnnrag",
            ("SoftPruner", "lacks node_gate.0.weight, node_gate.0.bias and 6 more"),
        ),
    ],
)
def test_another_methods_weights_beside_a_methods_card_are_one_line(
    tmp_path, load, method, source, names
):
    folder = planted(tmp_path, method, source, part="weights")
    message = one_line_error(load, tmp_path)
    assert message.startswith(f"{folder}: the weights do not fit the card's {names[0]}: ")
    assert names[1] in message


def test_a_card_that_does_not_match_its_weights_is_one_line(tmp_path):
    folder = planted(tmp_path, "subgraphrag", "subgraphrag")
    edit_card(folder, lambda card: card["model"]["settings"].update(hidden=128))
    message = one_line_error(load_scorer, tmp_path)
    assert message == (
        f"{folder}: the weights do not fit the card's TripleScorer: first.weight is [256, 1564] "
        "in model.safetensors but [128, 1564] in the model (and 4 more tensors differ)"
    )

    folder = planted(tmp_path / "other-run", "grag", "grag")
    weights = load_file(folder / WEIGHTS)
    weights["node_gate.0.bias"] += 1.0  # another run's weights: same shapes, other values
    save_file(weights, folder / WEIGHTS)
    message = one_line_error(load_pruner, tmp_path / "other-run")
    assert message.startswith(f"{folder}: the card was written for weights with sha256 ")
    assert "but model.safetensors has sha256 " in message

    folder = planted(tmp_path / "renamed", "gnnrag", "gnnrag")
    edit_card(folder, lambda card: card["model"]["settings"].update(dim=384, hidden="64"))
    assert one_line_error(load_gnn, tmp_path / "renamed") == (
        f"{folder}: the card's model settings do not fit GNNShape: an unknown dim, "
        "hidden '64' (not int)"
    )

    folder = planted(tmp_path / "encoder", "grag", "grag")
    edit_card(folder, lambda card: card["model"].update(encoder="bge-small"))
    assert one_line_error(load_pruner, tmp_path / "encoder") == (
        f"{folder}: the card says encoder bge-small, but grag embeds with all-MiniLM-L6-v2"
    )


def test_a_checkpoint_of_another_dataset_runs_with_the_warning(tmp_path, tmp_cache):
    """The warning follows the card, not the folder: MetaQA's checkpoint sitting where demo's own
    would be (or given explicitly) still says it was trained on MetaQA."""
    demo = get_dataset("demo")
    record = demo.questions("dev")[0]
    planted(user_checkpoints("demo"), "grag", "grag")
    planted(tmp_path, "subgraphrag", "subgraphrag")
    for method, root in (("grag", None), ("subgraphrag", str(tmp_path))):
        reasoner = make_reasoner(
            method, ReasonerContext(demo, llm=None), **({"checkpoint_root": root} if root else {})
        )
        trace = reasoner.retrieve_only(record.question, record.topic_entities)
        assert trace.checkpoint.endswith("(trained on metaqa)") and trace.evidence
        warning = (
            f"{method}: no checkpoint trained on demo; using the one trained on metaqa "
            f"(train one with `kgviz train {method} --dataset demo`)"
        )
        assert trace.warnings == [warning]


def test_a_second_trainer_on_one_folder_is_refused_naming_the_first(tmp_path, tmp_cache, capsys):
    """The first trainer is a real `kgviz train` process; once it is killed mid-run its lock is
    stale, and the next run takes it over."""
    argv = ["train", "grag", "--dataset", "demo", "--quick", "--checkpoint-root", str(tmp_path)]
    first = subprocess.Popen(
        [sys.executable, "-m", "kgviz", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    lock = tmp_path / "grag" / LOCK
    deadline = time.monotonic() + 120
    while not (lock.is_file() and lock.read_text()) and first.poll() is None:
        assert time.monotonic() < deadline, "the first trainer never took the lock"
        time.sleep(0.05)
    try:
        assert main(argv) == 2
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    error = capsys.readouterr().err
    holder = f"kgviz train {' '.join(argv[1:])} (pid {first.pid} on {socket.gethostname()}"
    assert error.startswith(f"kgviz: error: {tmp_path / 'grag'} is being trained by {holder}")
    assert error.count("\n") == 1 and not (tmp_path / "grag" / WEIGHTS).exists()

    assert f"pid {first.pid}" in lock.read_text()  # the dead run's lock file is still there
    assert main(argv) == 0
    assert f"pid {os.getpid()}" in lock.read_text()
    _, card = load_pruner(tmp_path)
    assert card["data"]["dataset"] == "demo" and card["command"] == f"kgviz {' '.join(argv)}"


def test_a_save_the_disk_refuses_is_one_line_and_keeps_the_checkpoint(tmp_path, tmp_cache):
    """The trainer runs in a process whose files may not grow past 2 MB (RLIMIT_FSIZE): its
    caches fit, its 3 MB of weights do not, so the write fails with EFBIG as on a full disk."""
    folder = planted(tmp_path, "grag", "grag")
    before = {name: (folder / name).read_bytes() for name in (CARD, WEIGHTS)}

    argv = ["train", "grag", "--dataset", "demo", "--quick", "--epochs", "1", "--hidden", "1024"]
    done = subprocess.run(
        with_file_limit(
            [sys.executable, "-m", "kgviz", *argv, "--checkpoint-root", str(tmp_path)], 2_000_000
        ),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"kgviz: error: could not write {folder / WEIGHTS}: File too large; "
        f"the checkpoint already in {folder} is kept unchanged"
    )
    assert {name: (folder / name).read_bytes() for name in (CARD, WEIGHTS)} == before
    assert sorted(p.name for p in folder.iterdir()) == [LOCK, CARD, WEIGHTS]  # no temporary files
    assert load_pruner(tmp_path)[1]["method"] == "grag"
