"""Hand-written few-shot examples: question -> pattern per dataset family (12 each, as the paper
uses on MetaQA; it measured about 5 points lost with 4), and evidence -> answer.

Relation phrases in the movie examples follow MetaQA's labels (read as words), since relations are
matched by embedding distance and a small encoder matches close wordings best.
"""

from __future__ import annotations

Triple = tuple[str, str, str]
PatternExample = tuple[str, list[str], list[Triple]]  # question, phrases, triples

MOVIES: list[PatternExample] = [
    (
        "who directed Blade Runner",
        ["Blade Runner was directed by someone"],
        [("Blade Runner", "directed by", "UNKNOWN person 1")],
    ),
    (
        "what films did Meryl Streep act in",
        ["a film has Meryl Streep among its starred actors"],
        [("UNKNOWN movie 1", "starred actors", "Meryl Streep")],
    ),
    (
        "what words describe the movie Alien",
        ["the movie Alien has some tags"],
        [("Alien", "has tags", "UNKNOWN tag 1")],
    ),
    (
        "what genres are the films written by Nora Ephron",
        ["a film was written by Nora Ephron", "that film has a genre"],
        [
            ("UNKNOWN movie 1", "written by", "Nora Ephron"),
            ("UNKNOWN movie 1", "has genre", "UNKNOWN genre 1"),
        ],
    ),
    (
        "which movies share the director of Heat",
        ["Heat was directed by someone", "another movie was directed by the same person"],
        [
            ("Heat", "directed by", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "directed by", "UNKNOWN person 1"),
        ],
    ),
    (
        "when were the movies released that star the actors of Top Gun",
        [
            "Top Gun has some starred actors",
            "another movie stars that actor",
            "that movie has a release year",
        ],
        [
            ("Top Gun", "starred actors", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "starred actors", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "release year", "UNKNOWN year 1"),
        ],
    ),
    (
        "who acted in the films by the writer of Amelie",
        [
            "Amelie was written by someone",
            "another film was written by that writer",
            "that film has starred actors",
        ],
        [
            ("Amelie", "written by", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "written by", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "starred actors", "UNKNOWN person 2"),
        ],
    ),
    (
        "which films came out in the same year as Casablanca",
        ["Casablanca has a release year", "another film has the same release year"],
        [
            ("Casablanca", "release year", "UNKNOWN year 1"),
            ("UNKNOWN movie 1", "release year", "UNKNOWN year 1"),
        ],
    ),
    (
        "what languages are the films directed by Akira Kurosawa in",
        ["a film was directed by Akira Kurosawa", "that film is in a language"],
        [
            ("UNKNOWN movie 1", "directed by", "Akira Kurosawa"),
            ("UNKNOWN movie 1", "in language", "UNKNOWN language 1"),
        ],
    ),
    (
        "which movies are about time travel",
        ["a movie has the tag time travel"],
        [("UNKNOWN movie 1", "has tags", "time travel")],
    ),
    (
        "who starred together with Audrey Hepburn",
        [
            "a film has Audrey Hepburn among its starred actors",
            "that film has other starred actors",
        ],
        [
            ("UNKNOWN movie 1", "starred actors", "Audrey Hepburn"),
            ("UNKNOWN movie 1", "starred actors", "UNKNOWN person 1"),
        ],
    ),
    (
        "what genres are the films that share a writer with Chinatown",
        [
            "Chinatown was written by someone",
            "another film was written by that writer",
            "that film has a genre",
        ],
        [
            ("Chinatown", "written by", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "written by", "UNKNOWN person 1"),
            ("UNKNOWN movie 1", "has genre", "UNKNOWN genre 1"),
        ],
    ),
]

