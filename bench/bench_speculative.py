"""Speculative decoding against none, on the tuned presets' real prompts: the verified 0.5B model as
the 1.5B reader's draft, or n-gram lookup (no draft model); wall seconds per request and whether
the replies match.

The requests are every LLM call the tuned presets make on the demo's questions (every method,
recorded as the backend sends them, JSON schemas included, by one run with the reply cache off);
each is then sent to two llama.cpp servers of the 1.5B model, in separate processes one after the
other: plain, and with the draft (`--draft N` tokens a step).

    python bench/bench_speculative.py [--draft 4] [--questions 3] [--kind model|ngram]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

SERVE = """
import json, sys, time, xllamacpp
from kgviz.llm.model_files import get_spec, verify_model
params = xllamacpp.CommonParams()
params.model.path = str(verify_model(get_spec("qwen2.5-coder-1.5b")))
params.n_ctx = 4096
params.cpuparams.n_threads = params.cpuparams_batch.n_threads = int(sys.argv[2])
params.verbosity = 0
draft, kind = int(sys.argv[3]), sys.argv[4]
kinds = xllamacpp.common_speculative_type
if draft and kind == "model":
    params.speculative.draft.mparams.path = str(verify_model(get_spec("qwen2.5-coder-0.5b")))
    params.speculative.types = [kinds.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
    params.speculative.draft.n_max = draft
    params.speculative.draft.cpuparams.n_threads = int(sys.argv[2])
    params.speculative.draft.cpuparams_batch.n_threads = int(sys.argv[2])
elif draft:  # n-gram lookup in the prompt and reply so far: no draft model
    params.speculative.types = [kinds.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
    params.speculative.ngram_simple.size_n = 4  # the n-gram looked up
    params.speculative.ngram_simple.size_m = draft  # the tokens that followed it, drafted
server = xllamacpp.Server(params)
for line in open(sys.argv[1]):
    body = json.loads(line)
    start = time.perf_counter()
    reply = server.handle_chat_completions(body)
    seconds = time.perf_counter() - start
    text = reply["choices"][0]["message"]["content"]
    print(json.dumps({"seconds": seconds, "text": text, "usage": reply.get("usage", {})}))
"""
RECORD = """
import json, sys
from kgviz.llm import llamacpp_backend
from kgviz.llm.openai_format import chat_body
from kgviz.session import open_session
generate = llamacpp_backend.LlamaCppBackend._generate
def recorded(self, messages, schema, options):  # every request as the backend sends it
    print(json.dumps(chat_body(self.model, messages, schema, options)), flush=True)
    return generate(self, messages, schema, options)
llamacpp_backend.LlamaCppBackend._generate = recorded
session = open_session("demo", "local", cache_mode="off")
records = session.dataset.questions("dev")
per_hop = int(sys.argv[1])
chosen = [r for hops in (1, 2, 3) for r in [r for r in records if r.hops == hops][:per_hop]]
for method in ("simgrag", "subgraphrag", "gnnrag", "grag", "kaping", "tog"):
    for record in chosen:
        session.ask(method, record)
"""


def run(command: list[str]) -> str:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr[-3000:])
    return done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draft", type=int, default=4, help="draft tokens a step")
    parser.add_argument(
        "--kind",
        choices=("model", "ngram"),
        default="model",
        help="model: the 0.5B model drafts; ngram: tokens that followed the same n-gram earlier "
        "in the prompt or reply are the draft (llama.cpp's ngram-simple)",
    )
    parser.add_argument("--questions", type=int, default=2, help="demo questions per hop")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    print(f"load average at the start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        prompts = Path(folder) / "prompts.jsonl"
        prompts.write_text(run([sys.executable, "-c", RECORD, str(args.questions)]))
        count = len(prompts.read_text().splitlines())
        results = {}
        for label, draft in (("plain", 0), (f"{args.kind} {args.draft}", args.draft)):
            out = run(
                [
                    sys.executable,
                    "-c",
                    SERVE,
                    str(prompts),
                    str(args.threads),
                    str(draft),
                    args.kind,
                ]
            )
            results[label] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        plain, drafted = results.values()
        same = sum(a["text"] == b["text"] for a, b in zip(plain, drafted, strict=True))
        for label, rows in results.items():
            seconds = [row["seconds"] for row in rows]
            print(
                f"{label:<8} {count} requests: median {statistics.median(seconds):.2f} s, "
                f"total {sum(seconds):.1f} s"
            )
        ratio = sum(r["seconds"] for r in drafted) / sum(r["seconds"] for r in plain)
        print(
            f"with the draft / plain: {ratio:.2f}x the time; the same reply for {same} of {count}"
        )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
