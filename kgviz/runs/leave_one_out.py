"""Leave one out: a run's answer generated again once without each of its evidence triples
(`Session.regenerate`), to find the triples the answer rests on: those without which it
changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kgviz.reasoners.prompting import ANSWERING_STAGES
from kgviz.runs.run import Run
from kgviz.session import Session
from kgviz.trace import StringTriple


@dataclass(frozen=True)
class Probe:
    """The run regenerated without `triple`, and whether its committed answers differ from
    the source run's (compared case-insensitively, in any order)."""

    triple: StringTriple
    run: Run
    changed: bool


def answer_key(run: Run) -> frozenset[str]:
    return frozenset(answer.casefold() for answer in run.trace.answers)


def seconds_each(run: Run) -> float:
    """About how long one regeneration of `run` takes: what its answering calls took, the
    answer and its re-asks (their first cost, when replayed from the cache); 0 without LLM
    calls."""
    calls = run.trace.llm_calls
    answering = [call.latency_s for call in calls if call.stage in ANSWERING_STAGES]
    if answering:
        return sum(answering)
    return calls[-1].latency_s if calls else 0.0


def time_left(done: int, planned: int, spent_s: float) -> str:
    """What a progress line says after `done` of `planned` probes took `spent_s` seconds.

    >>> time_left(2, 5, 61.0)
    '2 of 5 done in 61 s, about 92 s left'
    """
    left = spent_s / done * (planned - done) if done else 0.0
    return f"{done} of {planned} done in {spent_s:.0f} s, about {left:.0f} s left"


def leave_one_out(
    session: Session,
    run: Run,
    triples: Sequence[StringTriple],
    heard: Callable[[Probe], None] = lambda probe: None,
) -> list[Probe]:
    """`run` regenerated once without each of `triples` (in order), `heard(probe)` told of
    each as it ends."""
    probes = []
    for triple in triples:
        child = session.regenerate(run, [triple])
        probe = Probe(triple, child, answer_key(child) != answer_key(run))
        heard(probe)
        probes.append(probe)
    return probes