PATHS: list[PatternExample] = [
    (
        "what is the nationality of the spouse of anne_of_cleves",
        ["anne_of_cleves has a spouse", "that spouse has a nationality"],
        [
            ("anne_of_cleves", "spouse", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "nationality", "UNKNOWN country 1"),
        ],
    ),
    (
        "louis_xiv's father's religion?",
        ["louis_xiv has a parent", "that parent has a religion"],
        [
            ("louis_xiv", "parents", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "religion", "UNKNOWN religion 1"),
        ],
    ),
    (
        "where did the son of philip_ii_of_spain die",
        ["philip_ii_of_spain has a child", "that child died in a place"],
        [
            ("philip_ii_of_spain", "children", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "place of death", "UNKNOWN place 1"),
        ],
    ),
    (
        "what is the gender of the child of the mother of edward_iii",
        ["edward_iii has a mother", "she has a child", "that child has a gender"],
        [
            ("edward_iii", "parents", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "children", "UNKNOWN person 2"),
            ("UNKNOWN person 2", "gender", "UNKNOWN gender 1"),
        ],
    ),
    (
        "what was the profession of george_vi's father",
        ["george_vi has a parent", "that parent has a profession"],
        [
            ("george_vi", "parents", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "profession", "UNKNOWN profession 1"),
        ],
    ),
    (
        "where was the wife of napoleon born",
        ["napoleon has a spouse", "that spouse was born in a place"],
        [
            ("napoleon", "spouse", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "place of birth", "UNKNOWN place 1"),
        ],
    ),
    (
        "which religion did the daughter of queen_victoria follow",
        ["queen_victoria has a child", "that child has a religion"],
        [
            ("queen_victoria", "children", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "religion", "UNKNOWN religion 1"),
        ],
    ),
    (
        "how did the husband of mary_queen_of_scots die",
        ["mary_queen_of_scots has a spouse", "that spouse has a cause of death"],
        [
            ("mary_queen_of_scots", "spouse", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "cause of death", "UNKNOWN cause 1"),
        ],
    ),
    (
        "what is the gender of charles_darwin",
        ["charles_darwin has a gender"],
        [("charles_darwin", "gender", "UNKNOWN gender 1")],
    ),
    (
        "what nationality do the children of henry_ii_of_england have",
        ["henry_ii_of_england has children", "those children have a nationality"],
        [
            ("henry_ii_of_england", "children", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "nationality", "UNKNOWN country 1"),
        ],
    ),
    (
        "where did the parent of the spouse of william_iii die",
        ["william_iii has a spouse", "that spouse has a parent", "that parent died in a place"],
        [
            ("william_iii", "spouse", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "parents", "UNKNOWN person 2"),
            ("UNKNOWN person 2", "place of death", "UNKNOWN place 1"),
        ],
    ),
    (
        "what is the ethnicity of the mother of the son of catherine_of_aragon",
        ["catherine_of_aragon has a son", "that son has a mother", "that mother has an ethnicity"],
        [
            ("catherine_of_aragon", "children", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "parents", "UNKNOWN person 2"),
            ("UNKNOWN person 2", "ethnicity", "UNKNOWN ethnicity 1"),
        ],
    ),
]

