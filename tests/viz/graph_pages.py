"""What a graph view's HTML holds: the documents of its iframes, and the vis-network options,
nodes, edges and KG neighbourhoods pyvis wrote into them."""

from __future__ import annotations

import html
import json
import re


def srcdocs(page: str) -> list[str]:
    """The documents inside the iframes of an HTML view."""
    return [html.unescape(doc) for doc in re.findall(r'srcdoc="([^"]*)"', page)]


def vis_options(page: str) -> dict:
    """The vis-network options pyvis wrote into the (single) iframe of a view."""
    (doc,) = srcdocs(page)
    return json.loads(re.search(r"var options = (.*);\n", doc).group(1))


def neighbour_data(page: str) -> dict:
    """The KG neighbourhoods embedded for a view's click expansion (node id -> nodes, edges)."""
    (doc,) = srcdocs(page)
    found = re.search(r"var kgvizNeighbours = (.*?);</script>", doc)
    return json.loads(found.group(1)) if found else {}


def vis_data(page: str) -> tuple[list[dict], list[dict]]:
    """The nodes and edges pyvis wrote into the (single) iframe of a view."""
    (doc,) = srcdocs(page)
    return document_data(doc)


def document_data(doc: str) -> tuple[list[dict], list[dict]]:
    """The nodes and edges pyvis wrote into one graph document."""
    nodes = re.search(r"nodes = new vis\.DataSet\((.*?)\);\n", doc).group(1)
    edges = re.search(r"edges = new vis\.DataSet\((.*?)\);\n", doc).group(1)
    return json.loads(nodes), json.loads(edges)
