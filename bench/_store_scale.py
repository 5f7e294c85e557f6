"""The synthetic part of bench_store.py: SimGRAG's search over a KG of millions of triples served
by Oxigraph, against the same search in memory, and the memory the kgviz process holds.

The driver (`run`) generates the KG (bench/_synthetic.py: entities = edges / 7, 64 relations,
skewed in-degree), exports it with labels (`kgviz data export`'s writer), loads it into Oxigraph
and serves it. Questions are path patterns along random walks with candidate pools built without
an embedding model (the walk's start among 15 others, unknown nodes after it), so the vector
search is left out and no name vectors exist. Pools and the in-memory top-k go to the workers by
name, since the endpoint's ids are its own. With a Milvus folder (`bench_store.py --milvus`),
the search worker also times each question's pools through `KGIndex` from a Milvus Lite
collection of a vector per entity (`_milvus_pools`), and adds them to its retrieval time.

Fresh worker processes (this file run as a script) open the `kb.sparql` dataset:
  build   builds and caches the name store (once per KG), timed, with its peak RSS;
  vectors (with a Milvus folder) writes the vectors the pools read (`_write_vectors`);
  search  opens the cached store, then runs each question's search over the endpoint as a run
          (`in_use`: past `CACHE_TRIPLES` held, the next question drops them first), checking
          its top-k against the in-memory one; then, around each question's start entity,
          SubgraphRAG's candidates and GRAG's ego-graphs (`_neighbourhoods`); and reports
          times, queries and RSS.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _memory import Rss

from _synthetic import POOL_SIZE, K, path_pattern, path_pools, random_walk, synthetic_parts
from kgviz.kg.graph import KnowledgeGraph
from kgviz.reasoners.grag.config import GRAGConfig
from kgviz.reasoners.grag.ego_index import reach_ego_graphs
from kgviz.reasoners.grag.retrieval import candidate_centres
from kgviz.reasoners.simgrag.search import SearchResult, optimized_topk
from kgviz.reasoners.simgrag.search_input import SearchPool, SearchPools
from kgviz.reasoners.subgraphrag.candidates import collect_candidates
from kgviz.reasoners.subgraphrag.config import DEFAULTS as SUBGRAPHRAG

LISTING_PAGE = 50_000_000  # every listing in one request: Oxigraph's ORDER BY paging is slow
LISTING_TIMEOUT_S = 1800.0
CACHE_TRIPLES = 200_000  # `cache_triples` of the served dataset: held beyond it, the next
# question (a run, as in a session) starts by dropping what it holds; low enough to bind at 10M


def _pool(pool: SearchPool | None, names) -> list[list] | None:
    if pool is None:
        return None
    return [[names[i] for i in pool.ids.tolist()], pool.distances.tolist()]


def _matches(kg: KnowledgeGraph, result: SearchResult) -> list[list]:
    """Each match as its GSD (rounded) and named nodes and triples: comparable across ids."""
    return [
        [
            round(match.gsd, 9),
            [kg.entities[n] for n in match.nodes],
            [kg.triple_names(int(row)) for row in match.edges],
        ]
        for match in result.matches
    ]


def make_questions(kg: KnowledgeGraph, per_hop: int, seed: int) -> list[dict]:
    """`per_hop` path questions at 1, 2 and 3 hops, with the in-memory search's time and top-k."""
    rng = np.random.default_rng(seed)
    questions = []
    for hops in (1, 2, 3):
        for _ in range(per_hop):
            start, relations = random_walk(kg, rng, hops)
            pools = path_pools(rng, kg, start, relations)
            began = time.perf_counter()
            result = optimized_topk(kg, path_pattern(hops), pools, K)
            seconds = time.perf_counter() - began
            questions.append(
                {
                    "hops": hops,
                    "nodes": [_pool(p, kg.entities) for p in pools.nodes],
                    "relations": [_pool(p, kg.relations) for p in pools.relations],
                    "memory_s": seconds,
                    "matches": _matches(kg, result),
                }
            )
    return questions


