"""GRAG's hard prompt: a lossless, hierarchical text description of a (pruned) ego-graph.

The graph is split into a BFS tree from its centre and the edges the tree does not use. The tree
is written in pre-order, one line per tree edge, indented under the node it grows from; each
non-tree edge is written (marked `+`) under its head node, before that node's tree children.
Two styles, both read back exactly by `parse_description`:

`triples` writes each edge whole, names JSON-quoted:

    "Forrest Gump"
      + ("Forrest Gump", "release_year", "1994")
      - ("Forrest Gump", "directed_by", "Robert Zemeckis")
        - ("Cast Away", "directed_by", "Robert Zemeckis")

`compact` (about half the tokens) writes only what a line adds: the relation, and the entity it
leads to, the entity above being the other end; `→` when the entity above is the head, `←`
when it is the tail. A name is JSON-quoted only where it would otherwise read ambiguously.

    Forrest Gump
      + release_year: 1994
      → directed_by: Robert Zemeckis
        ← directed_by: Cast Away

Nodes not reachable from the centre (pruning can cut a graph apart) start further trees, each
from its first node in triple order.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Literal

from kgviz.trace import StringTriple

Style = Literal["compact", "triples"]
INDENT = "  "
TREE, EXTRA = "-", "+"
OUT, IN = "→", "←"  # compact tree lines: the entity above is the head / the tail
EDGE_LINE = re.compile(r"^(?: *)([-+]) \((.*)\)$")
COMPACT_LINE = re.compile(rf"^((?:{INDENT})+)([{OUT}{IN}+]) (.*)$")
# shown bare: no quote first, no spaces at the ends, no line break (\Z: `$` lets one end it)
PLAIN = re.compile(r'^(?!["\s])[^\n]*(?<!\s)\Z')


def _quote(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _name(text: str) -> str:
    """A name as a compact line shows it: bare, or JSON-quoted where bare would be ambiguous."""
    return text if PLAIN.match(text) else _quote(text)


def _relation(text: str) -> str:
    return text if PLAIN.match(text) and ": " not in text else _quote(text)


def _edge_line(style: Style, depth: int, mark: str, triple: StringTriple, node: str) -> str:
    """The line of `triple` under `node` (the entity above it) at `depth`."""
    if style == "triples":
        return (
            f"{INDENT * depth}{TREE if mark != EXTRA else EXTRA} ({', '.join(map(_quote, triple))})"
        )
    head, relation, tail = triple
    arrow = EXTRA if mark == EXTRA else (OUT if head == node else IN)
    other = tail if head == node else head
    return f"{INDENT * depth}{arrow} {_relation(relation)}: {_name(other)}"


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


def describe_graph(triples: Iterable[StringTriple], root: str, style: Style = "compact") -> str:
    """The hierarchical description of the graph of `triples` (duplicates dropped) from `root`.

    >>> print(describe_graph([("Big", "directed_by", "Penny Marshall")], "Big"))
    Big
      → directed_by: Penny Marshall
    >>> print(describe_graph([("Big", "directed_by", "Penny Marshall")], "Penny Marshall"))
    Penny Marshall
      ← directed_by: Big
    """
    edges = list(dict.fromkeys((t[0], t[1], t[2]) for t in triples))
    children, non_tree, roots = bfs_tree(edges, root)
    attached: dict[str, list[int]] = {}
    for index in non_tree:
        attached.setdefault(edges[index][0], []).append(index)
    lines: list[str] = []
    for tree_root in roots:
        lines.append(_quote(tree_root) if style == "triples" else _name(tree_root))
        stack: list[tuple[str, int, int, str]] = [(tree_root, 0, -1, "")]
        while stack:  # pre-order: the edge reaching a node, its attached edges, then its subtrees
            node, depth, via, parent = stack.pop()
            if via >= 0:
                lines.append(_edge_line(style, depth, TREE, edges[via], parent))
            lines += [
                _edge_line(style, depth + 1, EXTRA, edges[i], node) for i in attached.get(node, ())
            ]
            for index in reversed(children.get(node, [])):
                head, _, tail = edges[index]
                stack.append((tail if head == node else head, depth + 1, index, node))
    return "\n".join(lines)


def parse_description(text: str, style: Style = "compact") -> set[StringTriple]:
    """The triples of a description written in `style` (node lines carry no triple).

    >>> sorted(parse_description(describe_graph([("Big", "released", "1988")], "1988")))
    [('Big', 'released', '1988')]
    """
    found: set[StringTriple] = set()
    above: list[str] = []  # the entity at each depth (compact lines name only one end)
    for line in text.split("\n"):  # not splitlines(): names may hold U+2028 and the like
        if style == "triples":
            match = EDGE_LINE.match(line)
            if match:
                head, relation, tail = json.loads(f"[{match.group(2)}]")
                found.add((head, relation, tail))
            continue
        compact = COMPACT_LINE.match(line)
        if compact is None:
            if line and not line.startswith(" "):
                above = [_read(line)]  # a tree's root
            continue
        depth = len(compact.group(1)) // len(INDENT)
        relation, rest = _read_relation(compact.group(3))
        other, node = _read(rest), above[depth - 1]
        if compact.group(2) == EXTRA:
            found.add((node, relation, other))
            continue
        found.add((node, relation, other) if compact.group(2) == OUT else (other, relation, node))
        above[depth:] = [other]
    return found


def _read(text: str) -> str:
    return str(json.loads(text)) if text.startswith('"') else text


def _read_relation(text: str) -> tuple[str, str]:
    """A compact line's relation and what follows its `: `."""
    if text.startswith('"'):
        relation, end = json.JSONDecoder().raw_decode(text)
        return str(relation), text[end + 2 :]
    relation, _, rest = text.partition(": ")
    return relation, rest
