"""`kgviz ask` and `kgviz regenerate`: one question answered, streamed and kept."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, get_args

from kgviz.cli.arguments import (
    add_llm_argument,
    add_option_arguments,
    parse_settings,
    print_json,
)
from kgviz.errors import InputError, KgvizError
from kgviz.llm.cache import CacheMode
from kgviz.reasoners.registry import method_names

if TYPE_CHECKING:
    from kgviz.runs.run import Run
    from kgviz.runs.store import RunEntry
    from kgviz.trace import Trace


def cmd_ask(args: argparse.Namespace) -> int:
    from kgviz.session import open_session

    session = open_session(args.dataset, args.llm, cache_mode=args.cache)
    if not args.json:
        print(f"llm: {session.llm_reason}", file=sys.stderr)
    ask = partial(
        session.ask,
        args.method,
        args.question,
        parse_settings(args.set),
        topics=args.topic,
        recording=bool(args.html),  # a page shows every stage: record what the lab records
        lazy=True,  # a reply replayed from the cache loads no LLM
        preset=args.preset,
    )
    run = ask() if args.json else run_streaming(ask)
    entry = keep(run)
    trace = run.trace
    if args.trace:
        trace.save(args.trace)
        print(f"trace written to {args.trace}", file=sys.stderr)
    if args.html:
        from kgviz.storage.atomic import write_text_atomic
        from kgviz.viz.page import run_page

        write_text_atomic(args.html, run_page(run))
        print(f"page written to {args.html}", file=sys.stderr)
    if args.json:
        print_json({**run.to_json(), "run_id": entry.id if entry else None})
        return 0
    grounding = run.outcome.grounding
    if grounding is not None and not grounding.grounded:
        print(f"kgviz: NOT GROUNDED in this KG: {grounding.warning()}", file=sys.stderr)
    print("(abstained: no answer)" if trace.abstained else trace.answer.strip())
    print(f"\nanswers: {', '.join(trace.answers) or '(none)'}")
    if run.outcome.judged:
        print(outcome_line(run))
    print(f"evidence ({len(trace.evidence)} triples):")
    for head, relation, tail in trace.evidence[:15]:
        print(f"  ({head}, {relation}, {tail})")
    print("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in trace.timings.items()))
    for warning in trace.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def keep(run: Run, parent: str | None = None) -> RunEntry | None:
    """Save `run` in the run store (`KGVIZ_RUNS`) and say so on stderr; a store that cannot be
    written is a warning, never the loss of the answer."""
    from kgviz.runs.store import RunStore

    store = RunStore()
    try:
        entry = store.save(run, parent)
    except KgvizError as error:
        print(f"kgviz: warning: the run was not kept: {error}", file=sys.stderr)
        return None
    print(f"run {entry.id} kept in {store.root}", file=sys.stderr)
    return entry


def outcome_line(run: Run) -> str:
    """`hits@1 1 · hit 1 · F1 0.67 (gold: …)`, and for a miss the stage that failed and why."""
    outcome = run.outcome
    assert outcome.score is not None
    score = outcome.score
    line = (
        f"{outcome.verdict()}: hits@1 {score.hit1:d} · hit {score.hit:d} · F1 {score.f1:.2f} "
        f"(gold: {', '.join(outcome.gold)})"
    )
    if outcome.miss is not None and outcome.miss.stage:
        line += f"\nfailed at {outcome.miss.stage}: {outcome.miss.reason}"
    return line


def run_streaming(ask: Callable[..., Run]) -> Run:
    """`ask(listener=...)` with the LLM's replies streamed to stderr as they are written, and a
    line as each stage ends (stdout keeps the final answer only)."""
    from kgviz.llm.streaming import streaming_to
    from kgviz.reasoners.grounding import GROUNDING

    state = {"open": False}

    def close_line() -> None:
        if state["open"]:
            print(file=sys.stderr)
            state["open"] = False

    def call(stage: str) -> None:
        close_line()
        print(f"── {stage}: the LLM writes …\n│ ", end="", file=sys.stderr, flush=True)
        state["open"] = True

    def show(text: str) -> None:
        print(text.replace("\n", "\n│ "), end="", file=sys.stderr, flush=True)

    def stage_done(name: str, trace: Trace) -> None:
        close_line()
        print(f"── {name} done in {trace.timings[name]:.2f} s", file=sys.stderr, flush=True)
        grounding = trace.stages.get(GROUNDING) if name == GROUNDING else None
        if grounding is not None and not grounding.grounded:
            print(f"── NOT GROUNDED: {grounding.warning()}", file=sys.stderr, flush=True)

    try:
        with streaming_to(show, call):
            return ask(listener=stage_done)
    finally:
        close_line()  # an error then starts on a line of its own


def cmd_regenerate(args: argparse.Namespace) -> int:

    from kgviz.llm.select import spec_of_recorded
    from kgviz.runs.run import judged_run, parse_triple
    from kgviz.runs.store import RunStore
    from kgviz.session import open_session
    from kgviz.trace import Trace

    store = RunStore()
    if Path(args.source).is_file():
        trace, parent = Trace.load(args.source), None
        source = judged_run(trace)
        llm = args.llm
    else:
        source, parent = store.load(args.source), args.source
        trace = source.trace
        llm = args.llm or spec_of_recorded(source.llm)
    if not llm:
        raise InputError("say which LLM to use with --llm")
    session = open_session(trace.dataset, llm, cache_mode=args.cache)
    if source.record is None:
        source.record = session.find_question(trace.question)
    run = session.regenerate(
        source, [parse_triple(t) for t in args.drop], [parse_triple(t) for t in args.add]
    )
    entry = keep(run, parent)
    if args.json:
        print_json(
            {
                **run.to_json(),
                "run_id": entry.id if entry else None,
                "parent": parent,
                "edit": run.trace.stages["edit"].as_json(),
            }
        )
        return 0
    print(run.trace.answer.strip())
    print(
        f"\nanswers: {', '.join(run.trace.answers) or '(none)'} (before: "
        f"{', '.join(source.trace.answers) or '(none)'})"
    )
    if run.outcome.judged:
        print(outcome_line(run))
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    ask = commands.add_parser("ask", help="answer one question with one method")
    ask.add_argument("question", help="the question; [Name] marks a topic entity")
    ask.add_argument("--dataset", default="demo")
    ask.add_argument("--method", default="simgrag", help="one of: " + ", ".join(method_names()))
    add_llm_argument(ask)
    ask.add_argument("--topic", action="append", default=[], help="a topic entity (repeatable)")
    add_option_arguments(ask, "the method", "k=5")
    ask.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    ask.add_argument("--json", action="store_true", help="print the contract JSON object")
    ask.add_argument("--trace", metavar="FILE", help="save the whole trace as JSON (Trace.load)")
    ask.add_argument(
        "--html",
        metavar="FILE",
        help="write a self-contained page with the answer and every stage view",
    )
    ask.set_defaults(handler=cmd_ask)

    regenerate = commands.add_parser(
        "regenerate", help="answer a kept run again on its evidence, edited (what-if)"
    )
    regenerate.add_argument("source", help="a kept run's id (`kgviz runs list`) or a trace file")
    regenerate.add_argument(
        "--drop", action="append", default=[], metavar="'H | R | T'", help="a triple to take out"
    )
    regenerate.add_argument(
        "--add", action="append", default=[], metavar="'H | R | T'", help="a triple to put in"
    )
    regenerate.add_argument(
        "--llm", default="", metavar="SPEC", help="the LLM (default: the one the run used)"
    )
    regenerate.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    regenerate.add_argument("--json", action="store_true")
    regenerate.set_defaults(handler=cmd_regenerate)
