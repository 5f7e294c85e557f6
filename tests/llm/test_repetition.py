"""The loop guard: a reply repeating itself is cut after the first copy, one counting is stopped
with what it counted; other text is kept."""

import re

import pytest

from kgviz.llm.repetition import MIN_COUNT, LoopGuard, cut_loop


@pytest.mark.parametrize(
    "text, kept",
    [
        ("The answer is " + "The Champ, " * 30, "The answer is The Champ,"),
        ("ans: King Vidor\n" * 12, "ans: King Vidor"),
        (
            "Films: " + ", ".join(f"Film {i % 5}" for i in range(60)),
            "Films: Film 0, Film 1, Film 2, Film 3, Film 4,",
        ),
    ],
)
def test_loops_are_cut_after_their_first_copy(text, kept):
    assert cut_loop(text) == (kept, True)


@pytest.mark.parametrize(
    "text",
    [
        "ans: 1987\nans: 1992\nans: 1993",
        (
            "Forrest Gump was directed by Robert Zemeckis (Forrest Gump, directed_by, Robert "
            "Zemeckis)."
        ),
        "The films are " + ", ".join(f"Film {chr(65 + i % 26)}{i // 26}" for i in range(150)),
        "".join(f"ans: {year}\n" for year in range(1990, 2001)),  # 11 consecutive years
        "ans: 1987\nans: 1992\nans: 1997\nans: 2002\nans: 2007\nans: 2012\nans: 2017\nans: 2022",
        "ha ha ha",  # too short to be a loop
    ],
)
def test_other_text_is_kept(text):
    assert cut_loop(text) == (text, False)


def test_the_guard_stops_a_stream_as_soon_as_it_loops():
    guard, fed = LoopGuard(), 0
    for token in ["The", " Champ", ","] * 50:
        fed += 1
        if guard.add(token):
            break
    assert guard.looped and guard.text == "The Champ," and fed < 20


COUNTING = [
    # a held-aside SubgraphRAG re-ask that counted to the token limit
    ("ans: 2000\n" + "".join(f"ans: {year}\n" for year in range(2018, 2048)), r"ans: 20\d\d"),
    ("".join(f"{i}. King Vidor\n" for i in range(1, 40)), r"\d+\. King Vidor"),
    (" ".join(f"(Film {i}, release year, {2000 + i})" for i in range(1, 40)), r"\d{4}\)"),
    (", ".join(str(year) for year in range(1990, 1940, -1)), r"\d{4}"),
]


@pytest.mark.parametrize("text, last_item", COUNTING)
@pytest.mark.parametrize("piece", [1, 3, 7, 16])
def test_a_counting_reply_stops_with_what_it_counted(text, last_item, piece):
    guard = LoopGuard()
    stopped = any(guard.add(text[i : i + piece]) for i in range(0, len(text), piece))
    assert stopped and guard.looped and text.startswith(guard.text)
    assert re.search(f"{last_item}$", guard.text), guard.text[-40:]
    assert MIN_COUNT <= len(re.findall(last_item, guard.text)) < len(re.findall(last_item, text))
