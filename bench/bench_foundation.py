"""Foundation benchmark on MetaQA: KG load (cold parse vs processed cache), peak memory,
embedding throughput, index build time and query latency (flat vs HNSW).

Usage: python bench/bench_foundation.py [--data ../shared/data] [--embed-sample 2000]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.embed import EmbeddingCache, FaissIndex, embed_with_cache, get_encoder
from kgviz.embed.index import set_search_threads

REPO = Path(__file__).resolve().parents[1]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", default=os.environ.get("KGVIZ_DATA", str(REPO.parent / "shared" / "data"))
    )
    parser.add_argument("--embed-sample", type=int, default=2000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rows: list[tuple[str, str]] = []

    with tempfile.TemporaryDirectory() as private_cache:
        os.environ["KGVIZ_CACHE"] = private_cache  # cold: nothing processed yet
        start = time.perf_counter()
        kg = get_dataset("metaqa-1hop", root=Path(args.data)).kg
        cold = time.perf_counter() - start
        start = time.perf_counter()
        _ = get_dataset("metaqa-2hop", root=Path(args.data)).kg
        warm = time.perf_counter() - start
    os.environ.pop("KGVIZ_CACHE")
    rows += [
        (
            "KG",
            (
                f"{kg.num_entities:,} entities, {kg.num_relations} relations, "
                f"{kg.num_triples:,} triples"
            ),
        ),
        ("load, cold (parse + CSR + save)", f"{cold:.2f} s"),
        ("load, processed cache", f"{warm:.2f} s  (x{cold / warm:.1f} faster)"),
        ("peak RSS after load", f"{peak_rss_mb():.0f} MB"),
    ]

    encoder = get_encoder()
    encoder.encode(["warm up"])
    rng = np.random.default_rng(0)
    sample = [kg.entities[i] for i in rng.choice(kg.num_entities, args.embed_sample, replace=False)]
    start = time.perf_counter()
    encoder.encode(sample)
    seconds = time.perf_counter() - start
    rows.append(
        (
            "embedding throughput (no cache)",
            (
                f"{len(sample) / seconds:.0f} names/s ({len(sample)} names, "
                f"torch threads {__import__('torch').get_num_threads()})"
            ),
        )
    )

    start = time.perf_counter()
    vectors = embed_with_cache(
        encoder, list(kg.entities), EmbeddingCache(encoder.model_name), progress=True
    )
    rows.append(("all entity vectors (cache or encode)", f"{time.perf_counter() - start:.1f} s"))

    set_search_threads(1)
    for kind in ("flat", "hnsw"):
        start = time.perf_counter()
        index = FaissIndex.build(vectors, kind)
        rows.append((f"{kind} index build", f"{time.perf_counter() - start:.2f} s"))
        latencies = []
        for i in rng.choice(kg.num_entities, args.queries, replace=False):
            start = time.perf_counter()
            index.search(vectors[i : i + 1], 16)
            latencies.append((time.perf_counter() - start) * 1000)
        median, p95 = percentiles(latencies)
        rows.append(
            (f"{kind} top-16 query (1 thread)", f"median {median:.2f} ms, p95 {p95:.2f} ms")
        )
    query_ms = []
    for name in sample[:100]:
        start = time.perf_counter()
        encoder.encode([name])
        query_ms.append((time.perf_counter() - start) * 1000)
    median, p95 = percentiles(query_ms)
    rows.append(("encode one query text", f"median {median:.1f} ms, p95 {p95:.1f} ms"))
    rows.append(("peak RSS at end", f"{peak_rss_mb():.0f} MB"))

    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
