"""Dataset registry and readers."""

from kgviz.datasets.base import Dataset, QARecord
from kgviz.datasets.registry import dataset_names, get_dataset, register

__all__ = ["Dataset", "QARecord", "dataset_names", "get_dataset", "register"]
