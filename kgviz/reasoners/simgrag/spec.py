"""SimGRAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.presets import PAPER, Preset, parts_note, tuned
from kgviz.reasoners.spec import MethodSpec

PAPER_PRESET = Preset(
    PAPER,
    "SimGRAG with its paper's MetaQA settings (App. G: k=3, k(n)=k(r)=16, 12-shot patterns, as "
    "kgviz's defaults already are), without kgviz's additions: no relation hint in the pattern "
    "prompt, no topic re-ask; the paper's answer prompt (12 examples of the dataset's family in "
    "its form, a free-text answer citing its graphs, no re-ask). Not followed: kgviz writes the "
    "examples (for movies; other families use those), as the paper's are not published in full "
    "(docs/results.md compares the two presets). "
    + parts_note("Llama 3 70B (4-bit)", "Nomic embeddings (768-dim)"),
    {
        "relation_hint": False,
        "relation_vocabulary": False,
        "reask_lost_topics": False,
        "pattern_checks": False,
        "own_knowledge": False,
        "answer_format": "paper",
        "answer_reask": False,
        "answer_list": False,
    },
)

SPEC = MethodSpec(
    name="simgrag",
    summary="pattern graph from the LLM, candidate pools, top-k subgraphs by graph semantic "
    "distance (SimGRAG)",
    reasoner="kgviz.reasoners.simgrag.reasoner:SimGRAG",
    config="kgviz.reasoners.simgrag.config:SimGRAGConfig",
    views="kgviz.reasoners.simgrag.views:VIEWS",
    prompts="kgviz.reasoners.simgrag.prompts:method_prompts",
    diagnosis="kgviz.reasoners.simgrag.diagnosis:pattern_problem",
    stages=("pattern",),
    recording_options={"record_tree": True},
    presets=(
        tuned(
            "kgviz's defaults: the paper's k, pools and 12-shot patterns, with a relation "
            "hint, a topic re-ask, checks of the pattern against the question, and the answer "
            "as a list of the subgraphs' names."
        ),
        PAPER_PRESET,
    ),
)
