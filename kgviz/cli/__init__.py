"""The `kgviz` command line. Expected failures print one line on stderr and exit non-zero."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from kgviz.cli.environment import check_environment
from kgviz.cli.terminal import json_visible, visible_output
from kgviz.datasets.splits import PARTS
from kgviz.embed.index import IndexKind
from kgviz.errors import KgvizError
from kgviz.llm.cache import CacheMode
from kgviz.llm.redact import redact_text
from kgviz.reasoners.presets import DEFAULT_PRESET, PRESET_NAMES
from kgviz.reasoners.registry import method_names, trainable_methods

if TYPE_CHECKING:
    from kgviz.reasoners.spec import MethodSpec
    from kgviz.runs.run import Run
    from kgviz.runs.store import RunEntry
    from kgviz.trace import Trace

Handler = Callable[[argparse.Namespace], int]


def _print_json(value: object) -> None:
    print(json_visible(json.dumps(value, ensure_ascii=False)))


# ------------------------------------------------------------------------------------ data
def cmd_data_info(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.datasets import get_dataset
    from kgviz.reasoners.topic_links import count_topic_links
    from kgviz.triplestore.graph import SparqlGraph

    dataset = get_dataset(args.name)
    dataset.check_available()
    info: dict[str, Any] = {"name": dataset.name, "root": str(dataset.root)}
    if dataset.per_question_graphs:
        info["graphs"] = "one per question"
    else:
        started = time.perf_counter()
        kg = dataset.kg
        info |= {
            "entities": kg.num_entities,
            "relations": kg.num_relations,
            "triples": kg.stored_triples,
        }
        if isinstance(kg, SparqlGraph):
            info["endpoint"] = kg.config.endpoint
            steps = kg.table.timings or {"name table (cached)": time.perf_counter() - started}
            info["seconds"] = {step: round(seconds, 2) for step, seconds in steps.items()}
    splits = {split: dataset.questions(split) for split in dataset.available_splits()}
    info["splits"] = {split: len(records) for split, records in splits.items()}
    topics = {split: count_topic_links(dataset, records) for split, records in splits.items()}
    info["topics"] = {split: asdict(counts) for split, counts in topics.items()}
    if not dataset.per_question_graphs:
        for counts in info["topics"].values():
            del counts["graph_triples"]
    if args.json:
        _print_json(info)
        return 0
    for key, value in info.items():
        if key != "topics":
            print(f"{key:>10}: {value}")
    for split, counts in topics.items():
        print(
            f"{'topics':>10}: {split}: {counts.reach_kg} of {counts.questions} questions reach "
            f"the KG ({counts.marked_found} of {counts.marked} marked ones found, "
            f"{counts.linked} of {counts.questions - counts.marked} unmarked ones linked by name)"
            + (
                f"; {counts.graph_triples / counts.questions:.0f} triples per question graph"
                if counts.graph_triples
                else ""
            )
        )
    return 0


def cmd_data_export(args: argparse.Namespace) -> int:
    from kgviz.datasets import get_dataset
    from kgviz.triplestore.export import write_ntriples

    dataset = get_dataset(args.name)
    if dataset.per_question_graphs:
        raise KgvizError(f"dataset {dataset.name!r} has one graph per question, not one KG")
    if dataset.kg.fetches:
        raise KgvizError(f"dataset {dataset.name!r} is already in a triple store")
    lines = write_ntriples(dataset.kg, args.out)
    print(f"wrote {lines:,} N-Triples lines to {args.out}")
    return 0


def cmd_data_list(args: argparse.Namespace) -> int:
    from kgviz.datasets import dataset_names, get_dataset

    for name in dataset_names():
        dataset = get_dataset(name)
        try:
            dataset.check_available()
            state = "available, splits: " + (", ".join(dataset.available_splits()) or "none")
        except KgvizError:
            state = "missing: " + dataset.how_to_get()
        print(f"{name:<20} {state}")
    return 0


def cmd_index_build(args: argparse.Namespace) -> int:
    from kgviz.datasets import get_dataset
    from kgviz.embed import KGIndex

    if args.milvus_uri and args.kind != "milvus":
        raise KgvizError("--milvus-uri needs --kind milvus")
    dataset = get_dataset(args.name)
    index = KGIndex.build(dataset.kg, kind=args.kind, progress=True, milvus_uri=args.milvus_uri)
    print(
        f"{dataset.name}: {len(index.entity_index)} entity and {len(index.relation_index)} "
        f"relation vectors indexed ({args.kind})"
    )
    return 0


# ------------------------------------------------------------------------------------ ask
def parse_settings(pairs: Sequence[str]) -> dict[str, object]:
    """`k=3 algorithm=optimized` -> {"k": 3, "algorithm": "optimized"} (JSON values where they
    parse)."""
    settings: dict[str, object] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise KgvizError(f"bad --set {pair!r}: expected KEY=VALUE")
        try:
            settings[key] = json.loads(raw)
        except json.JSONDecodeError:
            settings[key] = raw
    return settings


def cmd_ask(args: argparse.Namespace) -> int:
    from kgviz.session import open_session

    session = open_session(args.dataset, args.llm, cache_mode=args.cache)
    if not args.json:
        print(f"llm: {session.llm_reason}", file=sys.stderr)
    ask = partial(
        session.ask,
        args.method,
        args.question,
        parse_settings(args.set),
        topics=args.topic,
        recording=bool(args.html),  # a page shows every stage: record what the lab records
        lazy=True,  # a reply replayed from the cache loads no LLM
        preset=args.preset,
    )
    run = ask() if args.json else run_streaming(ask)
    entry = keep(run)
    trace = run.trace
    if args.trace:
        trace.save(args.trace)
        print(f"trace written to {args.trace}", file=sys.stderr)
    if args.html:
        from kgviz.storage.atomic import write_text_atomic
        from kgviz.viz.page import run_page

        write_text_atomic(args.html, run_page(run))
        print(f"page written to {args.html}", file=sys.stderr)
    if args.json:
        _print_json({**run.to_json(), "run_id": entry.id if entry else None})
        return 0
    grounding = run.outcome.grounding
    if grounding is not None and not grounding.grounded:
        print(f"kgviz: NOT GROUNDED in this KG: {grounding.warning()}", file=sys.stderr)
    print("(abstained: no answer)" if trace.abstained else trace.answer.strip())
    print(f"\nanswers: {', '.join(trace.answers) or '(none)'}")
    if run.outcome.judged:
        print(outcome_line(run))
    print(f"evidence ({len(trace.evidence)} triples):")
    for head, relation, tail in trace.evidence[:15]:
        print(f"  ({head}, {relation}, {tail})")
    print("timings: " + ", ".join(f"{k} {v:.2f}s" for k, v in trace.timings.items()))
    for warning in trace.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


def keep(run: Run, parent: str | None = None) -> RunEntry | None:
    """Save `run` in the run store (`KGVIZ_RUNS`) and say so on stderr; a store that cannot be
    written is a warning, never the loss of the answer."""
    from kgviz.runs.store import RunStore

    store = RunStore()
    try:
        entry = store.save(run, parent)
    except KgvizError as error:
        print(f"kgviz: warning: the run was not kept: {error}", file=sys.stderr)
        return None
    print(f"run {entry.id} kept in {store.root}", file=sys.stderr)
    return entry


def outcome_line(run: Run) -> str:
    """`hits@1 1 · hit 1 · F1 0.67 (gold: …)`, and for a miss the stage that failed and why."""
    outcome = run.outcome
    assert outcome.score is not None
    score = outcome.score
    line = (
        f"{outcome.verdict()}: hits@1 {score.hit1:d} · hit {score.hit:d} · F1 {score.f1:.2f} "
        f"(gold: {', '.join(outcome.gold)})"
    )
    if outcome.miss is not None and outcome.miss.stage:
        line += f"\nfailed at {outcome.miss.stage}: {outcome.miss.reason}"
    return line


def run_streaming(ask: Callable[..., Run]) -> Run:
    """`ask(listener=...)` with the LLM's replies streamed to stderr as they are written, and a
    line as each stage ends (stdout keeps the final answer only)."""
    from kgviz.llm.streaming import streaming_to
    from kgviz.reasoners.grounding import GROUNDING

    state = {"open": False}

    def close_line() -> None:
        if state["open"]:
            print(file=sys.stderr)
            state["open"] = False

    def call(stage: str) -> None:
        close_line()
        print(f"── {stage}: the LLM writes …\n│ ", end="", file=sys.stderr, flush=True)
        state["open"] = True

    def show(text: str) -> None:
        print(text.replace("\n", "\n│ "), end="", file=sys.stderr, flush=True)

    def stage_done(name: str, trace: Trace) -> None:
        close_line()
        print(f"── {name} done in {trace.timings[name]:.2f} s", file=sys.stderr, flush=True)
        grounding = trace.stages.get(GROUNDING) if name == GROUNDING else None
        if grounding is not None and not grounding.grounded:
            print(f"── NOT GROUNDED: {grounding.warning()}", file=sys.stderr, flush=True)

    try:
        with streaming_to(show, call):
            return ask(listener=stage_done)
    finally:
        close_line()  # an error then starts on a line of its own


def cmd_eval(args: argparse.Namespace) -> int:

    from kgviz.eval.plan import EvalPlan
    from kgviz.eval.runner import run_eval
    from kgviz.runs.store import RunStore
    from kgviz.session import open_session

    methods = [m for value in args.method for m in value.split(",") if m]
    session = open_session(args.dataset, args.llm, cache_mode=args.cache, llm_slots=args.workers)
    print(f"llm: {session.llm_reason}", file=sys.stderr)
    plan = EvalPlan(
        split=args.split,
        part=args.part,
        limit=args.limit,
        sample_seed=args.sample,
        hops=frozenset(args.hops),
        qtypes=frozenset(args.qtype),
    )
    summary = run_eval(
        session,
        methods,
        plan,
        Path(args.out),
        progress=not args.quiet,
        workers=args.workers,
        questions=not args.ids_only,
        settings=parse_settings(args.set),
        store=RunStore() if args.keep_traces else None,
        preset=args.preset,
    )
    _print_json(summary)
    if summary["failed"]:
        print(
            f"kgviz: error: {summary['failed']} question(s) failed and have no row; run the "
            "same command again to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


# ------------------------------------------------------------------------------------ runs
def llm_spec_of(identity: str) -> str:
    """The `--llm` spec that runs the LLM a run names (`llamacpp:M` is `local:M`)."""
    backend, _, model = identity.partition(":")
    if backend == "llamacpp":
        return f"local:{model}"
    if backend == "ollama":
        return identity
    raise KgvizError(f"say which LLM to use with --llm (the run used {identity})")


def cmd_regenerate(args: argparse.Namespace) -> int:

    from kgviz.runs.run import judged_run, parse_triple
    from kgviz.runs.store import RunStore
    from kgviz.session import open_session
    from kgviz.trace import Trace

    store = RunStore()
    if Path(args.source).is_file():
        trace, parent = Trace.load(args.source), None
        source = judged_run(trace)
        llm = args.llm
    else:
        source, parent = store.load(args.source), args.source
        trace = source.trace
        llm = args.llm or llm_spec_of(source.llm)
    if not llm:
        raise KgvizError("say which LLM to use with --llm")
    session = open_session(trace.dataset, llm, cache_mode=args.cache)
    if source.record is None:
        source.record = session.find_question(trace.question)
    run = session.regenerate(
        source, [parse_triple(t) for t in args.drop], [parse_triple(t) for t in args.add]
    )
    entry = keep(run, parent)
    if args.json:
        _print_json(
            {
                **run.to_json(),
                "run_id": entry.id if entry else None,
                "parent": parent,
                "edit": run.trace.stages["edit"].as_json(),
            }
        )
        return 0
    print(run.trace.answer.strip())
    print(
        f"\nanswers: {', '.join(run.trace.answers) or '(none)'} (before: "
        f"{', '.join(source.trace.answers) or '(none)'})"
    )
    if run.outcome.judged:
        print(outcome_line(run))
    return 0


def cmd_runs_list(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.runs.store import RunStore

    wanted = dict(pair.split("=", 1) for pair in args.filter if "=" in pair)
    bad = [pair for pair in args.filter if "=" not in pair]
    if bad:
        raise KgvizError(f"bad --filter {bad[0]!r}: expected KEY=VALUE")
    entries = [
        entry
        for entry in RunStore().entries()
        if all(str(asdict(entry).get(key)) == value for key, value in wanted.items())
    ]
    if args.json:
        _print_json([asdict(entry) for entry in entries])
        return 0
    for entry in entries:
        verdict = "" if entry.hits1 is None else f"hits@1 {entry.hits1:d} F1 {entry.f1:.2f} "
        print(f"{entry.id}  {entry.dataset:<12} {entry.method:<12} {verdict}{entry.question}")
    return 0


def cmd_runs_show(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from kgviz.runs.store import RunStore

    store = RunStore()
    entry, run = store.entry(args.id), store.load(args.id)
    if args.html:
        from kgviz.datasets import get_dataset
        from kgviz.storage.atomic import write_text_atomic
        from kgviz.viz.page import run_page

        dataset = get_dataset(entry.dataset)
        run.kg = dataset.question_graph(run.record) if run.record else dataset.kg
        write_text_atomic(args.html, run_page(run))
        print(f"page written to {args.html}", file=sys.stderr)
    if args.json:
        _print_json({**asdict(entry), **run.to_json()})
        return 0
    print(f"{entry.id}: {entry.method} on {entry.dataset} ({entry.llm}, {entry.time})")
    print(f"{entry.question}\n{run.trace.answer.strip()}")
    print(f"answers: {', '.join(run.trace.answers) or '(none)'}")
    if run.outcome.judged:
        print(outcome_line(run))
    return 0


def cmd_runs_diff(args: argparse.Namespace) -> int:
    from kgviz.runs.diff import diff_runs
    from kgviz.runs.store import RunStore

    store = RunStore()
    diff = diff_runs(store.load(args.a), store.load(args.b))
    if args.json:
        _print_json(diff.as_json())
        return 0
    for side, verdict in zip((args.a, args.b), diff.verdicts, strict=True):
        print(f"{side}: {verdict}")
    for key, (a, b) in diff.options.items():
        print(f"option {key}: {a!r} -> {b!r}")
    for label, part in (("answers", diff.answers), ("evidence", diff.evidence)):
        print(
            f"{label}: {len(part.both)} in both; only in {args.a}: {len(part.only_a)}; "
            f"only in {args.b}: {len(part.only_b)}"
        )
        for item in part.only_a:
            print(f"  - {' | '.join(item) if isinstance(item, tuple) else item}")
        for item in part.only_b:
            print(f"  + {' | '.join(item) if isinstance(item, tuple) else item}")
    return 0


# ------------------------------------------------------------------------------------ methods
def cmd_methods(args: argparse.Namespace) -> int:
    from kgviz.reasoners.registry import method_spec
    from kgviz.runs.run import options_text

    names = args.name or method_names()
    listing = [method_listing(method_spec(name)) for name in names]
    if args.json:
        _print_json(listing)
        return 0
    for entry in listing:
        trained = "  [learned: kgviz train " + entry["name"] + "]" if entry["trainable"] else ""
        print(f"{entry['name']:<12} {entry['summary']}{trained}")
        for option in entry["options"]:
            print(
                f"    --set {option['name']}=  {option['help']} ({option['type']}, default "
                f"{option['default']!r})"
            )
        for preset in entry["presets"]:
            values = options_text(preset["values"])
            print(f"    --preset {preset['name']}: {values}. {preset['description']}")
    return 0


def method_listing(spec: MethodSpec) -> dict[str, Any]:
    """A method's name, label, summary, whether it trains, its options (from its config) and its
    presets: each with its description, the values it sets and every option's value under it."""
    from dataclasses import MISSING, asdict, fields
    from typing import get_type_hints

    from kgviz.reasoners.base import describe_hint, option_help

    config = spec.config_class()
    hints = get_type_hints(config)
    presets = [
        {
            "name": preset.name,
            "description": preset.description,
            "values": dict(preset.values),
            "options": asdict(config(**preset.values)),
        }
        for preset in spec.presets
    ]
    return {
        "name": spec.name,
        "label": spec.shown_as,
        "summary": spec.summary,
        "trainable": bool(spec.trainer),
        "options": [
            {
                "name": f.name,
                "help": option_help(f),
                "type": describe_hint(hints[f.name]),
                "default": None if f.default is MISSING else f.default,
            }
            for f in fields(config)
        ],
        "presets": presets,
    }


