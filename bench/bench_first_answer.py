"""A user's first answer: fresh `kgviz` processes, timed as a whole, in one run.

1. **Prefix state on against off.** Fresh-process `kgviz ask --cache off` on demo questions,
   once with the persisted prompt-prefix states (kept by `kgviz model prepare --prefixes demo`
   as `make demo`'s set-up does, and the indexes built by one untimed ask) and once
   with `KGVIZ_PREFIX_CACHE=off`, alternating which goes first; each setting has a cache folder
   of its own, so no process of a setting has seen the question. The answers are compared.
2. **A fully cached ask**: the same ask again with `--cache rw` after it was answered once: its
   wall time and peak memory (a loaded 1.5B model alone takes over 1 GB), then where its time
   goes: once more in a fresh process, timed part by part (`_ask_parts.py`: imports, parser,
   session, KG, index, the run's stages, the run store; whether the encoder loaded).
3. **`kgviz methods`**.
4. **`kgviz demo`** (the main job of `make demo`) with an empty response cache.

    python bench/bench_first_answer.py --questions 4 --repeats 3
    python bench/bench_first_answer.py --only-cached-ask --repeats 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _ask_command import ask_command

from kgviz.datasets import get_dataset
from kgviz.paths import models_root

METHOD = "simgrag"


def timed(command: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Wall seconds, peak resident memory (MB) and stdout of one process."""
    start = time.perf_counter()
    result = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stderr[-2000:]}")
    peak_kb = int(result.stderr.strip().splitlines()[-1])
    return wall, peak_kb // 1024, result.stdout


def environment(folder: Path, prefix_state: bool) -> dict[str, str]:
    return {
        **os.environ,
        "KGVIZ_CACHE": str(folder),
        "KGVIZ_MODELS": str(models_root()),
        "KGVIZ_PREFIX_CACHE": "on" if prefix_state else "off",
    }


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def prefix_state_on_off(root: Path, questions: list[str], llm: str) -> None:
    settings = {"on": environment(root / "on", True), "off": environment(root / "off", False)}
    for env in settings.values():  # set-up as `make demo`'s: prefix states, indexes; untimed
        timed([sys.executable, "-m", "kgviz", "model", "prepare", "--prefixes", "demo"], env)
        timed(ask_command("who directed Forrest Gump", METHOD, llm, "off"), env)
    walls: dict[str, list[float]] = {"on": [], "off": []}
    same = 0
    for number, question in enumerate(questions):
        order = ["on", "off"] if number % 2 == 0 else ["off", "on"]
        answers = {}
        for setting in order:
            wall, _, out = timed(ask_command(question, METHOD, llm, "off"), settings[setting])
            walls[setting].append(wall)
            answers[setting] = json.loads(out)["answers"]
            print(f"  {setting:>3}: {wall:6.1f} s  {question}  -> {answers[setting]}", flush=True)
        same += answers["on"] == answers["off"]
    on, off = median(walls["on"]), median(walls["off"])
    print(
        f"fresh-process ask, prefix state on: median {on:.1f} s; off: {off:.1f} s; "
        f"{off / on:.2f}x; same answers on {same} of {len(questions)} questions"
    )


def cached_ask(root: Path, llm: str, repeats: int) -> None:
    env = environment(root / "on", True)
    question = "who directed Forrest Gump"
    timed(ask_command(question, METHOD, llm, "rw"), env)  # recorded once
    runs = [timed(ask_command(question, METHOD, llm, "rw"), env) for _ in range(repeats)]
    answers = {tuple(json.loads(r[2])["answers"]) for r in runs}
    print(
        f"fully cached ask: median {median([r[0] for r in runs]):.2f} s wall, "
        f"peak memory {max(r[1] for r in runs)} MB, answers {sorted(answers)}"
    )
    cached_ask_parts(ask_command(question, METHOD, llm, "rw")[4:], env)


def cached_ask_parts(arguments: list[str], env: dict[str, str]) -> None:
    """The same cached ask once more in a fresh process, timed part by part (`_ask_parts.py`)."""
    probe = Path(__file__).with_name("_ask_parts.py")
    wall, peak, out = timed([sys.executable, str(probe), *arguments], env)
    report = json.loads(out)
    parts = report["parts"]
    inside = sum(parts.values())
    stages = ", ".join(f"{k} {v:.2f}" for k, v in report["stages"].items() if k != "total")
    shown = [f"start-up and exit {wall - inside:.2f}"]
    shown += [f"{k} {v:.2f}" + (f" ({stages})" if k == "ask" else "") for k, v in parts.items()]
    loads = ", ".join(f"{name} {seconds:.2f} s" for name, seconds in report["encoder_s"].items())
    encoder = f"encoder loads: {loads}" if loads else "encoder not loaded"
    print(f"  its parts in one more process ({wall:.2f} s wall, {peak} MB), seconds:")
    print(f"    {'; '.join(shown)}; {encoder}; answers {report['answers']}")


def methods(root: Path, repeats: int) -> None:
    env = environment(root / "on", True)
    walls = [timed([sys.executable, "-m", "kgviz", "methods"], env)[0] for _ in range(repeats)]
    print(f"kgviz methods: median {median(walls):.2f} s")


def demo(root: Path, llm: str) -> None:
    env = environment(root / "on", True)
    shutil.rmtree(root / "on" / "llm-responses", ignore_errors=True)
    page = root / "demo.html"
    wall, _, _ = timed(
        [sys.executable, "-m", "kgviz", "demo", "--llm", llm, "--page", str(page)], env
    )
    print(f"kgviz demo (empty response cache, prefix states kept): {wall:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--llm", default="local")
    parser.add_argument("--skip-demo", action="store_true")
    parser.add_argument(
        "--only-cached-ask",
        action="store_true",
        help="measure only the fully cached ask and its parts (one LLM-answered ask first)",
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"load average at the start: {load:.2f} on {os.cpu_count()} cores")
    records = [r for r in get_dataset("demo").questions("dev") if r.hops == 2]
    questions = [r.question for r in records[1 : 1 + args.questions]]
    with tempfile.TemporaryDirectory(prefix="kgviz-first-answer-") as folder:
        root = Path(folder)
        if not args.only_cached_ask:
            prefix_state_on_off(root, questions, args.llm)
        cached_ask(root, args.llm, args.repeats)
        if not args.only_cached_ask:
            methods(root, args.repeats)
        if not (args.skip_demo or args.only_cached_ask):
            demo(root, args.llm)
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
