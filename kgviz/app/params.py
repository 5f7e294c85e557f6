"""Parameter widgets generated from a method's config dataclass (one widget per field)."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

import ipywidgets as widgets

from kgviz.reasoners.base import option_help

STYLE = {"description_width": "110px"}
LAYOUT = widgets.Layout(width="230px")
# The counts offered beside a named choice such as "auto" (a field typed `int | Literal[...]`).
COUNT_CHOICES = (10, 30, 50, 100, 200)


def _field_widget(name: str, hint: Any, default: Any) -> widgets.ValueWidget | None:
    """The widget editing one field, or None for a type the form cannot edit."""
    options = {"description": name, "style": STYLE, "layout": LAYOUT}
    args = typing.get_args(hint)
    if typing.get_origin(hint) is Literal:
        return widgets.Dropdown(options=list(args), value=default, **options)
    literal_or_int = [a for a in args if typing.get_origin(a) is Literal]
    if int in args and literal_or_int:  # e.g. top_k: int | Literal["auto"]
        choices = [*typing.get_args(literal_or_int[0]), *COUNT_CHOICES]
        return widgets.Dropdown(
            options=choices if default in choices else [default, *choices], value=default, **options
        )
    optional_text = set(args) == {str, type(None)}
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and optional_text:
        return widgets.Text(value=default or "", placeholder="default", **options)
    kinds = {
        bool: widgets.Checkbox,
        int: widgets.IntText,
        float: widgets.FloatText,
        str: widgets.Text,
    }
    kind = kinds.get(hint)
    if kind is None:
        return None
    if kind is widgets.Checkbox:
        options["indent"] = False
    return kind(value=default, **options)


class ParamForm(widgets.GridBox):
    """The editable fields of `config_class`, laid out in a grid; `overrides()` is what changed.
    `recording` options (the method spec's, which make a run record what its views draw) are
    the form's defaults: the lab asks with them."""

    def __init__(self, config_class: type, recording: Mapping[str, Any] | None = None) -> None:
        hints = typing.get_type_hints(config_class)
        self.defaults: dict[str, Any] = {}
        self.fields: dict[str, widgets.ValueWidget] = {}
        for item in dataclasses.fields(config_class):
            if item.default is dataclasses.MISSING:
                continue
            default = (recording or {}).get(item.name, item.default)
            widget = _field_widget(item.name, hints[item.name], default)
            if widget is not None:
                widget.tooltip = option_help(item) or None
                self.defaults[item.name] = default
                self.fields[item.name] = widget
        super().__init__(
            children=list(self.fields.values()),
            layout=widgets.Layout(grid_template_columns="repeat(3, 240px)"),
        )

    def values(self) -> dict[str, Any]:
        """Every editable field's current value (an empty optional text means None)."""
        return {
            name: (widget.value if widget.value != "" or self.defaults[name] == "" else None)
            for name, widget in self.fields.items()
        }

    def overrides(self) -> dict[str, Any]:
        """The fields whose value differs from the config default."""
        return {
            name: value for name, value in self.values().items() if value != self.defaults[name]
        }
