"""`kgviz methods`: each method, what it retrieves, its options and presets."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from kgviz.cli.arguments import print_json
from kgviz.reasoners.registry import method_names

if TYPE_CHECKING:
    from kgviz.reasoners.spec import MethodSpec


def cmd_methods(args: argparse.Namespace) -> int:
    from kgviz.reasoners.registry import method_spec
    from kgviz.runs.run import options_text

    names = args.name or method_names()
    listing = [method_listing(method_spec(name)) for name in names]
    if args.json:
        print_json(listing)
        return 0
    for entry in listing:
        trained = "  [learned: kgviz train " + entry["name"] + "]" if entry["trainable"] else ""
        print(f"{entry['name']:<12} {entry['summary']}{trained}")
        for option in entry["options"]:
            print(
                f"    --set {option['name']}=  {option['help']} ({option['type']}, default "
                f"{option['default']!r})"
            )
        for preset in entry["presets"]:
            values = options_text(preset["values"])
            print(f"    --preset {preset['name']}: {values}. {preset['description']}")
    return 0


def method_listing(spec: MethodSpec) -> dict[str, Any]:
    """A method's name, label, summary, whether it trains, its options (from its config) and its
    presets: each with its description, the values it sets and every option's value under it."""
    from dataclasses import MISSING, asdict, fields
    from typing import get_type_hints

    from kgviz.reasoners.base import describe_hint, option_help

    config = spec.config_class()
    hints = get_type_hints(config)
    presets = [
        {
            "name": preset.name,
            "description": preset.description,
            "values": dict(preset.values),
            "options": asdict(config(**preset.values)),
        }
        for preset in spec.presets
    ]
    return {
        "name": spec.name,
        "label": spec.shown_as,
        "summary": spec.summary,
        "trainable": bool(spec.trainer),
        "options": [
            {
                "name": f.name,
                "help": option_help(f),
                "type": describe_hint(hints[f.name]),
                "default": None if f.default is MISSING else f.default,
            }
            for f in fields(config)
        ],
        "presets": presets,
    }


def add_commands(commands: argparse._SubParsersAction) -> None:
    """This group's commands, each with its handler."""
    methods = commands.add_parser("methods", help="the methods, what each retrieves, its options")
    methods.add_argument("name", nargs="*", help="only these methods")
    methods.add_argument("--json", action="store_true")
    methods.set_defaults(handler=cmd_methods)
