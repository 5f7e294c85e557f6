"""The main job (`make demo`): every method on a few built-in demo questions with the chosen LLM."""

from __future__ import annotations

import time

from kgviz.eval.metrics import evidence_recall, score_trace
from kgviz.llm.errors import LLMError
from kgviz.reasoners.registry import method_names
from kgviz.session import open_session


def run_demo(llm_spec: str = "auto", per_hop: int = 1) -> int:
    """Print what each stage produced; return 0 when every method answered every question."""
    start = time.perf_counter()
    session = open_session("demo", llm_spec)
    kg = session.dataset.kg
    print(f"dataset: demo ({kg.num_entities} entities, {kg.num_relations} relations, "
          f"{kg.num_triples} triples)")
    print(f"llm: {session.llm_reason}")
    index = session.context.index
    print(f"index: {len(index.entity_index)} entity and {len(index.relation_index)} relation vectors")
    records = session.dataset.questions("dev")
    chosen = [r for hops in (1, 2, 3) for r in [r for r in records if r.hops == hops][:per_hop]]
    failures = 0
    summary: dict[str, list[int]] = {}
    for method in method_names():
        reasoner = session.reasoner(method)
        for record in chosen:
            print(f"\n[{method}] {record.question}")
            try:
                trace = reasoner.run(record.question, topic_entities=record.topic_entities)
            except LLMError as error:
                print(f"  error: {error}")
                failures += 1
                continue
            hit = score_trace(trace, record.answers).hit1
            recall = evidence_recall(trace.evidence, record.answers)
            summary.setdefault(method, [0, 0, 0])
            summary[method][0] += hit
            summary[method][1] += recall
            summary[method][2] += 1
            print(f"  answer: {' '.join(trace.answer.split())[:200]}")
            print(f"  answers: {', '.join(trace.answers) or '(none)'} | gold: {', '.join(record.answers)}")
            print(f"  hit@1: {'yes' if hit else 'no'}; evidence: {len(trace.evidence)} triples "
                  f"(gold inside: {'yes' if recall else 'no'}); "
                  f"retrieval {trace.timings['retrieval']:.2f}s, total {trace.timings['total']:.2f}s")
            for warning in trace.warnings:
                print(f"  warning: {warning}")
    print("\nmethod        hits@1   gold in evidence")
    for method, (hits, recalls, n) in summary.items():
        print(f"{method:<13} {hits}/{n:<6} {recalls}/{n}")
    print(f"\ndemo finished in {time.perf_counter() - start:.1f}s")
    return 1 if failures else 0
