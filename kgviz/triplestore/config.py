"""`kb.sparql`: where a KG is served, in TOML, or the endpoint's URL alone on its one line.

endpoint = "http://127.0.0.1:7878/query"   # required: the SPARQL 1.1 query URL
graph = "http://example.org/kg"            # a named graph (default: the default graph)
label = "http://www.w3.org/2000/01/rdf-schema#label"   # the predicate that names things
timeout = 60        # seconds one query may take, all its retries included
batch = 200         # entities per VALUES block
page = 1000000      # rows per request while the name store is built
max_fetch = 500000  # triples one walk may fetch before it stops and says so
cache_triples = 1000000  # triples kept between runs (beyond: dropped, with the entities met)
results = "tsv"     # how walks read results: "tsv" (faster), or "json" for an endpoint whose
                    # TSV is loose (a walk that meets a term the name store lacks says so)
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kgviz.errors import DataFormatError
from kgviz.triplestore.terms import RDFS_LABEL

RESULT_FORMATS = ("tsv", "json")
_NUMBERS = {
    "timeout": float,
    "batch": int,
    "page": int,
    "max_fetch": int,
    "cache_triples": int,
    "rate": float,
}


@dataclass(frozen=True)
class EndpointConfig:
    endpoint: str
    graph: str | None = None
    label: str = RDFS_LABEL
    timeout: float = 60.0
    batch: int = 200
    page: int = 1_000_000
    max_fetch: int = 500_000
    cache_triples: int = 1_000_000
    rate: float | None = None
    results: str = "tsv"

    @classmethod
    def read(cls, path: Path) -> EndpointConfig:
        """Parse `path`; a syntax error, an unknown key or a bad value names the file."""
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as error:
            raise DataFormatError(path, 0, f"not UTF-8 text ({error})") from None
        bare = text.strip()
        if bare.startswith(("http://", "https://")) and len(bare.split()) == 1:
            return cls(endpoint=bare)  # the URL alone, as a first kb.sparql is often written
        try:
            data: dict[str, Any] = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise DataFormatError(
                path,
                0,
                f"invalid TOML ({error}); write the endpoint's URL alone, or "
                'endpoint = "http://host:port/query" and the other settings',
            ) from None
        known = {"endpoint", "graph", "label", "results", *_NUMBERS}
        if unknown := sorted(set(data) - known):
            raise DataFormatError(
                path, 0, f"unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        endpoint = data.get("endpoint")
        if not isinstance(endpoint, str) or not endpoint.startswith(("http://", "https://")):
            raise DataFormatError(path, 0, "'endpoint' must be an http(s) URL of a SPARQL endpoint")
        if data.get("results", "tsv") not in RESULT_FORMATS:
            raise DataFormatError(
                path,
                0,
                f"'results' must be one of {', '.join(RESULT_FORMATS)}, not {data['results']!r}",
            )
        for key in ("graph", "label"):
            if key in data and not (isinstance(data[key], str) and data[key]):
                raise DataFormatError(path, 0, f"{key!r} must be an IRI (a non-empty string)")
        for key, kind in _NUMBERS.items():
            value = data.get(key)
            allowed = int if kind is int else int | float
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, allowed) or value <= 0
            ):
                what = "a whole number" if kind is int else "a number"
                raise DataFormatError(path, 0, f"{key!r} must be {what} above 0, not {value!r}")
            if value is not None:
                data[key] = kind(value)
        return cls(**data)
