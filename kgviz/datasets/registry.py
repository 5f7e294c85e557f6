"""Named datasets: `get_dataset("metaqa-2hop")`, `custom:<folder>` for a user's own KG."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kgviz.datasets.base import Dataset
from kgviz.datasets.custom import CustomDataset
from kgviz.datasets.demo import Demo
from kgviz.datasets.explagraphs import ExplaGraphs
from kgviz.datasets.family_kg import FamilyKG
from kgviz.datasets.metaqa import MetaQA
from kgviz.datasets.pathquestion import PathQuestion
from kgviz.datasets.rog import RoGDataset
from kgviz.datasets.wc2014 import WC2014
from kgviz.errors import UnknownNameError

Factory = Callable[[Path | None], Dataset]

_FACTORIES: dict[str, Factory] = {
    "demo": lambda root: Demo(),
    "metaqa-1hop": lambda root: MetaQA(1, root),
    "metaqa-2hop": lambda root: MetaQA(2, root),
    "metaqa-3hop": lambda root: MetaQA(3, root),
    "pathquestion-2hop": lambda root: PathQuestion(2, root),
    "pathquestion-3hop": lambda root: PathQuestion(3, root),
    "wc2014": WC2014,
    "explagraphs": ExplaGraphs,
    "family": lambda root: FamilyKG(),
    "webqsp": lambda root: RoGDataset("webqsp", root),
    "cwq": lambda root: RoGDataset("cwq", root),
}


def register(name: str, factory: Factory) -> None:
    """Add a named dataset (later registrations replace earlier ones)."""
    _FACTORIES[name] = factory


def dataset_names() -> list[str]:
    return list(_FACTORIES)


def get_dataset(name: str, root: Path | None = None) -> Dataset:
    """The dataset called `name`, reading under `root` (default `KGVIZ_DATA`)."""
    if name.startswith("custom:"):
        return CustomDataset(Path(name.removeprefix("custom:")))
    factory = _FACTORIES.get(name)
    if factory is None:
        raise UnknownNameError(
            f"unknown dataset {name!r}; known: {', '.join(_FACTORIES)}, or custom:<folder>"
        )
    return factory(root)
