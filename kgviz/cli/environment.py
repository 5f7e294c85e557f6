"""kgviz's environment settings checked up front, as files are: a value that is not one is a
one-line error before anything runs, whether or not this run would have read it."""

from __future__ import annotations

import os
from collections.abc import Callable

from kgviz.errors import InputError
from kgviz.kg.rdf_bounds import max_literal_chars
from kgviz.kg.readers import max_name_chars
from kgviz.llm.deadline import llm_timeout
from kgviz.llm.llamacpp_backend import default_slots, default_threads

SWITCHES = {"KGVIZ_PREFIX_CACHE": ("on", "off", "1", "0", "yes", "no", "true", "false")}
CHOICES = {"KGVIZ_INDEX_KIND": ("flat", "hnsw", "milvus")}
# Each numeric setting's reader, which raises a one-line error for a value that is not one.
NUMBERS: tuple[Callable[[], object], ...] = (
    max_name_chars,
    max_literal_chars,
    llm_timeout,
    default_threads,
    default_slots,
)


def check_environment() -> None:
    """A one-line `KgvizError` for the first `KGVIZ_*` setting whose value is not one of its
    kind (a number, a switch, a choice)."""
    for read in NUMBERS:
        read()
    for name, allowed in {**SWITCHES, **CHOICES}.items():
        value = os.environ.get(name, "").strip()
        if value and value.lower() not in allowed:
            raise InputError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
