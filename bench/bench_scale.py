"""Scale benchmark: SimGRAG's subgraph search and the entity vector search on synthetic KGs.

For each size (edges; entities = edges / 7, skewed in-degree, see bench/_synthetic.py) two fresh
subprocesses run, so each peak RSS is that part's own:
  graph    generate the triples, build the KnowledgeGraph (CSR out / in / undirected), then time
           the optimized search on 1-, 2- and 3-hop path patterns along random walks (k=3, pools
           of 16 holding the walk, so a match exists); Algorithm 1 on the same queries up to
           --alg1-up-to edges, as the baseline.
  vectors  one random unit 384-d float32 vector per entity in kgviz's faiss flat and HNSW indexes
           (built with all cores, searched with one thread, one query at a time). Queries are
           stored vectors plus noise, as a name near its entity. Vectors are added in chunks and
           HNSW is given up as soon as its build is projected past --hnsw-limit seconds.
Prints Markdown tables; --json PATH writes the figures.

    python bench/bench_scale.py [--edges 1e6,1e7,4e7] [--queries 30] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

import numpy as np
from _memory import Rss, available_mb

from _synthetic import (
    EDGES_PER_ENTITY,
    POOL_SIZE,
    K,
    path_pattern,
    path_pools,
    random_walk,
    synthetic_parts,
)
from kgviz.embed.index import FaissIndex, IndexKind, set_search_threads
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.simgrag.search import SearchResult, algorithm1_topk, optimized_topk

DIM, CHUNK = 384, 25_000
MB = 2**20
# Peak bytes a part needs, from this script's own runs (checked against MemAvailable before a part).
GRAPH_BYTES_PER_EDGE = 200
VECTOR_BYTES_PER_ENTITY = DIM * 4 * 1.3


def needed_mb(part: str, edges: int) -> float:
    per = {"graph": GRAPH_BYTES_PER_EDGE, "vectors": VECTOR_BYTES_PER_ENTITY / EDGES_PER_ENTITY}
    return edges * per[part] / MB


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def stats(values: list[float], scale: float = 1.0) -> dict[str, float]:
    array = np.asarray(values, dtype=float) * scale
    return {"median": float(np.median(array)), "p95": float(np.percentile(array, 95))}


# ----------------------------------------------------------------- graph part
def search_figures(opt: list[SearchResult], alg1: list[SearchResult]) -> dict:
    """Latency (ms) and expansions of the optimized search, and Algorithm 1's when it ran."""
    figures = {
        "opt_ms": stats([r.elapsed_s for r in opt], 1e3),
        "opt_expanded": stats([r.expanded for r in opt]),
        "opt_max_expanded": max(r.expanded for r in opt),
        "opt_incomplete": sum(r.status != "complete" for r in opt),
    }
    if alg1:
        both = [(a, o) for a, o in zip(alg1, opt) if a.status == o.status == "complete"]
        figures |= {
            "alg1_ms": stats([r.elapsed_s for r in alg1], 1e3),
            "alg1_expanded": stats([r.expanded for r in alg1]),
            "alg1_stopped": sum(r.status != "complete" for r in alg1),
            "speedup": float(np.median([a.elapsed_s / o.elapsed_s for a, o in zip(alg1, opt)])),
            "same_topk": f"{sum(a.matches == o.matches for a, o in both)}/{len(both)}",
        }
    return figures


