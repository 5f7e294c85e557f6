"""The built-in `demo` dataset: sizes, vocabulary, and every answer set re-derived from the KG."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

import pytest

from kgviz.datasets import get_dataset

METAQA_RELATIONS = {
    "directed_by",
    "written_by",
    "starred_actors",
    "release_year",
    "in_language",
    "has_genre",
    "has_tags",
}

# Each qtype names a walk over MetaQA relations; the movie is always the head of a triple, so
# leaving a movie follows a relation forwards ("out") and arriving at one follows it backwards
# ("in").
D, W, A = "directed_by", "written_by", "starred_actors"
Y, L, G = "release_year", "in_language", "has_genre"
KIND_RELATION = {"director": D, "writer": W, "actor": A, "year": Y, "language": L, "genre": G}


def _out(relation: str) -> tuple[str, str]:
    return relation, "out"


def _in(relation: str) -> tuple[str, str]:
    return relation, "in"


QTYPE_PATHS: dict[str, list[tuple[str, str]]] = {
    # 1-hop
    "movie_to_director": [_out(D)],
    "movie_to_writer": [_out(W)],
    "movie_to_actor": [_out(A)],
    "movie_to_year": [_out(Y)],
    "movie_to_language": [_out(L)],
    "movie_to_genre": [_out(G)],
    "director_to_movie": [_in(D)],
    "actor_to_movie": [_in(A)],
    "writer_to_movie": [_in(W)],
    "language_to_movie": [_in(L)],
    # 2-hop
    "actor_to_movie_to_director": [_in(A), _out(D)],
    "actor_to_movie_to_year": [_in(A), _out(Y)],
    "actor_to_movie_to_genre": [_in(A), _out(G)],
    "actor_to_movie_to_writer": [_in(A), _out(W)],
    "actor_to_movie_to_actor": [_in(A), _out(A)],
    "director_to_movie_to_actor": [_in(D), _out(A)],
    "director_to_movie_to_language": [_in(D), _out(L)],
    "director_to_movie_to_writer": [_in(D), _out(W)],
    "writer_to_movie_to_genre": [_in(W), _out(G)],
    "writer_to_movie_to_actor": [_in(W), _out(A)],
    "movie_to_actor_to_movie": [_out(A), _in(A)],
    "movie_to_director_to_movie": [_out(D), _in(D)],
    "movie_to_writer_to_movie": [_out(W), _in(W)],
    "movie_to_year_to_movie": [_out(Y), _in(Y)],
    # 3-hop
    "movie_to_director_to_movie_to_actor": [_out(D), _in(D), _out(A)],
    "movie_to_director_to_movie_to_genre": [_out(D), _in(D), _out(G)],
    "movie_to_director_to_movie_to_writer": [_out(D), _in(D), _out(W)],
    "movie_to_director_to_movie_to_year": [_out(D), _in(D), _out(Y)],
    "movie_to_actor_to_movie_to_director": [_out(A), _in(A), _out(D)],
    "movie_to_actor_to_movie_to_language": [_out(A), _in(A), _out(L)],
    "movie_to_actor_to_movie_to_writer": [_out(A), _in(A), _out(W)],
    "movie_to_writer_to_movie_to_year": [_out(W), _in(W), _out(Y)],
    "movie_to_writer_to_movie_to_actor": [_out(W), _in(W), _out(A)],
    "actor_to_movie_to_director_to_movie": [_in(A), _out(D), _in(D)],
    "actor_to_movie_to_writer_to_movie": [_in(A), _out(W), _in(W)],
    "director_to_movie_to_actor_to_movie": [_in(D), _out(A), _in(A)],
}


def test_qtype_names_match_their_paths():
    for qtype, path in QTYPE_PATHS.items():
        kinds = qtype.split("_to_")
        expected = [
            _out(KIND_RELATION[b]) if a == "movie" else _in(KIND_RELATION[a])
            for a, b in pairwise(kinds)
        ]
        assert all((a == "movie") != (b == "movie") for a, b in pairwise(kinds)), qtype
        assert path == expected, qtype


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGVIZ_CACHE", str(tmp_path_factory.mktemp("kgviz-cache")))
        ds = get_dataset("demo")
        kg = ds.kg
        questions = ds.questions("dev")
    return ds, kg, questions


def follow(kg, topics: tuple[str, ...], path: list[tuple[str, str]]) -> set[str]:
    """Set-valued walk along `path` from the topic entities; the topics themselves are dropped
    from the result (MetaQA never answers a question with its own topic entity)."""
    frontier = {kg.entity_id(name) for name in topics}
    for relation, direction in path:
        rel_id = kg.relation_id(relation)
        frontier = {
            neighbour
            for node in frontier
            for _, rel, neighbour, _ in kg.neighbors(node, direction)
            if rel == rel_id
        }
    return {kg.entities[node] for node in frontier} - set(topics)


def test_kg_size_and_vocabulary(demo):
    _, kg, _ = demo
    assert 300 <= kg.num_triples <= 450
    assert set(kg.relations) <= METAQA_RELATIONS
    heads = {kg.entities[h] for h in kg.triples[:, 0].tolist()}
    tails = {kg.entities[t] for t in kg.triples[:, 2].tolist()}
    assert 40 <= len(heads) <= 60
    assert not heads & tails, "movies are only ever heads"
    assert len(heads | tails) == kg.num_entities


def test_every_movie_is_fully_described(demo):
    _, kg, _ = demo
    movies = sorted(set(kg.triples[:, 0].tolist()))
    for movie in movies:
        counts = Counter(kg.relations[rel] for _, rel, _, _ in kg.neighbors(movie, "out"))
        name = kg.entities[movie]
        assert counts["release_year"] == 1, name
        assert counts["in_language"] == 1, name
        assert counts["directed_by"] >= 1, name
        assert counts["written_by"] >= 1, name
        assert counts["has_genre"] >= 1, name
        assert counts["starred_actors"] <= 4, name


def test_years_and_relation_targets_are_well_formed(demo):
    _, kg, _ = demo
    years = {kg.entities[t] for h, r, t in kg.triples.tolist() if kg.relations[r] == "release_year"}
    assert all(y.isdigit() and 1900 < int(y) < 2030 for y in years)
    by_relation: dict[str, set[str]] = {}
    for _, r, t in kg.triples.tolist():
        by_relation.setdefault(kg.relations[r], set()).add(kg.entities[t])
    # a person may direct, write and act, but years, languages and genres are separate kinds
    kinds = ["release_year", "in_language", "has_genre"]
    people = by_relation["directed_by"] | by_relation["written_by"] | by_relation["starred_actors"]
    for i, kind in enumerate(kinds):
        assert not by_relation[kind] & people, kind
        for other in kinds[i + 1 :]:
            assert not by_relation[kind] & by_relation[other], (kind, other)


def test_question_counts(demo):
    _, _, questions = demo
    assert 36 <= len(questions) <= 48
    per_hop = Counter(q.hops for q in questions)
    assert set(per_hop) == {1, 2, 3}
    for hops in (1, 2, 3):
        assert len(questions) / 4 <= per_hop[hops] <= len(questions) / 2.5, per_hop
    assert len({q.qid for q in questions}) == len(questions)
    assert len({q.question for q in questions}) == len(questions)


def test_questions_are_grounded_in_the_kg(demo):
    _, kg, questions = demo
    for q in questions:
        assert q.topic_entities, q.qid
        for name in (*q.topic_entities, *q.answers):
            assert name in kg.entities, (q.qid, name)
        assert 1 <= len(q.answers) <= 15, q.qid
        assert len(set(q.answers)) == len(q.answers), q.qid
        assert not set(q.answers) & set(q.topic_entities), q.qid
        assert q.question == q.question.strip() and "[" not in q.question
        for name in q.topic_entities:
            assert name in q.question, (q.qid, name)


@pytest.mark.parametrize("hops", [1, 2, 3])
def test_answers_follow_from_the_kg(demo, hops):
    _, kg, questions = demo
    checked = 0
    for q in questions:
        if q.hops != hops:
            continue
        assert q.qtype in QTYPE_PATHS, (q.qid, q.qtype)
        path = QTYPE_PATHS[q.qtype]
        assert len(path) == q.hops, q.qid
        assert q.qid.startswith(f"demo-{hops}h-"), q.qid
        assert set(q.answers) == follow(kg, q.topic_entities, path), q.qid
        checked += 1
    assert checked > 0
