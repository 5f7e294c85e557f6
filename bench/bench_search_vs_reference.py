"""kgviz's SimGRAG top-k search against the SimGRAG authors' own search, on identical inputs.

Cases are MetaQA dev questions (a seeded sample per hop) turned into gold-like patterns: the
question's topic entity, then a chain of UNKNOWN nodes along the relations its question type
(`qa_dev_qtype.txt`, e.g. `director_to_movie_to_language`) walks. Pools come once per case from
the real all-MiniLM-L6-v2 indexes through `build_pools` (16 candidates per named node and per
relation, the paper's MetaQA setting; `--large` candidates per node for the 3-hop large-pool
run), k = 3.

The reference is `Retriever.retrieve(query_graph, mode="greedy")` of github.com/smileysig/SimGRAG
(src/retriever.py), imported from `--reference DIR` (default: env SIMGRAG_REF), never copied
here. Get it with

    git clone https://github.com/smileysig/SimGRAG /work/simgrag-ref

The retriever is created without its `__init__` (which wants Milvus and an embedding model; its
`src.vecdb` and `src.embedding_model` modules are stubbed, as nothing of them runs), over a
`KG[entity][relation] -> neighbours` dict built both ways from kgviz's triples as its
src/dataset.py does, with an encoder that returns the texts and vector stores that return the
pools kgviz computed (`distance` squared, as the reference takes the square root).

Per case, after a warm-up call of each, the searches run `--reps` times alternating (in rotating
order), each timed call after a `gc.collect()`, and the case's time is each one's median:
- kgviz first: the whole `optimized_topk` call on an unseen pattern, as a question's one search
  runs: the search module's per-pattern caches cleared, and cold CPU caches (the collection
  before it walks the whole heap, KGs and indexes included, as the stages before a search
  leave them);
- kgviz repeat: the same call again on the same pattern (caches warm, the heap frozen after
  set-up, so the collection is short);
- kgviz DFS: the same search with its per-query preparation done before the clock starts;
- ref search: the reference's own `graph_search_time` (its DFS only: the strict comparison),
  after the same whole-heap collection (its call's preparation runs before its DFS's clock);
- ref prep+search: `retrieve` minus its embedding and vector-search times.
ratio = ref time / kgviz time, per case; the table shows its median (the target applies to the
first call against ref search) and how many cases kgviz's first call wins. Exactness:
kgviz's top-k must equal Algorithm 1's (`algorithm1_topk`, unbounded, the oracle); the
reference, which neither enforces injectivity nor merges parallel triples into one node map, is
counted against the oracle by GSD list and by subgraph (triple set) list.

    python bench/bench_search_vs_reference.py --reference /work/simgrag-ref \
        [--per-hop 30] [--large 1024] [--reps 5] [--search-module OLD/search.py]

`--search-module` times another copy of search.py (e.g. the code before a change) in place of
the installed one; the oracle is always the installed `algorithm1_topk`.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import itertools
import math
import os
import statistics
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kgviz.datasets import get_dataset
from kgviz.embed.index import set_search_threads
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.simgrag.pools import PatternPools, build_pools
from kgviz.reasoners.simgrag.query_pattern import parse_pattern
from kgviz.reasoners.simgrag.search import algorithm1_topk
from kgviz.reasoners.simgrag.search_input import PatternGraph, SearchPools

K = 3
POOL = 16  # candidates per named node and per relation (the paper's MetaQA setting)
ENTITY_RELATION = {  # MetaQA question-type words -> the relation linking them to a movie
    "director": "directed_by",
    "writer": "written_by",
    "actor": "starred_actors",
    "year": "release_year",
    "language": "in_language",
    "tags": "has_tags",
    "tag": "has_tags",
    "genre": "has_genre",
    "imdbvotes": "has_imdb_votes",
    "imdbrating": "has_imdb_rating",
}


# ----------------------------------------------------------------- the reference
def load_reference(folder: Path | None) -> type:
    """The authors' `Retriever` class, imported from their repository's checkout."""
    if folder is None or not (folder / "src" / "retriever.py").is_file():
        sys.exit(
            "the SimGRAG reference is missing: clone https://github.com/smileysig/SimGRAG and pass "
            "--reference DIR (or set SIMGRAG_REF) to the folder holding src/retriever.py"
        )
    for name, attr in (("src.vecdb", "VectorStore"), ("src.embedding_model", "EmbeddingModel")):
        stub = types.ModuleType(name)  # used by `Retriever.__init__` only, which is bypassed
        setattr(stub, attr, None)
        sys.modules[name] = stub
    sys.path.insert(0, str(folder))
    from src.retriever import Retriever  # type: ignore[import-not-found]

    return Retriever


class TextEncoder:
    """Stands in for the embedding model: a text's "vector" is the text itself."""

    def encode(self, texts: list[str]) -> list[str]:
        return list(texts)


