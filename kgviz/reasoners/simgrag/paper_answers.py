"""SimGRAG's answer prompt in its paper's form (App. B, Table 18): notes, then 12 worked examples
of the dataset's family, each a query, its evidence graphs as `"graph [i]": [(h, r, t), ...]`,
and a free-text answer citing the graphs ("According to graphs [1][2], ..."). The reply's answers
are the evidence entities it names. Families without examples of their own use the movie ones.

The examples are kgviz's own, on MetaQA's relations; every fact in them is true of the films.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from kgviz.llm.base import Message
from kgviz.reasoners.simgrag.fewshot import Triple

PaperAnswerExample = tuple[str, list[list[Triple]], str]  # query, graphs, answer

INSTRUCTIONS = """Answer the query from the evidence graphs found in a knowledge graph.
Notes)
1). Give answers exactly as the evidence writes them; never reword or reformat them.
2). Different graphs may give different answers. Give the answers of every graph, leaving out \
only graphs that plainly do not match the query.
3). First say in a few words why, then give the answer."""

MOVIE_ANSWERS: list[PaperAnswerExample] = [
    (
        "who directed Jaws",
        [[("Jaws", "directed_by", "Steven Spielberg")]],
        "According to graph [1], the director is Steven Spielberg.",
    ),
    (
        "what language is the film Amélie in",
        [[("Amélie", "in_language", "French")]],
        "According to graph [1], the language is French.",
    ),
    (
        "what films did Greta Gerwig write",
        [
            [("Lady Bird", "written_by", "Greta Gerwig")],
            [("Little Women", "written_by", "Greta Gerwig")],
            [("Frances Ha", "written_by", "Greta Gerwig")],
        ],
        "According to graphs [1][2][3], the films are Lady Bird, Little Women or Frances Ha.",
    ),
    (
        "when was The Godfather released",
        [[("The Godfather", "release_year", "1972")]],
        "According to graph [1], the year is 1972.",
    ),
    (
        "who starred in the films directed by Kathryn Bigelow",
        [
            [
                ("The Hurt Locker", "directed_by", "Kathryn Bigelow"),
                ("The Hurt Locker", "starred_actors", "Jeremy Renner"),
            ],
            [
                ("Zero Dark Thirty", "directed_by", "Kathryn Bigelow"),
                ("Zero Dark Thirty", "starred_actors", "Jessica Chastain"),
            ],
            [
                ("Point Break", "directed_by", "Kathryn Bigelow"),
                ("Point Break", "written_by", "W. Peter Iliff"),
            ],
        ],
        (
            "According to graphs [1][2], the actors are Jeremy Renner or Jessica Chastain; "
            "graph [3] names a writer, not an actor."
        ),
    ),
    (
        "what genres are the movies written by Charlie Kaufman",
        [
            [
                ("Being John Malkovich", "written_by", "Charlie Kaufman"),
                ("Being John Malkovich", "has_genre", "Comedy"),
            ],
            [
                ("Eternal Sunshine of the Spotless Mind", "written_by", "Charlie Kaufman"),
                ("Eternal Sunshine of the Spotless Mind", "has_genre", "Romance"),
            ],
        ],
        "According to graphs [1][2], the genres are Comedy or Romance.",
    ),
    (
        "which movies share a director with Alien",
        [
            [
                ("Alien", "directed_by", "Ridley Scott"),
                ("Gladiator", "directed_by", "Ridley Scott"),
            ],
            [
                ("Alien", "directed_by", "Ridley Scott"),
                ("Blade Runner", "directed_by", "Ridley Scott"),
            ],
        ],
        "According to graphs [1][2], the movies are Gladiator or Blade Runner.",
    ),
    (
        "when were the films starring Tilda Swinton released",
        [
            [("Orlando", "starred_actors", "Tilda Swinton"), ("Orlando", "release_year", "1992")],
            [
                ("Michael Clayton", "starred_actors", "Tilda Swinton"),
                ("Michael Clayton", "release_year", "2007"),
            ],
        ],
        "According to graphs [1][2], the years are 1992 or 2007.",
    ),
    (
        "who co-starred with Audrey Hepburn",
        [
            [
                ("Roman Holiday", "starred_actors", "Audrey Hepburn"),
                ("Roman Holiday", "starred_actors", "Gregory Peck"),
            ],
            [
                ("Charade", "starred_actors", "Audrey Hepburn"),
                ("Charade", "starred_actors", "Cary Grant"),
            ],
        ],
        "According to graphs [1][2], the co-stars are Gregory Peck or Cary Grant.",
    ),
    (
        "who directed the films starring the actors of Heat",
        [
            [
                ("Heat", "starred_actors", "Al Pacino"),
                ("Scarface", "starred_actors", "Al Pacino"),
                ("Scarface", "directed_by", "Brian De Palma"),
            ],
            [
                ("Heat", "starred_actors", "Robert De Niro"),
                ("Taxi Driver", "starred_actors", "Robert De Niro"),
                ("Taxi Driver", "directed_by", "Martin Scorsese"),
            ],
        ],
        "According to graphs [1][2], the directors are Brian De Palma or Martin Scorsese.",
    ),
    (
        "what languages are the movies written by the writers of Amélie in",
        [
            [
                ("Amélie", "written_by", "Guillaume Laurant"),
                ("A Very Long Engagement", "written_by", "Guillaume Laurant"),
                ("A Very Long Engagement", "in_language", "French"),
            ]
        ],
        "According to graph [1], the language is French.",
    ),
    (
        "what genres are the films directed by the director of Arrival",
        [
            [
                ("Arrival", "directed_by", "Denis Villeneuve"),
                ("Sicario", "directed_by", "Denis Villeneuve"),
                ("Sicario", "has_genre", "Thriller"),
            ],
            [
                ("Arrival", "starred_actors", "Amy Adams"),
                ("Enchanted", "starred_actors", "Amy Adams"),
                ("Enchanted", "has_genre", "Comedy"),
            ],
        ],
        (
            "According to graph [1], the genre is Thriller; graph [2] goes through an actor, "
            "not the director."
        ),
    ),
]

ANSWER_EXAMPLES: dict[str, list[PaperAnswerExample]] = {"movies": MOVIE_ANSWERS}


def evidences(graphs: Sequence[Sequence[Triple]]) -> str:
    """The graphs as the paper's prompt writes them: `{"graph [1]": [("h", "r", "t"), ...]}`."""
    if not graphs:
        return "{}"
    blocks = []
    for number, triples in enumerate(graphs, 1):
        lines = ",\n".join(f'("{h}", "{r}", "{t}")' for h, r, t in triples)
        blocks.append(f'"graph [{number}]": [\n{lines}\n]')
    return "{\n" + ",\n".join(blocks) + "\n}"


def _query_turn(question: str, graphs: Sequence[Sequence[Triple]]) -> Message:
    return {"role": "user", "content": f'query: "{question}"\nevidences: {evidences(graphs)}'}


@cache
def _prefix(family: str) -> tuple[Message, ...]:
    turns: list[Message] = [{"role": "system", "content": INSTRUCTIONS}]
    for question, graphs, answer in ANSWER_EXAMPLES.get(family, MOVIE_ANSWERS):
        turns += [_query_turn(question, graphs), {"role": "assistant", "content": answer}]
    return tuple(turns)


def paper_answer_messages(
    family: str, question: str, graphs: Sequence[Sequence[Triple]]
) -> list[Message]:
    """The paper-form answer prompt for a dataset family: its fixed prefix (notes, 12 examples),
    then the query with its evidence graphs."""
    return [*map(dict, _prefix(family)), _query_turn(question, graphs)]