# ------------------------------------------------------------------------------------ model, demo
def cmd_model_prepare(args: argparse.Namespace) -> int:
    from kgviz.llm.model_files import prepare_model

    print(prepare_model(args.name))
    if args.prefixes:
        keep_prompt_prefixes(args.name, args.prefixes)
    return 0


def keep_prompt_prefixes(model: str, dataset: str) -> None:
    """Read each method's fixed prompt prefix for `dataset` once with the offline `model`, so
    that its state is saved and a fresh process restores it instead of reading it."""
    import time

    from kgviz.datasets import get_dataset
    from kgviz.llm.llamacpp_backend import LlamaCppBackend
    from kgviz.llm.prefix_state import PREFIX_ENV, prefix_cache_on
    from kgviz.reasoners.prompt_prefixes import prompt_prefixes

    if not prefix_cache_on():
        print(f"prompt prefixes: none kept ({PREFIX_ENV}=off)")
        return
    backend = LlamaCppBackend(model)
    for name, prefix in prompt_prefixes(get_dataset(dataset).domain).items():
        start = time.perf_counter()
        read = backend.keep_prefix(prefix)
        said = f"read {read} tokens in {time.perf_counter() - start:.1f} s" if read > 2 else "kept"
        print(f"prompt prefix of {name} ({dataset}): {said}")