def _milvus_collection(kg, milvus_folder: Path):
    """The connection and the collection `bench_milvus.py --scale` kept in `milvus_folder`, of a
    row per entity of the name store."""
    from kgviz.embed.milvus_index import MilvusIndex, connect

    rows = kg.stored_entities
    milvus = connect(str(milvus_folder / "scale.db"), timeout=600)
    entities = MilvusIndex.open(milvus, "kgviz_scale", f"bench scale {rows}", rows)
    if entities is None:
        raise SystemExit(
            f"{milvus_folder} holds no collection of {rows:,} rows: run "
            f"bench_milvus.py --scale {rows} --keep {milvus_folder} first"
        )
    return milvus, entities


def _write_vectors(kg, questions: list[dict], folder: Path, milvus_folder: Path) -> None:
    """Before the searches, as a KG's index is built before its questions: the encoder's vectors
    of the questions' start names go into their rows of the collection (the other rows keep
    random unit vectors: a FLAT search reads every vector whatever it holds), and the relation
    texts' vectors to `relations.npy`, the relation index."""
    from kgviz.embed.encoder import get_encoder
    from kgviz.embed.kg_index import relation_text

    milvus, _ = _milvus_collection(kg, milvus_folder)
    encoder = get_encoder()
    starts = sorted({question["nodes"][0][0][0] for question in questions})
    vectors = encoder.encode(starts)
    rows = [
        {"id": kg.store.entity_named(name), "vector": vector.tolist()}
        for name, vector in zip(starts, vectors)
    ]
    milvus.client.upsert("kgviz_scale", rows, timeout=600)
    np.save(folder / "relations.npy", encoder.encode([relation_text(r) for r in kg.relations]))


def _milvus_pools(kg, folder: Path, milvus_folder: Path):
    """`pools(question)`: the start entity's pool from the Milvus collection and the relations'
    pools from the relation index, through `KGIndex` as a question's pools go (the question's
    texts embedded by the light query encoder; hits met as entities through the name store);
    its seconds, and whether the start entity came first."""
    from kgviz.embed.encoder import get_encoder
    from kgviz.embed.index import FaissIndex
    from kgviz.embed.kg_index import KGIndex

    _, entities = _milvus_collection(kg, milvus_folder)
    relations = FaissIndex.build(np.load(folder / "relations.npy"))
    index = KGIndex(kg, get_encoder(), entities, relations)

    def pools(question: dict) -> tuple[float, bool]:
        start = question["nodes"][0][0][0]
        began = time.perf_counter()
        (hits,) = index.nearest_entities_batch([start], POOL_SIZE)
        texts = [pool[0][0] for pool in question["relations"] if pool]
        index.nearest_relations_batch(texts, POOL_SIZE)
        return time.perf_counter() - began, hits[0].name == start

    return pools


def _worker(mode: str, folder: Path) -> dict:
    """Run in a fresh process: open the served dataset, and for `search` answer the questions."""
    from kgviz.datasets.custom import CustomDataset
    from kgviz.triplestore.graph import SparqlGraph

    figures: dict = {"imports_rss_mb": Rss.read("VmRSS")}
    began = time.perf_counter()
    kg = CustomDataset(folder / "kg", name="synthetic-sparql").kg
    assert isinstance(kg, SparqlGraph)
    figures["open_s"] = time.perf_counter() - began
    figures["table_rss_mb"] = Rss.read("VmRSS")
    figures["entities"], figures["triples"] = kg.stored_entities, kg.stored_triples
    if mode == "vectors":
        milvus = Path(os.environ["KGVIZ_BENCH_MILVUS"])
        _write_vectors(kg, json.loads((folder / "questions.json").read_text()), folder, milvus)
        return figures
    if mode == "build":
        figures["timings"] = kg.store.timings
        figures["store_mb"] = kg.store.path.stat().st_size / 2**20
        figures["peak_rss_mb"] = Rss.read("VmHWM")
        return figures
    rows = []
    questions = json.loads((folder / "questions.json").read_text())
    milvus = os.environ.get("KGVIZ_BENCH_MILVUS")
    pools_of = _milvus_pools(kg, folder, Path(milvus)) if milvus else None
    for question in questions:
        with kg.in_use():  # a run (ids are met inside it: between runs the KG may renumber)
            pools_s, start_first = pools_of(question) if pools_of else (0.0, True)
            pools = SearchPools(
                tuple(_search_pool(p, kg.entities) for p in question["nodes"]),
                tuple(_search_pool(p, kg.relations) for p in question["relations"]),
            )
            queries = kg.client.stats.queries
            began = time.perf_counter()
            result = optimized_topk(kg, path_pattern(question["hops"]), pools, K)
            seconds = time.perf_counter() - began
            rows.append(
                {
                    "hops": question["hops"],
                    "endpoint_s": seconds,
                    "pools_s": pools_s,
                    "start_first": start_first,
                    "memory_s": question["memory_s"],
                    "queries": kg.client.stats.queries - queries,
                    "same": json.loads(json.dumps(_matches(kg, result))) == question["matches"],
                    "status": result.status,
                }
            )
    for question, row in zip(questions, rows, strict=True):
        row.update(_neighbourhoods(kg, question["nodes"][0][0][0]))
    figures["rows"] = rows
    figures["held_triples"], figures["met_entities"] = kg.num_triples, kg.num_entities
    figures["drops"] = kg.walks.dropped
    figures["end_rss_mb"] = Rss.read("VmRSS")
    figures["peak_rss_mb"] = Rss.read("VmHWM")
    return figures


