"""The loop guard: a reply repeating itself, or counting, is cut after the first copy; other
text is kept."""

import pytest

from kgviz.llm.repetition import LoopGuard, cut_loop


@pytest.mark.parametrize(
    "text, kept",
    [
        ("The answer is " + "The Champ, " * 30, "The answer is The Champ,"),
        ("ans: King Vidor\n" * 12, "ans: King Vidor"),
        (
            "Films: " + ", ".join(f"Film {i % 5}" for i in range(60)),
            "Films: Film 0, Film 1, Film 2, Film 3, Film 4,",
        ),
        # counting: units that differ only in numbers stepping by one (a held-aside re-ask)
        (
            "ans: 2000\n" + "".join(f"ans: {year}\n" for year in range(2018, 2048)),
            "ans: 2000\nans: 2018",
        ),
        (
            " ".join(f"(Film {i}, release year, {2000 + i})" for i in range(1, 12)),
            "(Film 1, release year, 2001) (Film 2,",
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
        "ans: 1990\nans: 1991\nans: 1992\nans: 1993\nans: 1994\nans: 1995\nans: 1996",  # 7 steps
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