def graph_part(edges: int, args: argparse.Namespace) -> dict:
    rss, rng = Rss(), np.random.default_rng(args.seed)
    with rss.measure() as generated:
        entities, relations, triples = synthetic_parts(edges, rng, args.relations)
    with rss.measure() as built:
        kg = KnowledgeGraph(entities, relations, triples, name=f"synthetic-{edges}")
    csr_bytes = sum(
        getattr(csr, f.name).nbytes for csr in (kg.out, kg.inc, kg.adj) for f in fields(csr)
    )
    degree = kg.adj.degree()
    log(f"[{edges:,} graph] {kg}: generated in {generated['s']:.1f} s, CSR in {built['s']:.1f} s")
    with_alg1 = edges <= args.alg1_up_to
    searches = {}
    for hops in (1, 2, 3):
        opt, alg1 = [], []
        for _ in range(args.queries):
            start, path = random_walk(kg, rng, hops)
            pattern, pools = path_pattern(hops), path_pools(rng, kg, start, path)
            opt.append(
                optimized_topk(kg, pattern, pools, K, max_expansions=None, time_limit_s=30.0)
            )
            if with_alg1:
                alg1.append(
                    algorithm1_topk(
                        kg, pattern, pools, K, max_expansions=None, time_limit_s=args.alg1_limit
                    )
                )
        searches[f"{hops}-hop"] = search_figures(opt, alg1)
        log(
            f"[{edges:,} graph] {hops}-hop: optimized median "
            f"{searches[f'{hops}-hop']['opt_ms']['median']:.2f} ms"
        )
    return {
        "entities": kg.num_entities,
        "relations": kg.num_relations,
        "max_degree": int(degree.max()),
        "mean_degree": float(degree.mean()),
        "generate_s": generated["s"],
        "generate_kept_mb": generated["kept_mb"],
        "csr_build_s": built["s"],
        "csr_peak_rise_mb": built["peak_rise_mb"],
        "csr_kept_mb": built["kept_mb"],
        "csr_arrays_mb": csr_bytes / MB,
        "triples_mb": kg.triples.nbytes / MB,
        "searches": searches,
        "peak_rss_mb": max(rss.process_peak_mb, Rss.read("VmHWM")),
    }