def _search_pool(named: list | None, vocab) -> SearchPool | None:
    """A question's pool of `(names, distances)` (`_pool`) as ids of `vocab`."""
    if named is None:
        return None
    ids = np.array([vocab.id(name) for name in named[0]], dtype=np.int64)
    return SearchPool(ids, np.array(named[1]))


def _neighbourhoods(kg, start: str) -> dict[str, float]:
    """The seconds SubgraphRAG's candidates and GRAG's ego-graphs around `start` take over the
    endpoint, each a run, with each method's default settings (after every SimGRAG search, so
    that these fetches do not speed those up): SubgraphRAG's layers within 3 hops (hubs not
    walked, at most 10,000 triples), GRAG's 2-hop ego-graphs (hubs capped at 50 half-edges) of
    every centre within a hop of `start`."""
    grag = GRAGConfig()
    began = time.perf_counter()
    with kg.in_use():
        seeds = [kg.entities.id(start)]
        collect_candidates(
            kg, seeds, SUBGRAPHRAG.hops, SUBGRAPHRAG.max_candidates, SUBGRAPHRAG.hub_degree
        )
    subgraphrag_s = time.perf_counter() - began
    began = time.perf_counter()
    with kg.in_use():
        centres = candidate_centres(kg, [kg.entities.id(start)], grag.scope_hops)
        reach_ego_graphs(kg, centres, grag.hops, grag.max_degree)
    return {"subgraphrag_s": subgraphrag_s, "grag_s": time.perf_counter() - began}


