"""The built-in demo: a small, hand-checked movie KG with 1/2/3-hop questions, shipped in
`data/`.
"""

from __future__ import annotations

from kgviz.datasets.custom import CustomDataset
from kgviz.paths import repo_data_dir


class Demo(CustomDataset):
    """Movies, directors, actors, writers, years and genres; runs with no download."""

    def __init__(self) -> None:
        super().__init__(repo_data_dir() / "demo", name="demo", domain="movies")
        self.description = "built-in movie KG (a few hundred true triples) with 1/2/3-hop questions"