def cmd_demo(args: argparse.Namespace) -> int:

    from kgviz.demo import run_demo

    return run_demo(llm_spec=args.llm, per_hop=args.per_hop, page=Path(args.page))


def cmd_train(args: argparse.Namespace) -> int:
    from kgviz.reasoners.registry import method_spec

    trainable = trainable_methods()
    if args.method not in trainable:
        raise KgvizError(f"no trainer for {args.method!r}; trainable: {', '.join(trainable)}")
    return int(method_spec(args.method).trainer_main()(args.options) or 0)


# ------------------------------------------------------------------------------------ doctor
def cmd_doctor(args: argparse.Namespace) -> int:
    from kgviz.cli.doctor import doctor_rows

    rows = doctor_rows()
    if args.json:
        _print_json(rows)
        return 0
    for row in rows:
        mark = "ok " if row["status"] == "ok" else "-- "
        line = f"{mark}{row['component']:<28} {row['detail']}"
        if row["status"] != "ok" and row.get("fix"):
            line += f"\n     fix: {row['fix']}"
        print(line)
    return 0


def cmd_report(args: argparse.Namespace) -> int:

    from kgviz.datasets import get_dataset
    from kgviz.eval.rows import attach_questions
    from kgviz.eval.tables import common_questions
    from kgviz.viz.report import load_rows, write_report

    rows = load_rows([Path(p) for p in args.results], allow_mixed=args.allow_mixed)
    if args.common:
        rows = common_questions(rows)
        if not rows:
            raise KgvizError("no question was answered by every method in these files")
    for name in args.dataset:
        rows = attach_questions(rows, get_dataset(name).questions(args.split))
    print(
        write_report(
            rows,
            html_path=args.html and Path(args.html),
            markdown_path=args.markdown and Path(args.markdown),
        ),
        end="",
    )
    return 0


