"""`kgviz model prepare`, `kgviz doctor`, `kgviz demo` and `kgviz train`: the offline model,
what works and how to fix the rest, the main job, and training."""

from __future__ import annotations

import argparse
from pathlib import Path

from kgviz.cli.arguments import add_llm_argument, positive_int, print_json
from kgviz.errors import InputError
from kgviz.reasoners.registry import trainable_methods


def cmd_model_prepare(args: argparse.Namespace) -> int:
    from kgviz.llm.model_files import prepare_model

    print(prepare_model(args.name))
    if args.prefixes:
        keep_prompt_prefixes(args.name, args.prefixes)
    return 0


def keep_prompt_prefixes(model: str, dataset: str) -> None:
    """Read each method's fixed prompt prefix for `dataset` once with the offline `model`, so
    that its state is saved and a fresh process restores it instead of reading it."""
    import time

    from kgviz.datasets import get_dataset
    from kgviz.llm.llamacpp_backend import LlamaCppBackend
    from kgviz.llm.prefix_state import PREFIX_ENV, prefix_cache_on
    from kgviz.reasoners.prompt_prefixes import prompt_prefixes

    if not prefix_cache_on():
        print(f"prompt prefixes: none kept ({PREFIX_ENV}=off)")
        return
    backend = LlamaCppBackend(model)
    for name, prefix in prompt_prefixes(get_dataset(dataset).domain).items():
        start = time.perf_counter()
        read = backend.keep_prefix(prefix)
        said = f"read {read} tokens in {time.perf_counter() - start:.1f} s" if read > 2 else "kept"
        print(f"prompt prefix of {name} ({dataset}): {said}")


def cmd_demo(args: argparse.Namespace) -> int:

    from kgviz.demo import run_demo

    return run_demo(llm_spec=args.llm, per_hop=args.per_hop, page=Path(args.page))


def cmd_train(args: argparse.Namespace) -> int:
    from kgviz.reasoners.registry import method_spec

    trainable = trainable_methods()
    if args.method not in trainable:
        raise InputError(f"no trainer for {args.method!r}; trainable: {', '.join(trainable)}")
    return int(method_spec(args.method).trainer_main()(args.options) or 0)


def cmd_doctor(args: argparse.Namespace) -> int:
    from kgviz.cli.doctor import doctor_rows

    rows = doctor_rows()
    if args.json:
        print_json(rows)
        return 0
    for row in rows:
        mark = "ok " if row["status"] == "ok" else "-- "
        line = f"{mark}{row['component']:<28} {row['detail']}"
        if row["status"] != "ok" and row.get("fix"):
            line += f"\n     fix: {row['fix']}"
        print(line)
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    model = commands.add_parser("model", help="offline LLM files").add_subparsers(
        dest="model_command", required=True
    )
    prepare = model.add_parser("prepare", help="download, join and verify an offline model")
    prepare.add_argument("name", nargs="?", default="qwen2.5-coder-1.5b")
    prepare.add_argument(
        "--prefixes",
        metavar="DATASET",
        help="also read each method's fixed prompt prefix for DATASET's questions once and keep "
        "its state, so that a fresh process restores it instead of reading it again",
    )
    prepare.set_defaults(handler=cmd_model_prepare)

    doctor = commands.add_parser("doctor", help="check LLM backends, models, datasets and indexes")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=cmd_doctor)

    demo = commands.add_parser("demo", help="the main job: every method on demo questions")
    add_llm_argument(demo)
    demo.add_argument("--per-hop", type=positive_int, default=1, help="questions per hop count")
    demo.add_argument(
        "--page",
        default="artifacts/demo.html",
        help="where to write the HTML page of the runs (default: %(default)s)",
    )
    demo.set_defaults(handler=cmd_demo)

    train = commands.add_parser("train", help="train a method's learned retriever on a dataset")
    train.add_argument("method", help=", ".join(trainable_methods()))
    train.add_argument(
        "options", nargs=argparse.REMAINDER, help="passed to the trainer (see --help)"
    )
    train.set_defaults(handler=cmd_train)
