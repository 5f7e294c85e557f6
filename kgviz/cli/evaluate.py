"""`kgviz eval`, `kgviz report` and `kgviz rescore`: methods over a split, and their tables."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import get_args

from kgviz.cli.arguments import (
    add_llm_argument,
    add_option_arguments,
    hop_counts,
    names_list,
    parse_settings,
    positive_int,
    print_json,
)
from kgviz.datasets.splits import PARTS
from kgviz.errors import RunStoreError
from kgviz.llm.cache import CacheMode


def cmd_eval(args: argparse.Namespace) -> int:

    from kgviz.eval.plan import EvalPlan
    from kgviz.eval.runner import run_eval
    from kgviz.runs.store import RunStore
    from kgviz.session import open_session

    methods = [m for value in args.method for m in value.split(",") if m]
    session = open_session(args.dataset, args.llm, cache_mode=args.cache, llm_slots=args.workers)
    print(f"llm: {session.llm_reason}", file=sys.stderr)
    plan = EvalPlan(
        split=args.split,
        part=args.part,
        limit=args.limit,
        sample_seed=args.sample,
        hops=frozenset(args.hops),
        qtypes=frozenset(args.qtype),
    )
    summary = run_eval(
        session,
        methods,
        plan,
        Path(args.out),
        progress=not args.quiet,
        workers=args.workers,
        questions=not args.ids_only,
        settings=parse_settings(args.set),
        store=RunStore() if args.keep_traces else None,
        preset=args.preset,
    )
    print_json(summary)
    if summary["failed"]:
        print(
            f"kgviz: error: {summary['failed']} question(s) failed and have no row; run the "
            "same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


def cmd_report(args: argparse.Namespace) -> int:

    from kgviz.datasets import get_dataset
    from kgviz.eval.rows import attach_questions
    from kgviz.eval.tables import common_questions
    from kgviz.viz.report import load_rows, write_report

    rows = load_rows([Path(p) for p in args.results], allow_mixed=args.allow_mixed)
    if args.common:
        rows = common_questions(rows)
        if not rows:
            raise RunStoreError("no question was answered by every method in these files")
    for name in args.dataset:
        rows = attach_questions(rows, get_dataset(name).questions(args.split))
    print(
        write_report(
            rows,
            html_path=args.html and Path(args.html),
            markdown_path=args.markdown and Path(args.markdown),
        ),
        end="",
    )
    return 0


def cmd_rescore(args: argparse.Namespace) -> int:
    import json
    from contextlib import ExitStack

    from kgviz.datasets import get_dataset
    from kgviz.eval.rescore import rescore_rows
    from kgviz.eval.results_file import read_results
    from kgviz.eval.summary import summarize
    from kgviz.eval.writer_lock import sole_writer
    from kgviz.reasoners.linking import EntityNames
    from kgviz.storage.atomic import write_text_atomic
    from kgviz.viz.report import require_files

    gold: dict[str, list[str]] = {}
    names: dict[str, EntityNames] = {}
    for name in args.dataset:
        dataset = get_dataset(name)
        shared = None if dataset.per_question_graphs else EntityNames(dataset.kg)
        for record in dataset.questions(args.split):
            gold[record.qid] = list(record.answers)
            names[record.qid] = shared or EntityNames(dataset.question_graph(record))
    paths = [Path(p) for p in args.results]
    require_files(paths)
    with ExitStack() as held:  # one writer: a file a run still writes is refused
        for path in paths:
            held.enter_context(sole_writer(path))
        rescored = {
            path: rescore_rows(read_results(path), gold, names)  # all, or none
            for path in paths
        }
        for path, rows in rescored.items():
            write_text_atomic(
                path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
            )
            print(
                f"{path}: {len(rows)} rows re-scored, hits@1 {summarize(rows)['hits@1']:.3f}",
                file=sys.stderr,
            )
    return 0


def add_eval(commands: argparse._SubParsersAction) -> None:
    """`kgviz eval` and its handler."""
    evaluate = commands.add_parser("eval", help="run methods over a dataset split (resumable)")
    evaluate.add_argument("--dataset", required=True)
    evaluate.add_argument("--split", required=True)
    evaluate.add_argument(
        "--method",
        action="append",
        required=True,
        help="a method, or several separated by commas (repeatable)",
    )
    evaluate.add_argument("--part", choices=PARTS, help="only this deterministic part of the split")
    evaluate.add_argument(
        "--hops",
        type=hop_counts,
        default=(),
        metavar="N[,N…]",
        help="only questions of these hop counts, e.g. --hops 2,3",
    )
    evaluate.add_argument(
        "--qtype",
        type=names_list,
        default=(),
        metavar="TYPE[,TYPE…]",
        help="only questions of these types (the dataset's labels, e.g. movie_to_director)",
    )
    evaluate.add_argument("--limit", type=positive_int, help="at most N questions")
    evaluate.add_argument(
        "--sample", type=int, metavar="SEED", help="shuffle questions with SEED first"
    )
    add_llm_argument(evaluate)
    evaluate.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    evaluate.add_argument("--out", required=True, help="JSONL results file (appended; resumes)")
    evaluate.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="questions in flight at once; the offline model serves as many at once "
        "(llama.cpp parallel slots), a server backend caps them at what it serves",
    )
    add_option_arguments(evaluate, "every method run, recorded in its rows,", "top_k=30")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluate.add_argument(
        "--keep-traces",
        action="store_true",
        help="keep every run with its trace in the run store (KGVIZ_RUNS; `kgviz runs list`)",
    )
    evaluate.add_argument(
        "--ids-only",
        action="store_true",
        help="name questions by qid only, without their text and gold answers "
        "(to publish results apart from the dataset)",
    )
    evaluate.set_defaults(handler=cmd_eval)


def add_report(commands: argparse._SubParsersAction) -> None:
    """`kgviz report` and its handler."""
    report = commands.add_parser("report", help="tables and charts of `kgviz eval` results")
    report.add_argument("results", nargs="+", help="JSONL results files")
    report.add_argument("--html", help="write a self-contained HTML report here")
    report.add_argument("--markdown", help="write the Markdown tables here (also printed)")
    report.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="add question text and gold answers from this dataset (repeatable)",
    )
    report.add_argument("--split", default="dev", help="the split the questions came from")
    report.add_argument(
        "--common", action="store_true", help="only questions that every method answered"
    )
    report.add_argument(
        "--allow-mixed",
        action="store_true",
        help="pool rows of one method label that differ in code version, options, LLM model "
        "file or checkpoint card (refused by default; presets and --set options are labelled "
        "apart anyway)",
    )
    report.set_defaults(handler=cmd_report)


def add_rescore(commands: argparse._SubParsersAction) -> None:
    """`kgviz rescore` and its handler."""
    rescore = commands.add_parser(
        "rescore", help="recompute the metrics of results files from their committed answers"
    )
    rescore.add_argument("results", nargs="+", help="JSONL results files (rewritten in place)")
    rescore.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="the dataset the questions came from (repeatable)",
    )
    rescore.add_argument("--split", default="dev", help="the split the questions came from")
    rescore.set_defaults(handler=cmd_rescore)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    for add in (add_eval, add_report, add_rescore):
        add(commands)
