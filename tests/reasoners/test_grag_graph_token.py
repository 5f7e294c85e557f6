"""GRAG's graph token (soft prompt) end to end on the demo KG with the real 0.5B reader read by
transformers: training through the frozen reader (gradients reach the encoder, an interrupted run
resumes), the saved checkpoint reloading and answering with its token in the trace, and the
one-line refusal of a text-only reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from kgviz.checkpoints.store import user_checkpoints
from kgviz.cli import main
from kgviz.llm.hf_backend import HFBackend
from kgviz.llm.model_files import prepare_model
from kgviz.llm.soft_prompt import SoftPrompt
from kgviz.paths import models_root
from kgviz.reasoners.grag import train_token
from kgviz.reasoners.grag.graph_token import EgoTensors, GraphTokenEncoder, GraphTokenShape
from kgviz.trace import Trace
from kgviz.training.saved_progress import PROGRESS
from kgviz.viz import stage_views

pytestmark = pytest.mark.llm  # the 0.5B and 1.5B readers, in transformers
READER = "qwen2.5-coder-0.5b"
TRAIN = [
    "train",
    "grag",
    "--graph-token",
    "--dataset",
    "demo",
    "--per-hop",
    "2",
    "--val-per-hop",
    "1",
    "--epochs",
    "1",
    "--save-every",
    "1",
    "--llm",
    f"hf:{READER}",
]
ASK = ["ask", "who directed Forrest Gump", "--dataset", "demo", "--method", "grag"]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache whose demo checkpoints hold a graph token trained through the 0.5B
    reader; the first run is interrupted after two steps and resumed."""
    prepare_model(READER, progress=False)
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_MODELS", str(models_root()))
        patch.setenv("KGVIZ_CACHE", str(root))
        steps = []
        real_loss = train_token.sample_loss

        def interrupted(reader, encoder, index, sample):  # Ctrl-C on the third training step
            steps.extend([1] if encoder is not None and encoder.training else [])
            if len(steps) == 3:
                raise KeyboardInterrupt
            return real_loss(reader, encoder, index, sample)

        patch.setattr(train_token, "sample_loss", interrupted)
        assert main(TRAIN) == 130
        progress = user_checkpoints("demo") / "grag-token" / PROGRESS
        assert torch.load(progress, weights_only=False)["step"] == 2
        patch.setattr(train_token, "sample_loss", real_loss)
        assert main(TRAIN) == 0
        assert not progress.exists()
        yield root
    HFBackend(READER).unload()


def test_the_card_names_the_reader_and_the_token_against_no_token(cache) -> None:
    card = json.loads(next(cache.glob("checkpoints/*/grag-token/card.json")).read_text())
    assert card["method"] == "grag-token" and card["reader"]["model"] == READER
    assert card["reader"]["hidden"] == 896 and card["model"]["settings"]["llm_dim"] == 896
    validation = card["validation"]
    assert validation["answer_loglik"] < 0 and validation["answer_loglik_without_token"] < 0
    assert card["command"].startswith("kgviz train grag --graph-token")


def test_the_saved_token_reloads_answers_and_is_drawn(cache, monkeypatch, capsys, tmp_path) -> None:
    monkeypatch.setenv("KGVIZ_MODELS", str(models_root()))
    monkeypatch.setenv("KGVIZ_CACHE", str(cache))
    saved = tmp_path / "trace.json"
    reader = ["--llm", f"hf:{READER}", "--trace", str(saved)]
    code = main([*ASK, "--set", "soft_prompt=true", *reader, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0, out
    assert "graph_token" in out["stages"] and out["answer"]
    (call,) = [c for c in out["llm_calls"] if c["stage"] == "generation"]
    assert call["soft_tokens"] == 1 and call["llm"] == f"hf:{READER}"
    trace = Trace.load(saved)
    token, pruned = trace.stages["graph_token"], trace.stages["pruning"]
    assert token.reader == READER and len(token.vector) == 896
    assert [g.centre for g in token.graphs] == [p.centre for p in pruned]
    for graph, ego in zip(token.graphs, pruned, strict=True):
        assert len(graph.node_gates) == len(ego.nodes)
        assert len(graph.edge_gates) == len(graph.attention) == len(ego.edges)
    view = stage_views(trace)["graph_token"]
    assert "Graph token: one vector of 896" in view and "Largest moves" in view
    assert "Forrest Gump" in view and "attention of the last GAT layer" in view
    assert "GAT attention (relative) 1" in view and "triple score" not in view


def test_a_text_only_reader_is_refused_in_one_line(cache, monkeypatch, capsys) -> None:
    monkeypatch.setenv("KGVIZ_MODELS", str(models_root()))
    monkeypatch.setenv("KGVIZ_CACHE", str(cache))
    assert main([*ASK, "--set", "soft_prompt=true", "--llm", "local", "--json"]) == 2
    error = capsys.readouterr().err.strip()
    assert "\n" not in error and "takes text only" in error and "--llm hf" in error


def test_gradients_reach_the_gates_the_gat_and_the_projector(cache) -> None:
    reader = HFBackend(READER)
    encoder = GraphTokenEncoder(GraphTokenShape(llm_dim=reader.hidden_size()))
    nodes = torch.randn(4, 384)
    graph = EgoTensors(nodes, torch.tensor([[0, 1, 2], [1, 2, 3]]), torch.randn(3, 384))
    token, inside = encoder(torch.randn(384), [graph])
    reader.answer_loss([{"role": "user", "content": "Who?"}], "Ann", SoftPrompt(token)).backward()
    for part in (encoder.gates.node_gate, encoder.gates.edge_gate, encoder.convs, encoder.project):
        assert any(p.grad is not None and p.grad.abs().sum() > 0 for p in part.parameters())
    assert len(inside.attention[0]) == 3 and len(inside.node_gates[0]) == 4


def test_the_packaged_token_answers_through_the_1_5b_reader(tmp_cache, capsys) -> None:
    """The issue's acceptance: the packaged encoder (trained on MetaQA through the 1.5B reader)
    on the demo KG."""
    prepare_model("qwen2.5-coder-1.5b", progress=False)
    reader = ["--llm", "hf:qwen2.5-coder-1.5b", "--cache", "off", "--json"]
    try:
        assert main([*ASK, "--set", "soft_prompt=true", *reader]) == 0
    finally:
        HFBackend("qwen2.5-coder-1.5b").unload()
    out = json.loads(capsys.readouterr().out)
    assert "Robert Zemeckis" in out["answers"] and "graph_token" in out["stages"]
    (call,) = [c for c in out["llm_calls"] if c["stage"] == "generation"]
    assert call["soft_tokens"] == 1 and call["llm"] == "hf:qwen2.5-coder-1.5b"
