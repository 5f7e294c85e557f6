"""The white-box reader (`hf`, transformers) against the offline model (`local`, llama.cpp): the
same verified GGUF file, each backend in a fresh process.

Prints per backend: load time, peak resident memory, prompt reading (tokens/s over a ~600-token
prompt no cache has seen) and generation (tokens/s over 48 greedy tokens), and for `hf` the
cost of a one-vector soft prompt; then hf/local ratios.

    python bench/bench_white_box.py [--model qwen2.5-coder-1.5b] [--repeats 2]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
import uuid

PROMPT_WORDS = "the ego graph holds movies, their directors, writers and actors; " * 40
COUNTING = "Write the numbers from 1 to 200 separated by commas."


def child(backend: str, model: str, repeats: int) -> dict[str, float]:
    """Measure one backend in this process (a fresh one)."""
    os.environ["KGVIZ_PREFIX_CACHE"] = "off"  # every prompt is read in full
    from kgviz.llm.select import choose_llm

    llm = choose_llm(f"{backend}:{model}").llm
    start = time.perf_counter()
    llm.warm_up()
    figures = {"load_s": time.perf_counter() - start}
    reads, writes, soft = [], [], []
    for _ in range(repeats):
        nonce = uuid.uuid4().hex  # a prompt no cache has seen
        long = [{"role": "user", "content": f"{nonce} {PROMPT_WORDS} Reply yes."}]
        read = llm.complete(long, max_tokens=1, loop_guard=False)
        reads.append(read.prompt_tokens / read.latency_s)
        short = [{"role": "user", "content": f"{nonce[:8]} {COUNTING}"}]
        first = llm.complete(short, max_tokens=1, loop_guard=False)
        written = llm.complete(short, max_tokens=48, loop_guard=False)
        writes.append((written.completion_tokens - 1) / (written.latency_s - first.latency_s))
        if llm.takes_embeddings:
            import torch

            from kgviz.llm.soft_prompt import SoftPrompt

            vector = SoftPrompt(torch.zeros(1, llm.hidden_size()))
            with_token = llm.complete(short, max_tokens=1, soft_prompt=vector)
            soft.append(with_token.latency_s - first.latency_s)
    figures["prompt_tok_s"] = statistics.median(reads)
    figures["generate_tok_s"] = statistics.median(writes)
    if soft:
        figures["soft_prompt_extra_s"] = statistics.median(soft)
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--child", choices=("local", "hf"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.model, args.repeats)))
        return
    results = {}
    for backend in ("local", "hf"):
        command = [sys.executable, __file__, "--child", backend, "--model", args.model]
        done = subprocess.run(
            [*command, "--repeats", str(args.repeats)],
            capture_output=True,
            text=True,
            check=True,
        )
        results[backend] = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.model}, {os.cpu_count()} cores, {args.repeats} repeat(s), medians")
    print(f"{'figure':<22} {'local':>10} {'hf':>10} {'hf/local':>9}")
    for name in ("load_s", "peak_rss_mb", "prompt_tok_s", "generate_tok_s"):
        local, hf = results["local"][name], results["hf"][name]
        print(f"{name:<22} {local:>10.1f} {hf:>10.1f} {hf / local:>8.2f}x")
    print(f"{'soft_prompt_extra_s':<22} {'':>10} {results['hf']['soft_prompt_extra_s']:>10.2f}")


if __name__ == "__main__":
    main()
