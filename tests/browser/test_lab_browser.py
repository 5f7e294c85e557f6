"""The quickstart in a real browser: JupyterLab on loopback, headless Chromium through Playwright.

Runs every cell of `notebooks/01_quickstart.ipynb` (a copy, so autosave cannot touch the repo),
types a question into the app, clicks Ask, checks what the pattern graph (pyvis iframe), search
tree (plotly) and subgraph views rendered, then runs the compare panel. A second test asks with
each of the seven methods and then compares all seven, and checks that every graph of every tab lies
inside its frame, read from vis-network's own node positions. A third checks that the lab holds
still: a graph zoomed while the run goes on keeps its zoom when the run ends and the tabs do not
move when the answer arrives; changing the question greys the results out; a question naming what
the KG lacks says so; the compare table is headed by its question; a download button saves the
page it builds. Screenshots go to the test's tmp folder and to `artifacts/screenshots/`.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kgviz.viz.side_by_side import PANEL_PX
from tests.browser.chromium import launched
from tests.browser.graph_checks import LEGIBLE_PX, READABILITY

REPO = Path(__file__).resolve().parents[2]
NOTEBOOK = "01_quickstart.ipynb"
QUESTION = "who directed the movies that Tom Hanks acted in"
NEWS_OFF = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {
        "fetchNews": "false",
        "checkForUpdates": False,
    }
}
SECOND = 1000  # Playwright waits are in milliseconds

pytestmark = [
    pytest.mark.browser,
    pytest.mark.llm,  # the notebook's kernel loads the offline model
    pytest.mark.timeout(1800),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_json(url: str, method: str = "GET") -> object:
    with urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=5) as reply:
        body = reply.read()
    return json.loads(body) if body else None


def wait_until_up(url: str, server: subprocess.Popen, log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"JupyterLab exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            http_json(f"{url}/api/status")
            return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"JupyterLab did not answer at {url} within {seconds:.0f} s")


def stop(server: subprocess.Popen, url: str) -> None:
    """Shut the kernels down through the API (they run in sessions of their own), then the
    server's process group: SIGTERM, and SIGKILL if it lingers."""
    try:
        for kernel in http_json(f"{url}/api/kernels"):
            http_json(f"{url}/api/kernels/{kernel['id']}", "DELETE")
    except OSError:
        pass
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


@pytest.fixture
def jupyterlab(tmp_path: Path) -> Iterator[str]:
    """A JupyterLab on 127.0.0.1 (free port, no token) serving a copy of the quickstart, with
    its own settings, workspaces, runtime and run-store folders; yields its URL."""
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(REPO / "notebooks" / NOTEBOOK, root / NOTEBOOK)
    settings = tmp_path / "settings"
    for name, value in NEWS_OFF.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(value))
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "KGVIZ_RUNS": str(tmp_path / "runs"),  # a run store of its own: the runs of this test
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "jupyterlab.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "jupyterlab",
                "--no-browser",
                "--allow-root",
                "--ip=127.0.0.1",
                f"--port={port}",
                "--ServerApp.port_retries=0",
                "--ServerApp.token=",
                "--ServerApp.password=",
                f"--ServerApp.root_dir={root}",
            ],
            cwd=root,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        wait_until_up(url, server, log)
        yield url
    finally:
        stop(server, url)


def screenshot(page, name: str, folders: list[Path]) -> None:
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"), full_page=False)


def vis_labels(page, selector: str) -> list[str]:
    """Node labels of the vis-network inside the (sandboxed) pyvis iframe at `selector`."""
    frame = page.locator(selector).first.element_handle().content_frame()
    frame.wait_for_function("typeof nodes !== 'undefined' && nodes.length > 0", timeout=60 * SECOND)
    return frame.evaluate("nodes.get().map(node => node.label)")


