"""GNN-RAG as kgviz knows it: the registry's entry for this folder."""

from kgviz.reasoners.presets import PAPER, Preset, parts_note, tuned
from kgviz.reasoners.spec import MethodSpec

PAPER_PRESET = Preset(
    PAPER,
    "GNN-RAG with its paper's settings where kgviz's parts allow: kgviz's GNN trained as the "
    "paper trains its own "
    "(gnn=paper: no entity-name vectors, no reachability prior, 2,000-node subgraphs; the "
    "packaged GNN's 3,000 templated questions and schedule), a "
    "2,000-node subgraph (App. C; kgviz cuts it by personalised PageRank, the paper by "
    "PageRank-Nibble), candidates by probability mass (capped at 1,000, the option's most), "
    "every shortest path to them (at most 100 per candidate), no answer re-ask. Not followed: "
    "at most 100 paths in all, about what the reader's 4,096-token context holds; the GNN is "
    "kgviz's smaller ReaRev-like model (docs/results.md compares the two presets). "
    + parts_note("RoG's fine-tuned LLaMA2-Chat-7B"),
    {
        "max_nodes": 2000,
        "max_candidates": 1000,
        "paths_per_candidate": 100,
        "max_paths": 100,
        "reach_prior": False,
        "answer_reask": False,
        "answer_list": False,
        "gnn": "paper",
    },
)

SPEC = MethodSpec(
    name="gnnrag",
    summary="answer candidates from a question-conditioned GNN, the shortest paths to them as "
    "evidence (GNN-RAG)",
    reasoner="kgviz.reasoners.gnnrag.reasoner:GNNRAG",
    config="kgviz.reasoners.gnnrag.config:GNNRAGConfig",
    views="kgviz.reasoners.gnnrag.views:VIEWS",
    prompts="kgviz.reasoners.gnnrag.prompt:method_prompts",
    trainer="kgviz.reasoners.gnnrag.train:main",
    presets=(
        tuned(
            "kgviz's defaults: a 1,000-node subgraph, at most 10 candidates, 2 paths each and "
            "30 in all, the reachability prior in the score, and the answer as a list of the "
            "paths' names ordered by the GNN."
        ),
        PAPER_PRESET,
    ),
)
