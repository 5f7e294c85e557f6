"""Think-on-Graph (Sun et al., ICLR 2024): the LLM as an agent walking the KG by beam search.

At each depth the beam's entities list their relations; the best `width` relations of each are
kept (by the LLM or by similarity to the question), their neighbours are scored in turn, and the
beam keeps the `width` best paths; the LLM then judges whether the paths found are enough to
answer. The walk ends at "enough", at `depth`, or when no candidate is left; the answer comes from
the paths (or, with none, the LLM's own knowledge).
"""
