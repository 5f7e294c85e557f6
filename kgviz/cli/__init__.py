"""The `kgviz` command line. Expected failures print one line on stderr and exit non-zero.

Each command group lives in a module of its own, its parser beside its handler: `ask` (ask,
regenerate), `runs`, `evaluate` (eval, report, rescore), `data` (data, index), `methods` and
`setup` (model, doctor, demo, train); `arguments` holds what they share.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from kgviz.cli import ask, data, evaluate, methods, runs, setup
from kgviz.cli.arguments import parse_settings
from kgviz.cli.environment import check_environment
from kgviz.cli.terminal import visible_output
from kgviz.errors import KgvizError
from kgviz.llm.redact import redact_text

GROUPS = (ask, runs, evaluate, methods, data, setup)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgviz", description="Knowledge-graph RAG lab")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in GROUPS:
        group.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    with visible_output():  # no control character of a question, reply or name reaches it raw
        args = parser.parse_args(argv)
        try:
            check_environment()
            return args.handler(args)
        except KgvizError as error:
            print(f"kgviz: error: {redact_text(str(error))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("kgviz: interrupted", file=sys.stderr)
            return 130


__all__ = ["build_parser", "main", "parse_settings"]

if __name__ == "__main__":
    sys.exit(main())