def cmd_rescore(args: argparse.Namespace) -> int:
    import json
    from contextlib import ExitStack

    from kgviz.datasets import get_dataset
    from kgviz.eval.rescore import rescore_rows
    from kgviz.eval.results_file import read_results
    from kgviz.eval.summary import summarize
    from kgviz.eval.writer_lock import sole_writer
    from kgviz.reasoners.linking import EntityNames
    from kgviz.storage.atomic import write_text_atomic
    from kgviz.viz.report import require_files

    gold: dict[str, list[str]] = {}
    names: dict[str, EntityNames] = {}
    for name in args.dataset:
        dataset = get_dataset(name)
        shared = None if dataset.per_question_graphs else EntityNames(dataset.kg)
        for record in dataset.questions(args.split):
            gold[record.qid] = list(record.answers)
            names[record.qid] = shared or EntityNames(dataset.question_graph(record))
    paths = [Path(p) for p in args.results]
    require_files(paths)
    with ExitStack() as held:  # one writer: a file a run still writes is refused
        for path in paths:
            held.enter_context(sole_writer(path))
        rescored = {
            path: rescore_rows(read_results(path), gold, names)  # all, or none
            for path in paths
        }
        for path, rows in rescored.items():
            write_text_atomic(
                path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
            )
            print(
                f"{path}: {len(rows)} rows re-scored, hits@1 {summarize(rows)['hits@1']:.3f}",
                file=sys.stderr,
            )
    return 0


