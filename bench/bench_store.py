"""Retrieval over a SPARQL endpoint against in memory, per method, on MetaQA.

MetaQA's KB is exported as N-Triples, loaded into Oxigraph and served on loopback; each method
retrieves for the same dev questions from the KG in memory and through the endpoint (a fresh
`kb.sparql` dataset per method, so no method finds another's triples fetched). Each question is
asked twice over the endpoint: the first time fetches, the second finds its triples fetched
already. SimGRAG's search runs on the pattern of each question's KG path (no LLM).

    KGVIZ_DATA=../shared/data python bench/bench_store.py --per-hop 10

Prints, per method: median seconds per question in memory, over the endpoint (first and again),
the ratio, and per question the queries, rows and entities fetched, and entities found fetched.

    python bench/bench_store.py --synthetic 1e7

instead runs SimGRAG's search on a synthetic KG of that many triples served by Oxigraph (see
bench/_store_scale.py): search times over the endpoint against in memory, then SubgraphRAG's and
GRAG's neighbourhoods of each question's start entity, the name store's build, and the memory
the kgviz process holds. Needs no data; about 15 minutes at 10M.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _folders import kept_or_temporary
from _store_scale import run as run_scale

from kgviz.datasets import get_dataset
from kgviz.datasets.base import QARecord
from kgviz.datasets.custom import CustomDataset
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.config import SimGRAGConfig
from kgviz.reasoners.simgrag.path_pattern import path_pattern
from kgviz.reasoners.simgrag.pools import build_pools
from kgviz.reasoners.simgrag.search import optimized_topk
from kgviz.triplestore import oxigraph
from kgviz.triplestore.export import write_ntriples
from kgviz.triplestore.graph import SparqlGraph

METHODS = ["kaping", "subgraphrag", "gnnrag", "grag", "simgrag-search"]


def retriever(method: str, context: ReasonerContext, memory: ReasonerContext):
    """`retrieve(record)` for one method in one context."""
    if method != "simgrag-search":
        reasoner = make_reasoner(method, context)
        return lambda record: reasoner.retrieve_only(record.question, record.topic_entities)
    config = SimGRAGConfig()

    def search(record: QARecord) -> None:
        pattern = path_pattern(memory.kg, record.topic_entities[0], record.answers[0])
        pools = build_pools(
            context.index, pattern, config.k_nodes, config.k_relations, record.topic_entities
        )
        for part in pattern.searchable():
            optimized_topk(context.kg, part.graph, pools.for_component(part), config.k)

    return search


def timed(retrieve, records: list[QARecord]) -> list[float]:
    seconds = []
    for record in records:
        started = time.perf_counter()
        retrieve(record)
        seconds.append(time.perf_counter() - started)
    return seconds


def measure(
    method: str, records: list[QARecord], warm_up: QARecord, url: str, folder: Path
) -> dict[str, float]:
    memory = ReasonerContext(get_dataset("metaqa-1hop"), None)
    served = folder / method
    served.mkdir()
    (served / "kb.sparql").write_text(f'endpoint = "{url}"\n')
    dataset = CustomDataset(served, name=f"metaqa-sparql-{method}", domain="movies")
    kg = dataset.kg
    assert isinstance(kg, SparqlGraph)
    over = ReasonerContext(dataset, None)
    in_memory, over_endpoint = retriever(method, memory, memory), retriever(method, over, memory)
    in_memory(warm_up), over_endpoint(warm_up)  # indexes and models load outside the clock
    kg.client.stats.queries = kg.client.stats.rows = 0
    kg.walks.fetched = kg.walks.reused = 0
    memory_s = timed(in_memory, records)
    first_s = timed(over_endpoint, records)
    stats, walks, n = kg.client.stats, kg.walks, len(records)
    figures = {
        "memory": statistics.median(memory_s),
        "first": statistics.median(first_s),
        "queries": stats.queries / n,
        "rows": stats.rows / n,
        "fetched": walks.fetched / n,
        "reused": walks.reused / n,
    }
    figures["again"] = statistics.median(timed(over_endpoint, records))
    figures["triples held"] = kg.num_triples
    kg.store.path.unlink(missing_ok=True)  # its key names this run's port
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-hop", type=int, default=10, help="dev questions per hop count")
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument(
        "--synthetic",
        type=float,
        default=0,
        help="instead, SimGRAG's search on a synthetic KG of this many triples (e.g. 1e7)",
    )
    parser.add_argument("--synthetic-per-hop", type=int, default=20)
    parser.add_argument(
        "--keep",
        type=Path,
        help="with --synthetic: build the store in this folder and keep it; a later run with "
        "the same folder serves it again (on --port, so its cached name store is found)",
    )
    parser.add_argument("--port", type=int, help="with --keep: the port to serve the store on")
    parser.add_argument(
        "--milvus",
        type=Path,
        help="with --synthetic: also time each question's pools from the Milvus Lite collection "
        "kept by `bench_milvus.py --scale ENTITIES --keep FOLDER` in this folder",
    )
    args = parser.parse_args()
    if args.port and not (args.synthetic and args.keep):
        parser.error("--port serves a kept store: give it with --synthetic and --keep")
    if args.synthetic:
        with kept_or_temporary(args.keep, "kgviz-bench-store-scale-") as folder:
            run_scale(
                int(args.synthetic),
                args.synthetic_per_hop,
                folder,
                port=args.port,
                milvus=args.milvus,
            )
        return
    records = [
        record
        for hops in (1, 2, 3)
        for record in get_dataset(f"metaqa-{hops}hop").questions("dev")[: args.per_hop]
    ]
    warm_up = get_dataset("metaqa-1hop").questions("dev")[-1]  # a question not measured
    with tempfile.TemporaryDirectory(prefix="kgviz-bench-store-") as temporary:
        folder = Path(temporary)
        started = time.perf_counter()
        lines = write_ntriples(get_dataset("metaqa-1hop").kg, folder / "metaqa.nt")
        oxigraph.load(folder / "metaqa.nt", folder / "store")
        print(
            f"MetaQA: {lines:,} N-Triples lines exported and loaded in "
            f"{time.perf_counter() - started:.1f} s"
        )
        header = (
            "| method | in memory (ms) | endpoint, first (ms) | endpoint, again (ms) | "
            "first / memory | queries | rows | entities fetched | found fetched | triples held |"
        )
        rows = [header, "|" + "---|" * 10]
        with oxigraph.served(folder / "store") as (url, _):
            for method in args.methods.split(","):
                f = measure(method, records, warm_up, url, folder)
                rows.append(
                    f"| {method} | {f['memory'] * 1e3:.0f} | {f['first'] * 1e3:.0f} | "
                    f"{f['again'] * 1e3:.0f} | {f['first'] / f['memory']:.1f}x | "
                    f"{f['queries']:.1f} | {f['rows']:.0f} | {f['fetched']:.0f} | "
                    f"{f['reused']:.0f} | {f['triples held']:,} |"
                )
                print(rows[-1], flush=True)
    print(f"\n{len(records)} MetaQA dev questions ({args.per_hop} per hop), medians per question;")
    print("queries, rows and entities are means per question on the first pass.\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
