"""Readability, measured in headless Chromium on every graph view of all seven methods' runs on the
demo KG: retrieval runs for real, the LLM's replies are scripted (a fixed pattern for SimGRAG, the
gold answer for all), and each view is written as a page into a temp folder and opened from there.

At the default view every rendered node label is at least 9 px (font size × network scale) and no
edge passes over a node it does not join (vis-network's own positions, shapes and curves); the
view stays where the user put it; pool labels do not overlap; the search tree shows gold and says
why its dead ends failed; no page logs a script error. Screenshots go to the test's tmp folder and
to `artifacts/screenshots/` (`readability-*.png`).
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from kgviz.datasets.registry import get_dataset
from kgviz.llm.base import LLM, Completion
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner, method_spec
from kgviz.reasoners.simgrag import prompts
from kgviz.trace import Trace
from kgviz.viz import stage_views
from kgviz.viz.side_by_side import PANEL_PX, side_by_side
from tests.browser.chromium import launched
from tests.browser.graph_checks import LEGIBLE_PX, READABILITY

REPO = Path(__file__).resolve().parents[2]
QUESTION = "who directed the movies that Tom Hanks acted in"
U = "UNKNOWN"
PATTERNS = {  # run name -> the pattern SimGRAG's LLM is scripted to reply
    "simgrag": [
        [f"{U} movie 1", "starred actors", "Tom Hanks"],
        [f"{U} movie 1", "directed by", f"{U} person 1"],
    ],
    # three nodes in one row along the edges, and a relation no KG edge has: a failed search
    "simgrag-dead-end": [
        [f"{U} movie 1", "starred actors", "Tom Hanks"],
        ["Tom Hanks", "starred in", f"{U} person 1"],
        [f"{U} movie 1", "directed by", f"{U} person 1"],
    ],
}
METHODS = ("subgraphrag", "gnnrag", "grag", "kaping", "tog", "llm-only")
GRAPHS = {  # every graph view of every run (`test_these_are_all_the_graph_views` checks)
    "simgrag": ("pattern", "subgraphs", "citations"),
    "simgrag-dead-end": ("pattern",),
    "subgraphrag": ("evidence", "citations"),
    "gnnrag": ("paths", "citations"),
    "grag": ("description", "citations"),
    "kaping": ("evidence", "citations"),
    "tog": ("evidence", "citations"),
    "llm-only": (),
}
HTML_PAGE = "<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>%s</body></html>"
SECOND = 1000  # Playwright waits are in milliseconds

pytestmark = [
    pytest.mark.browser,
]


class ScriptedLLM(LLM):
    """Replies with a fixed pattern to SimGRAG's pattern request and with `answer` otherwise."""

    name, model = "scripted", "readability"

    def __init__(self, pattern: list[list[str]], answer: str) -> None:
        self.pattern, self.answer = pattern, answer

    def complete(self, messages, schema=None, **options) -> Completion:
        if prompts.is_pattern_schema(schema):
            text = json.dumps({"phrases": [], "triples": self.pattern})
        elif schema is not None and "enough" in schema["properties"]:  # ToG walks to its depth
            text = json.dumps({"enough": False, "answers": [], "reason": "scripted"})
        elif schema is not None and "answers" in schema["properties"]:
            text = json.dumps({"answers": [self.answer]})  # the tuned presets' answer list
        elif schema is not None:
            text = json.dumps({"reason": "scripted", "answer": [self.answer]})
        else:
            text = self.answer
        return Completion(text, None, 10, 5, 0.01, self.name, self.model)

    def options(self, **overrides):
        return overrides


@pytest.fixture(scope="module")
def runs() -> dict[str, Trace]:
    """Each method's run of the question on the demo KG (SimGRAG twice), with its gold answers."""
    dataset = get_dataset("demo")
    record = next(r for r in dataset.questions("dev") if r.question == QUESTION)

    def run(method: str, pattern: list[list[str]]) -> Trace:
        context = ReasonerContext(dataset, ScriptedLLM(pattern, record.answers[0]))
        options = method_spec(method).recording_options
        reasoner = make_reasoner(method, context, **options)
        return reasoner.run(QUESTION, record.topic_entities, gold=record.answers)

    made = {name: run("simgrag", pattern) for name, pattern in PATTERNS.items()}
    made |= {method: run(method, []) for method in METHODS}
    return made


