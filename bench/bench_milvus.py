"""faiss flat vs Milvus Lite on the MetaQA entity index: build time, query latency, agreement.

Usage: python bench/bench_milvus.py [--data ../shared/data] [--queries 200] [--batch 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.embed import EmbeddingCache, FaissIndex, MilvusIndex, embed_with_cache, get_encoder
from kgviz.embed.index import set_search_threads
from kgviz.embed.milvus_index import array_chunks, connect

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
K = 16


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def latencies_ms(index, queries: np.ndarray) -> tuple[float, float]:
    """Median and p95 of one-query searches, in milliseconds."""
    samples = []
    for query in queries:
        start = time.perf_counter()
        index.search(query[None], K)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("KGVIZ_DATA", str(DATA)))
    parser.add_argument("--queries", type=int, default=200, help="one-query searches timed")
    parser.add_argument("--batch", type=int, default=100, help="queries in the batch search")
    args = parser.parse_args()

    kg = get_dataset("metaqa-1hop", root=Path(args.data)).kg
    encoder = get_encoder()
    vectors = embed_with_cache(
        encoder, list(kg.entities), EmbeddingCache(encoder.model_name), progress=True
    )
    rng = np.random.default_rng(0)
    queries = vectors[rng.choice(len(vectors), args.queries, replace=False)]
    batch = encoder.encode(
        [f"{kg.entities[int(i)]} film" for i in rng.choice(len(vectors), args.batch)]
    )
    set_search_threads(1)

    with tempfile.TemporaryDirectory() as folder:
        milvus = connect(str(Path(folder) / "bench.db"), timeout=60)
        faiss_build, faiss = timed(lambda: FaissIndex.build(vectors))
        lite_build, lite = timed(
            lambda: MilvusIndex.build(
                array_chunks(vectors), len(vectors), vectors.shape[1], milvus, "kgviz_bench", "b"
            )
        )
        reopen, _ = timed(lambda: MilvusIndex.open(milvus, "kgviz_bench", "b", len(vectors)))
        faiss_one, lite_one = latencies_ms(faiss, queries), latencies_ms(lite, queries)
        faiss_batch, faiss_hits = timed(lambda: faiss.search(batch, K))
        lite_batch, lite_hits = timed(lambda: lite.search(batch, K))

    rows = [
        ("build (s)", faiss_build, lite_build),
        (f"one query, top-{K}, median (ms)", faiss_one[0], lite_one[0]),
        (f"one query, top-{K}, p95 (ms)", faiss_one[1], lite_one[1]),
        (f"{args.batch} queries in one call (s)", faiss_batch, lite_batch),
    ]
    print(
        f"MetaQA entities: {len(vectors):,} x {vectors.shape[1]}; "
        "faiss flat (1 thread) vs Milvus Lite (FLAT, L2)"
    )
    print(f"{'':<34}{'faiss':>10}{'milvus':>10}{'ratio':>9}")
    for name, faiss_value, lite_value in rows:
        ratio = lite_value / faiss_value
        print(f"{name:<34}{faiss_value:>10.4f}{lite_value:>10.4f}{ratio:>8.1f}x")
    print(f"reopen the existing collection: {reopen:.3f} s")
    same = np.mean([set(a) == set(b) for a, b in zip(faiss_hits[1], lite_hits[1])])
    gap = np.abs(faiss_hits[0] - lite_hits[0]).max()
    print(f"batch: the same top-{K} ids for {same:.0%} of queries, largest distance gap {gap:.1e}")


if __name__ == "__main__":
    main()
