"""GRAG as kgviz knows it: the registry's entry for this folder."""

from collections.abc import Mapping
from typing import Any

from kgviz.reasoners.presets import PAPER, Preset, parts_note, tuned
from kgviz.reasoners.spec import MethodSpec

HARD_ONLY, HARD_AND_SOFT = "grag (hard prompt)", "grag (hard and soft prompt)"
WHITE_BOX_BACKEND = "hf"  # the reader that takes the graph token (`kgviz.llm.hf_backend`)


def run_label(options: Mapping[str, Any], llm: str) -> str:
    """Which of the paper's two prompts a run fed the reader: `soft_prompt`, or (unset) the
    graph token exactly when the reader is white-box."""
    soft = options.get("soft_prompt")
    on = llm.split(":", 1)[0] == WHITE_BOX_BACKEND if soft is None else bool(soft)
    return HARD_AND_SOFT if on else HARD_ONLY


PAPER_PRESET = Preset(
    PAPER,
    "GRAG with the paper's top-10 2-hop ego-graphs (its Figure 3 sweeps N; 10 is the setting its "
    "retriever comparison shares); the graph token (soft prompt) with a white-box reader (--llm "
    "hf:NAME); no answer re-ask. Not followed: the token's encoder is trained on a short prompt "
    "(token, question, answer) and is smaller than the paper's; the description (the triples "
    "style) is cut to description_tokens to fit the reader's context, hubs expand through "
    "max_degree half-edges and "
    "centres lie within scope_hops of the topic entities (choices the paper leaves open); the gate "
    "was trained with top-3 retrieval; text vectors come from all-MiniLM-L6-v2, a SentenceBERT "
    "model (the paper names none). " + parts_note("a LoRA-tuned Llama-2-7B"),
    {
        "top_n": 10,
        "description_tokens": 1500,
        "description": "triples",
        "answer_reask": False,
        "answer_list": False,
    },
)

SPEC = MethodSpec(
    name="grag",
    summary="top-N k-hop ego-graphs, soft-pruned by a learned gate and described as text (GRAG)",
    # the graph token (soft prompt) needs a white-box reader: with any other only the hard prompt
    label=HARD_ONLY,
    run_label=run_label,
    reasoner="kgviz.reasoners.grag.reasoner:GRAG",
    config="kgviz.reasoners.grag.config:GRAGConfig",
    views="kgviz.reasoners.grag.views:VIEWS",
    prompts="kgviz.reasoners.grag.prompt:method_prompts",
    trainer="kgviz.reasoners.grag.train:main",
    presets=(
        tuned(
            "kgviz's defaults: the top 5 ego-graphs, compact descriptions within 500 tokens, "
            "and the answer as a list of the evidence's names."
        ),
        PAPER_PRESET,
    ),
)
