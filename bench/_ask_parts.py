"""Where one `kgviz ask`'s time goes inside its process, part by part, the way `kgviz ask` runs
it (the same calls in the same order): run in a fresh process as

    python bench/_ask_parts.py ASK-ARGUMENTS...

(the arguments of `kgviz ask`), it prints one JSON object: seconds per part, the run's own stage
timings, and the seconds spent loading each sentence encoder used (the light query path,
sentence-transformers). The parts:

- imports: what `python -m kgviz` imports (`kgviz.cli`), and `kgviz.session`;
- parser: building `kgviz`'s argument parser and parsing the arguments;
- session: the dataset and the LLM's choice (`auto` probes for an Ollama server);
- KG: loading the dataset's graph;
- index: loading (or building) the vector indexes of its names (when the method retrieves);
- ask: the run (grounding, pattern, pools, search, generation: see `stages`) and its judging;
- keep: saving the run in the run store.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from typing import Any


def time_encoder_loads(spent: dict[str, list[float]]) -> None:
    """Append the seconds of each access to `SentenceEncoder.model` (sentence-transformers) and
    to `SentenceEncoder.query_model()` (the light query path) to `spent` under those names; the
    first access of each loads its model."""
    from kgviz.embed.encoder import SentenceEncoder

    def timing(name: str, access: Any) -> Any:
        @functools.wraps(access)
        def timed_access(self: SentenceEncoder) -> Any:
            start = time.perf_counter()
            try:
                return access(self)
            finally:
                spent[name].append(time.perf_counter() - start)

        return timed_access

    model = SentenceEncoder.model.fget
    SentenceEncoder.model = property(timing("sentence-transformers", model))  # type: ignore[method-assign, assignment]
    SentenceEncoder.query_model = timing("light", SentenceEncoder.query_model)  # type: ignore[method-assign]


def main(argv: list[str]) -> dict[str, Any]:
    parts: dict[str, float] = {}
    mark = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal mark
        now = time.perf_counter()
        parts[name] = round(now - mark, 4)
        mark = now

    import kgviz.cli
    from kgviz.session import open_session

    lap("imports")
    encoder: dict[str, list[float]] = {"light": [], "sentence-transformers": []}
    time_encoder_loads(encoder)
    args = kgviz.cli.build_parser().parse_args(["ask", *argv])
    settings = kgviz.cli.parse_settings(args.set)
    lap("parser")
    session = open_session(args.dataset, args.llm, cache_mode=args.cache)
    lap("session")
    session.dataset.kg  # noqa: B018
    lap("KG")
    retrieves = session.reasoner(args.method, **settings).retrieves
    session.warm_up(retrieves, models=False)  # what `ask` loads first (a lazy ask: no models)
    lap("index")
    run = session.ask(args.method, args.question, settings, topics=args.topic, lazy=True)
    lap("ask")
    kgviz.cli.ask.keep(run)
    lap("keep")
    return {
        "parts": parts,
        "stages": {k: round(v, 4) for k, v in run.trace.timings.items()},
        "encoder_s": {name: round(sum(spent), 4) for name, spent in encoder.items() if spent},
        "answers": list(run.trace.answers),
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1:])))
