"""Name vectors of met entities over an endpoint: read from the vector index, against encoded.

Text features (GNN-RAG, SubgraphRAG) and GRAG's node vectors need the name vector of each
entity a walk meets. Over an endpoint, kgviz reads them from the KG's vector index by row
(`KGIndex.entity_vectors`); the baseline, measured in the same run, encodes the names with the
offline query encoder, as kgviz did before. Uses the name store and the Milvus Lite collection
that `bench_store.py --synthetic 1e7 --keep STORE --milvus MILVUS` kept (most of its rows hold
random unit vectors: a read costs the same whatever a row holds); the rows are drawn at random
from the store (a walk's entities are a few thousand such rows).

    python bench/bench_met_vectors.py --keep /path/store10m --milvus /path/milvus-10m
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from kgviz.embed.encoder import get_encoder
from kgviz.embed.milvus_index import MilvusIndex, connect
from kgviz.triplestore.names import NameStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, required=True, help="bench_store.py's kept store")
    parser.add_argument("--milvus", type=Path, required=True, help="its Milvus Lite folder")
    parser.add_argument("--sizes", default="1000,10000", help="entities per read")
    args = parser.parse_args()
    (path,) = sorted((args.keep / "cache" / "graphs").glob("sparql-*.sqlite"))
    store = NameStore(path)
    rows_total = store.num_entities
    milvus = connect(str(args.milvus / "scale.db"), timeout=600)
    index = MilvusIndex.open(milvus, "kgviz_scale", f"bench scale {rows_total}", rows_total)
    if index is None:
        raise SystemExit(f"{args.milvus} holds no collection of {rows_total:,} rows")
    encoder = get_encoder()
    encoder.encode(["the model loads before the clock starts"])
    rng = np.random.default_rng(0)
    print(f"{rows_total:,} entities in the store; vectors of {encoder.dim} dimensions\n")
    print("| entities | read from Milvus Lite (s) | encoded (s) | encoded / read |")
    print("|---|---|---|---|")
    for size in (int(text) for text in args.sizes.split(",")):
        rows = np.sort(rng.choice(rows_total, size, replace=False))
        found = store.names_of(rows.tolist())
        names = [found[row] for row in rows.tolist()]
        began = time.perf_counter()
        read = index.vectors_at(rows)
        read_s = time.perf_counter() - began
        began = time.perf_counter()
        encoded = encoder.encode(names)
        encoded_s = time.perf_counter() - began
        assert read.shape == encoded.shape
        print(f"| {size:,} | {read_s:.2f} | {encoded_s:.2f} | {encoded_s / read_s:.1f} |")


if __name__ == "__main__":
    main()
