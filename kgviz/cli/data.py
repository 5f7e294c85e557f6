"""`kgviz data` (info, list, export) and `kgviz index build`: what a dataset holds."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any, get_args

from kgviz.cli.arguments import print_json
from kgviz.embed.index import IndexKind
from kgviz.errors import DataError, InputError, KgvizError


def cmd_data_info(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.datasets import get_dataset
    from kgviz.reasoners.topic_links import count_topic_links
    from kgviz.triplestore.graph import SparqlGraph

    dataset = get_dataset(args.name)
    dataset.check_available()
    info: dict[str, Any] = {"name": dataset.name, "root": str(dataset.root)}
    if dataset.per_question_graphs:
        info["graphs"] = "one per question"
    else:
        started = time.perf_counter()
        kg = dataset.kg
        info |= {
            "entities": kg.stored_entities,
            "relations": kg.num_relations,
            "triples": kg.stored_triples,
        }
        if isinstance(kg, SparqlGraph):
            info["endpoint"] = kg.config.endpoint
            info["name store"] = str(kg.store.path)
            steps = {"open": time.perf_counter() - started}
            steps |= {f"store built: {step}": seconds for step, seconds in kg.store.timings.items()}
            info["seconds"] = {step: round(seconds, 2) for step, seconds in steps.items()}
    splits = {split: dataset.questions(split) for split in dataset.available_splits()}
    info["splits"] = {split: len(records) for split, records in splits.items()}
    topics = {split: count_topic_links(dataset, records) for split, records in splits.items()}
    info["topics"] = {split: asdict(counts) for split, counts in topics.items()}
    if not dataset.per_question_graphs:
        for counts in info["topics"].values():
            del counts["graph_triples"]
    if args.json:
        print_json(info)
        return 0
    for key, value in info.items():
        if key != "topics":
            print(f"{key:>10}: {value}")
    for split, counts in topics.items():
        print(
            f"{'topics':>10}: {split}: {counts.reach_kg} of {counts.questions} questions reach "
            f"the KG ({counts.marked_found} of {counts.marked} marked ones found, "
            f"{counts.linked} of {counts.questions - counts.marked} unmarked ones linked by name)"
            + (
                f"; {counts.graph_triples / counts.questions:.0f} triples per question graph"
                if counts.graph_triples
                else ""
            )
        )
    return 0


def cmd_data_export(args: argparse.Namespace) -> int:
    from kgviz.datasets import get_dataset
    from kgviz.triplestore.export import write_ntriples

    dataset = get_dataset(args.name)
    if dataset.per_question_graphs:
        raise DataError(f"dataset {dataset.name!r} has one graph per question, not one KG")
    if dataset.kg.fetches:
        raise DataError(f"dataset {dataset.name!r} is already in a triple store")
    lines = write_ntriples(dataset.kg, args.out)
    print(f"wrote {lines:,} N-Triples lines to {args.out}")
    return 0


def cmd_data_list(args: argparse.Namespace) -> int:
    from kgviz.datasets import dataset_names, get_dataset

    for name in dataset_names():
        dataset = get_dataset(name)
        try:
            dataset.check_available()
            state = "available, splits: " + (", ".join(dataset.available_splits()) or "none")
        except KgvizError:
            state = "missing: " + dataset.how_to_get()
        print(f"{name:<20} {state}")
    return 0


def cmd_index_build(args: argparse.Namespace) -> int:
    from kgviz.datasets import get_dataset
    from kgviz.embed import KGIndex

    if args.milvus_uri and args.kind != "milvus":
        raise InputError("--milvus-uri needs --kind milvus")
    dataset = get_dataset(args.name)
    index = KGIndex.build(dataset.kg, kind=args.kind, progress=True, milvus_uri=args.milvus_uri)
    print(
        f"{dataset.name}: {len(index.entity_index)} entity and {len(index.relation_index)} "
        f"relation vectors indexed ({args.kind})"
    )
    return 0


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    data = commands.add_parser("data", help="inspect datasets").add_subparsers(
        dest="data_command", required=True
    )
    info = data.add_parser("info", help="counts of a dataset's KG and splits")
    info.add_argument("name")
    info.add_argument("--json", action="store_true")
    info.set_defaults(handler=cmd_data_info)
    data.add_parser("list", help="known datasets and whether their files are present").set_defaults(
        handler=cmd_data_list
    )
    export = data.add_parser(
        "export", help="a dataset's KG as N-Triples, to load into a triple store"
    )
    export.add_argument("name")
    export.add_argument("out", type=Path, help="the .nt file to write")
    export.set_defaults(handler=cmd_data_export)

    index = commands.add_parser("index", help="vector indexes").add_subparsers(
        dest="index_command", required=True
    )
    build = index.add_parser("build", help="embed and index a dataset's entities and relations")
    build.add_argument("name")
    build.add_argument("--kind", choices=get_args(IndexKind), default="flat")
    build.add_argument(
        "--milvus-uri",
        metavar="URI",
        help="a Milvus server (http://host:19530; token from KGVIZ_MILVUS_TOKEN) or a "
        "Milvus Lite file (*.db); default: milvus.db in the index cache folder",
    )
    build.set_defaults(handler=cmd_index_build)
