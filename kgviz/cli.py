"""The `kgviz` command line. Expected failures print one line on stderr and exit non-zero."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from kgviz.errors import KgvizError

Handler = Callable[[argparse.Namespace], int]


def _print_json(value: object) -> None:
    print(json.dumps(value, ensure_ascii=False))


# ------------------------------------------------------------------------------------ data
def cmd_data_info(args: argparse.Namespace) -> int:
    from kgviz.datasets import get_dataset

    dataset = get_dataset(args.name)
    kg = dataset.kg
    info = {
        "name": dataset.name,
        "root": str(dataset.root),
        "entities": kg.num_entities,
        "relations": kg.num_relations,
        "triples": kg.num_triples,
        "splits": {split: len(dataset.questions(split)) for split in dataset.available_splits()},
    }
    if args.json:
        _print_json(info)
    else:
        for key, value in info.items():
            print(f"{key:>10}: {value}")
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

    dataset = get_dataset(args.name)
    index = KGIndex.build(dataset.kg, kind=args.kind, progress=True)
    print(f"{dataset.name}: {len(index.entity_index)} entity and {len(index.relation_index)} "
          f"relation vectors indexed ({args.kind})")
    return 0


# ------------------------------------------------------------------------------------ doctor
def cmd_doctor(args: argparse.Namespace) -> int:
    from kgviz.doctor import doctor_rows

    rows = doctor_rows()
    if args.json:
        _print_json(rows)
        return 0
    for row in rows:
        mark = "ok " if row["status"] == "ok" else "-- "
        line = f"{mark}{row['component']:<28} {row['detail']}"
        if row["status"] != "ok" and row.get("fix"):
            line += f"\n     fix: {row['fix']}"
        print(line)
    return 0


# ------------------------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgviz", description="Knowledge-graph RAG lab")
    commands = parser.add_subparsers(dest="command", required=True)

    doctor = commands.add_parser("doctor", help="check LLM backends, models, datasets and indexes")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=cmd_doctor)

    data = commands.add_parser("data", help="inspect datasets").add_subparsers(dest="data_command",
                                                                               required=True)
    info = data.add_parser("info", help="counts of a dataset's KG and splits")
    info.add_argument("name")
    info.add_argument("--json", action="store_true")
    info.set_defaults(handler=cmd_data_info)
    data.add_parser("list", help="known datasets and whether their files are present").set_defaults(
        handler=cmd_data_list)

    index = commands.add_parser("index", help="vector indexes").add_subparsers(dest="index_command",
                                                                               required=True)
    build = index.add_parser("build", help="embed and index a dataset's entities and relations")
    build.add_argument("name")
    build.add_argument("--kind", choices=["flat", "hnsw"], default="flat")
    build.set_defaults(handler=cmd_index_build)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except KgvizError as error:
        print(f"kgviz: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("kgviz: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
