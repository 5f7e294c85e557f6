"""faiss flat vs Milvus Lite on the MetaQA entity index: build time, query latency, agreement.

Usage: python bench/bench_milvus.py [--data ../shared/data] [--queries 200] [--batch 100]

    python bench/bench_milvus.py --scale 1428571 [--keep FOLDER]

instead builds a Milvus Lite collection of that many 384-d unit vectors (the entities of the
10M-triple synthetic KG; random, as a FLAT search reads every vector whatever it holds) a chunk
at a time, as `KGIndex` builds one, then times a pattern's node pools (4 queries in one request)
and one-query searches, and reports the kgviz process's peak memory and the collection's disk
size (the Milvus Lite server is a process of its own). With
`--keep`, a build stopped midway (Ctrl-C) resumes on the next run.
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
from _folders import kept_or_temporary
from _memory import Rss

from kgviz.datasets import get_dataset
from kgviz.embed import EmbeddingCache, FaissIndex, MilvusIndex, embed_with_cache, get_encoder
from kgviz.embed.index import set_search_threads
from kgviz.embed.milvus_index import connect

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


def scale(rows: int, folder: Path, queries: int) -> None:
    """The streamed build of `rows` random vectors, then search latencies (module docstring)."""
    dim, chunk = 384, 50_000

    def vectors_from(start: int):
        for at in range(start - start % chunk, rows, chunk):  # a chunk's vectors: from its seed
            vectors = np.random.default_rng(at).standard_normal((min(chunk, rows - at), dim))
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            yield vectors.astype(np.float32)[start - at if at < start else 0 :]

    milvus = connect(str(folder / "scale.db"), timeout=600)
    fingerprint = f"bench scale {rows}"
    began = time.perf_counter()
    index = MilvusIndex.open(milvus, "kgviz_scale", fingerprint, rows) or MilvusIndex.build(
        vectors_from, rows, dim, milvus, "kgviz_scale", fingerprint, progress=True
    )
    build_s = time.perf_counter() - began
    probe = next(iter(vectors_from(0)))[:queries]
    noisy = probe + 0.05 * np.random.default_rng(1).standard_normal(probe.shape).astype(np.float32)
    one = latencies_ms(index, noisy)
    pools = []
    for start in range(0, 20 * 4, 4):
        seconds, _ = timed(lambda start=start: index.search(noisy[start : start + 4], K))
        pools.append(seconds * 1000)
    own_first = np.mean(index.search(noisy[:20], 1)[1][:, 0] == np.arange(20))
    disk_mb = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20
    print(
        f"Milvus Lite, {rows:,} x {dim} (FLAT, L2): built or resumed in {build_s:.0f} s; "
        f"one query top-{K} median {one[0]:.0f} ms, p95 {one[1]:.0f} ms; 4 queries in one call "
        f"(a pattern's node pools) median {statistics.median(pools):.0f} ms, "
        f"max {max(pools):.0f} ms; each query's own vector first: {own_first:.0%}; "
        f"kgviz process peak RSS {Rss.read('VmHWM'):,.0f} MB; {disk_mb:,.0f} MB on disk"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.environ.get("KGVIZ_DATA", str(DATA)))
    parser.add_argument("--queries", type=int, default=200, help="one-query searches timed")
    parser.add_argument("--batch", type=int, default=100, help="queries in the batch search")
    parser.add_argument("--scale", type=int, help="instead, a streamed build of this many vectors")
    parser.add_argument("--keep", type=Path, help="with --scale: the folder kept between runs")
    args = parser.parse_args()
    if args.scale:
        with kept_or_temporary(args.keep, "kgviz-bench-milvus-") as folder:
            scale(args.scale, folder, min(args.queries, 50))
        return

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
            lambda: MilvusIndex.from_vectors(vectors, milvus, "kgviz_bench", "b")
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