# In a pyvis iframe: how many nodes the network has, and which lie outside the visible canvas
# (vis-network's own positions, mapped to the canvas's pixels).
OUTSIDE_FRAME = """() => {
  if (typeof network === 'undefined') { return null; }
  const box = network.body.container;
  const width = box.clientWidth, height = box.clientHeight;
  const positions = network.getPositions();  // hidden nodes too: a closed section's, say
  const shown = Object.keys(positions).filter(id => !network.body.nodes[id].options.hidden);
  const outside = shown.filter(id => {
    const p = network.canvasToDOM(positions[id]);
    return p.x < 0 || p.y < 0 || p.x > width || p.y > height;
  });
  // a graph too big for its frame at legible labels opens at that zoom on its top left
  const atLegibleZoom = network.getScale() <= kgvizView.minScale * 1.001;
  return {nodes: shown.length, outside: outside, width: width, height: height,
          atLegibleZoom: atLegibleZoom, allOutside: outside.length === shown.length};
}"""


def assert_graph_fits(page, selector: str, seconds: float = 20) -> int:
    """Every shown node of the vis-network in the iframe at `selector` lies inside its frame, or
    the graph is larger than its frame at legible labels and opens at that zoom with part of it
    in view (polled while the graph settles and fits itself); returns the number of shown
    nodes."""
    frame = page.locator(selector).first.element_handle().content_frame()
    deadline = time.monotonic() + seconds
    state = None
    while time.monotonic() < deadline:
        state = frame.evaluate(OUTSIDE_FRAME)
        if state and state["nodes"] and state["width"] > 0:
            bigger = state["atLegibleZoom"] and not state["allOutside"]
            if not state["outside"] or bigger:
                return state["nodes"]
        time.sleep(0.5)
    pytest.fail(f"{selector}: graph not inside its frame after {seconds:.0f} s: {state}")


def assert_graph_readable(page, selector: str) -> None:
    """The graph in the iframe at `selector` shows its node labels at a legible size, and no
    edge passes over a node it does not join."""
    frame = page.locator(selector).first.element_handle().content_frame()
    measured = frame.evaluate(READABILITY)
    assert measured["smallest"] >= LEGIBLE_PX, f"{selector}: labels at {measured}"
    assert measured["through"] == [], f"{selector}: edges over nodes {measured['through']}"


def tab_titles(page, panel: str) -> list[str]:
    return page.locator(f"{panel} .widget-tab .lm-TabBar-tabLabel").all_inner_texts()


def run_quickstart(page, url: str) -> None:
    """Open the quickstart copy, run every cell, and wait for the app's Ask button."""
    from playwright.sync_api import expect

    page.goto(f"{url}/lab/tree/{NOTEBOOK}?reset")
    page.locator(".jp-Notebook .jp-Cell").first.wait_for()
    expect(page.locator("#jp-main-statusbar")).to_contain_text("Idle", timeout=120 * SECOND)
    for close in page.locator(".jp-toast-button", has_text="No").all():
        close.click()  # the news question, should it still appear
    page.locator(".lm-MenuBar-itemLabel", has_text=exact("Run")).click()
    page.locator(".lm-Menu-itemLabel", has_text=exact("Run All Cells")).click()
    ask = page.locator(".widget-button", has_text=exact("Ask"))
    error = page.locator('.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]')
    ask.or_(error).first.wait_for(timeout=900 * SECOND)  # a failed cell ends the wait at once
    if error.count():
        pytest.fail(f"a quickstart cell failed in JupyterLab:\n{error.first.inner_text()[-3000:]}")


def exact(text: str) -> re.Pattern:
    return re.compile(f"^{re.escape(text)}$")


def show_tab(page, title: str) -> None:
    tab = page.locator(".widget-tab .lm-TabBar-tab", has_text=exact(title))
    tab.scroll_into_view_if_needed()
    tab.click()


def pick_method(page, label: str) -> None:
    """Choose `label` in the Ask panel's method picker and wait for its form (the kernel has
    switched)."""
    page.get_by_label("method", exact=True).select_option(label=label)
    page.locator(f".kgviz-params-{label.split()[0]}").wait_for()


@pytest.fixture
def quickstart(jupyterlab: str, tmp_path: Path) -> Iterator[tuple[object, list[Path]]]:
    """A Chromium page with the quickstart run in JupyterLab (a cold run loads the model and
    embeds the KG), and the folders screenshots go to."""
    shots = [tmp_path / "screenshots", REPO / "artifacts" / "screenshots"]
    with launched() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(60 * SECOND)
        run_quickstart(page, jupyterlab)
        yield page, shots


