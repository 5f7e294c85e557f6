"""GNN-RAG's answer prompt: the verbalised reasoning paths, then the question."""

from __future__ import annotations

from collections.abc import Sequence

from kgviz.llm.base import Message

SYSTEM_PROMPT = (
    "You answer questions with the help of reasoning paths taken from a knowledge graph. Each "
    "path starts at an entity of the question and follows relations from entity to entity; an "
    "arrow points from the subject of a relation to its object (A → directed by → B means A is "
    "directed by B; A ← directed by ← B means B is directed by A). Reply with every answer the "
    "paths support, as entity names separated by commas, with no explanation."
)


def path_messages(question: str, paths: Sequence[str]) -> list[Message]:
    """Chat messages giving `paths` (one per line) and asking `question`."""
    listed = "\n".join(paths) if paths else "(no path found)"
    user = f"Reasoning paths:\n{listed}\n\nQuestion: {question}\nAnswer:"
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]