class PoolStore:
    """Stands in for a Milvus collection: the precomputed hits of each query text."""

    def __init__(self) -> None:
        self.hits: dict[str, list[dict[str, Any]]] = {}

    def search(self, texts: list[str], k: int) -> list[list[dict[str, Any]]]:
        return [self.hits[text][:k] for text in texts]


def reference_kg(kg: KnowledgeGraph) -> dict[str, dict[str, list[str]]]:
    """`KG[entity][relation] -> neighbours`, both directions, as the reference's MetaQA loader."""
    graph: dict[str, dict[str, dict[str, None]]] = {}
    names, relations = kg.entities, kg.relations
    for head, relation, tail in kg.triples.tolist():
        h, r, t = names[head], relations[relation], names[tail]
        graph.setdefault(h, {}).setdefault(r, {})[t] = None
        graph.setdefault(t, {}).setdefault(r, {})[h] = None
    return {e: {r: list(n) for r, n in rels.items()} for e, rels in graph.items()}


def reference_retriever(cls: type, kg_dict: dict, node_k: int) -> Any:
    retriever = cls.__new__(cls)
    retriever.KG = kg_dict
    retriever.final_topk = K
    retriever.timeout = 600
    retriever.node_sim_topk = node_k
    retriever.relation_sim_topk = POOL
    retriever.use_type_candidates = False
    retriever.model = TextEncoder()
    retriever.node_vector_store = PoolStore()
    retriever.relation_vector_store = PoolStore()
    return retriever


# ----------------------------------------------------------------- cases
@dataclass
class Case:
    hops: int
    question: str
    triples: list[list[str]]  # the pattern as the reference reads it
    graph: PatternGraph | None = None
    pools: SearchPools | None = None
    times: dict[str, float] = field(default_factory=dict)
    checked: bool = False  # compared with the oracle
    kgviz_exact: bool = False
    oracle_complete: bool = False
    ref_same_gsds: bool = False
    ref_same_subgraphs: bool = False
    ref_reuses: bool = False


def relations_of(qtype: str) -> list[str]:
    words = qtype.split("_to_")
    return [ENTITY_RELATION[a if b == "movie" else b] for a, b in itertools.pairwise(words)]


