"""Parameter widgets generated from a method's config dataclass: one widget per field, its label
wide enough for the longest name and its help written under it."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal

import ipywidgets as widgets

from kgviz.reasoners.base import option_help
from kgviz.reasoners.presets import DEFAULT_PRESET, Preset, tuned
from kgviz.viz.escape import esc

# A label's width per character of the longest field name (13px sans-serif), so none is cut.
EM_PER_CHAR = 0.62
INPUT_WIDTH = "140px"
# The counts offered beside a named choice such as "auto" (a field typed `int | Literal[...]`).
COUNT_CHOICES = (10, 30, 50, 100, 200)


def label_width(names: list[str]) -> str:
    """A label width (CSS) that holds the longest of `names`."""
    return f"{max(map(len, names), default=0) * EM_PER_CHAR + 0.6:.1f}em"


def help_line(text: str) -> widgets.HTML:
    """A field's help, written under it (escaped)."""
    return widgets.HTML(
        f'<div class="kgviz-help" style="font:11px/1.3 sans-serif;color:#666;'
        f'margin:0 0 6px 4px">{esc(text)}</div>'
    )


def _field_widget(name: str, hint: Any, default: Any, label: str) -> widgets.ValueWidget | None:
    """The widget editing one field (its label `label` wide), or None for a type the form
    cannot edit."""
    options = {
        "description": name,
        "style": {"description_width": label},
        "layout": widgets.Layout(width=f"calc({label} + {INPUT_WIDTH})"),
    }
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
        options["layout"] = widgets.Layout(width="auto")
    return kind(value=default, **options)


class ParamForm(widgets.VBox):
    """A preset picker, then the editable fields of `config_class`, each with its help under
    it, laid out in a grid. Picking a preset fills the fields with its values; `overrides()` is
    what differs from the chosen preset. `recording` options (the method spec's, which make a
    run record what its views draw) are the form's defaults: the lab asks with them."""

    def __init__(
        self,
        config_class: type,
        recording: Mapping[str, Any] | None = None,
        presets: tuple[Preset, ...] = (tuned(),),
    ) -> None:
        hints = typing.get_type_hints(config_class)
        items = [
            f for f in dataclasses.fields(config_class) if f.default is not dataclasses.MISSING
        ]
        label = label_width([item.name for item in items])
        self.defaults: dict[str, Any] = {}
        self.fields: dict[str, widgets.ValueWidget] = {}
        cells = []
        for item in items:
            default = (recording or {}).get(item.name, item.default)
            widget = _field_widget(item.name, hints[item.name], default, label)
            if widget is not None:
                widget.tooltip = option_help(item) or None
                self.defaults[item.name] = default
                self.fields[item.name] = widget
                cells.append(widgets.VBox([widget, help_line(option_help(item))]))
        self.grid = widgets.GridBox(
            children=cells,
            layout=widgets.Layout(
                width="100%",
                grid_template_columns=f"repeat(auto-fill, minmax(calc({label} + 180px), 1fr))",
                grid_gap="0 12px",
            ),
        )
        self.presets = {preset.name: preset for preset in presets}
        self.preset = widgets.Dropdown(
            options=list(self.presets), value=DEFAULT_PRESET, description="preset"
        )
        self.preset_help = help_line(self.presets[DEFAULT_PRESET].description)
        self.preset.observe(lambda _: self.apply_preset(), "value")
        super().__init__(
            [self.preset, self.preset_help, self.grid], layout=widgets.Layout(width="100%")
        )

    def preset_values(self) -> dict[str, Any]:
        """Every editable field's value under the chosen preset."""
        chosen = self.presets[self.preset.value].values
        return {name: chosen.get(name, default) for name, default in self.defaults.items()}

    def apply_preset(self) -> None:
        """Fill the fields with the chosen preset's values, and say what it is."""
        for name, value in self.preset_values().items():
            widget = self.fields[name]
            widget.value = "" if value is None and isinstance(widget, widgets.Text) else value
        self.preset_help.value = help_line(self.presets[self.preset.value].description).value

    def values(self) -> dict[str, Any]:
        """Every editable field's current value (an empty optional text means None)."""
        return {
            name: (widget.value if widget.value != "" or self.defaults[name] == "" else None)
            for name, widget in self.fields.items()
        }

    def overrides(self) -> dict[str, Any]:
        """The fields whose value differs from the chosen preset's (the config default under
        `tuned`)."""
        under = self.preset_values()
        return {name: value for name, value in self.values().items() if value != under[name]}
