"""Benchmark the SimGRAG top-k subgraph search: Algorithm 1 against the optimized search.

Patterns are fixed below (MetaQA-style 1/2/3-hop questions with known topic entities) and the
candidate pools are built without an embedding model (bench/_synthetic.py), so neither the LLM nor
the encoder is timed. 2-hop patterns are also run with the topic entity missing from its pool. The
same is run on a synthetic KG of >= 10 M edges built with numpy, with patterns along random walks.
Prints median / p95 search time, expansions and the Algorithm 1 / optimized ratio. A second
MetaQA pass uses real pools from the entity and relation indexes and times the vector search
itself. Vector search over random embeddings at synthetic scale is in bench/bench_scale.py.

    python bench/bench_simgrag_search.py [--data DIR] [--edges N] [--alg1-limit S]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from _synthetic import POOL_SIZE, K, path_pattern, path_pools, random_walk, synthetic_parts
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.readers import read_triples
from kgviz.reasoners.simgrag.search import SearchResult, algorithm1_topk, optimized_topk
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPool, SearchPools

MOVIES = [
    "Forrest Gump",
    "The Matrix",
    "Titanic",
    "Her",
    "Tokyo Godfathers",
    "Inception",
    "Casablanca",
    "Heat",
    "Alien",
    "Kismet",
    "Jaws",
    "Vertigo",
    "Fargo",
    "Memento",
    "Rocky",
]
PEOPLE = [
    "Tom Hanks",
    "Steven Spielberg",
    "Woody Allen",
    "Meryl Streep",
    "Clint Eastwood",
    "Quentin Tarantino",
    "Christopher Nolan",
    "Robert De Niro",
    "Stephen King",
    "Harrison Ford",
    "Nicolas Cage",
    "Jackie Chan",
    "Alfred Hitchcock",
    "John Wayne",
]


@dataclass(frozen=True)
class Template:
    """A path pattern: node 0 is the known topic entity, the others are unknown."""

    question: str
    relations: tuple[str, ...]
    topics: list[str]


FAMILIES: dict[str, list[Template]] = {
    "1-hop": [
        Template("who directed [movie]", ("directed_by",), MOVIES),
        Template("which films did [person] act in", ("starred_actors",), PEOPLE),
        Template("what genre is [movie]", ("has_genre",), MOVIES),
    ],
    "2-hop": [
        Template(
            "who directed the films [person] acted in", ("starred_actors", "directed_by"), PEOPLE
        ),
        Template(
            "which films share the director of [movie]", ("directed_by", "directed_by"), MOVIES
        ),
        Template(
            "what genres are the films written by [person]", ("written_by", "has_genre"), PEOPLE
        ),
    ],
    "3-hop": [
        Template(
            "who wrote films that share actors with [movie]",
            ("starred_actors", "starred_actors", "written_by"),
            MOVIES,
        ),
        Template(
            "what languages are the films by the director of [movie]",
            ("directed_by", "directed_by", "in_language"),
            MOVIES,
        ),
        Template(
            "when were the films by the writer of [movie] released",
            ("written_by", "written_by", "release_year"),
            MOVIES,
        ),
    ],
}


@dataclass
class Run:
    family: str
    alg1: SearchResult
    opt: SearchResult


def run_pair(
    family: str, kg: KnowledgeGraph, pattern: PatternGraph, pools: SearchPools, alg1_limit: float
) -> Run:
    opt = optimized_topk(kg, pattern, pools, K, max_expansions=None, time_limit_s=30.0)
    alg1 = algorithm1_topk(kg, pattern, pools, K, max_expansions=None, time_limit_s=alg1_limit)
    return Run(family, alg1, opt)


def metaqa_runs(kg: KnowledgeGraph, rng: np.random.Generator, alg1_limit: float) -> list[Run]:
    runs = []
    for family, templates in FAMILIES.items():
        for template in templates:
            relations = [kg.relation_id(r) for r in template.relations]
            for topic in template.topics:
                pools = path_pools(rng, kg, kg.entity_id(topic), relations)
                runs.append(run_pair(family, kg, path_pattern(len(relations)), pools, alg1_limit))
                if family == "2-hop":  # the topic entity missing from its pool
                    pools = path_pools(rng, kg, None, relations)
                    runs.append(
                        run_pair("2-hop, topic missing", kg, path_pattern(2), pools, alg1_limit)
                    )
    return runs


def metaqa_index_runs(kg: KnowledgeGraph, alg1_limit: float) -> tuple[list[Run], list[float]]:
    """The same templates with real pools from the entity and relation indexes.

    Returns the search runs and the per-query vector-search seconds (encode the pattern's known
    texts in one batch, then one faiss search for the node and one for the relations).
    """
    from kgviz.embed import KGIndex, relation_text
    from kgviz.embed.index import set_search_threads

    set_search_threads(1)
    index = KGIndex.build(kg, progress=True)
    index.embed(["warm up"])
    runs, vector_s = [], []
    for family, templates in FAMILIES.items():
        for template in templates:
            texts = [relation_text(r) for r in template.relations]
            for topic in template.topics:
                began = time.perf_counter()
                vectors = index.embed([topic, *texts])
                node = index.nearest_entities_batch([topic], POOL_SIZE, vectors[:1])[0]
                rels = index.nearest_relations_batch(texts, POOL_SIZE, vectors[1:])
                vector_s.append(time.perf_counter() - began)
                pools = SearchPools(
                    (
                        SearchPool(
                            np.array([h.id for h in node]), np.array([h.distance for h in node])
                        ),
                    )
                    + (None,) * len(texts),
                    tuple(
                        SearchPool(
                            np.array([h.id for h in hits]), np.array([h.distance for h in hits])
                        )
                        for hits in rels
                    ),
                )
                runs.append(run_pair(family, kg, path_pattern(len(texts)), pools, alg1_limit))
    return runs, vector_s


def vector_line(seconds: list[float]) -> str:
    ms = np.array(seconds) * 1e3
    return f"median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms"


def synthetic_runs(
    kg: KnowledgeGraph, rng: np.random.Generator, alg1_limit: float, per_family: int
) -> list[Run]:
    runs = []
    for hops in (1, 2, 3):
        for _ in range(per_family):
            start, relations = random_walk(kg, rng, hops)
            pools = path_pools(rng, kg, start, relations)
            runs.append(run_pair(f"{hops}-hop", kg, path_pattern(hops), pools, alg1_limit))
    return runs


COLUMNS = (
    "family",
    "n",
    "alg1 med ms",
    "p95 ms",
    "expanded",
    "stopped",
    "opt med ms",
    "p95 ms",
    "expanded",
    "pruned",
    "ratio",
    "same top-k",
)


def report(title: str, runs: list[Run]) -> None:
    """One row per family: medians over its queries (p95 for times)."""
    table = [COLUMNS]
    for family in dict.fromkeys(run.family for run in runs):
        rows = [run for run in runs if run.family == family]
        a_ms = np.array([r.alg1.elapsed_s for r in rows]) * 1e3
        o_ms = np.array([r.opt.elapsed_s for r in rows]) * 1e3
        both = [r for r in rows if r.alg1.status == r.opt.status == "complete"]
        table.append(
            (
                family,
                str(len(rows)),
                f"{np.median(a_ms):.2f}",
                f"{np.percentile(a_ms, 95):.2f}",
                f"{np.median([r.alg1.expanded for r in rows]):.0f}",
                str(sum(r.alg1.status != "complete" for r in rows)),
                f"{np.median(o_ms):.2f}",
                f"{np.percentile(o_ms, 95):.2f}",
                f"{np.median([r.opt.expanded for r in rows]):.0f}",
                f"{np.median([r.opt.pruned for r in rows]):.0f}",
                f"{np.median(a_ms / o_ms):.1f}",
                f"{sum(r.alg1.matches == r.opt.matches for r in both)}/{len(both)}",
            )
        )
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    print(f"\n{title}")
    for index, row in enumerate(table):
        print(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths))
            )
        )
        if index == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    print(
        "alg1 = Algorithm 1, opt = optimized; ratio = median per-query alg1/opt time;\n"
        "stopped = Algorithm 1 runs cut by its time limit (their time is a lower bound);\n"
        "same top-k = identical match lists where both searches completed."
    )


def unknown_only(kg: KnowledgeGraph) -> None:
    """An all-unknown 2-hop pattern must stop at its budget with a clear status."""
    pools = SearchPools((None, None, None), (None, None))
    result = optimized_topk(kg, path_pattern(2), pools, K, max_expansions=200_000, time_limit_s=5.0)
    print(
        f"unknown-only 2-hop pattern: status={result.status} expanded={result.expanded} "
        f"elapsed={result.elapsed_s * 1e3:.0f} ms matches={len(result.matches)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("KGVIZ_DATA", "../shared/data"))
    )
    parser.add_argument("--edges", type=int, default=10_000_000, help="synthetic KG size")
    parser.add_argument("--per-family", type=int, default=30, help="synthetic queries per family")
    parser.add_argument("--alg1-limit", type=float, default=2.0, help="Algorithm 1 time limit, s")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)

    began = time.monotonic()
    kg = KnowledgeGraph.from_triples(read_triples(args.data / "MetaQA" / "kb.txt"), name="metaqa")
    print(f"{kg} loaded in {time.monotonic() - began:.1f} s")
    report(
        f"MetaQA, k={K}, k(n)=k(r)={POOL_SIZE} (capped at {kg.num_relations} relations)",
        metaqa_runs(kg, rng, args.alg1_limit),
    )
    unknown_only(kg)
    runs, vector_s = metaqa_index_runs(kg, args.alg1_limit)
    report(
        f"MetaQA with real pools from the all-MiniLM-L6-v2 indexes, k={K}, k(n)={POOL_SIZE}", runs
    )
    print(
        f"vector search per query (encode pattern texts + faiss, 1 thread): {vector_line(vector_s)}"
    )

    began = time.monotonic()
    big = KnowledgeGraph(*synthetic_parts(args.edges, rng), name=f"synthetic-{args.edges}")
    print(f"\n{big} built in {time.monotonic() - began:.1f} s")
    report(
        f"Synthetic, k={K}, k(n)=k(r)={POOL_SIZE}",
        synthetic_runs(big, rng, args.alg1_limit, args.per_family),
    )
    unknown_only(big)


if __name__ == "__main__":
    main()