def test_quickstart_app_in_chromium(quickstart) -> None:
    from playwright.sync_api import expect

    page, shots = quickstart
    ask = page.locator(".widget-button", has_text=exact("Ask"))
    printed = page.locator(".jp-OutputArea-output", has_text="answer: ").first
    # its text, shown or not: JupyterLab stops rendering cells scrolled far out of view
    answer = re.search(r"answer: (.+)", printed.text_content()).group(1).strip()
    screenshot(page, "1-notebook-ran", shots)

    page.locator('input[placeholder^="type a question"]').fill(QUESTION)
    ask.click()
    expect(page.locator(".kgviz-answer")).to_contain_text(answer, timeout=600 * SECOND)
    for title in ("pattern", "pools", "search", "subgraphs", "prompt", "timing"):
        expect(
            page.locator(".widget-tab .lm-TabBar-tabLabel", has_text=exact(title))
        ).to_be_visible()
    page.locator(".kgviz-tab-pattern").scroll_into_view_if_needed()
    pattern_frame = page.frame_locator(".kgviz-tab-pattern iframe")
    expect(pattern_frame.locator("canvas")).to_be_visible()
    assert "Tom Hanks" in vis_labels(page, ".kgviz-tab-pattern iframe")
    screenshot(page, "2-pattern-graph", shots)

    show_tab(page, "search")
    tree = page.locator(".kgviz-tab-search .js-plotly-plot")
    expect(tree.locator("g.trace").first).to_be_attached()
    assert tree.locator("g.trace.bars g.point").count() > 1  # a box per search step
    tree.scroll_into_view_if_needed()
    screenshot(page, "3-search-tree", shots)

    show_tab(page, "subgraphs")
    labels = vis_labels(page, ".kgviz-tab-subgraphs iframe")
    assert any(label.startswith("#1 · GSD") for label in labels) and "Tom Hanks" in labels
    page.locator(".kgviz-tab-subgraphs").scroll_into_view_if_needed()
    screenshot(page, "4-subgraphs", shots)

    show_tab(page, "Compare")
    page.locator(".widget-button:visible", has_text=exact("Compare")).click()
    table = page.locator("table.kgviz-compare")
    expect(table.locator("tr")).to_have_count(4, timeout=600 * SECOND)
    expect(table).to_contain_text("simgrag")
    expect(table).to_contain_text(answer)
    assert "Tom Hanks" in vis_labels(page, ".kgviz-tab-simgrag iframe")
    table.scroll_into_view_if_needed()
    screenshot(page, "5-compare", shots)


METHODS = ("simgrag", "subgraphrag", "gnnrag", "grag (hard prompt)", "kaping", "tog", "llm-only")


def test_every_graph_of_every_method_fits_its_frame(quickstart) -> None:
    from playwright.sync_api import expect

    page, shots = quickstart
    page.locator('input[placeholder^="type a question"]').fill(QUESTION)
    status = page.locator(".kgviz-status")
    for number, method in enumerate(METHODS, start=1):
        name = method.split()[0]
        pick_method(page, method)
        page.locator(".widget-button", has_text=exact("Ask")).click()
        done = re.compile(rf"^\s*{re.escape(name)} answered in")
        expect(status).to_have_text(done, timeout=600 * SECOND)
        expect(page.locator(".kgviz-answer")).to_contain_text("Answer")
        graphs = 0
        for title in tab_titles(page, ".kgviz-ask"):
            show_tab(page, title)
            frame = f".kgviz-tab-{title} iframe"
            if page.locator(frame).count():
                page.locator(f".kgviz-tab-{title}").scroll_into_view_if_needed()
                assert assert_graph_fits(page, frame) > 0
                assert_graph_readable(page, frame)
                graphs += 1
                screenshot(page, f"6-{number}-{name}-{title}", shots)
        assert graphs >= (0 if method == "llm-only" else 1), method
    show_tab(page, "Compare")
    for method in METHODS:
        box = page.get_by_role("checkbox", name=method, exact=True)
        if not box.is_checked():
            box.check()
    page.locator(".widget-button:visible", has_text=exact("Compare")).click()
    table = page.locator("table.kgviz-compare")
    expect(table.locator("tr")).to_have_count(1 + len(METHODS), timeout=900 * SECOND)
    for method in METHODS[:-1]:  # llm-only has no evidence to draw
        name = method.split()[0]
        show_tab(page, name)
        page.locator(f".kgviz-tab-{name}").scroll_into_view_if_needed()
        assert assert_graph_fits(page, f".kgviz-tab-{name} iframe") > 0
        assert_graph_readable(page, f".kgviz-tab-{name} iframe")
        screenshot(page, f"7-compare-{name}", shots)
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 1000})
        with shot_on_failure(page, f"compare-side-{width}", shots):
            assert_side_by_side(page, 3, zoom=width == WIDTHS[-1])  # a zoomed view stays put
            assert page.evaluate(CUT_LABELS) == [], f"{width} px: labels cut"
        screenshot(page, f"8-compare-side-by-side-{width}px", shots)
    page.set_viewport_size({"width": 1400, "height": 1000})


