"""GRAG's hard prompt: a lossless, hierarchical text description of a (pruned) ego-graph.

The graph is split into a BFS tree from its centre and the edges the tree does not use. The tree
is written in pre-order, one line per tree edge, indented under the node it grows from; each
non-tree edge is written (marked `+`) under its head node, before that node's tree children.
Names are JSON-quoted, so any text (quotes, brackets, newlines) survives: `parse_description`
rebuilds exactly the triples that `describe_graph` was given.

    "Forrest Gump"
      + ("Forrest Gump", "release_year", "1994")
      - ("Forrest Gump", "directed_by", "Robert Zemeckis")
        - ("Cast Away", "directed_by", "Robert Zemeckis")

Nodes not reachable from the centre (pruning can cut a graph apart) start further trees, each
from its first node in triple order.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Sequence

from kgviz.trace import StringTriple

INDENT = "  "
TREE, EXTRA = "-", "+"
EDGE_LINE = re.compile(r"^(?: *)([-+]) \((.*)\)$")


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _edge_line(depth: int, mark: str, triple: StringTriple) -> str:
    return f"{INDENT * depth}{mark} ({', '.join(map(_quote, triple))})"


def bfs_tree(
    triples: Sequence[StringTriple], root: str
) -> tuple[dict[str, list[int]], list[int], list[str]]:
    """`(children, non_tree, roots)`: tree-edge indices under each node (in discovery order),
    indices of the edges the forest leaves out, and the root of each tree (`root` first)."""
    incident: dict[str, list[int]] = {}
    for index, (head, _, tail) in enumerate(triples):
        incident.setdefault(head, []).append(index)
        if tail != head:
            incident.setdefault(tail, []).append(index)
    children: dict[str, list[int]] = {}
    in_tree: set[int] = set()
    seen: set[str] = set()
    roots: list[str] = []
    for start in dict.fromkeys([root, *incident]):
        if start in seen:
            continue
        roots.append(start)
        seen.add(start)
        queue = deque([start])
        while queue:
            node = queue.popleft()
            for index in incident.get(node, ()):
                head, _, tail = triples[index]
                other = tail if head == node else head
                if other not in seen:
                    seen.add(other)
                    in_tree.add(index)
                    children.setdefault(node, []).append(index)
                    queue.append(other)
    non_tree = [index for index in range(len(triples)) if index not in in_tree]
    return children, non_tree, roots


def describe_graph(triples: Iterable[StringTriple], root: str) -> str:
    """The hierarchical description of the graph of `triples` (duplicates dropped) from `root`."""
    edges = list(dict.fromkeys((t[0], t[1], t[2]) for t in triples))
    children, non_tree, roots = bfs_tree(edges, root)
    attached: dict[str, list[int]] = {}
    for index in non_tree:
        attached.setdefault(edges[index][0], []).append(index)
    lines: list[str] = []
    for tree_root in roots:
        lines.append(_quote(tree_root))
        stack: list[tuple[str, int, int]] = [(tree_root, 0, -1)]
        while stack:  # pre-order: the edge reaching a node, its attached edges, then its subtrees
            node, depth, via = stack.pop()
            if via >= 0:
                lines.append(_edge_line(depth, TREE, edges[via]))
            lines += [_edge_line(depth + 1, EXTRA, edges[i]) for i in attached.get(node, ())]
            for index in reversed(children.get(node, [])):
                head, _, tail = edges[index]
                stack.append((tail if head == node else head, depth + 1, index))
    return "\n".join(lines)


def parse_description(text: str) -> set[StringTriple]:
    """The triples of a description (node lines carry no triple; other lines are ignored)."""
    found: set[StringTriple] = set()
    for line in text.split("\n"):  # not splitlines(): names may hold U+2028 and the like
        match = EDGE_LINE.match(line)
        if match:
            head, relation, tail = json.loads(f"[{match.group(2)}]")
            found.add((head, relation, tail))
    return found
