"""ToG's walk as HTML: one section a depth with the beam it started from, each entity's relations
(the kept ones with their scores), the candidates the beam kept and, folded, those it pruned and
why, then the "enough?" decision with its reason; the calls and tokens each depth took."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.reasoners.tog.records import Candidate, Decision, Depth, RelationChoice, Walk
from kgviz.viz.escape import esc

STYLE = (
    "<style>.kgviz-tog{font:13px sans-serif;max-width:100%;overflow-wrap:anywhere}"
    ".kgviz-tog table{border-collapse:collapse;margin:4px 0}"
    ".kgviz-tog td,.kgviz-tog th{border:1px solid #ddd;padding:2px 6px;text-align:left;"
    "vertical-align:top}.kgviz-tog .gold{font-weight:bold;color:#b8860b}"
    ".kgviz-tog .pruned{color:#777}.kgviz-tog h4{margin:10px 0 4px}</style>"
)
ENDED = {
    "enough": "the LLM judged the paths enough",
    "depth": "the walk reached its depth without 'enough'",
    "no candidates": "no candidate was left to walk to",
    "no topic entity": "the question has no topic entity in the KG",
}


def walk_html(walk: Walk, gold: Sequence[str] = ()) -> str:
    """The whole walk; a candidate naming a gold answer is marked."""
    golden = {name.casefold() for name in gold}
    sections = [_depth_html(step, golden) for step in walk.depths]
    ended = ENDED.get(walk.ended, walk.ended)
    return (
        f'{STYLE}<div class="kgviz-tog"><p><b>ToG</b>: {len(walk.depths)} depth(s), '
        f"{sum(step.calls for step in walk.depths)} LLM call(s); ended: {esc(ended)}.</p>"
        + "".join(sections)
        + "</div>"
    )


def _depth_html(step: Depth, golden: set[str]) -> str:
    kept = [candidate for candidate in step.candidates if candidate.kept]
    pruned = [candidate for candidate in step.candidates if not candidate.kept]
    heading = (
        f"<h4>Depth {step.depth}: from {esc(', '.join(step.beam))} "
        f"({step.calls} call(s), {step.tokens:,} tokens)</h4>"
    )
    parts = [
        heading,
        _relations_html(step.relations),
        f"<p>kept {len(kept)} of {len(step.candidates)} candidate(s):</p>",
        _candidates_html(kept, golden),
    ]
    if pruned:
        parts.append(
            f"<details><summary>{len(pruned)} pruned candidate(s)</summary>"
            f"{_candidates_html(pruned, golden)}</details>"
        )
    if step.decision is not None:
        parts.append(_decision_html(step.decision))
    return "".join(parts)


def _relations_html(choices: Sequence[RelationChoice]) -> str:
    rows = "".join(
        f"<tr><td>{esc(choice.entity)}</td><td>{len(choice.listed)}</td><td>"
        + ", ".join(f"{esc(name)} ({score:.2f})" for name, score in zip(choice.kept, choice.scores))
        + (f' <span class="pruned">{esc(choice.note)}</span>' if choice.note else "")
        + "</td></tr>"
        for choice in choices
    )
    return (
        "<table><tr><th>entity</th><th>relations listed</th><th>kept (score)</th></tr>"
        f"{rows}</table>"
    )


def _candidates_html(candidates: Sequence[Candidate], golden: set[str]) -> str:
    def row(candidate: Candidate) -> str:
        arrow = "→" if candidate.forward else "←"
        mark = ' class="gold"' if candidate.neighbour.casefold() in golden else ""
        why = f'<td class="pruned">{esc(candidate.why)}</td>' if not candidate.kept else "<td></td>"
        return (
            f"<tr><td>{esc(candidate.entity)}</td><td>{arrow} {esc(candidate.relation)}</td>"
            f"<td{mark}>{esc(candidate.neighbour)}</td><td>{candidate.score:.3f}</td>{why}</tr>"
        )

    return (
        "<table><tr><th>from</th><th>relation</th><th>to</th><th>score</th><th></th></tr>"
        + "".join(map(row, candidates))
        + "</table>"
    )


def _decision_html(decision: Decision) -> str:
    verdict = "yes" if decision.enough else "no"
    answers = f"; answers: {esc(', '.join(decision.answers))}" if decision.answers else ""
    return f"<p><b>enough? {verdict}</b> — {esc(decision.reason)}{answers}</p>"