@pytest.fixture(scope="module")
def pages(runs: dict[str, Trace], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """`run/stage` -> a page of that view in one folder (plotly.js beside them, loaded once)."""
    folder = tmp_path_factory.mktemp("views")
    (folder / "plotly.min.js").write_text(get_plotlyjs(), encoding="utf-8")
    kg = get_dataset("demo").kg
    written = {}
    for name, trace in runs.items():
        for stage, view in stage_views(trace, kg).items():
            if isinstance(view, go.Figure):
                body = view.to_html(full_html=True, include_plotlyjs="directory")
            else:
                body = HTML_PAGE % view
            path = folder / f"{name}-{stage}.html"
            path.write_text(body, encoding="utf-8")
            written[f"{name}/{stage}"] = path
    return written


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with launched() as chromium:
        yield chromium


@pytest.fixture
def shots(tmp_path: Path) -> list[Path]:
    return [tmp_path / "screenshots", REPO / "artifacts" / "screenshots"]


def screenshot(page, name: str, folders: list[Path]) -> None:
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"readability-{name}.png"), full_page=True)


class Opened:
    """A view's page open in Chromium at a lab-like width, and the script errors it logged."""

    def __init__(self, browser, path: Path, width: int = 1100) -> None:
        self.page = browser.new_page(viewport={"width": width, "height": 900})
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on(
            "console", lambda message: message.type == "error" and self.errors.append(message.text)
        )
        started = time.monotonic()
        self.page.goto(path.as_uri())
        self.seconds = time.monotonic() - started

    def graph(self):
        """The frame of the page's graph, once its default view is set."""
        (frame,) = [f for f in self.page.frames if f != self.page.main_frame]
        frame.wait_for_function("window.kgvizReady === true", timeout=20 * SECOND)
        return frame


def test_these_are_all_the_graph_views(runs, pages):
    """The graphs measured below are every pyvis view of every run (llm-only draws none)."""
    assert set(runs) == set(GRAPHS) and len(runs) == len(METHODS) + 2
    graphs = {key for key, path in pages.items() if "srcdoc=" in path.read_text(encoding="utf-8")}
    assert graphs == {f"{run}/{stage}" for run, stages in GRAPHS.items() for stage in stages}


@pytest.mark.parametrize(
    "view", [f"{run}/{stage}" for run, stages in GRAPHS.items() for stage in stages]
)
def test_a_graph_opens_legible_with_every_edge_clear_of_other_nodes(browser, pages, shots, view):
    opened = Opened(browser, pages[view])
    measured = opened.graph().evaluate(READABILITY)
    screenshot(opened.page, view.replace("/", "-"), shots)
    assert opened.seconds < 10, f"{view}: loaded in {opened.seconds:.1f} s"
    assert measured["nodes"] > 1 and measured["edges"] > 0, measured
    assert measured["smallest"] >= LEGIBLE_PX, f"{view}: labels at {measured}"
    assert measured["through"] == [], f"{view}: edges over nodes {measured['through']}"
    assert opened.errors == []
    opened.page.close()


def test_a_large_graph_opens_on_part_and_shows_all_on_demand(browser, pages, shots):
    """SubgraphRAG's evidence (100 triples) opens on what matters; "show all" reveals every
    triple, as the user asked, and the view stays where it was."""
    opened = Opened(browser, pages["subgraphrag/evidence"])
    frame = opened.graph()
    first = frame.evaluate("[network.body.nodeIndices.length, network.body.edgeIndices.length]")
    total = frame.evaluate("edges.length")
    assert first[1] <= 15 < total
    assert frame.inner_text("#kgviz-all") == f"show all {total} edges"
    frame.click("#kgviz-all")
    assert frame.evaluate("network.body.edgeIndices.length") == total
    screenshot(opened.page, "subgraphrag-evidence-all", shots)
    frame.click("#kgviz-all")
    assert frame.evaluate("network.body.edgeIndices.length") == first[1]
    assert opened.errors == []
    opened.page.close()