# ----------------------------------------------------------------- vectors part
def unit_block(block: int, num: int, seed: int) -> np.ndarray:
    """Block `block` (CHUNK rows) of `num` random unit float32 vectors; the same for a seed."""
    rows = min(CHUNK, num - block * CHUNK)
    vectors = np.random.default_rng([seed, block]).standard_normal((rows, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors


def build_index(
    kind: IndexKind, num: int, seed: int, limit_s: float
) -> tuple[FaissIndex | None, dict]:
    """Add the vectors block by block (only the adds are timed); give up (index None) once the
    time spent plus the rest at the latest block's rate exceeds `limit_s`."""
    set_search_threads(os.cpu_count() or 1)
    index, spent, added = None, 0.0, 0
    for block in range(math.ceil(num / CHUNK)):
        vectors = unit_block(block, num, seed)
        began = time.perf_counter()
        if index is None:
            index = FaissIndex.build(vectors, kind)
        else:
            index.index.add(vectors)
        took = time.perf_counter() - began
        spent, added = spent + took, added + len(vectors)
        projected = spent + (num - added) * took / len(vectors)
        if projected > limit_s:
            return None, {
                "skipped": f"projected {projected / 60:.0f} min > limit "
                f"{limit_s / 60:.0f} min ({added / spent:.0f} vectors/s "
                f"over the first {added:,})",
                "projected_s": projected,
            }
    return index, {"build_s": spent}


def index_figures(
    kind: IndexKind, num: int, queries: np.ndarray, args: argparse.Namespace, rss: Rss
) -> tuple[dict, np.ndarray | None]:
    """Build one index, then search each query alone with one thread.

    Returns the figures (build seconds, RSS kept and peak rise, latency in ms) and the top
    POOL_SIZE ids per query (None when the build was given up).
    """
    limit_s = math.inf if kind == "flat" else args.hnsw_limit
    with rss.measure() as memory:
        index, figures = build_index(kind, num, args.seed, limit_s)
    if index is None:
        log(f"[{num:,} vectors] {kind}: skipped, {figures['skipped']}")
        return figures, None
    set_search_threads(1)
    index.search(queries[:1], POOL_SIZE)  # warm-up
    seconds, found = [], []
    for query in queries:
        began = time.perf_counter()
        _, ids = index.search(query, POOL_SIZE)
        seconds.append(time.perf_counter() - began)
        found.append(ids[0])
    log(
        f"[{num:,} vectors] {kind}: built in {figures['build_s']:.1f} s, "
        f"query median {np.median(seconds) * 1e3:.1f} ms"
    )
    return figures | {
        "kept_mb": memory["kept_mb"],
        "peak_rise_mb": memory["peak_rise_mb"],
        "ms": stats(seconds, 1e3),
    }, np.array(found)


def vectors_part(edges: int, args: argparse.Namespace) -> dict:
    rss, rng = Rss(), np.random.default_rng(args.seed)
    num = edges // EDGES_PER_ENTITY
    sources = rng.choice(num, args.vector_queries, replace=False)
    noise = rng.standard_normal((len(sources), DIM), dtype=np.float32)
    noise *= 0.5 / np.linalg.norm(noise, axis=1, keepdims=True)  # a name near its entity
    # each source's stored vector, copied out so that its regenerated block is freed at once
    stored = [unit_block(i // CHUNK, num, args.seed)[i % CHUNK].copy() for i in sources]
    queries = np.stack(stored) + noise
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    flat, truth = index_figures("flat", num, queries, args, rss)
    hnsw, found = index_figures("hnsw", num, queries, args, rss)
    if found is not None:
        hnsw["recall"] = float(
            np.mean([len(np.intersect1d(f, t)) / POOL_SIZE for f, t in zip(found, truth)])
        )
        hnsw["top1_source"] = float(np.mean(found[:, 0] == sources))
    return {
        "entities": num,
        "vectors_mb": num * DIM * 4 / MB,
        "flat": flat,
        "hnsw": hnsw,
        "flat_top1_source": float(np.mean(truth[:, 0] == sources)),
        "peak_rss_mb": max(rss.process_peak_mb, Rss.read("VmHWM")),
    }


PARTS = {"graph": graph_part, "vectors": vectors_part}


# ----------------------------------------------------------------- driver and report
def run_part(part: str, edges: int) -> dict:
    """Run one part in a fresh interpreter; its figures come back as JSON on stdout."""
    available, needed = available_mb(), needed_mb(part, edges)
    if needed > available:
        return {"skipped": f"needs ~{needed / 1024:.1f} GB, {available / 1024:.1f} GB available"}
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, __file__, *sys.argv[1:], "--worker", f"{part}:{edges}"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    )
    return json.loads(done.stdout) | {"wall_s": time.monotonic() - began}


def ms(figures: dict) -> str:
    return f"{figures['median']:,.2f} / {figures['p95']:,.2f} ms"


def memory(index: dict) -> str:
    return f"{index['kept_mb']:,.0f} MB ({index['peak_rise_mb']:,.0f} MB)"


def size(edges: int) -> str:
    return f"{edges / 1e6:g}M"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Markdown lines; a row shorter than the header is padded with empty cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row + [""] * (len(header) - len(row))) + " |" for row in rows]


def graph_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for result in results:
        g, edges = result["graph"], size(result["edges"])
        rows.append(
            [edges, f"skipped: {g['skipped']}"]
            if "skipped" in g
            else [
                edges,
                f"{g['entities']:,}",
                f"{g['max_degree']:,}",
                f"{g['csr_build_s']:.1f} s",
                f"{g['csr_arrays_mb']:,.0f} (+ {g['triples_mb']:,.0f}) MB",
                f"{g['csr_peak_rise_mb']:,.0f} MB",
                f"{g['peak_rss_mb']:,.0f} MB",
            ]
        )
    return rows


def search_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for result in results:
        for family, s in result["graph"].get("searches", {}).items():
            row = [
                size(result["edges"]),
                family,
                ms(s["opt_ms"]),
                (
                    f"{s['opt_expanded']['median']:,.0f} / {s['opt_expanded']['p95']:,.0f} "
                    f"({s['opt_max_expanded']:,})"
                ),
            ]
            if "alg1_ms" in s:
                row += [
                    ms(s["alg1_ms"]),
                    f"{s['alg1_expanded']['median']:,.0f}",
                    f"{s['speedup']:,.1f}x (same top-k {s['same_topk']})",
                ]
            rows.append(row)
    return rows


def vector_rows(results: list[dict]) -> list[list[str]]:
    rows = []
    for result in results:
        v, edges = result["vectors"], size(result["edges"])
        if "skipped" in v:
            rows.append([edges, f"skipped: {v['skipped']}"])
            continue
        flat, hnsw = v["flat"], v["hnsw"]
        row = [
            edges,
            f"{v['entities']:,} x {DIM}",
            f"{flat['build_s']:.1f} s",
            ms(flat["ms"]),
            memory(flat),
        ]
        if "skipped" in hnsw:
            row += [f"skipped: {hnsw['skipped']}", "", "", "", ""]
        else:
            row += [
                f"{hnsw['build_s']:.0f} s",
                ms(hnsw["ms"]),
                memory(hnsw),
                f"{flat['ms']['median'] / hnsw['ms']['median']:,.0f}x",
                f"{hnsw['top1_source']:.2f} / {hnsw['recall']:.2f}",
            ]
        rows.append(row + [f"{v['peak_rss_mb']:,.0f} MB"])
    return rows


def tables(results: list[dict], parts: list[str]) -> str:
    graph = [
        "edges",
        "entities",
        "max degree",
        "CSR build",
        "CSR arrays (+ triples)",
        "build peak RSS rise",
        "graph process peak RSS",
    ]
    search = [
        "edges",
        "pattern",
        "optimized median / p95",
        "expansions median / p95 (max)",
        "Alg. 1 median / p95",
        "Alg. 1 expansions median",
        "speed-up (Alg. 1 / opt.)",
    ]
    vectors = [
        "edges",
        "vectors",
        "flat build",
        "flat query median / p95",
        "flat RSS (build peak rise)",
        "HNSW build",
        "HNSW query median / p95",
        "HNSW RSS (build peak rise)",
        "flat / HNSW latency",
        "HNSW top-1 / recall@16",
        "vectors process peak RSS",
    ]
    lines = []
    if "graph" in parts:
        lines += table(graph, graph_rows(results)) + [""] + table(search, search_rows(results))
    if "vectors" in parts:
        lines += [""] + table(vectors, vector_rows(results))
    return "\n".join(lines)


def edge_sizes(text: str) -> list[int]:
    return [int(float(item)) for item in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--edges",
        type=edge_sizes,
        default=edge_sizes("1e6,1e7,4e7"),
        help="comma-separated KG sizes in edges",
    )
    parser.add_argument("--queries", type=int, default=30, help="search queries per hop count")
    parser.add_argument("--vector-queries", type=int, default=30)
    parser.add_argument("--relations", type=int, default=300, help="relation types")
    parser.add_argument(
        "--alg1-up-to",
        type=float,
        default=1e6,
        help="also run Algorithm 1 on sizes up to this many edges",
    )
    parser.add_argument("--alg1-limit", type=float, default=2.0, help="Algorithm 1 time limit, s")
    parser.add_argument(
        "--hnsw-limit",
        type=float,
        default=600.0,
        help="give up an HNSW build projected to take longer, s",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--parts", default=",".join(PARTS), help=f"which parts to run: {', '.join(PARTS)}"
    )
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # PART:EDGES, run by the driver
    args = parser.parse_args()
    if args.worker:
        part, edges = args.worker.split(":")
        print(json.dumps(PARTS[part](int(edges), args)))
        return

    parts = [part for part in args.parts.split(",") if part]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"unknown part(s) {', '.join(sorted(unknown))}; use {', '.join(PARTS)}")
    began = time.monotonic()
    results = []
    for edges in args.edges:
        results.append({"edges": edges} | {part: run_part(part, edges) for part in parts})
    total = time.monotonic() - began
    print(tables(results, parts))
    print(
        f"\nk={K}, pools of {POOL_SIZE}, {args.queries} queries per pattern, "
        f"{args.vector_queries} vector queries; total {total / 60:.1f} min"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "args": {k: str(v) for k, v in vars(args).items()},
                    "total_s": total,
                    "sizes": results,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