def _run_worker(mode: str, folder: Path, milvus: Path | None = None) -> dict:
    env = dict(os.environ, KGVIZ_CACHE=str(folder / "cache"))
    if milvus is not None:
        env["KGVIZ_BENCH_MILVUS"] = str(milvus)
    done = subprocess.run(
        [sys.executable, __file__, mode, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} worker failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _generate(edges: int, per_hop: int, folder: Path, seed: int) -> None:
    """Generate the KG and its questions, export it and load it into `folder/store`."""
    from kgviz.triplestore import oxigraph
    from kgviz.triplestore.export import write_ntriples

    began = time.perf_counter()
    kg = KnowledgeGraph(*synthetic_parts(edges, np.random.default_rng(seed)), name="synthetic")
    questions = make_questions(kg, per_hop, seed)
    (folder / "questions.json").write_text(json.dumps(questions))
    lines = write_ntriples(kg, folder / "synthetic.nt")
    print(
        f"synthetic KG: {kg.num_triples:,} triples, {kg.num_entities:,} entities; "
        f"{lines:,} N-Triples lines written in {time.perf_counter() - began:.0f} s",
        flush=True,
    )
    del kg
    began = time.perf_counter()
    oxigraph.load(folder / "synthetic.nt", folder / "store")
    (folder / "synthetic.nt").unlink()
    store_mb = sum(f.stat().st_size for f in (folder / "store").rglob("*") if f.is_file()) / 2**20
    print(
        f"loaded into Oxigraph in {time.perf_counter() - began:.0f} s ({store_mb:,.0f} MB on disk)",
        flush=True,
    )


def run(
    edges: int,
    per_hop: int,
    folder: Path,
    seed: int = 0,
    port: int | None = None,
    milvus: Path | None = None,
) -> None:
    """Generate, export, load and serve a KG of `edges` triples, then print the figures. A
    `folder` that holds a whole store of this size and seed already (a kept one) is served as it
    is; on the same `port`, its cached name store is found again."""
    from kgviz.triplestore import oxigraph

    made = {"edges": edges, "seed": seed, "per_hop": per_hop}
    loaded = folder / "loaded.json"
    if loaded.is_file() and json.loads(loaded.read_text()) == made:
        print(f"serving the store kept in {folder}", flush=True)
    else:
        shutil.rmtree(folder / "store", ignore_errors=True)  # a load stopped midway
        _generate(edges, per_hop, folder, seed)
        loaded.write_text(json.dumps(made))
    (folder / "kg").mkdir(exist_ok=True)
    with oxigraph.served(folder / "store", port) as (url, _):
        (folder / "kg" / "kb.sparql").write_text(
            f'endpoint = "{url}"\ntimeout = {LISTING_TIMEOUT_S}\npage = {LISTING_PAGE}\n'
            f"cache_triples = {CACHE_TRIPLES}\n"
        )
        build = _run_worker("build", folder)
        timings = ", ".join(f"{step} {s:.0f} s" for step, s in build["timings"].items())
        print(
            f"name store: {build['entities']:,} entities built in {build['open_s']:.0f} s "
            f"({timings}; {build['store_mb']:,.0f} MB on disk); peak RSS "
            f"{build['peak_rss_mb']:,.0f} MB",
            flush=True,
        )
        if milvus is not None:
            _run_worker("vectors", folder, milvus)
        search = _run_worker("search", folder, milvus)
    _report(search, milvus is not None)


def _report(search: dict, pools: bool) -> None:
    rows = search["rows"]
    print(
        "\n| hops | questions | in memory (ms) | endpoint (ms) | endpoint p95 (ms) | queries | "
        "same top-k | pools (ms) | pools + search (ms) | p95 (ms) | start first |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    neighbourhoods = [
        "\n| hops | SubgraphRAG's candidates, median / p95 (ms) | GRAG's ego-graphs, median / p95 "
        + "(ms) |",
        "|---|---|---|",
    ]
    for hops in (1, 2, 3, None):
        part = [r for r in rows if hops is None or r["hops"] == hops]
        endpoint = [r["endpoint_s"] * 1e3 for r in part]
        retrieval = [(r["endpoint_s"] + r["pools_s"]) * 1e3 for r in part]
        print(
            f"| {hops or 'all'} | {len(part)} | "
            f"{statistics.median(r['memory_s'] for r in part) * 1e3:.1f} | "
            f"{statistics.median(endpoint):.0f} | {np.percentile(endpoint, 95):.0f} | "
            f"{statistics.mean(r['queries'] for r in part):.1f} | "
            f"{sum(r['same'] for r in part)}/{len(part)} | "
            + (
                f"{statistics.median(r['pools_s'] for r in part) * 1e3:.0f} | "
                f"{statistics.median(retrieval):.0f} | {np.percentile(retrieval, 95):.0f} | "
                f"{sum(r['start_first'] for r in part)}/{len(part)} |"
                if pools
                else "- | - | - | - |"
            )
        )
        subgraphrag = [r["subgraphrag_s"] * 1e3 for r in part]
        grag = [r["grag_s"] * 1e3 for r in part]
        neighbourhoods.append(
            f"| {hops or 'all'} | {statistics.median(subgraphrag):.0f} / "
            f"{np.percentile(subgraphrag, 95):.0f} | {statistics.median(grag):.0f} / "
            f"{np.percentile(grag, 95):.0f} |"
        )
    print("\n".join(neighbourhoods))
    print(
        f"\nkgviz process (RSS): {search['imports_rss_mb']:,.0f} MB after imports, "
        f"{search['table_rss_mb']:,.0f} MB with the name store open "
        f"({search['entities']:,} entities, opened in {search['open_s']:.1f} s), "
        f"{search['end_rss_mb']:,.0f} MB after the searches (peak {search['peak_rss_mb']:,.0f} MB) "
        f"holding {search['held_triples']:,} fetched triples of {search['triples']:,} "
        f"(dropped {search['drops']} times past {CACHE_TRIPLES:,}) and "
        f"{search['met_entities']:,} entities met; "
        + (
            "pools from Milvus Lite (its server is a process of its own)."
            if pools
            else "no name vectors (pools are synthetic)."
        )
    )


if __name__ == "__main__":
    print(json.dumps(_worker(sys.argv[1], Path(sys.argv[2]))))
