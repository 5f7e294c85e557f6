"""`kgviz eval` over the demo KG served by Oxigraph against the in-memory demo: the same evidence
for every question and method, with the offline LLM.

Runs `kgviz eval --keep-traces` twice with the same methods, model and response cache: on
`--dataset demo`, then on a `custom:` folder holding the demo's questions, a `kb.sparql` naming
the Oxigraph server and a `dataset.toml` with the demo's domain. It compares, per method and
question, the evidence triples, SimGRAG's retrieved subgraphs (node maps and GSD), the prompts
sent and the answer, and counts the LLM calls the second run could not replay from the cache
(a prompt that differs in any way is a new call).

    python bench/eval_store_equality.py [--llm local] [--methods simgrag,...] [--limit N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kgviz.datasets import get_dataset
from kgviz.runs.store import RunStore
from kgviz.trace import Trace
from kgviz.triplestore import oxigraph
from kgviz.triplestore.export import write_ntriples

REPO = Path(__file__).resolve().parents[1]
METHODS = "simgrag,subgraphrag,gnnrag,grag,kaping"


def run_eval(dataset: str, runs: Path, out: Path, args: argparse.Namespace) -> float:
    """Seconds `kgviz eval` took, its runs kept under `runs`."""
    command = [
        sys.executable, "-m", "kgviz", "eval", "--dataset", dataset, "--split", "dev",
        "--method", args.methods, "--llm", args.llm, "--out", str(out), "--keep-traces",
        "--quiet",
    ]  # fmt: skip
    if args.limit:
        command += ["--limit", str(args.limit)]
    began = time.perf_counter()
    subprocess.run(command, check=True, env=dict(os.environ, KGVIZ_RUNS=str(runs)))
    return time.perf_counter() - began


def traces(runs: Path) -> dict[tuple[str, str], Trace]:
    store = RunStore(runs)
    return {(e.method, e.question): store.load(e.id).trace for e in store.entries()}


def named_subgraphs(trace: Trace) -> list:
    """SimGRAG's retrieved subgraphs by name (their ids are each KG's own)."""
    return [
        (
            found.rank,
            found.gsd,
            found.triples,
            [(node.pattern_node, node.name, node.distance) for node in found.nodes],
            [(edge.pattern_edge, edge.names, edge.distance) for edge in found.edges],
        )
        for found in trace.stages.get("subgraphs") or []
    ]


def compared(memory: Trace, served: Trace) -> list[str]:
    """What differs between the two runs of one question (nothing: an empty list)."""
    differences = [
        part
        for part, same in (
            ("evidence", memory.evidence == served.evidence),
            ("answer", memory.answers == served.answers),
            ("prompts", [c.messages for c in memory.llm_calls]
             == [c.messages for c in served.llm_calls]),
            ("subgraphs", named_subgraphs(memory) == named_subgraphs(served)),
        )
        if not same
    ]  # fmt: skip
    return differences


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm", default="local")
    parser.add_argument("--methods", default=METHODS)
    parser.add_argument("--limit", type=int, default=0, help="at most N questions (0: all 42)")
    parser.add_argument("--keep", type=Path, help="keep the results and runs in this folder")
    parser.add_argument("--compare", type=Path, help="only compare the runs kept in this folder")
    args = parser.parse_args()
    if args.compare:
        memory, endpoint = (
            traces(args.compare / "runs-memory"),
            traces(args.compare / "runs-endpoint"),
        )
        report(memory, endpoint, args.methods.split(","), 0.0, 0.0)
        return
    with tempfile.TemporaryDirectory(prefix="kgviz-eval-store-") as temporary:
        folder = args.keep or Path(temporary)
        folder.mkdir(parents=True, exist_ok=True)
        write_ntriples(get_dataset("demo").kg, folder / "demo.nt")
        oxigraph.load(folder / "demo.nt", folder / "store")
        served = folder / "demo-sparql"
        served.mkdir(exist_ok=True)
        shutil.copy(REPO / "data" / "demo" / "dev.jsonl", served / "dev.jsonl")
        (served / "dataset.toml").write_text(f'domain = "{get_dataset("demo").domain}"\n')
        memory_s = run_eval("demo", folder / "runs-memory", folder / "memory.jsonl", args)
        with oxigraph.served(folder / "store") as (url, _):
            (served / "kb.sparql").write_text(f'endpoint = "{url}"\n')
            served_s = run_eval(
                f"custom:{served}", folder / "runs-endpoint", folder / "endpoint.jsonl", args
            )
        memory, endpoint = traces(folder / "runs-memory"), traces(folder / "runs-endpoint")
    report(memory, endpoint, args.methods.split(","), memory_s, served_s)


def report(
    memory: dict[tuple[str, str], Trace],
    endpoint: dict[tuple[str, str], Trace],
    methods: list[str],
    memory_s: float,
    served_s: float,
) -> None:
    print("| method | questions | same evidence | same subgraphs | same prompts | same answer | "
          "LLM calls not replayed |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for method in methods:
        keys = sorted(k for k in memory if k[0] == method)
        missing = [k for k in keys if k not in endpoint]
        differing = {k: compared(memory[k], endpoint[k]) for k in keys if k in endpoint}
        fresh = sum(not c.cached for k in differing for c in endpoint[k].llm_calls)

        same = {
            part: f"{sum(part not in d for d in differing.values())}/{len(keys)}"
            for part in ("evidence", "subgraphs", "prompts", "answer")
        }
        print(
            f"| {method} | {len(keys)} | {same['evidence']} | {same['subgraphs']} | "
            f"{same['prompts']} | {same['answer']} | {fresh} |"
        )
        for key in missing:
            print(f"  missing over the endpoint: {key[1]!r}")
        for key, parts in differing.items():
            if parts:
                print(f"  {key[1]!r}: {', '.join(parts)} differ")
    print(f"\nkgviz eval: {memory_s:.0f} s in memory (LLM calls made), {served_s:.0f} s over the "
          "endpoint (replayed from the response cache where the prompt is the same)")  # fmt: skip


if __name__ == "__main__":
    main()