# In a graph's frame: the shown nodes that lie outside the frame (vis-network's positions mapped to
# the canvas's pixels) and how many are shown.
OUTSIDE = """() => {
  const box = network.body.container, positions = network.getPositions();
  const shown = Object.keys(positions).filter(id => !network.body.nodes[id].options.hidden);
  const outside = shown.filter(id => {
    const p = network.canvasToDOM(positions[id]);
    return p.x < 0 || p.y < 0 || p.x > box.clientWidth || p.y > box.clientHeight;
  });
  const frame = document.documentElement;
  return {shown: shown.length, outside: outside, frame: [box.clientWidth, box.clientHeight],
          inView: box.getBoundingClientRect().bottom <= frame.clientHeight + 1};
}"""


@pytest.mark.parametrize("width", [1000, 1400, 1800])
@pytest.mark.parametrize("view", ["subgraphrag/evidence", "grag/description"])
def test_show_all_keeps_every_node_inside_the_frame_and_legible(browser, pages, shots, view, width):
    """After "show all", every node of the large graphs lies inside the frame, the whole canvas
    in view, with labels at least 9 px: the frame grows when the graph needs it."""
    opened = Opened(browser, pages[view], width=width)
    frame = opened.graph()
    frame.click("#kgviz-all")
    frame.wait_for_function("window.kgvizReady === true && kgvizAll", timeout=10 * SECOND)
    opened.page.wait_for_timeout(300)
    where, measured = frame.evaluate(OUTSIDE), frame.evaluate(READABILITY)
    screenshot(opened.page, f"{view.replace('/', '-')}-all-{width}px", shots)
    assert where["outside"] == [] and where["inView"], f"{view} at {width} px: {where}"
    assert measured["smallest"] >= LEGIBLE_PX, f"{view} at {width} px: labels at {measured}"
    assert opened.errors == []
    opened.page.close()


@pytest.mark.parametrize("width", [700, 1000, 1400, 1800])
def test_three_runs_side_by_side_share_a_layout_and_follow_each_others_zoom(
    browser, runs, tmp_path, shots, width
):
    """Three methods' evidence graphs in one row, labels legible; an entity two of them found
    stands at the same place in both; a zoom in one is followed by the others."""
    picked = ("subgraphrag", "gnnrag", "kaping")
    page_path = tmp_path / "side.html"
    html = side_by_side([(name, runs[name]) for name in picked], get_dataset("demo").kg)
    page_path.write_text(HTML_PAGE % html, encoding="utf-8")
    opened = Opened(browser, page_path, width=width)
    page = opened.page
    frames = [f for f in page.frames if f != page.main_frame]
    assert len(frames) == 3
    for frame in frames:
        frame.wait_for_function("window.kgvizReady === true", timeout=20 * SECOND)
        assert frame.evaluate(READABILITY)["smallest"] >= LEGIBLE_PX
    boxes = [page.locator("iframe").nth(i).bounding_box() for i in range(3)]
    row = page.locator(".kgviz-side-by-side").bounding_box()
    if row["width"] >= 3 * PANEL_PX + 16:  # one row; narrower, it wraps
        assert all(a["x"] + a["width"] <= b["x"] + 1 for a, b in itertools.pairwise(boxes))
        assert max(box["y"] for box in boxes) - min(box["y"] for box in boxes) < 2
    else:
        assert boxes[2]["y"] > boxes[0]["y"]
    at = [frame.evaluate("network.getPositions()") for frame in frames]
    shared = set(at[0]) & set(at[1])
    assert shared and all(at[0][n] == at[1][n] for n in shared)
    canvas = frames[1].locator("canvas").bounding_box()
    page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    page.mouse.wheel(0, -300)
    page.wait_for_timeout(500)
    view = "[network.getScale(), network.getViewPosition().x, network.getViewPosition().y]"
    views = [frame.evaluate(view) for frame in frames]
    assert all(view == pytest.approx(views[1]) for view in views), views
    frames[0].click("#kgviz-all")  # subgraphrag's 100 triples open on 15; the others stay
    page.wait_for_timeout(300)
    assert [frame.evaluate("kgvizAll") for frame in frames] == [True, False, False]
    for folder in shots:  # the viewport: a full-page capture resizes the frames it captures
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"readability-side-by-side-{width}px.png"))
    assert opened.errors == []
    page.close()


