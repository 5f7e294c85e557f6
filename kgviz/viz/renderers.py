"""Plotly figures that show outside JupyterLab too (exported HTML, VS Code), offline."""

from __future__ import annotations

import plotly.io as pio

# JupyterLab draws the mime bundle; an exported page or another front end draws the HTML,
# which carries plotly.js inline once per notebook, so nothing is fetched.
OFFLINE_RENDERERS = "plotly_mimetype+notebook"


def offline_figures() -> None:
    """Make figures displayed from now on render in JupyterLab, in nbconvert HTML and in VS Code,
    with no network."""
    pio.renderers.default = OFFLINE_RENDERERS
