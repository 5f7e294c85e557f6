"""Views as widgets: HTML strings in an HTML widget, plotly figures as plotly mime output."""

from __future__ import annotations

import json

import ipywidgets as widgets
import plotly.graph_objects as go
import plotly.io as pio

from kgviz.viz.escape import esc

PLOTLY_MIME = "application/vnd.plotly.v1+json"


def figure_output(figure: go.Figure) -> widgets.Output:
    """An Output holding the figure as plotly's mime bundle (no renderer, safe from any thread)."""
    output = widgets.Output()
    output.outputs = (
        {
            "output_type": "display_data",
            "metadata": {},
            "data": {
                PLOTLY_MIME: json.loads(pio.to_json(figure, validate=False)),
                "text/plain": "plotly figure",
            },
        },
    )
    return output


def view_widget(view: object) -> widgets.Widget:
    """The widget showing one view (a plotly figure or an HTML string)."""
    if isinstance(view, go.Figure):
        return figure_output(view)
    if isinstance(view, str):
        return widgets.HTML(view)
    raise TypeError(f"cannot show a view of type {type(view).__name__}")


def empty_tabs() -> widgets.Tab:
    """A Tab that stays hidden until pages are added."""
    return widgets.Tab(layout=widgets.Layout(display="none"))


def append_tabs(tab: widgets.Tab, pages: dict[str, widgets.Widget]) -> None:
    """Add `pages` (title -> widget) after the tabs already there; each page gets the CSS class
    `kgviz-tab-<title>` (for styling and browser tests)."""
    titles = tab.titles  # read first: assigning children pads the titles with blanks
    for title, page in pages.items():
        page.add_class(f"kgviz-tab-{title}")
    tab.children = (*tab.children, *pages.values())
    tab.titles = (*titles, *pages)
    tab.layout.display = "flex" if tab.children else "none"


def selected_title(tab: widgets.Tab) -> str | None:
    """The title of the selected page, if any."""
    index = tab.selected_index
    return tab.titles[index] if index is not None and index < len(tab.titles) else None


def replace_tabs(
    tab: widgets.Tab, pages: dict[str, widgets.Widget], selected: str | None = None
) -> None:
    """Show exactly `pages`, redrawn (a later stage can change what an earlier tab shows), then
    select the page titled `selected` (default: the one selected now) when there is one."""
    selected = selected or selected_title(tab)
    clear_tabs(tab)
    append_tabs(tab, pages)
    if selected in pages:
        tab.selected_index = list(pages).index(selected)


def clear_tabs(tab: widgets.Tab) -> None:
    """Remove every page (the selection first, so that no index points past the new end)."""
    tab.selected_index = None
    tab.children, tab.titles = (), ()
    tab.layout.display = "none"


def message(text: str, kind: str = "info") -> str:
    """A one-line status as HTML: info (grey), ok (green), warning (amber) or error (red);
    `text` is escaped."""
    colour = {"info": "#555", "ok": "#2a7a2a", "warning": "#a06000", "error": "#b00020"}[kind]
    style = f"font:13px sans-serif;color:{colour};white-space:pre-wrap"
    return f'<div style="{style}">{esc(text)}</div>'
