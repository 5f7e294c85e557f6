"""KAPING as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.presets import PAPER, Preset, tuned
from kgviz.reasoners.spec import MethodSpec

SPEC = MethodSpec(
    name="kaping",
    summary="the triples around the topic entities most similar to the question (KAPING)",
    reasoner="kgviz.reasoners.kaping.reasoner:Kaping",
    prompts="kgviz.reasoners.prompting:baseline_prompts",
    config="kgviz.reasoners.kaping.config:KapingConfig",
    views="kgviz.reasoners.kaping.views:VIEWS",
    presets=(
        tuned("kgviz's defaults."),
        Preset(
            PAPER,
            "The same as tuned: kgviz has not audited KAPING against its paper, so no setting "
            "is claimed to follow it.",
        ),
    ),
)
