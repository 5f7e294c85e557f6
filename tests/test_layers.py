"""The package's shape: no import cycle between kgviz modules, and no import from a layer above.

Every `import` is counted, the ones inside functions included (a lazy import is still an arrow),
read from the source with `ast`, so the check needs nothing imported."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PACKAGE = Path(__file__).resolve().parents[1] / "kgviz"
# lowest first; a module may import from its own layer or a lower one
LAYERS = [
    {"errors", "paths", "storage", "checkpoints", "version"},
    {"kg"},
    {"embed", "llm", "triplestore", "datasets"},
    {"trace"},
    {"reasoners"},
    {"scoring"},
    {"runs", "session", "training"},
    {"eval"},
    {"viz"},
    {"app", "demo", "cli", "__main__", "__init__"},
]


def module_name(path: Path) -> str:
    return ".".join(("kgviz", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
        ".__init__"
    )


def imports_of(path: Path) -> set[str]:
    """The kgviz modules `path` imports (`from a.b import c` names `a.b.c` when that is one)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("kgviz.")}


def import_graph() -> nx.DiGraph:
    modules = {module_name(path): path for path in PACKAGE.rglob("*.py")}

    def resolve(name: str) -> str:
        while name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        for target in map(resolve, imports_of(path)):
            if target != name and not name.startswith(target + "."):  # a package's own parent
                graph.add_edge(name, target)
    return graph


# A method's folder is a vertical slice: its views (the `views` package and every module in it)
# sit with the views, its trainers (`train`, and GRAG's graph-token `train_token`) with training.
METHOD_PARTS = {"views": "viz", "train": "training", "train_token": "training"}
METHODS = {path.parent.name for path in (PACKAGE / "reasoners").glob("*/spec.py")}


def layer_of(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    if top == "reasoners" and len(parts) >= 4 and parts[3] in METHOD_PARTS:
        top = METHOD_PARTS[parts[3]]
    return next(i for i, layer in enumerate(LAYERS) if top in layer)


def method_of(module: str) -> str | None:
    """The method whose folder holds `module`, None for a module every method shares."""
    parts = module.split(".")
    return parts[2] if parts[1:2] == ["reasoners"] and parts[2:3] and parts[2] in METHODS else None


def test_no_import_cycle():
    assert list(nx.simple_cycles(import_graph())) == []


def test_no_import_from_a_layer_above():
    upward = sorted(f"{a} -> {b}" for a, b in import_graph().edges if layer_of(b) > layer_of(a))
    assert upward == []


def test_every_top_level_module_has_a_layer():
    for path in PACKAGE.iterdir():
        if path.suffix == ".py" or (path / "__init__.py").exists():
            layer_of(f"kgviz.{path.stem}")  # raises StopIteration for a module left out


def test_a_methods_views_and_trainer_are_layered_apart_from_its_reasoner():
    """So a reasoner module cannot import its views, which may import its records and viz."""
    viz, reasoners = layer_of("kgviz.viz"), layer_of("kgviz.reasoners")
    assert layer_of("kgviz.reasoners.simgrag.views") == viz
    assert layer_of("kgviz.reasoners.simgrag.views.pools") == viz
    assert layer_of("kgviz.reasoners.simgrag.pools") == reasoners
    assert layer_of("kgviz.reasoners.gnnrag.train") == layer_of("kgviz.training")
    assert layer_of("kgviz.reasoners.grag.train_token") == layer_of("kgviz.training")


def test_views_import_no_other_methods_code_and_shared_views_name_no_method():
    """A method's views draw its own records (and shared ones); `kgviz.viz`, which every method
    shares, imports no method's folder."""
    assert {"simgrag", "gnnrag", "grag", "kaping", "subgraphrag"} <= METHODS
    viz = layer_of("kgviz.viz")
    crossing = sorted(
        f"{a} -> {b}"
        for a, b in import_graph().edges
        if layer_of(a) == viz and method_of(b) not in (None, method_of(a))
    )
    assert crossing == []


def test_a_method_touches_one_folder_and_the_registry():
    """No module outside a method's folder imports it, but the registry (which names each
    method's spec by its import path, read lazily): a new method is its folder and one line."""
    assert "registry" not in {path.stem for path in (PACKAGE / "reasoners").glob("*/*.py")}
    crossing = sorted(
        f"{a} -> {b}"
        for a, b in import_graph().edges
        if method_of(b) is not None and method_of(a) != method_of(b)
    )
    assert crossing == []
    registry = (PACKAGE / "reasoners" / "registry.py").read_text(encoding="utf-8")
    for method in METHODS:
        assert f'"kgviz.reasoners.{method}.spec:SPEC"' in registry


def test_every_error_kgviz_raises_names_its_branch():
    """`kgviz.errors`' tree: no module raises the root `KgvizError` itself."""
    bare = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            raised = node.exc if isinstance(node, ast.Raise) else None
            if isinstance(raised, ast.Call) and getattr(raised.func, "id", "") == "KgvizError":
                bare.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert bare == []