FOOTBALL: list[PatternExample] = [
    (
        "which club does Lionel_MESSI play for",
        ["Lionel_MESSI plays in a club"],
        [("Lionel_MESSI", "plays in club", "UNKNOWN club 1")],
    ),
    (
        "which country is the club of Luka_MODRIC in",
        ["Luka_MODRIC plays in a club", "that club is in a country"],
        [
            ("Luka_MODRIC", "plays in club", "UNKNOWN club 1"),
            ("UNKNOWN club 1", "is in country", "UNKNOWN country 1"),
        ],
    ),
    (
        "name a Brazil player who plays as Defender",
        ["a player plays for the country Brazil", "the same player plays the position Defender"],
        [
            ("UNKNOWN player 1", "plays for country", "Brazil"),
            ("UNKNOWN player 1", "plays position", "Defender"),
        ],
    ),
    (
        "which players at Real_Madrid wear number 7",
        ["a player plays in the club Real_Madrid", "that player wears number 7"],
        [
            ("UNKNOWN player 1", "plays in club", "Real_Madrid"),
            ("UNKNOWN player 1", "wears number", "7"),
        ],
    ),
    (
        "how old is Thomas_MUELLER",
        ["Thomas_MUELLER has an age"],
        [("Thomas_MUELLER", "is aged", "UNKNOWN age 1")],
    ),
    (
        "what number does NEYMAR wear",
        ["NEYMAR wears a number"],
        [("NEYMAR", "wears number", "UNKNOWN number 1")],
    ),
    (
        "which position does Manuel_NEUER play",
        ["Manuel_NEUER plays a position"],
        [("Manuel_NEUER", "plays position", "UNKNOWN position 1")],
    ),
    (
        "which country does Arjen_ROBBEN play for",
        ["Arjen_ROBBEN plays for a country"],
        [("Arjen_ROBBEN", "plays for country", "UNKNOWN country 1")],
    ),
    (
        "name a Chelsea player who plays for Belgium",
        ["a player plays in the club Chelsea", "the same player plays for the country Belgium"],
        [
            ("UNKNOWN player 1", "plays in club", "Chelsea"),
            ("UNKNOWN player 1", "plays for country", "Belgium"),
        ],
    ),
    (
        "which positions do the Germany players at Bayern_Munich play",
        [
            "a player plays for the country Germany",
            "that player plays in the club Bayern_Munich",
            "that player plays a position",
        ],
        [
            ("UNKNOWN player 1", "plays for country", "Germany"),
            ("UNKNOWN player 1", "plays in club", "Bayern_Munich"),
            ("UNKNOWN player 1", "plays position", "UNKNOWN position 1"),
        ],
    ),
    (
        "how old are the Argentina players who wear number 10",
        [
            "a player plays for the country Argentina",
            "that player wears number 10",
            "that player has an age",
        ],
        [
            ("UNKNOWN player 1", "plays for country", "Argentina"),
            ("UNKNOWN player 1", "wears number", "10"),
            ("UNKNOWN player 1", "is aged", "UNKNOWN age 1"),
        ],
    ),
    (
        "which clubs in England have Spain players",
        [
            "a player plays for the country Spain",
            "that player plays in a club",
            "that club is in England",
        ],
        [
            ("UNKNOWN player 1", "plays for country", "Spain"),
            ("UNKNOWN player 1", "plays in club", "UNKNOWN club 1"),
            ("UNKNOWN club 1", "is in country", "England"),
        ],
    ),
]

