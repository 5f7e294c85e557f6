"""Train GRAG's graph token through a frozen white-box reader (`kgviz train grag --graph-token`).

Recipe (sized for CPUs): each training question's top-N ego-graphs around its topic entities go
through the encoder (gates initialised from the trained soft-pruning gate, GAT and projector
from scratch); the reader reads [graph token; a short prompt holding only the question] and the
loss is its cross entropy on the gold answers (up to three, comma-separated). Only the encoder
learns (Eq. 11, the reader frozen). The descriptions are left out of the training prompt: with
them a step reads 1,500-2,500 tokens instead of about 50, some 40 times the cost. Validation is
the mean answer log-likelihood on the validation questions, beside the same reader without a
token. Progress is saved every few steps; the same command resumes an interrupted run.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from kgviz.datasets.base import QARecord
from kgviz.errors import InputError
from kgviz.kg.weak_labels import resolve
from kgviz.llm.hf_backend import HFBackend
from kgviz.llm.select import choose_llm
from kgviz.llm.soft_prompt import SoftPrompt
from kgviz.reasoners.grag.config import TOKEN_CHECKPOINT
from kgviz.reasoners.grag.ego_index import EgoIndex, build_ego_index
from kgviz.reasoners.grag.gate import load_pruner
from kgviz.reasoners.grag.graph_token import (
    GraphTokenEncoder,
    GraphTokenShape,
    ego_tensors,
)
from kgviz.reasoners.grag.retrieval import Retrieved, retrieve
from kgviz.reasoners.grag.samples import GRAGRetrieval, question_vectors
from kgviz.reasoners.prompting import answer_messages
from kgviz.training.arguments import trainer_parser
from kgviz.training.card import MethodCard, Outcome, save_trained
from kgviz.training.early_stopping import EarlyStopping
from kgviz.training.loop import Fitted, Schedule, Validation
from kgviz.training.progress import TrainingProgress
from kgviz.training.run import TrainingRun, data_card, training_run
from kgviz.training.saved_progress import learning_state

METRIC = "answer_loglik"
ANSWERS_SHOWN = 3
ABOUT = MethodCard(
    method=TOKEN_CHECKPOINT,
    paper="Hu et al., GRAG: Graph Retrieval-Augmented Generation (2024), Eq. 9-11",
    labels="the gold answers (up to 3, comma-separated) as the reader's reply to [graph token; "
    "question]",
    loss="the frozen reader's mean token cross entropy of the answer",
)


@dataclass
class TokenSample:
    """One question: its vector, its retrieved ego-graphs and the answer text to learn."""

    record: QARecord
    question: np.ndarray
    retrieved: list[Retrieved]
    answer: str


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = trainer_parser(
        "grag --graph-token",
        __doc__,
        per_hop=100,
        epochs=1,
        patience=1,
        checkpoint=TOKEN_CHECKPOINT,
    )
    parser.set_defaults(val_per_hop=20)
    parser.add_argument(
        "--llm",
        default="hf:qwen2.5-coder-1.5b",
        help="the white-box reader trained through (default: %(default)s)",
    )
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--save-every", type=int, default=20, help="steps between saved progress")
    return parser.parse_args(argv)


def reader_of(spec: str) -> HFBackend:
    reader = choose_llm(spec).llm
    if not isinstance(reader, HFBackend):
        raise InputError(f"--llm {spec}: the graph token trains through a white-box reader, hf:")
    return reader


def samples_of(
    index: EgoIndex, records: list[QARecord], settings: GRAGRetrieval
) -> list[TokenSample]:
    """Each record with a linked topic and an answer, retrieved as the reasoner retrieves."""
    samples = []
    for record, vector in zip(records, question_vectors(index, records), strict=True):
        topics = resolve(index.kg, record.topic_entities)
        found = retrieve(index, vector, topics, settings.top_n, settings.scope_hops)
        if found and record.answers:
            answer = ", ".join(sorted(record.answers)[:ANSWERS_SHOWN])
            samples.append(TokenSample(record, vector, found, answer))
    return samples


def sample_loss(
    reader: HFBackend, encoder: GraphTokenEncoder | None, index: EgoIndex, sample: TokenSample
) -> torch.Tensor:
    """The reader's answer loss after the sample's graph token (no token when `encoder` is None)."""
    soft = None
    if encoder is not None:
        graphs = [ego_tensors(index, r.ego) for r in sample.retrieved]
        token, _ = encoder(torch.from_numpy(sample.question), graphs)
        soft = SoftPrompt(token)
    return reader.answer_loss(answer_messages(sample.record.question), sample.answer, soft)


def mean_loglik(
    reader: HFBackend,
    encoder: GraphTokenEncoder | None,
    index: EgoIndex,
    samples: list[TokenSample],
) -> float:
    with torch.no_grad():
        losses = [sample_loss(reader, encoder, index, s).item() for s in samples]
    return round(-float(np.mean(losses)), 4)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    reader = reader_of(args.llm)
    with training_run("grag", args, ["--graph-token", *argv]) as run:
        run = replace(run, method=TOKEN_CHECKPOINT)
        settings = GRAGRetrieval()
        index = build_ego_index(run.data.kg, settings.hops, settings.max_degree, progress=True)
        train = samples_of(index, run.data.train, settings)
        val = samples_of(index, run.data.val, settings)
        reader.warm_up()
        run.mark_prepared()
        shape = GraphTokenShape(dim=index.dim, llm_dim=reader.hidden_size())
        encoder = GraphTokenEncoder(shape)
        pruner, _ = load_pruner()
        encoder.gates.load_state_dict(pruner.state_dict())
        fitted, validation = fit_token(run, reader, encoder, index, train, val)
        outcome = Outcome(settings, data_card(run.data, train, val), validation)
        spec = reader.spec
        reader_card = {"model": spec.name, "sha256": spec.sha256, "hidden": shape.llm_dim}
        save_trained(
            ABOUT, run, encoder, index.encoder.model_name, fitted, outcome, {"reader": reader_card}
        )
    return 0


def fit_token(
    run: TrainingRun,
    reader: HFBackend,
    encoder: GraphTokenEncoder,
    index: EgoIndex,
    train: list[TokenSample],
    val: list[TokenSample],
) -> tuple[Fitted, dict[str, Any]]:
    """Adam over the training questions, one per step, epoch after epoch; the best epoch by
    validation answer log-likelihood is kept. Resumes from saved progress."""
    args = run.args
    schedule = Schedule(args.lr, 1, args.epochs, args.patience, METRIC)
    optimizer = torch.optim.Adam(encoder.parameters(), lr=args.lr)
    saved = run.saved_progress()  # mid-epoch: the encoder, optimiser, step, order and losses
    state = saved.load()
    without = mean_loglik(reader, None, index, val) if state is None else state["without"]
    epoch, step, history = 1, 0, []
    order = run.data.rng.permutation(len(train))
    losses: list[float] = []
    stopping: EarlyStopping[float] = EarlyStopping(args.patience)
    if state is not None:
        encoder.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        epoch, step, order, losses = state["epoch"], state["step"], state["order"], state["losses"]
        history, stopping = state["history"], state["stopping"]
        print(f"resuming {saved.path}: epoch {epoch}, step {step} of {len(train)}")
    started = time.perf_counter()
    with TrainingProgress(args.epochs, len(train), unit="q") as progress:
        progress.bar.update((epoch - 1) * len(train) + step)
        while epoch <= args.epochs:
            encoder.train()
            for i in progress.steps(epoch, order[step:].tolist()):
                loss = sample_loss(reader, encoder, index, train[i])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                losses.append(loss.item())
                step += 1
                if step % args.save_every == 0:
                    snapshot = {"epoch": epoch, "step": step, "order": order, "losses": losses}
                    learned = learning_state(encoder, optimizer, history, stopping)
                    saved.save(**learned, without=without, **snapshot)
            encoder.eval()
            score = mean_loglik(reader, encoder, index, val)
            mean_loss = round(float(np.mean(losses)), 5)
            history.append({"epoch": epoch, "loss": mean_loss, METRIC: score})
            progress.report(f"epoch {epoch}: val {METRIC} {score} (no token: {without})")
            if stopping.should_stop(epoch, score, score, encoder):
                break
            epoch, step, losses = epoch + 1, 0, []
            order = run.data.rng.permutation(len(train))
    best, weights, best_epoch = stopping.best()
    encoder.load_state_dict(weights)
    saved.clear()
    summary = {METRIC: best}
    validation = {
        METRIC: best,
        f"{METRIC}_without_token": without,
        "questions": len(val),
        "seconds_this_process": round(time.perf_counter() - started, 1),
        "prompt": "graph token, then the system prompt and the question (no descriptions)",
    }
    fitted = Fitted(schedule, history, Validation(summary, summary), best_epoch)
    return fitted, validation


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