def assert_side_by_side(page, count: int, zoom: bool) -> None:
    """Compare's row of `count` evidence graphs: side by side in view, each legible with every
    node in its frame (or legible at its top left); with `zoom`, a zoom in one is followed by
    the others."""
    page.locator(".kgviz-compare-side").scroll_into_view_if_needed()
    frames = page.locator(".kgviz-compare-side iframe")
    expect_count = frames.count()
    assert expect_count == count, f"{expect_count} graphs side by side"
    boxes = [frames.nth(i).bounding_box() for i in range(count)]
    row = page.locator(".kgviz-compare-side .kgviz-side-by-side").bounding_box()
    if row["width"] >= count * PANEL_PX + (count - 1) * 8:  # else the row wraps
        assert all(a["x"] + a["width"] <= b["x"] + 1 for a, b in itertools.pairwise(boxes))
        assert max(box["y"] for box in boxes) - min(box["y"] for box in boxes) < 2
    inside = [frames.nth(i).element_handle().content_frame() for i in range(count)]
    for frame in inside:
        frame.wait_for_function("window.kgvizReady === true", timeout=20 * SECOND)
        state = frame.evaluate(OUTSIDE_FRAME)
        assert state["nodes"] and (not state["outside"] or state["atLegibleZoom"]), state
        assert frame.evaluate(READABILITY)["smallest"] >= LEGIBLE_PX
    if not zoom:
        return
    frames.nth(0).scroll_into_view_if_needed()
    canvas = inside[0].locator("canvas").bounding_box()
    page.mouse.move(canvas["x"] + canvas["width"] / 2, canvas["y"] + canvas["height"] / 2)
    page.mouse.wheel(0, -200)
    page.wait_for_timeout(500)
    scales = [frame.evaluate("network.getScale()") for frame in inside]
    assert all(frame.evaluate("kgvizTouched") for frame in inside)  # the zoom reached them all
    assert max(scales) - min(scales) < 1e-6, f"zoom not followed: {scales}"
    page.mouse.wheel(0, 200)  # back where it was


