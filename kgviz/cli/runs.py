"""`kgviz runs` (list, show, diff, export): the runs kept in the run store."""

from __future__ import annotations

import argparse
import json
import sys

from kgviz.cli.arguments import print_json
from kgviz.cli.ask import outcome_line
from kgviz.errors import InputError


def cmd_runs_list(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.runs.store import RunStore

    wanted = dict(pair.split("=", 1) for pair in args.filter if "=" in pair)
    bad = [pair for pair in args.filter if "=" not in pair]
    if bad:
        raise InputError(f"bad --filter {bad[0]!r}: expected KEY=VALUE")
    entries = [
        entry
        for entry in RunStore().entries()
        if all(str(asdict(entry).get(key)) == value for key, value in wanted.items())
    ]
    if args.json:
        print_json([asdict(entry) for entry in entries])
        return 0
    for entry in entries:
        verdict = "" if entry.hits1 is None else f"hits@1 {entry.hits1:d} F1 {entry.f1:.2f} "
        print(f"{entry.id}  {entry.dataset:<12} {entry.method:<12} {verdict}{entry.question}")
    return 0


def cmd_runs_show(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.runs.store import RunStore

    store = RunStore()
    entry, run = store.entry(args.id), store.load(args.id)
    if args.html:
        from kgviz.datasets import get_dataset
        from kgviz.storage.atomic import write_text_atomic
        from kgviz.viz.page import run_page

        dataset = get_dataset(entry.dataset)
        run.kg = dataset.question_graph(run.record) if run.record else dataset.kg
        write_text_atomic(args.html, run_page(run))
        print(f"page written to {args.html}", file=sys.stderr)
    if args.json:
        print_json({**asdict(entry), **run.to_json()})
        return 0
    print(f"{entry.id}: {entry.method} on {entry.dataset} ({entry.llm}, {entry.time})")
    print(f"{entry.question}\n{run.trace.answer.strip()}")
    print(f"answers: {', '.join(run.trace.answers) or '(none)'}")
    if run.outcome.judged:
        print(outcome_line(run))
    return 0


def cmd_runs_diff(args: argparse.Namespace) -> int:
    from kgviz.runs.diff import diff_runs
    from kgviz.runs.store import RunStore

    store = RunStore()
    diff = diff_runs(store.load(args.a), store.load(args.b))
    if args.json:
        print_json(diff.as_json())
        return 0
    for side, verdict in zip((args.a, args.b), diff.verdicts, strict=True):
        print(f"{side}: {verdict}")
    for key, (a, b) in diff.options.items():
        print(f"option {key}: {a!r} -> {b!r}")
    for label, part in (("answers", diff.answers), ("evidence", diff.evidence)):
        print(
            f"{label}: {len(part.both)} in both; only in {args.a}: {len(part.only_a)}; "
            f"only in {args.b}: {len(part.only_b)}"
        )
        for item in part.only_a:
            print(f"  - {' | '.join(item) if isinstance(item, tuple) else item}")
        for item in part.only_b:
            print(f"  + {' | '.join(item) if isinstance(item, tuple) else item}")
    return 0


def cmd_runs_export(args: argparse.Namespace) -> int:
    from kgviz.runs.openinference import openinference_json
    from kgviz.runs.store import RunStore
    from kgviz.storage.atomic import write_text_atomic

    text = json.dumps(openinference_json(RunStore().load(args.id), args.id), ensure_ascii=False)
    if args.out:
        write_text_atomic(args.out, text + "\n")
        print(f"OpenInference spans (OTLP JSON) written to {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    runs = commands.add_parser("runs", help="the runs kept in KGVIZ_RUNS").add_subparsers(
        dest="runs_command", required=True
    )
    listing = runs.add_parser("list", help="every kept run with its verdict")
    listing.add_argument("--json", action="store_true")
    listing.add_argument(
        "--filter", action="append", default=[], metavar="KEY=VALUE", help="e.g. method=simgrag"
    )
    listing.set_defaults(handler=cmd_runs_list)
    show = runs.add_parser("show", help="one kept run")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    show.add_argument("--html", metavar="FILE", help="write its self-contained page")
    show.set_defaults(handler=cmd_runs_show)
    diff = runs.add_parser("diff", help="two kept runs: answers, verdicts, evidence, options")
    diff.add_argument("a")
    diff.add_argument("b")
    diff.add_argument("--json", action="store_true")
    diff.set_defaults(handler=cmd_runs_diff)
    export = runs.add_parser(
        "export", help="one kept run as OpenTelemetry spans for Phoenix, Langfuse and the like"
    )
    export.add_argument("id")
    export.add_argument(
        "--format",
        choices=["openinference"],
        default="openinference",
        help="OTLP JSON with OpenInference's span attributes",
    )
    export.add_argument("--out", metavar="FILE", help="write here (default: standard output)")
    export.set_defaults(handler=cmd_runs_export)