def test_no_graph_moves_once_the_user_has_zoomed_it(browser, pages):
    """Before the user touches it the default view follows the frame; after a wheel zoom,
    neither a resize, nor "show all", nor a section's checkbox moves it."""
    opened = Opened(browser, pages["grag/description"])
    frame, page = opened.graph(), opened.page
    view = "[network.getScale(), network.getViewPosition().x, network.getViewPosition().y]"
    canvas = frame.locator("canvas").bounding_box()
    page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    page.mouse.wheel(0, -300)
    page.wait_for_timeout(300)
    zoomed = frame.evaluate(view)
    assert frame.evaluate("kgvizTouched")
    page.set_viewport_size({"width": 800, "height": 900})
    page.wait_for_timeout(300)
    frame.click("#kgviz-all")
    frame.click("#kgviz-sections summary")
    frame.locator("input[data-kgviz-section]").nth(2).check()
    page.wait_for_timeout(300)
    assert frame.evaluate(view) == pytest.approx(zoomed)
    assert opened.errors == []
    opened.page.close()


def test_every_graph_offers_full_screen(browser, pages):
    opened = Opened(browser, pages["simgrag/pattern"])
    frame = opened.graph()
    assert frame.evaluate("document.fullscreenEnabled")
    before = frame.evaluate("document.getElementById('mynetwork').clientHeight")
    frame.click("#kgviz-full")
    frame.wait_for_function("document.fullscreenElement !== null", timeout=5 * SECOND)
    frame.wait_for_function(
        f"document.getElementById('mynetwork').clientHeight > {before}", timeout=5 * SECOND
    )
    assert frame.inner_text("#kgviz-full") == "exit full screen"
    assert opened.errors == []
    opened.page.close()


def text_boxes(page, selector: str) -> list[dict]:
    return page.eval_on_selector_all(
        selector,
        "nodes => nodes.map(n => { const b = n.getBoundingClientRect();"
        " return {text: n.textContent, left: b.left, right: b.right, top: b.top,"
        " bottom: b.bottom}; })",
    )


def overlapping(boxes: list[dict]) -> list[tuple[str, str]]:
    return [
        (a["text"], b["text"])
        for i, a in enumerate(boxes)
        for b in boxes[i + 1 :]
        if a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and b["top"] < a["bottom"]
    ]


@pytest.mark.parametrize("run", list(PATTERNS))
def test_pool_labels_do_not_overlap(browser, pages, shots, run):
    """Every pool names its nearest candidates, the search found something or not, and no two
    names overlap on screen."""
    opened = Opened(browser, pages[f"{run}/pools"])
    page = opened.page
    page.wait_for_selector(".annotation-text")
    boxes = text_boxes(page, ".annotation-text")
    screenshot(page, f"{run}-pools", shots)
    assert len(boxes) >= 5 * 3 and all(box["right"] > box["left"] for box in boxes)
    assert overlapping(boxes) == []
    assert opened.errors == []
    page.close()


@pytest.mark.parametrize("width", [760, 1100])  # 760: narrower than the lab's frame at 1,000 px
def test_search_tree_shows_gold_and_the_kth_best_a_pruned_box_lost_against(
    browser, pages, shots, width
):
    """Every box shows its text (plotly hides a text that would be smaller than its minimum),
    pruned boxes with their bound against the k-th best."""
    opened = Opened(browser, pages["simgrag/search"], width=width)
    page = opened.page
    page.wait_for_selector("g.trace.bars text")
    texts = page.locator("g.trace.bars text").all_text_contents()
    screenshot(page, f"simgrag-search-{width}px", shots)
    assert len([t for t in texts if t.strip()]) == page.locator("g.trace.bars g.point").count()
    assert any(text.startswith("★ ") for text in texts)  # a gold answer reached
    assert any(text.startswith("✂") and " > " in text for text in texts)  # bound > k-th best
    assert "gold answer (gold outline)" in page.text_content(".gtitle")
    assert opened.errors == []
    page.close()


def test_a_failed_search_folds_its_dead_ends_into_rows_that_say_why(browser, pages, shots):
    opened = Opened(browser, pages["simgrag-dead-end/search"])
    page = opened.page
    page.wait_for_selector("g.trace.bars text")
    texts = page.locator("g.trace.bars text").all_text_contents()
    screenshot(page, "simgrag-dead-end-search", shots)
    folded = [text for text in texts if text.startswith("✗")]
    assert folded and all("no “starred in” edge with " in text for text in folded)
    assert page.evaluate("document.querySelector('.js-plotly-plot').clientHeight") < 2000
    assert opened.errors == []
    page.close()
