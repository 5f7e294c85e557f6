"""`python -m kgviz.llm prepare [NAME]` assembles an offline model; `doctor` reports backends."""

from __future__ import annotations

import argparse
import sys

from kgviz.errors import KgvizError
from kgviz.llm.model_files import DEFAULT_MODEL, MODELS, prepare_model
from kgviz.llm.select import doctor_report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kgviz.llm")
    commands = parser.add_subparsers(dest="command", required=True)
    prepare = commands.add_parser("prepare", help="download, join and verify an offline model")
    prepare.add_argument("name", nargs="?", default=DEFAULT_MODEL, choices=sorted(MODELS))
    commands.add_parser("doctor", help="which LLM backends and models are usable")
    args = parser.parse_args(argv)
    try:
        if args.command == "prepare":
            print(prepare_model(args.name))
        else:
            for row in doctor_report():
                fix = f"  -> {row['fix']}" if row["fix"] else ""
                print(f"{row['status']:8} {row['component']}: {row['detail']}{fix}")
    except KgvizError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