GENERIC: list[PatternExample] = [
    (
        "who wrote the novel that the film Jaws is based on",
        ["the film Jaws is based on a novel", "that novel was written by someone"],
        [
            ("Jaws", "based on", "UNKNOWN novel 1"),
            ("UNKNOWN novel 1", "written by", "UNKNOWN person 1"),
        ],
    ),
    (
        "in which country is the city where Marie Curie was born",
        ["Marie Curie was born in a city", "that city is in a country"],
        [
            ("Marie Curie", "place of birth", "UNKNOWN city 1"),
            ("UNKNOWN city 1", "country", "UNKNOWN country 1"),
        ],
    ),
    (
        "Albert Einstein received the Nobel Prize in Physics.",
        ["Albert Einstein received the Nobel Prize in Physics"],
        [("Albert Einstein", "award received", "Nobel Prize in Physics")],
    ),
    (
        "how is Ada Lovelace related to Lord Byron",
        ["Ada Lovelace and Lord Byron are linked by some relation"],
        [("Ada Lovelace", "UNKNOWN relation 1", "Lord Byron")],
    ),
    (
        "who directed Titanic",
        ["Titanic was directed by someone"],
        [("Titanic", "director", "UNKNOWN person 1")],
    ),
    (
        "what is the capital of the country where the Eiffel Tower stands",
        ["the Eiffel Tower is in a country", "that country has a capital"],
        [
            ("Eiffel Tower", "country", "UNKNOWN country 1"),
            ("UNKNOWN country 1", "capital", "UNKNOWN city 1"),
        ],
    ),
    (
        "which university did the author of Dune attend",
        ["Dune was written by someone", "that author was educated at a university"],
        [
            ("Dune", "author", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "educated at", "UNKNOWN university 1"),
        ],
    ),
    (
        "Barack Obama was born in Honolulu.",
        ["Barack Obama was born in Honolulu"],
        [("Barack Obama", "place of birth", "Honolulu")],
    ),
    (
        "what instrument does the lead singer of Queen play",
        ["Queen has a lead singer", "that singer plays an instrument"],
        [
            ("Queen", "lead singer", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "plays instrument", "UNKNOWN instrument 1"),
        ],
    ),
    (
        "who founded the company that makes the iPhone",
        ["the iPhone is made by a company", "that company was founded by someone"],
        [
            ("iPhone", "manufacturer", "UNKNOWN company 1"),
            ("UNKNOWN company 1", "founded by", "UNKNOWN person 1"),
        ],
    ),
    (
        "which river flows through the city where Mozart was born",
        ["Mozart was born in a city", "a river flows through that city"],
        [
            ("Mozart", "place of birth", "UNKNOWN city 1"),
            ("UNKNOWN river 1", "flows through", "UNKNOWN city 1"),
        ],
    ),
    (
        "which team does the brother of Eli Manning play for",
        ["Eli Manning has a brother", "that brother plays for a team"],
        [
            ("Eli Manning", "sibling", "UNKNOWN person 1"),
            ("UNKNOWN person 1", "member of team", "UNKNOWN team 1"),
        ],
    ),
]

PATTERN_EXAMPLES: dict[str, list[PatternExample]] = {
    "movies": MOVIES,
    "paths": PATHS,
    "football": FOOTBALL,
    "generic": GENERIC,
}

# question, graphs, reason, answers
ANSWER_EXAMPLES: list[tuple[str, list[list[Triple]], str, list[str]]] = [
    (
        "who directed the films that Julia Roberts starred in",
        [
            [
                ("Notting Hill", "starred_actors", "Julia Roberts"),
                ("Notting Hill", "directed_by", "Roger Michell"),
            ],
            [
                ("Pretty Woman", "starred_actors", "Julia Roberts"),
                ("Pretty Woman", "directed_by", "Garry Marshall"),
            ],
            [
                ("Erin Brockovich", "starred_actors", "Julia Roberts"),
                ("Erin Brockovich", "written_by", "Susannah Grant"),
            ],
        ],
        "Graphs 1 and 2 link her films to their directors; graph 3 names a writer, not a director.",
        ["Roger Michell", "Garry Marshall"],
    ),
    (
        "what is the nationality of the spouse of anne_of_cleves",
        [
            [
                ("anne_of_cleves", "spouse", "henry_viii_of_england"),
                ("henry_viii_of_england", "nationality", "england"),
            ]
        ],
        "Graph 1: her spouse henry_viii_of_england has nationality england.",
        ["england"],
    ),
]

# claim, graphs, reason, verdict
VERIFY_EXAMPLES: list[tuple[str, list[list[Triple]], str, str]] = [
    (
        "The film Notting Hill was directed by Roger Michell.",
        [[("Notting Hill", "directed_by", "Roger Michell")]],
        "Graph 1 states exactly this.",
        "True",
    ),
    (
        "Garry Marshall wrote Pretty Woman.",
        [
            [("Pretty Woman", "directed_by", "Garry Marshall")],
            [("Pretty Woman", "written_by", "J. F. Lawton")],
        ],
        "Garry Marshall directed it; graph 2 names J. F. Lawton as the writer.",
        "False",
    ),
]
