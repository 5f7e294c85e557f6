"""Views as widgets (HTML strings in an HTML widget, plotly figures as plotly mime output), tabs
of views updated in place, and status lines."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import ipywidgets as widgets
import plotly.graph_objects as go
import plotly.io as pio

from kgviz.viz.escape import esc
from kgviz.viz.view_table import ViewOutput

PLOTLY_MIME = "application/vnd.plotly.v1+json"
# A page (or a whole result) that no longer answers the inputs shown above it: greyed out.
STALE = "kgviz-stale"
# The lab's own CSS, shown once by the app (an HTML widget may hold a <style> element).
# Tabs as wide as their names, wrapping onto more rows rather than cutting a name when a run
# has many stages.
LAB_STYLE = (
    f"<style>.{STALE}{{opacity:.4;transition:opacity .2s}}"
    ".kgviz-lab .lm-TabBar-content{flex-wrap:wrap}"
    ".kgviz-lab .lm-TabBar{min-height:fit-content}"
    ".kgviz-lab .jupyter-widgets.widget-tab>.lm-TabBar .lm-TabBar-tab"
    "{flex:0 1 auto;min-width:fit-content;max-width:none;padding:0 12px}</style>"
)


def figure_bundle(figure: go.Figure) -> dict[str, object]:
    """The display_data output of a figure as plotly's mime bundle."""
    return {
        "output_type": "display_data",
        "metadata": {},
        "data": {
            PLOTLY_MIME: json.loads(pio.to_json(figure, validate=False)),
            "text/plain": "plotly figure",
        },
    }


def view_widget(view: ViewOutput) -> widgets.Widget:
    """The widget showing one view (a plotly figure in an Output, safe from any thread; an HTML
    string in an HTML widget)."""
    widget: widgets.Widget = widgets.Output() if isinstance(view, go.Figure) else widgets.HTML()
    if not show_view(widget, view):
        raise TypeError(f"cannot show a view of type {type(view).__name__}")
    return widget


def show_view(widget: widgets.Widget, view: ViewOutput) -> bool:
    """Put `view` into `widget` when its content differs (an unchanged view leaves the widget,
    and what the user did in it, alone); False when the widget cannot show this kind of view."""
    if isinstance(view, go.Figure) and isinstance(widget, widgets.Output):
        bundle = figure_bundle(view)
        if widget.outputs != (bundle,):
            widget.outputs = (bundle,)
        return True
    if isinstance(view, str) and isinstance(widget, widgets.HTML):
        if widget.value != view:
            widget.value = view
        return True
    return False


def empty_tabs() -> widgets.Tab:
    """A Tab that stays hidden until pages are added."""
    return widgets.Tab(layout=widgets.Layout(display="none"))


def selected_title(tab: widgets.Tab) -> str | None:
    """The title of the selected page, if any."""
    index = tab.selected_index
    return tab.titles[index] if index is not None and index < len(tab.titles) else None


def sync_tabs(tabs: Sequence[widgets.Tab]) -> None:
    """Keep `tabs` on the same page: choosing a page in one chooses the page of that title in
    each of the others that has one (runs side by side show the same stage)."""

    def follow(source: widgets.Tab) -> None:
        title = selected_title(source)
        for other in tabs:
            if other is not source and title in other.titles:
                other.selected_index = other.titles.index(title)

    for tab in tabs:
        tab.observe(lambda change: follow(change["owner"]), "selected_index")


def update_tabs(tab: widgets.Tab, views: Mapping[str, ViewOutput], complete: bool = False) -> None:
    """Show `views` (title -> view) in place: a page already there keeps its widget, given new
    content only when its view changed (a graph keeps its zoom, pan and expanded neighbours), and
    is no longer stale; a new view gets a page (CSS class `kgviz-tab-<title>`) after the others.
    `complete`: `views` is all the tab shows, in its order (other pages are closed)."""
    pages = dict(zip(tab.titles, tab.children, strict=True))
    for title, view in views.items():
        page = pages.get(title)
        if page is None or not show_view(page, view):
            pages[title] = view_widget(view)
            pages[title].add_class(f"kgviz-tab-{title}")
        pages[title].remove_class(STALE)
    if complete:
        pages = {title: pages[title] for title in views}
    _set_pages(tab, pages)


def mark_stale(tab: widgets.Tab) -> None:
    """Grey out every page: a run has begun whose views will replace them."""
    for page in tab.children:
        page.add_class(STALE)


def drop_stale(tab: widgets.Tab) -> None:
    """Close the pages no view replaced (a run ended before reaching their stages)."""
    pages = zip(tab.titles, tab.children, strict=True)
    _set_pages(tab, {title: page for title, page in pages if STALE not in page._dom_classes})


def _set_pages(tab: widgets.Tab, pages: Mapping[str, widgets.Widget]) -> None:
    """Make `pages` the tab's pages, keeping the selected one selected (by title) where it
    stays, and close the pages left out; an unchanged list changes nothing (the front end keeps
    every view it drew)."""
    selected = selected_title(tab)
    titles, children = tuple(pages), tuple(pages.values())
    left_out = [page for page in tab.children if page not in children]
    if children != tab.children:
        if tab.selected_index is not None and tab.selected_index >= len(children):
            tab.selected_index = None  # first, so that no index points past the new end
        tab.children = children
    if titles != tab.titles:
        tab.titles = titles
    if selected in pages and tab.selected_index != titles.index(selected):
        tab.selected_index = titles.index(selected)
    tab.layout.display = "flex" if children else "none"
    for page in left_out:
        page.close()


def close_tree(widget: widgets.Widget) -> None:
    """Close `widget` and every widget inside it (the front end lets go of their views)."""
    for child in getattr(widget, "children", ()):
        close_tree(child)
    widget.close()


class Progress(widgets.HTML):
    """One line per finished stage (escaped), in a box `LINES` lines high scrolled to the
    newest, so that lines added during a run move nothing below."""

    LINES = 4

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.clear()

    def clear(self) -> None:
        self.lines = []
        self._draw()

    def add(self, text: str) -> None:
        self.lines.append(text)
        self._draw()

    def _draw(self) -> None:
        lines = "".join(f"<div>{esc(line)}</div>" for line in self.lines)
        self.value = (
            f'<div class="kgviz-progress" style="font:13px/18px sans-serif;color:#555;'
            f"height:{18 * self.LINES}px;overflow:auto;display:flex;"
            f'flex-direction:column-reverse"><div>{lines}</div></div>'
        )


def control_row(children: Sequence[widgets.Widget]) -> widgets.HBox:
    """Controls side by side that wrap onto another line when the window is narrow, each at
    its own width (a control squeezed instead would cut its label)."""
    for child in children:
        child.layout.flex = "0 0 auto"
    return widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap"))


def message(text: str, kind: str = "info") -> str:
    """A one-line status as HTML: info (grey), ok (green), warning (amber) or error (red);
    `text` is escaped."""
    colour = {"info": "#555", "ok": "#2a7a2a", "warning": "#a06000", "error": "#b00020"}[kind]
    style = f"font:13px sans-serif;color:{colour};white-space:pre-wrap"
    return f'<div style="{style}">{esc(text)}</div>'
