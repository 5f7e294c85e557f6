"""The LLM calls (messages, reply, tokens) and the answer, answers and evidence entities marked."""

from __future__ import annotations

import re
from collections.abc import Iterable

from kgviz.trace import LLMCall, Trace
from kgviz.viz.escape import esc

ANSWER_MARK = "background:#f4b6b6"
EVIDENCE_MARK = "background:#cfe3fb"
PRE = "white-space:pre-wrap;margin:2px 0 8px;padding:6px;background:#f7f7f7;font-size:12px"


def highlight(text: str, answers: Iterable[str] = (), entities: Iterable[str] = ()) -> str:
    """`text` as HTML with whole-word mentions of `answers` and `entities` marked (longest
    first).
    """
    answer_set = set(answers)
    names = sorted({n for n in [*answer_set, *entities] if n.strip()}, key=len, reverse=True)
    if not names:
        return esc(text)
    lookup = {name.casefold(): name in answer_set for name in names}
    alternatives = "|".join(map(re.escape, names))
    pattern = re.compile(rf"(?<!\w)({alternatives})(?!\w)", re.IGNORECASE)
    pieces, last = [], 0
    for match in pattern.finditer(text):
        style = ANSWER_MARK if lookup.get(match.group().casefold()) else EVIDENCE_MARK
        pieces += [
            esc(text[last : match.start()]),
            f'<mark style="{style}">{esc(match.group())}</mark>',
        ]
        last = match.end()
    return "".join([*pieces, esc(text[last:])])


def prompt_view(trace: Trace) -> str:
    """HTML: each LLM call (stage, model, tokens, latency, messages, reply), then the answer."""
    entities = {name for head, _, tail in trace.evidence for name in (head, tail)}
    calls = "".join(_call(call, trace.answers, entities) for call in trace.llm_calls)
    warnings = "".join(f"<li>{esc(w)}</li>" for w in trace.warnings)
    key = (
        f'<mark style="{ANSWER_MARK}">answer</mark> '
        f'<mark style="{EVIDENCE_MARK}">evidence entity</mark>'
    )
    return (
        f'<div style="font:13px sans-serif">'
        f"<div><b>Question:</b> {highlight(trace.question, trace.answers, entities)}</div>"
        f"<div><b>Answer:</b> {highlight(trace.answer, trace.answers, entities)}</div>"
        f'<div style="margin:4px 0">{key}</div>{calls}'
        + (f"<b>Warnings</b><ul>{warnings}</ul>" if warnings else "")
        + "</div>"
    )


def _call(call: LLMCall, answers: list[str], entities: set[str]) -> str:
    head = (
        f"<b>{esc(call.stage)}</b> · {esc(call.backend)}:{esc(call.model)} · "
        f"{call.prompt_tokens:,} prompt"
        + (f" ({call.reused_tokens:,} reused from the prompt cache)" if call.reused_tokens else "")
        + f" + {call.completion_tokens:,} completion tokens · "
        f"{call.latency_s:.2f} s"
        + (" when first computed; replayed from the response cache now" if call.cached else "")
        + (" · <b>cut at the token limit</b>" if call.truncated else "")
        + (f' · <b style="color:#b00020">not used: {esc(call.problem)}</b>' if call.problem else "")
    )
    messages = "".join(
        f"<div><i>{esc(m.get('role', ''))}</i>"
        f'<pre style="{PRE}">{highlight(m.get("content", ""), answers, entities)}'
        f"</pre></div>"
        for m in call.messages
    )
    reply = (
        f'<div><i>reply</i><pre style="{PRE}">{highlight(call.text, answers, entities)}</pre></div>'
    )
    opened = "" if call.problem else " open"  # an attempt that was asked again starts folded
    return f"<details{opened}><summary>{head}</summary>{messages}{reply}</details>"
