"""Benchmark of the offline LLM on this machine.

Prints: model verification and load time, prompt and generation throughput (llama.cpp's own
timings), the latency of pattern-extraction calls sharing a fixed few-shot prefix (the first
evaluates the prefix, the rest reuse it from llama.cpp's prompt cache), and peak resident memory.

    python bench/bench_llm.py [--model qwen2.5-coder-1.5b] [--threads 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import time

from kgviz.llm.llamacpp_backend import LlamaCppBackend, default_threads
from kgviz.llm.model_files import get_spec, prepare_model, verify_model
from kgviz.llm.openai_format import chat_body

SCHEMA = {
    "type": "object",
    "properties": {
        "triples": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "items": {
                "type": "object",
                "required": ["head", "relation", "tail"],
                "properties": {
                    "head": {"type": "string"},
                    "relation": {"type": "string"},
                    "tail": {"type": "string"},
                },
            },
        }
    },
    "required": ["triples"],
}
EXAMPLES = [
    ("what movies did Tom Hanks star in", [["Tom Hanks", "starred_actors_of", "UNKNOWN_1"]]),
    (
        "who wrote the films directed by Sofia Coppola",
        [["UNKNOWN_1", "directed_by", "Sofia Coppola"], ["UNKNOWN_1", "written_by", "UNKNOWN_2"]],
    ),
    (
        "what languages are the movies starring Jackie Chan in",
        [["UNKNOWN_1", "starred_actors", "Jackie Chan"], ["UNKNOWN_1", "in_language", "UNKNOWN_2"]],
    ),
    ("when was Inception released", [["Inception", "release_year", "UNKNOWN_1"]]),
    (
        "which genres are the films written by the writer of Heat",
        [
            ["Heat", "written_by", "UNKNOWN_1"],
            ["UNKNOWN_2", "written_by", "UNKNOWN_1"],
            ["UNKNOWN_2", "has_genre", "UNKNOWN_3"],
        ],
    ),
    (
        "who acted in the movies directed by Ridley Scott",
        [
            ["UNKNOWN_1", "directed_by", "Ridley Scott"],
            ["UNKNOWN_1", "starred_actors", "UNKNOWN_2"],
        ],
    ),
]
QUESTIONS = [
    "who directed the movies that Tom Hanks acted in",
    "what genre is The Godfather",
    "which actors starred in films written by Quentin Tarantino",
    "what year were the movies directed by Kathryn Bigelow released",
    "who wrote Big",
]


def few_shot_prefix() -> list[dict[str, str]]:
    """A fixed system prompt with worked examples: identical bytes for every question."""
    shots = "\n\n".join(
        f"Question: {q}\nPattern: "
        + json.dumps(
            {"triples": [dict(zip(("head", "relation", "tail"), t, strict=True)) for t in triples]}
        )
        for q, triples in EXAMPLES
    )
    return [
        {
            "role": "system",
            "content": (
                "You translate a question about movies into a query graph pattern: a list of "
                "triples (head, relation, tail). Keep entity names exactly as written in the "
                "question. Name each unknown entity UNKNOWN_1, UNKNOWN_2, ... Use relations such "
                "as directed_by, written_by, starred_actors, release_year, in_language, "
                "has_genre, has_tags. Reply with JSON only."
                "\n\nExamples:\n\n" + shots
            ),
        }
    ]


def raw_timings(backend: LlamaCppBackend, messages: list[dict[str, str]], max_tokens: int) -> dict:
    """llama.cpp's own timings for one request (prompt_n, prompt_per_second, predicted_...)."""
    loaded = backend.load()
    body = chat_body(backend.model, messages, None, backend.options(max_tokens=max_tokens))
    with loaded.lock:
        return loaded.server.handle_chat_completions(body)["timings"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument(
        "--threads", type=int, default=None, help="default: KGVIZ_LLM_THREADS or the cores"
    )
    args = parser.parse_args()
    prepare_model(args.model, progress=False)
    spec = get_spec(args.model)
    backend = LlamaCppBackend(args.model, threads=args.threads or default_threads())

    start = time.perf_counter()
    verify_model(spec)
    verify_s = time.perf_counter() - start
    start = time.perf_counter()
    backend.load()
    load_s = time.perf_counter() - start

    prefix = few_shot_prefix()
    calls = [
        backend.complete(prefix + [{"role": "user", "content": f"Question: {q}"}], SCHEMA)
        for q in QUESTIONS
    ]  # the first evaluates the prefix, the others reuse it
    reuse = raw_timings(
        backend, prefix + [{"role": "user", "content": "Question: who wrote Heat"}], 1
    )
    unrelated = [
        {"role": "user", "content": "Summarise these notes:\n" + prefix[0]["content"][::-1]}
    ]
    prompt = raw_timings(backend, unrelated, 1)  # nothing cached: pure prompt evaluation
    generation = raw_timings(
        backend, [{"role": "user", "content": "Count from 1 to 300, separated by spaces."}], 128
    )
    warm = [c.latency_s for c in calls[1:]]
    figures = {
        "model": spec.name,
        "threads": backend.threads,
        "load_average_1min": round(os.getloadavg()[0], 2),  # other jobs slow every figure below
        "verify_fast_path_s": round(verify_s, 3),
        "load_s": round(load_s, 2),
        "prompt_tokens": prompt["prompt_n"],
        "prompt_tok_per_s": round(prompt["prompt_per_second"], 1),
        "generation_tokens": generation["predicted_n"],
        "generation_tok_per_s": round(generation["predicted_per_second"], 1),
        "pattern_call_cold_prefix_s": round(calls[0].latency_s, 2),
        "pattern_call_warm_prefix_median_s": round(statistics.median(warm), 2),
        "pattern_call_warm_prefix_max_s": round(max(warm), 2),
        "pattern_prompt_tokens": calls[0].prompt_tokens,
        "pattern_prefix_tokens_reused": reuse["cache_n"],
        "pattern_completion_tokens_mean": round(
            statistics.mean(c.completion_tokens for c in calls), 1
        ),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    for key, value in figures.items():
        print(f"{key:36} {value}")
    for question, call in zip(QUESTIONS, calls, strict=True):
        print(f"  {call.latency_s:5.2f} s  {question!r} -> {json.dumps(call.parsed['triples'])}")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