def sample_cases(data: Path, kg: KnowledgeGraph, hops: int, count: int, seed: int) -> list[Case]:
    """`count` dev questions of `hops` hops (seeded sample) whose topic entity is in the KG."""
    folder = data / "MetaQA" / f"{hops}-hop"
    lines = (folder / "vanilla" / "qa_dev.txt").read_text(encoding="utf-8").splitlines()
    qtypes = (folder / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()
    order = np.random.default_rng(seed + hops).permutation(len(lines))
    cases = []
    for i in order.tolist():
        question = lines[i].split("\t")[0]
        topic = question[question.index("[") + 1 : question.index("]")]
        if topic not in kg.entities or "UNKNOWN" in topic:
            continue
        words = qtypes[i].split("_to_")
        nodes = [topic] + [f"UNKNOWN {word} {n}" for n, word in enumerate(words[1:], 1)]
        triples = [
            [nodes[n], relation.replace("_", " "), nodes[n + 1]]
            for n, relation in enumerate(relations_of(qtypes[i]))
        ]
        cases.append(Case(hops, question, triples))
        if len(cases) == count:
            break
    return cases


def prepare(case: Case, index: Any, node_k: int) -> PatternPools:
    """Build the case's pools once (real vector search) and kgviz's search inputs."""
    pattern = parse_pattern({"phrases": [], "triples": case.triples}, 8)
    (component,) = pattern.searchable()
    pools = build_pools(index, pattern, node_k, POOL)
    case.graph, case.pools = component.graph, pools.for_component(component)
    return pools


def feed_reference(retriever: Any, kg: KnowledgeGraph, pools: PatternPools) -> None:
    """Hand the reference's stores the very pools kgviz searches (in kgviz's sorted order)."""
    for store, elements, names in (
        (retriever.node_vector_store, pools.nodes, kg.entities),
        (retriever.relation_vector_store, pools.relations, kg.relations),
    ):
        for element in elements:
            pool = element.as_search_pool()
            if pool is not None:
                store.hits[element.text] = [
                    {"entity": {"name": names[i]}, "distance": d * d}
                    for i, d in zip(pool.ids.tolist(), pool.distances.tolist())
                ]


# ----------------------------------------------------------------- timing
MEASURES = ("kgviz first", "kgviz repeat", "kgviz DFS", "ref search", "ref prep+search")


def forget_patterns(search: types.ModuleType) -> None:
    """Clear the search module's per-pattern caches (its `functools` caches), as if unseen."""
    for value in vars(search).values():
        if hasattr(value, "cache_clear"):
            value.cache_clear()


def collect_whole_heap() -> None:
    """A full collection over the whole heap, frozen part included, which leaves the CPU caches
    cold; the heap is frozen again after it."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def time_case(case: Case, search: types.ModuleType, retriever: Any, kg: KnowledgeGraph, reps: int):
    """Median seconds of each measure over `reps` alternating repetitions (after a warm-up),
    each timed call after a `gc.collect()` (see the module's docstring)."""
    assert case.graph is not None and case.pools is not None
    graph, pools = case.graph, case.pools
    samples: dict[str, list[float]] = {name: [] for name in MEASURES}

    def kgviz_call(name: str, collect: Callable[[], Any]) -> Any:
        collect()
        began = time.perf_counter()
        result = search.optimized_topk(kg, graph, pools, K)
        samples[name].append(time.perf_counter() - began)
        return result

    def kgviz_first() -> Any:
        forget_patterns(search)
        return kgviz_call("kgviz first", collect_whole_heap)

    def kgviz_repeat() -> None:
        kgviz_call("kgviz repeat", gc.collect)

    def kgviz_dfs() -> None:
        prepared = search._Search(
            kg, graph, pools, K, True, search.DEFAULT_MAX_EXPANSIONS, 60.0, None
        )
        gc.collect()
        began = time.perf_counter()
        prepared.run()
        samples["kgviz DFS"].append(time.perf_counter() - began)

    def reference() -> Any:
        collect_whole_heap()
        began = time.perf_counter()
        result = retriever.retrieve(case.triples, mode="greedy")
        total = time.perf_counter() - began
        samples["ref search"].append(result["graph_search_time"])
        samples["ref prep+search"].append(
            total - result["embedding_time"] - result["vector_search_time"]
        )
        return result

    ours, theirs = kgviz_first(), reference()  # warm-up
    kgviz_dfs()
    for values in samples.values():
        values.clear()
    measures = [kgviz_first, reference, kgviz_repeat, kgviz_dfs]
    for rep in range(reps):  # each measure runs first, second, third and last in turn
        for measure in measures[rep % 4 :] + measures[: rep % 4]:
            measure()
    case.times = {name: statistics.median(values) for name, values in samples.items()}
    return ours, theirs


# ----------------------------------------------------------------- exactness
def canonical(head: str, relation: str, tail: str) -> tuple[str, str, str]:
    """A triple up to direction (both searches ignore it)."""
    return (min(head, tail), relation, max(head, tail))


def keys(result: Any) -> list[tuple[float, tuple[int, ...], tuple[int, ...]]]:
    """The ranking keys of a result (its `Match` class may come from another module copy)."""
    return [(m.gsd, m.nodes, m.edges) for m in result.matches]


def check(case: Case, kg: KnowledgeGraph, ours: Any, theirs: dict, limit_s: float) -> None:
    """Compare kgviz's and the reference's top-k with the Algorithm 1 oracle's (no expansion
    budget; a case whose oracle hits `limit_s` counts as "oracle incomplete")."""
    case.checked = True
    oracle = algorithm1_topk(
        kg, case.graph, case.pools, K, max_expansions=None, time_limit_s=limit_s
    )
    case.oracle_complete = oracle.status == "complete"
    case.kgviz_exact = ours.status == "complete" and keys(ours) == keys(oracle)
    found = sorted(theirs["results"], key=lambda item: item[0])
    case.ref_reuses = any(reuse for _, _, reuse in found)
    case.ref_same_gsds = len(found) == len(oracle.matches) and all(
        math.isclose(score, m.gsd, rel_tol=1e-9, abs_tol=1e-12)
        for (score, _, _), m in zip(found, oracle.matches)
    )
    theirs_graphs = sorted(tuple(sorted(canonical(*t) for t in edges)) for _, edges, _ in found)
    oracle_graphs = sorted(
        tuple(sorted(canonical(*kg.triple_names(row)) for row in m.edges)) for m in oracle.matches
    )
    case.ref_same_subgraphs = theirs_graphs == oracle_graphs


# ----------------------------------------------------------------- report
def report_row(label: str, cases: list[Case], target: float) -> str:
    def ms(name: str) -> str:
        values = np.array([c.times[name] for c in cases]) * 1e3
        return f"{np.median(values):.3f} / {np.percentile(values, 95):.3f}"

    def ratios(ref: str, ours: str) -> list[float]:
        return [c.times[ref] / c.times[ours] for c in cases]

    first = ratios("ref search", "kgviz first")
    n, checked = len(cases), [c for c in cases if c.checked]
    ratio = statistics.median(first)
    cells = [
        label,
        str(n),
        *(ms(name) for name in MEASURES),
        f"{ratio:.2f} ({'ok' if ratio >= target else 'MISSED'} >= {target:g})",
        f"{statistics.median(ratios('ref prep+search', 'kgviz first')):.2f}",
        f"{statistics.median(ratios('ref search', 'kgviz repeat')):.2f}",
        f"{sum(r > 1 for r in first)}/{n}",
        f"{sum(c.kgviz_exact for c in checked)}/{len(checked)}",
        f"{sum(c.ref_same_gsds for c in checked)}/{len(checked)}",
        f"{sum(c.ref_same_subgraphs for c in checked)}/{len(checked)}",
        f"{sum(c.ref_reuses for c in checked)}/{len(checked)}",
        f"{sum(not c.oracle_complete for c in checked)}",
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| run | n | kgviz first ms med / p95 | kgviz repeat ms | kgviz DFS ms | ref search ms "
    "| ref prep+search ms | ref search / kgviz first (median) | ref prep+search / kgviz first "
    "| ref search / kgviz repeat | kgviz first faster | kgviz = oracle | ref GSDs = oracle "
    "| ref subgraphs = oracle | ref reuses a node | oracle incomplete |"
)


def run(
    label: str,
    cases: list[Case],
    node_k: int,
    target: float,
    context: tuple[Any, KnowledgeGraph, Any, dict, types.ModuleType, int, float],
    oracle_cases: int | None = None,
) -> str:
    index, kg, reference_cls, kg_dict, search, reps, oracle_limit = context
    for number, case in enumerate(cases):
        retriever = reference_retriever(reference_cls, kg_dict, node_k)
        feed_reference(retriever, kg, prepare(case, index, node_k))
        ours, theirs = time_case(case, search, retriever, kg, reps)
        if oracle_cases is None or number < oracle_cases:
            check(case, kg, ours, theirs, oracle_limit)
    row = report_row(label, cases, target)
    print(row, flush=True)
    return row


def load_search(path: Path | None) -> types.ModuleType:
    """The installed search module, or another copy of search.py (e.g. the code before a change)."""
    if path is None:
        from kgviz.reasoners.simgrag import search

        return search
    spec = importlib.util.spec_from_file_location("search_under_test", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--reference",
        type=Path,
        default=Path(os.environ["SIMGRAG_REF"]) if os.environ.get("SIMGRAG_REF") else None,
        help="checkout of github.com/smileysig/SimGRAG (default: env SIMGRAG_REF)",
    )
    parser.add_argument(
        "--data", type=Path, default=Path(os.environ.get("KGVIZ_DATA", "../shared/data"))
    )
    parser.add_argument("--per-hop", type=int, default=30, help="dev questions per hop")
    parser.add_argument("--large", type=int, default=1024, help="node candidates, 3-hop large run")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per case")
    parser.add_argument("--search-module", type=Path, help="time this search.py instead")
    parser.add_argument("--oracle-limit", type=float, default=60.0, help="oracle seconds per case")
    parser.add_argument(
        "--large-oracle", type=int, default=5, help="large-run cases checked (~1 min each)"
    )
    parser.add_argument("--runs", choices=("all", "small", "large"), default="all")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    reference_cls = load_reference(args.reference)
    search = load_search(args.search_module)
    set_search_threads(1)

    began = time.monotonic()
    dataset = get_dataset("metaqa-1hop")  # the three hop counts share one KB
    index = ReasonerContext(dataset, llm=None).index
    kg = index.kg
    kg_dict = reference_kg(kg)
    index.embed(["warm up"])
    gc.collect()
    gc.freeze()  # the KGs and the index are permanent: no full collection walks them mid-timing
    print(f"{kg}, indexes and reference KG ready in {time.monotonic() - began:.1f} s")
    print(f"search module: {search.__file__}; k={K}, {args.reps} reps per case, 1 thread\n")
    context = (index, kg, reference_cls, kg_dict, search, args.reps, args.oracle_limit)
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for hops in (1, 2, 3) if args.runs != "large" else ():
        cases = sample_cases(args.data, kg, hops, args.per_hop, args.seed)
        run(f"{hops}-hop, {POOL} cand.", cases, POOL, 1.0, context)
    if args.runs != "small":
        cases = sample_cases(args.data, kg, 3, args.per_hop, args.seed)
        run(f"3-hop, {args.large} cand.", cases, args.large, 10.0, context, args.large_oracle)
    print(
        "\nms = median / p95 over cases of each case's median; ratio = per-case ref time over "
        "the whole kgviz call, median over cases (target in brackets, for the first call); kgviz "
        "first faster = cases whose first call beats ref search; oracle = Algorithm 1 without "
        "expansion budget (injective, one entry per node map), checked on every 16-candidate "
        "case and the first --large-oracle large ones."
    )


if __name__ == "__main__":
    main()