# ------------------------------------------------------------------------------------ parser
def hop_counts(text: str) -> tuple[int, ...]:
    """An argparse type: hop counts separated by commas, e.g. `1,3`."""
    return tuple(positive_int(part.strip()) for part in text.split(",") if part.strip())


def names_list(text: str) -> tuple[str, ...]:
    """An argparse type: names separated by commas."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def add_llm_argument(parser: argparse.ArgumentParser) -> None:
    """`--llm`, with the backend table's grammar and summaries as its help."""
    from kgviz.llm.select import BACKENDS

    kinds = "; ".join(f"{kind.grammar}: {kind.summary}" for kind in BACKENDS)
    parser.add_argument("--llm", default="auto", metavar="SPEC", help=f"the LLM: {kinds}")


def add_preset_argument(parser: argparse.ArgumentParser, whose: str) -> None:
    """`--preset`: a named set of options (`kgviz methods NAME` lists each method's)."""
    parser.add_argument(
        "--preset",
        choices=PRESET_NAMES,
        default=DEFAULT_PRESET,
        help=f"{whose} preset: tuned (kgviz's defaults) or paper (its paper where kgviz's parts "
        "allow; `kgviz methods NAME` says what each sets and what it cannot follow)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kgviz", description="Knowledge-graph RAG lab")
    commands = parser.add_subparsers(dest="command", required=True)

    doctor = commands.add_parser("doctor", help="check LLM backends, models, datasets and indexes")
    doctor.add_argument("--json", action="store_true")
    doctor.set_defaults(handler=cmd_doctor)

    data = commands.add_parser("data", help="inspect datasets").add_subparsers(
        dest="data_command", required=True
    )
    info = data.add_parser("info", help="counts of a dataset's KG and splits")
    info.add_argument("name")
    info.add_argument("--json", action="store_true")
    info.set_defaults(handler=cmd_data_info)
    data.add_parser("list", help="known datasets and whether their files are present").set_defaults(
        handler=cmd_data_list
    )
    export = data.add_parser(
        "export", help="a dataset's KG as N-Triples, to load into a triple store"
    )
    export.add_argument("name")
    export.add_argument("out", type=Path, help="the .nt file to write")
    export.set_defaults(handler=cmd_data_export)

    methods = commands.add_parser("methods", help="the methods, what each retrieves, its options")
    methods.add_argument("name", nargs="*", help="only these methods")
    methods.add_argument("--json", action="store_true")
    methods.set_defaults(handler=cmd_methods)

    ask = commands.add_parser("ask", help="answer one question with one method")
    ask.add_argument("question", help="the question; [Name] marks a topic entity")
    ask.add_argument("--dataset", default="demo")
    ask.add_argument("--method", default="simgrag", help="one of: " + ", ".join(method_names()))
    add_llm_argument(ask)
    ask.add_argument("--topic", action="append", default=[], help="a topic entity (repeatable)")
    ask.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a method option, e.g. --set k=5 (repeatable; `kgviz methods` lists them); it "
        "wins over the preset's",
    )
    add_preset_argument(ask, "the method's")
    ask.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    ask.add_argument("--json", action="store_true", help="print the contract JSON object")
    ask.add_argument("--trace", metavar="FILE", help="save the whole trace as JSON (Trace.load)")
    ask.add_argument(
        "--html",
        metavar="FILE",
        help="write a self-contained page with the answer and every stage view",
    )
    ask.set_defaults(handler=cmd_ask)

    regenerate = commands.add_parser(
        "regenerate", help="answer a kept run again on its evidence, edited (what-if)"
    )
    regenerate.add_argument("source", help="a kept run's id (`kgviz runs list`) or a trace file")
    regenerate.add_argument(
        "--drop", action="append", default=[], metavar="'H | R | T'", help="a triple to take out"
    )
    regenerate.add_argument(
        "--add", action="append", default=[], metavar="'H | R | T'", help="a triple to put in"
    )
    regenerate.add_argument(
        "--llm", default="", metavar="SPEC", help="the LLM (default: the one the run used)"
    )
    regenerate.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    regenerate.add_argument("--json", action="store_true")
    regenerate.set_defaults(handler=cmd_regenerate)

    runs = commands.add_parser("runs", help="the runs kept in KGVIZ_RUNS").add_subparsers(
        dest="runs_command", required=True
    )
    listing = runs.add_parser("list", help="every kept run with its verdict")
    listing.add_argument("--json", action="store_true")
    listing.add_argument(
        "--filter", action="append", default=[], metavar="KEY=VALUE", help="e.g. method=simgrag"
    )
    listing.set_defaults(handler=cmd_runs_list)
    show = runs.add_parser("show", help="one kept run")
    show.add_argument("id")
    show.add_argument("--json", action="store_true")
    show.add_argument("--html", metavar="FILE", help="write its self-contained page")
    show.set_defaults(handler=cmd_runs_show)
    diff = runs.add_parser("diff", help="two kept runs: answers, verdicts, evidence, options")
    diff.add_argument("a")
    diff.add_argument("b")
    diff.add_argument("--json", action="store_true")
    diff.set_defaults(handler=cmd_runs_diff)

    evaluate = commands.add_parser("eval", help="run methods over a dataset split (resumable)")
    evaluate.add_argument("--dataset", required=True)
    evaluate.add_argument("--split", required=True)
    evaluate.add_argument(
        "--method",
        action="append",
        required=True,
        help="a method, or several separated by commas (repeatable)",
    )
    evaluate.add_argument("--part", choices=PARTS, help="only this deterministic part of the split")
    evaluate.add_argument(
        "--hops",
        type=hop_counts,
        default=(),
        metavar="N[,N…]",
        help="only questions of these hop counts, e.g. --hops 2,3",
    )
    evaluate.add_argument(
        "--qtype",
        type=names_list,
        default=(),
        metavar="TYPE[,TYPE…]",
        help="only questions of these types (the dataset's labels, e.g. movie_to_director)",
    )
    evaluate.add_argument("--limit", type=positive_int, help="at most N questions")
    evaluate.add_argument(
        "--sample", type=int, metavar="SEED", help="shuffle questions with SEED first"
    )
    add_llm_argument(evaluate)
    evaluate.add_argument(
        "--cache", choices=get_args(CacheMode), default="rw", help="LLM response cache"
    )
    evaluate.add_argument("--out", required=True, help="JSONL results file (appended; resumes)")
    evaluate.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        help="questions in flight at once; the offline model serves as many at once "
        "(llama.cpp parallel slots), a server backend caps them at what it serves",
    )
    evaluate.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of every method run, e.g. --set top_k=30 (repeatable; the rows record "
        "it); it wins over the preset's",
    )
    add_preset_argument(evaluate, "each method's")
    evaluate.add_argument("--quiet", action="store_true", help="no progress bar")
    evaluate.add_argument(
        "--keep-traces",
        action="store_true",
        help="keep every run with its trace in the run store (KGVIZ_RUNS; `kgviz runs list`)",
    )
    evaluate.add_argument(
        "--ids-only",
        action="store_true",
        help="name questions by qid only, without their text and gold answers "
        "(to publish results apart from the dataset)",
    )
    evaluate.set_defaults(handler=cmd_eval)

    report = commands.add_parser("report", help="tables and charts of `kgviz eval` results")
    report.add_argument("results", nargs="+", help="JSONL results files")
    report.add_argument("--html", help="write a self-contained HTML report here")
    report.add_argument("--markdown", help="write the Markdown tables here (also printed)")
    report.add_argument(
        "--dataset",
        action="append",
        default=[],
        help="add question text and gold answers from this dataset (repeatable)",
    )
    report.add_argument("--split", default="dev", help="the split the questions came from")
    report.add_argument(
        "--common", action="store_true", help="only questions that every method answered"
    )
    report.add_argument(
        "--allow-mixed",
        action="store_true",
        help="pool rows of one method label that differ in code version, options, LLM model "
        "file or checkpoint card (refused by default; presets and --set options are labelled "
        "apart anyway)",
    )
    report.set_defaults(handler=cmd_report)

    rescore = commands.add_parser(
        "rescore", help="recompute the metrics of results files from their committed answers"
    )
    rescore.add_argument("results", nargs="+", help="JSONL results files (rewritten in place)")
    rescore.add_argument(
        "--dataset",
        action="append",
        required=True,
        help="the dataset the questions came from (repeatable)",
    )
    rescore.add_argument("--split", default="dev", help="the split the questions came from")
    rescore.set_defaults(handler=cmd_rescore)

    model = commands.add_parser("model", help="offline LLM files").add_subparsers(
        dest="model_command", required=True
    )
    prepare = model.add_parser("prepare", help="download, join and verify an offline model")
    prepare.add_argument("name", nargs="?", default="qwen2.5-coder-1.5b")
    prepare.add_argument(
        "--prefixes",
        metavar="DATASET",
        help="also read each method's fixed prompt prefix for DATASET's questions once and keep "
        "its state, so that a fresh process restores it (SimGRAG's pattern prompt: about "
        "1,200 tokens, 37 s to read on 2 cores, 0.07 s to restore)",
    )
    prepare.set_defaults(handler=cmd_model_prepare)

    demo = commands.add_parser("demo", help="the main job: every method on demo questions")
    add_llm_argument(demo)
    demo.add_argument("--per-hop", type=positive_int, default=1, help="questions per hop count")
    demo.add_argument(
        "--page",
        default="artifacts/demo.html",
        help="where to write the HTML page of the runs (default: %(default)s)",
    )
    demo.set_defaults(handler=cmd_demo)

    train = commands.add_parser("train", help="train a method's learned retriever on a dataset")
    train.add_argument("method", help=", ".join(trainable_methods()))
    train.add_argument(
        "options", nargs=argparse.REMAINDER, help="passed to the trainer (see --help)"
    )
    train.set_defaults(handler=cmd_train)

    index = commands.add_parser("index", help="vector indexes").add_subparsers(
        dest="index_command", required=True
    )
    build = index.add_parser("build", help="embed and index a dataset's entities and relations")
    build.add_argument("name")
    build.add_argument("--kind", choices=get_args(IndexKind), default="flat")
    build.add_argument(
        "--milvus-uri",
        metavar="URI",
        help="a Milvus server (http://host:19530; token from KGVIZ_MILVUS_TOKEN) or a "
        "Milvus Lite file (*.db); default: milvus.db in the index cache folder",
    )
    build.set_defaults(handler=cmd_index_build)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    with visible_output():  # no control character of a question, reply or name reaches it raw
        args = parser.parse_args(argv)
        try:
            check_environment()
            return args.handler(args)
        except KgvizError as error:
            print(f"kgviz: error: {redact_text(str(error))}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("kgviz: interrupted", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
