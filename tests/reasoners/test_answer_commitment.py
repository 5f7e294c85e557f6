"""Replies that commit: SubgraphRAG's top_k="auto", and the one re-ask of a reply that commits to
nothing, driven by the real offline model."""

import pytest

from kgviz.reasoners.prompting import answer_messages, generate_answer
from kgviz.reasoners.subgraphrag.reasoner import SubgraphRAGConfig, resolved_top_k
from kgviz.trace import REASK_STAGE, Trace


@pytest.mark.parametrize(
    "model, k",
    [
        ("qwen2.5-coder-1.5b", 30),
        ("qwen2.5-coder:0.5b", 30),
        ("llama3.1:70b", 100),
        ("qwen2.5:7b-instruct", 100),
        ("mistral", 100),
    ],
)
def test_top_k_auto_follows_the_reader_size(model, k):
    assert SubgraphRAGConfig().top_k == "auto"
    assert resolved_top_k("auto", model) == k and resolved_top_k(12, model) == 12


@pytest.mark.slow
def test_a_reply_without_an_answer_gets_one_reask(tmp_cache, local_llm):
    llm = local_llm
    seen: list[str] = []

    def nothing_commits(reply: str) -> list[str]:
        seen.append(reply)
        return []

    def answered(extract, **options) -> Trace:
        trace = Trace(method="llm-only", question="who directed Forrest Gump")
        generate_answer(trace, llm, answer_messages(trace.question), 32, extract, **options)
        return trace

    trace = answered(nothing_commits)
    assert [call.stage for call in trace.llm_calls] == ["generation", REASK_STAGE]
    assert trace.reasked and trace.answers == [] and len(seen) == 2
    reask = trace.llm_calls[1].messages
    assert (
        reask[-2] == {"role": "assistant", "content": seen[0]}
        and "Reply again" in reask[-1]["content"]
    )
    # a re-ask may be a function of the reply it answers
    trace = answered(nothing_commits, reask=lambda reply: f"You wrote {len(reply)} characters.")
    first = trace.llm_calls[0].text.strip()
    assert trace.llm_calls[1].messages[-1]["content"] == f"You wrote {len(first)} characters."
    trace = answered(lambda reply: [reply])
    assert not trace.reasked and len(trace.llm_calls) == 1
    # the last resort decides only once the re-ask committed to nothing either
    trace = answered(nothing_commits, fallback=lambda reply: ["listed"])
    assert trace.reasked and trace.answers == ["listed"] and len(trace.llm_calls) == 2
    # without the re-ask (the paper presets) the last resort reads the first reply at once
    trace = answered(nothing_commits, fallback=lambda reply: [reply], answer_reask=False)
    assert not trace.reasked and len(trace.llm_calls) == 1
    assert trace.answers == [trace.llm_calls[0].text.strip()]
    # a re-ask may follow the question directly, leaving the failed reply out (SubgraphRAG)
    trace = answered(nothing_commits, reask_shows_reply=False)
    question_turns = answer_messages(trace.question)
    assert trace.llm_calls[1].messages[:-1] == question_turns
    assert trace.llm_calls[1].messages[-1]["role"] == "user"
