"""GNN-RAG's answer prompt: the verbalised reasoning paths, then the question; the answer as
comma-separated names (the paper's) or as a JSON list (`listed`, the tuned preset's)."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.llm.base import Message
from kgviz.reasoners.prompting import LIST_FORMAT

PATHS_GUIDE = (
    "You answer questions with the help of reasoning paths taken from a knowledge graph. Each "
    "path starts at an entity of the question and follows relations from entity to entity; an "
    "arrow points from the subject of a relation to its object (A → directed by → B means A is "
    "directed by B; A ← directed by ← B means B is directed by A)."
)
SYSTEM_PROMPT = (
    f"{PATHS_GUIDE} Reply with every answer the paths support, as entity names separated by "
    "commas, with no explanation."
)
LIST_SYSTEM_PROMPT = f"{PATHS_GUIDE} {LIST_FORMAT.replace('the facts', 'the paths')}"


def path_messages(question: str, paths: Sequence[str], listed: bool = False) -> list[Message]:
    """Chat messages giving `paths` (one per line) and asking `question`; `listed` asks for the
    JSON answer list."""
    lines = "\n".join(paths) if paths else "(no path found)"
    user = f"Reasoning paths:\n{lines}\n\nQuestion: {question}\nAnswer:"
    system = LIST_SYSTEM_PROMPT if listed else SYSTEM_PROMPT
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def method_prompts(domain: str, question: str) -> dict[str, list[Message]]:
    """GNN-RAG's prompt as the tuned preset sends it (`MethodSpec.prompts`)."""
    return {"gnnrag": path_messages(question, [], listed=True)}