def test_graphs_render_in_a_notebook_exported_to_html(tmp_path: Path) -> None:
    """Outside JupyterLab: the quickstart executed and exported by nbconvert, opened as a plain
    HTML file in Chromium. Its graphs are srcdoc iframes with vis-network inlined, and its
    figures carry plotly.js inline (`offline_figures`), so both draw with no server and no
    network."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor

    notebook = nbformat.read(REPO / "notebooks" / NOTEBOOK, as_version=4)
    ExecutePreprocessor(timeout=900, kernel_name="python3").preprocess(
        notebook, {"metadata": {"path": str(tmp_path)}}
    )
    page_path = tmp_path / "quickstart.html"
    page_path.write_text(HTMLExporter().from_notebook_node(notebook)[0], encoding="utf-8")
    shots = [tmp_path / "screenshots", REPO / "artifacts" / "screenshots"]
    with launched() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(page_path.as_uri())
        frames = page.locator("iframe[srcdoc]")
        assert frames.count() >= 1
        frames.first.scroll_into_view_if_needed()
        assert "Tom Hanks" in vis_labels(page, "iframe[srcdoc]")
        assert assert_graph_fits(page, "iframe[srcdoc]") > 0
        screenshot(page, "8-exported-notebook", shots)
        tree = page.locator(".js-plotly-plot").first  # the search tree, plotly.js inlined
        tree.scroll_into_view_if_needed()
        assert tree.locator("g.trace.bars g.point").count() > 1
        screenshot(page, "9-exported-search-tree", shots)


ZORBLAX = "who directed the movies that Zorblax Quintavius acted in"  # no such actor in the KG
# In a pyvis iframe: vis-network's zoom, and whether this window is the one a mark was left in.
ZOOM_STATE = "() => ({scale: network.getScale(), marked: window.kgvizMarked === true})"


def top_within(page, selector: str, container: str) -> float:
    """The y of `selector` relative to `container` (both in the viewport: scrolling cancels)."""
    inner = page.locator(selector).first.bounding_box()
    outer = page.locator(container).first.bounding_box()
    return inner["y"] - outer["y"]


def zoom_graph(page, selector: str) -> dict:
    """Zoom into the vis-network in the iframe at `selector` with the mouse wheel, as a user
    would, and leave a mark in its window; returns the zoom state."""
    frame = page.locator(selector).first.element_handle().content_frame()
    before = frame.evaluate(ZOOM_STATE)["scale"]
    box = page.locator(selector).first.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    for _ in range(3):
        page.mouse.wheel(0, -200)
        time.sleep(0.2)
    frame.evaluate("() => { window.kgvizMarked = true; }")
    state = frame.evaluate(ZOOM_STATE)
    assert state["scale"] > before * 1.2, (before, state)
    return state


@contextmanager
def shot_on_failure(page, name: str, shots: list[Path]) -> Iterator[None]:
    """A screenshot named `name` when the block fails (what the user would have seen)."""
    try:
        yield
    except BaseException:
        screenshot(page, f"failed-{name}", shots)
        raise


def test_the_lab_holds_still_and_says_what_it_shows(quickstart, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    page, shots = quickstart
    status = page.locator(".kgviz-status")
    box = page.locator('input[placeholder^="type a question"]')
    ask = page.locator(".widget-button", has_text=exact("Ask"))
    # GNN-RAG draws its paths before its one LLM call; a question of its own (not in the reply
    # cache; lower-case letters, which name nothing) keeps the model busy during the zoom
    pick_method(page, "gnnrag")
    stamp = "".join(chr(ord("a") + int(digit)) for digit in time.strftime("%H%M%S"))
    box.fill(f"{QUESTION} ({stamp})")
    ask.click()
    paths = ".kgviz-tab-paths iframe"
    with shot_on_failure(page, "zoom", shots):
        page.locator(paths).wait_for(state="attached", timeout=600 * SECOND)
        show_tab(page, "paths")
        page.locator(".kgviz-tab-paths").scroll_into_view_if_needed()
        assert_graph_fits(page, paths)
        tabs_before = top_within(page, ".kgviz-ask .widget-tab", ".kgviz-ask")
        zoomed = zoom_graph(page, paths)
        if not page.locator(".kgviz-ask .widget-button", has_text=exact("Stop")).is_enabled():
            pytest.fail(f"the run ended before the zoom could be checked: {status.inner_text()}")
        screenshot(page, "10-zoomed-while-running", shots)
        expect(status).to_contain_text("answered in", timeout=600 * SECOND)
        expect(page.locator(".kgviz-answer")).to_contain_text("Answer")
        tabs_after = top_within(page, ".kgviz-ask .widget-tab", ".kgviz-ask")
        assert tabs_after == pytest.approx(tabs_before, abs=1)  # the answer took its kept space
        frame = page.locator(paths).first.element_handle().content_frame()
        assert frame.evaluate(ZOOM_STATE) == zoomed  # the same graph, still zoomed: not redrawn
        page.locator(".kgviz-ask .kgviz-heading").first.evaluate("e => e.scrollIntoView()")
        screenshot(page, "11-still-zoomed-after-the-run", shots)

    with page.expect_download() as download:  # built on click, saved through the browser
        page.locator(".kgviz-ask .widget-button", has_text="page (HTML)").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    assert saved.suffix == ".html" and "<th>dataset</th><td>demo</td>" in html
    assert "<th>LLM</th><td>llamacpp:" in html and "kgviz-answer" in html

    box.fill("who directed Big")
    results = page.locator(".kgviz-ask .kgviz-result").first  # the run below its heading
    expect(results).to_have_class(re.compile("kgviz-stale"))
    expect(page.locator(".kgviz-ask .kgviz-heading").first).to_contain_text(
        "not for the current question"
    )
    expect(results).to_have_css("opacity", "0.4")  # once its fade has run
    expect(status).to_have_text("")  # it spoke of the previous question
    page.locator(".kgviz-ask .kgviz-heading").first.scroll_into_view_if_needed()
    screenshot(page, "12-greyed-after-the-question-changed", shots)

    pick_method(page, "kaping")
    box.fill(ZORBLAX)
    ask.click()
    with shot_on_failure(page, "not-grounded", shots):
        expect(status).to_contain_text("not grounded in this KG", timeout=600 * SECOND)
        expect(status).to_contain_text("answered in", timeout=600 * SECOND)
        banner = page.locator(".kgviz-answer .kgviz-ungrounded")
        expect(banner).to_contain_text("Not grounded in this KG")
        expect(banner).to_contain_text("Zorblax Quintavius")
    page.locator(".kgviz-answer").scroll_into_view_if_needed()
    screenshot(page, "13-not-grounded", shots)

    box.fill(QUESTION)
    show_tab(page, "Compare")
    page.locator(".widget-button:visible", has_text=exact("Compare")).click()
    table = page.locator("table.kgviz-compare")
    with shot_on_failure(page, "compare", shots):
        expect(table.locator("tr")).to_have_count(4, timeout=900 * SECOND)
    head = page.locator(".kgviz-compare-results .kgviz-heading").first
    expect(head.locator("b")).to_have_text(QUESTION)
    expect(head).to_contain_text("dataset demo · LLM llamacpp:")
    head_box, table_box = head.bounding_box(), table.bounding_box()
    assert head_box["y"] + head_box["height"] <= table_box["y"]  # above the table
    with page.expect_download() as download:
        page.locator(".widget-button:visible", has_text="table (CSV)").click()
    rows = list(csv.DictReader(io.StringIO(download.value.path().read_text(encoding="utf-8"))))
    assert [row["question"] for row in rows] == [QUESTION] * 3
    assert {row["method"] for row in rows} == {"simgrag", "kaping", "llm-only"}
    head.scroll_into_view_if_needed()
    screenshot(page, "14-compare-headed-by-its-question", shots)


# The Runs table as a user sees it: for each listed row, whether its tick box and its question,
# method and verdict cells lie inside the table's scroll area and the window, and which of its
# elements scroll on their own (a row must not: the table scrolls as one).
RUN_ROWS = """() => {
  const area = document.querySelector('.kgviz-run-scroll');
  const box = area.getBoundingClientRect();
  const inside = (r) => r.width > 0 && r.left >= box.left - 1 && r.right <= box.right + 1
    && r.left >= 0 && r.right <= window.innerWidth;
  const scrolls = (el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX)
    && el.scrollWidth > el.clientWidth + 1;
  return [...document.querySelectorAll('.kgviz-run-rows > .widget-hbox')].map(row => {
    const cells = [...row.querySelectorAll('td')].slice(0, 4);
    return {
      tick: inside(row.querySelector('input[type=checkbox]').getBoundingClientRect()),
      cells: cells.map(c => inside(c.getBoundingClientRect()) && c.innerText.trim().length > 0),
      scrolling: [row, ...row.querySelectorAll('*')].filter(scrolls).length,
    };
  });
}"""
WIDTHS = (1000, 1400, 1800)
# The labels of the lab's tabs and buttons that show fewer characters than they hold.
CUT_LABELS = """() => [...document.querySelectorAll(
    '.kgviz-lab .lm-TabBar-tabLabel, .kgviz-lab .widget-button, .kgviz-lab select,' +
    '.kgviz-lab .widget-toggle-button')]
  .filter(el => el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1)
  .map(el => el.innerText || el.value)"""


def assert_run_rows_read(page, width: int) -> None:
    """Every listed run shows its tick box, question, method, preset and verdict in view, and
    no row scrolls on its own."""
    rows = page.evaluate(RUN_ROWS)
    assert rows, f"{width} px: no run listed"
    for number, row in enumerate(rows):
        assert row["tick"], f"{width} px: row {number}'s tick box is out of view"
        assert all(row["cells"]), f"{width} px: row {number}'s first cells: {row['cells']}"
        assert row["scrolling"] == 0, f"{width} px: row {number} scrolls on its own"


def test_runs_diff_and_batch_compare_in_the_browser(quickstart) -> None:
    """Two runs ticked in the Runs tab show their diff and both evidences in one graph (inside
    its frame, legible); a batch of 3 methods × 3 questions shows the report's tables and a grid
    whose cell opens its run."""
    from playwright.sync_api import expect

    page, shots = quickstart
    status = page.locator(".kgviz-status")
    page.locator('input[placeholder^="type a question"]').fill(QUESTION)
    for method in ("simgrag", "kaping"):
        pick_method(page, method)
        page.locator(".widget-button", has_text=exact("Ask")).click()
        expect(status).to_contain_text(f"{method} answered in", timeout=600 * SECOND)

    show_tab(page, "Runs")
    ticks = page.locator(".kgviz-run-rows input[type=checkbox]")
    expect(page.locator(".kgviz-run-table")).to_contain_text("2 of 2 kept runs")  # both listed
    for width in WIDTHS:  # the widths people use
        page.set_viewport_size({"width": width, "height": 1000})
        page.locator(".kgviz-run-table").scroll_into_view_if_needed()
        with shot_on_failure(page, f"runs-table-{width}", shots):
            assert_run_rows_read(page, width)
            assert page.evaluate(CUT_LABELS) == [], f"{width} px: labels cut"
        screenshot(page, f"17-runs-table-{width}px", shots)
    page.set_viewport_size({"width": 1400, "height": 1000})
    diff = page.locator(".kgviz-run-diff")
    with shot_on_failure(page, "runs-diff", shots):
        ticks.nth(0).check()  # the newest first: A is kaping's run, B simgrag's
        expect(page.locator(".kgviz-runs .kgviz-run")).to_be_visible(timeout=60 * SECOND)
        ticks.nth(1).check()
        expect(ticks.nth(1)).to_be_checked()
        expect(diff).to_contain_text("only in A (−)", timeout=60 * SECOND)
        page.locator(".kgviz-diff-graph").scroll_into_view_if_needed()
        assert assert_graph_fits(page, ".kgviz-diff-graph iframe") > 0
        assert_graph_readable(page, ".kgviz-diff-graph iframe")
    screenshot(page, "15-runs-diff-graph", shots)

    show_tab(page, "Batch")
    count = page.get_by_label("questions", exact=True)
    count.fill("3")
    count.press("Enter")
    started = time.monotonic()
    page.locator(".widget-button", has_text=exact("Run batch")).click()
    with shot_on_failure(page, "batch-live", shots):  # the question at hand and its reply
        current = page.locator(".kgviz-batch-current")  # "now: …", or "last: …" once done
        expect(current).to_contain_text(re.compile(r"(now|last): \S+ on “"), timeout=30 * SECOND)
        expect(page.locator(".kgviz-batch .kgviz-live")).to_be_visible(timeout=30 * SECOND)
        assert time.monotonic() - started < 30
    screenshot(page, "16-batch-live", shots)
    with shot_on_failure(page, "batch", shots):
        expect(status).to_contain_text("batch done", timeout=900 * SECOND)
        tables = page.locator(".kgviz-batch table.dataframe")
        expect(tables).to_have_count(4)  # hits@1, per hop, attribution, McNemar
        expect(page.locator(".kgviz-batch")).to_contain_text("p (exact McNemar)")
        cells = page.locator(".kgviz-batch-grid .widget-button")
        missing = page.locator(".kgviz-batch-grid .kgviz-batch-missing")
        assert cells.count() + missing.count() == 9 and cells.count() > 0
        if missing.count():  # a question that failed (e.g. timed out) says so above the tables
            expect(page.locator(".kgviz-batch")).to_contain_text("left for the next run")
        cells.first.click()
        opened = page.locator(".kgviz-batch .kgviz-run .kgviz-heading").first
        expect(opened).to_contain_text("(defaults) · dataset demo")
    page.locator(".kgviz-batch-grid").scroll_into_view_if_needed()
    screenshot(page, "18-batch-grid", shots)
