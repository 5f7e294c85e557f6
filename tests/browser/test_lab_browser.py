"""The quickstart in a real browser: JupyterLab on loopback, headless Chromium through Playwright.

Runs every cell of `notebooks/01_quickstart.ipynb` (a copy, so autosave cannot touch the repo),
types a question into the app, clicks Ask, checks what the pattern graph (pyvis iframe), search
tree (plotly) and subgraph views rendered, then runs the compare panel. A second test asks with
each of the six methods and then compares all six, and checks that every graph of every tab lies
inside its frame, read from vis-network's own node positions. Screenshots go to the test's tmp
folder and to `artifacts/screenshots/`.
"""

from __future__ import annotations

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
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
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
    pytest.mark.timeout(1800),
    pytest.mark.skipif(
        not CHROMIUM.is_file(),
        reason=f"{CHROMIUM} is missing: run `make browser-deps` "
        "(apt-get install -y chromium chromium-driver)",
    ),
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
    its own settings, workspaces and runtime folders; yields its URL."""
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
  const positions = network.getPositions();
  const outside = Object.keys(positions).filter(id => {
    const p = network.canvasToDOM(positions[id]);
    return p.x < 0 || p.y < 0 || p.x > width || p.y > height;
  });
  return {nodes: Object.keys(positions).length, outside: outside, width: width, height: height};
}"""


def assert_graph_fits(page, selector: str, seconds: float = 20) -> int:
    """Every node of the vis-network in the iframe at `selector` lies inside its frame (polled
    while the graph settles and fits itself); returns the number of nodes."""
    frame = page.locator(selector).first.element_handle().content_frame()
    deadline = time.monotonic() + seconds
    state = None
    while time.monotonic() < deadline:
        state = frame.evaluate(OUTSIDE_FRAME)
        if state and state["nodes"] and state["width"] > 0 and not state["outside"]:
            return state["nodes"]
        time.sleep(0.5)
    pytest.fail(f"{selector}: graph not inside its frame after {seconds:.0f} s: {state}")


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
    page.locator(".widget-button", has_text=exact("Ask")).wait_for(timeout=900 * SECOND)


def exact(text: str) -> re.Pattern:
    return re.compile(f"^{re.escape(text)}$")


def show_tab(page, title: str) -> None:
    tab = page.locator(".widget-tab .lm-TabBar-tab", has_text=exact(title))
    tab.scroll_into_view_if_needed()
    tab.click()


@pytest.fixture
def quickstart(jupyterlab: str, tmp_path: Path) -> Iterator[tuple[object, list[Path]]]:
    """A Chromium page with the quickstart run in JupyterLab (a cold run loads the model and
    embeds the KG), and the folders screenshots go to."""
    from playwright.sync_api import sync_playwright

    shots = [tmp_path / "screenshots", REPO / "artifacts" / "screenshots"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60 * SECOND)
            run_quickstart(page, jupyterlab)
            yield page, shots
        finally:
            browser.close()


def test_quickstart_app_in_chromium(quickstart) -> None:
    from playwright.sync_api import expect

    page, shots = quickstart
    ask = page.locator(".widget-button", has_text=exact("Ask"))
    printed = page.locator(".jp-OutputArea-output", has_text="answer: ").first
    answer = re.search(r"answer: (.+)", printed.inner_text()).group(1).strip()
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


METHODS = ("simgrag", "subgraphrag", "gnnrag", "grag (hard prompt)", "kaping", "llm-only")


def test_every_graph_of_every_method_fits_its_frame(quickstart) -> None:
    from playwright.sync_api import expect

    page, shots = quickstart
    page.locator('input[placeholder^="type a question"]').fill(QUESTION)
    picker = page.locator(".widget-dropdown", has_text="method").locator("select")
    status = page.locator(".kgviz-status")
    for number, method in enumerate(METHODS, start=1):
        name = method.split()[0]
        picker.select_option(label=method)
        page.locator(f".kgviz-params-{name}").wait_for()  # the kernel has switched
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
        screenshot(page, f"7-compare-{name}", shots)


def test_graphs_render_in_a_notebook_exported_to_html(tmp_path: Path) -> None:
    """Outside JupyterLab: the quickstart executed and exported by nbconvert, opened as a plain
    HTML file in Chromium. Its graphs are srcdoc iframes with vis-network inlined, and its
    figures carry plotly.js inline (`offline_figures`), so both draw with no server and no
    network."""
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import ExecutePreprocessor
    from playwright.sync_api import sync_playwright

    notebook = nbformat.read(REPO / "notebooks" / NOTEBOOK, as_version=4)
    ExecutePreprocessor(timeout=900, kernel_name="python3").preprocess(
        notebook, {"metadata": {"path": str(tmp_path)}}
    )
    page_path = tmp_path / "quickstart.html"
    page_path.write_text(HTMLExporter().from_notebook_node(notebook)[0], encoding="utf-8")
    shots = [tmp_path / "screenshots", REPO / "artifacts" / "screenshots"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        try:
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
        finally:
            browser.close()
