"""Hand-written few-shot examples: question -> pattern per dataset family, and evidence -> answer.

Relation phrases in the movie examples follow MetaQA's labels (read as words), since relations are
matched by embedding distance and a small encoder matches close wordings best.
"""

from __future__ import annotations

Triple = tuple[str, str, str]
PatternExample = tuple[str, list[str], list[Triple]]  # question, phrases, triples

MOVIES: list[PatternExample] = [
    ("who directed Blade Runner",
     ["Blade Runner was directed by someone"],
     [("Blade Runner", "directed by", "UNKNOWN person 1")]),
    ("what films did Meryl Streep act in",
     ["a film has Meryl Streep among its starred actors"],
     [("UNKNOWN movie 1", "starred actors", "Meryl Streep")]),
    ("what words describe the movie Alien",
     ["the movie Alien has some tags"],
     [("Alien", "has tags", "UNKNOWN tag 1")]),
    ("what genres are the films written by Nora Ephron",
     ["a film was written by Nora Ephron", "that film has a genre"],
     [("UNKNOWN movie 1", "written by", "Nora Ephron"),
      ("UNKNOWN movie 1", "has genre", "UNKNOWN genre 1")]),
    ("which movies share the director of Heat",
     ["Heat was directed by someone", "another movie was directed by the same person"],
     [("Heat", "directed by", "UNKNOWN person 1"),
      ("UNKNOWN movie 1", "directed by", "UNKNOWN person 1")]),
    ("when were the movies released that star the actors of Top Gun",
     ["Top Gun has some starred actors", "another movie stars that actor",
      "that movie has a release year"],
     [("Top Gun", "starred actors", "UNKNOWN person 1"),
      ("UNKNOWN movie 1", "starred actors", "UNKNOWN person 1"),
      ("UNKNOWN movie 1", "release year", "UNKNOWN year 1")]),
    ("who acted in the films by the writer of Amelie",
     ["Amelie was written by someone", "another film was written by that writer",
      "that film has starred actors"],
     [("Amelie", "written by", "UNKNOWN person 1"),
      ("UNKNOWN movie 1", "written by", "UNKNOWN person 1"),
      ("UNKNOWN movie 1", "starred actors", "UNKNOWN person 2")]),
]

PATHS: list[PatternExample] = [
    ("what is the nationality of the spouse of anne_of_cleves",
     ["anne_of_cleves has a spouse", "that spouse has a nationality"],
     [("anne_of_cleves", "spouse", "UNKNOWN person 1"),
      ("UNKNOWN person 1", "nationality", "UNKNOWN country 1")]),
    ("louis_xiv's father's religion?",
     ["louis_xiv has a parent", "that parent has a religion"],
     [("louis_xiv", "parents", "UNKNOWN person 1"),
      ("UNKNOWN person 1", "religion", "UNKNOWN religion 1")]),
    ("where did the son of philip_ii_of_spain die",
     ["philip_ii_of_spain has a child", "that child died in a place"],
     [("philip_ii_of_spain", "children", "UNKNOWN person 1"),
      ("UNKNOWN person 1", "place of death", "UNKNOWN place 1")]),
    ("what is the gender of the child of the mother of edward_iii",
     ["edward_iii has a mother", "she has a child", "that child has a gender"],
     [("edward_iii", "parents", "UNKNOWN person 1"),
      ("UNKNOWN person 1", "children", "UNKNOWN person 2"),
      ("UNKNOWN person 2", "gender", "UNKNOWN gender 1")]),
]

FOOTBALL: list[PatternExample] = [
    ("which club does Lionel_MESSI play for",
     ["Lionel_MESSI plays in a club"],
     [("Lionel_MESSI", "plays in club", "UNKNOWN club 1")]),
    ("which country is the club of Luka_MODRIC in",
     ["Luka_MODRIC plays in a club", "that club is in a country"],
     [("Luka_MODRIC", "plays in club", "UNKNOWN club 1"),
      ("UNKNOWN club 1", "is in country", "UNKNOWN country 1")]),
    ("name a Brazil player who plays as Defender",
     ["a player plays for the country Brazil", "the same player plays the position Defender"],
     [("UNKNOWN player 1", "plays for country", "Brazil"),
      ("UNKNOWN player 1", "plays position", "Defender")]),
    ("which players at Real_Madrid wear number 7",
     ["a player plays in the club Real_Madrid", "that player wears number 7"],
     [("UNKNOWN player 1", "plays in club", "Real_Madrid"),
      ("UNKNOWN player 1", "wears number", "7")]),
]

GENERIC: list[PatternExample] = [
    ("who wrote the novel that the film Jaws is based on",
     ["the film Jaws is based on a novel", "that novel was written by someone"],
     [("Jaws", "based on", "UNKNOWN novel 1"),
      ("UNKNOWN novel 1", "written by", "UNKNOWN person 1")]),
    ("in which country is the city where Marie Curie was born",
     ["Marie Curie was born in a city", "that city is in a country"],
     [("Marie Curie", "place of birth", "UNKNOWN city 1"),
      ("UNKNOWN city 1", "country", "UNKNOWN country 1")]),
    ("Albert Einstein received the Nobel Prize in Physics.",
     ["Albert Einstein received the Nobel Prize in Physics"],
     [("Albert Einstein", "award received", "Nobel Prize in Physics")]),
    ("how is Ada Lovelace related to Lord Byron",
     ["Ada Lovelace and Lord Byron are linked by some relation"],
     [("Ada Lovelace", "UNKNOWN relation 1", "Lord Byron")]),
]

PATTERN_EXAMPLES: dict[str, list[PatternExample]] = {
    "movies": MOVIES, "paths": PATHS, "football": FOOTBALL, "generic": GENERIC,
}

# question, graphs, reason, answers
ANSWER_EXAMPLES: list[tuple[str, list[list[Triple]], str, list[str]]] = [
    ("who directed the films that Julia Roberts starred in",
     [[("Notting Hill", "starred_actors", "Julia Roberts"),
       ("Notting Hill", "directed_by", "Roger Michell")],
      [("Pretty Woman", "starred_actors", "Julia Roberts"),
       ("Pretty Woman", "directed_by", "Garry Marshall")],
      [("Erin Brockovich", "starred_actors", "Julia Roberts"),
       ("Erin Brockovich", "written_by", "Susannah Grant")]],
     "Graphs 1 and 2 link her films to their directors; graph 3 names a writer, not a director.",
     ["Roger Michell", "Garry Marshall"]),
    ("what is the nationality of the spouse of anne_of_cleves",
     [[("anne_of_cleves", "spouse", "henry_viii_of_england"),
       ("henry_viii_of_england", "nationality", "england")]],
     "Graph 1: her spouse henry_viii_of_england has nationality england.",
     ["england"]),
]

# claim, graphs, reason, verdict
VERIFY_EXAMPLES: list[tuple[str, list[list[Triple]], str, str]] = [
    ("The film Notting Hill was directed by Roger Michell.",
     [[("Notting Hill", "directed_by", "Roger Michell")]],
     "Graph 1 states exactly this.", "True"),
    ("Garry Marshall wrote Pretty Woman.",
     [[("Pretty Woman", "directed_by", "Garry Marshall")],
      [("Pretty Woman", "written_by", "J. F. Lawton")]],
     "Garry Marshall directed it; graph 2 names J. F. Lawton as the writer.", "False"),
]
