"""Think-on-Graph as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.presets import PAPER, Preset, parts_note, tuned
from kgviz.reasoners.spec import MethodSpec

PAPER_PRESET = Preset(
    PAPER,
    "ToG with its paper's settings: width 3, depth 3, 5 entities kept of a relation with 20 or "
    "more (a random sample), relations and entities pruned by the LLM at temperature 0.4, an "
    "'enough?' call at every depth in free text, and an answer from the paths found (or the "
    "model's own knowledge) when the walk ends without 'yes'. Not followed: kgviz writes its own "
    "prompts, and a KG relation is named as the KG names it, marked (inverse) where the entity "
    "has it both ways. " + parts_note("ChatGPT or GPT-4"),
    {
        "pruner": "llm",
        "exploration_temperature": 0.4,
        "paths_as": "triples",
        "answer_list": False,
        "answer_reask": False,
    },
)

SPEC = MethodSpec(
    name="tog",
    summary="the LLM walks the KG by beam search, pruning relations and entities, until the "
    "paths are enough (Think-on-Graph)",
    reasoner="kgviz.reasoners.tog.reasoner:ToG",
    config="kgviz.reasoners.tog.config:ToGConfig",
    views="kgviz.reasoners.tog.views:VIEWS",
    prompts="kgviz.reasoners.tog.prompts:method_prompts",
    diagnosis="kgviz.reasoners.tog.diagnosis:lost_path",
    stages=("relation pruning", "entity pruning", "reasoning"),
    presets=(
        tuned(
            "kgviz's defaults: relations and entities pruned by similarity to the question (no "
            "LLM call), the paths read as chains from the topic entity, the 'enough?' decision "
            "and the answer as JSON constrained to the paths' names."
        ),
        PAPER_PRESET,
    ),
)
