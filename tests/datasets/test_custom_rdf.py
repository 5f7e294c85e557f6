"""`custom:<folder>` datasets whose KB is RDF (`kb.nt` or `kb.ttl`) read with rdflib."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgviz.datasets import dataset_names, get_dataset
from kgviz.datasets.base import DOMAINS
from kgviz.errors import DataFormatError, KgvizError, MissingDataError
from kgviz.kg.graph import KnowledgeGraph

EX = "http://example.org/"
LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

NTRIPLES = f"""\
<{EX}Paris_France> {LABEL} "Paris"@en .
<{EX}Paris_France> {LABEL} "Paname"@fr .
<{EX}Paris_Texas> {LABEL} "Paris" .
<{EX}France> {LABEL} "La France"@fr .
<{EX}France> {LABEL} "France"@en .
<{EX}TX> {LABEL} "Tejas"@es .
<{EX}TX> {LABEL} "Texas" .
<{EX}Germany> {LABEL} "Deutschland"@de .
<{EX}Germany> {LABEL} "Bundesrepublik" .
<{EX}Germany> {LABEL} "Germany"@en-GB .
<{EX}capitalOf> {LABEL} "capital of"@en .

# facts
<{EX}Paris_France> <{EX}capitalOf> <{EX}France> .
<{EX}Paris_Texas> <{EX}locatedIn> <{EX}TX> .
<{EX}Paris_France> {TYPE} <{EX}City> .
<{EX}France> <{EX}population> "68000000"^^<http://www.w3.org/2001/XMLSchema#integer> .
<{EX}Caf%C3%A9_de_Flore> <{EX}in> <{EX}Paris_France> .
_:alice <{EX}visited> <{EX}Paris_Texas> .
_:alice <{EX}knows> _:bob .
<{EX}Germany> <{EX}borders> <{EX}France> .
"""

TURTLE = f"""\
@prefix ex: <{EX}> .
@prefix other: <http://other.org/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

ex:Paris_France rdfs:label "Paris"@en, "Paname"@fr ;
    a ex:City ;
    ex:capitalOf ex:France .
ex:Paris_Texas rdfs:label "Paris" ; a ex:City .
ex:capitalOf rdfs:label "capital of" .
ex:France ex:motto "Liberté, égalité, fraternité"@fr .
other:France ex:type ex:Country .
_:someone ex:knows ex:Texas .
ex:Texas ex:has [ ex:name "anonymous" ] .
"""


def write(folder: Path, files: dict[str, str | bytes]) -> str:
    """Write the files into `folder` and return its `custom:` dataset name."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        if isinstance(text, bytes):
            (folder / name).write_bytes(text)
        else:
            (folder / name).write_text(text, encoding="utf-8")
    return f"custom:{folder}"


def string_triples(kg: KnowledgeGraph) -> set[tuple[str, str, str]]:
    return {(kg.entities[h], kg.relations[r], kg.entities[t]) for h, r, t in kg.triples.tolist()}


def test_ntriples_names_come_from_labels_and_local_names(tmp_path: Path, tmp_cache: Path) -> None:
    kg = get_dataset(write(tmp_path / "kg", {"kb.nt": NTRIPLES})).kg
    assert string_triples(kg) == {
        ("Paris (Paris_France)", "capital of", "France"),
        ("Paris (Paris_Texas)", "locatedIn", "Texas"),
        ("Paris (Paris_France)", "type", "City"),
        ("France", "population", "68000000"),
        ("Café_de_Flore", "in", "Paris (Paris_France)"),
        ("_:b1", "visited", "Paris (Paris_Texas)"),
        ("_:b1", "knows", "_:b2"),
        ("Germany", "borders", "France"),
    }
    assert kg.num_triples == 8  # the rdfs:label triples only name things
    assert "label" not in kg.relations
    assert not {"Paname", "La France", "Tejas", "Deutschland", "Bundesrepublik", "Paris"} & set(
        kg.entities
    )
    assert list(tmp_cache.glob("graphs/*.npz"))  # cached under the private KGVIZ_CACHE
    again = get_dataset(f"custom:{tmp_path / 'kg'}").kg  # loaded back from that cache
    assert string_triples(again) == string_triples(kg)


def test_turtle_keeps_rdf_type_and_splits_name_collisions(tmp_path: Path, tmp_cache: Path) -> None:
    kg = get_dataset(write(tmp_path / "kg", {"kb.ttl": TURTLE})).kg
    rdf_type = "type (http://www.w3.org/1999/02/22-rdf-syntax-ns#type)"
    assert string_triples(kg) == {
        ("Paris (Paris_France)", rdf_type, "City"),
        ("Paris (Paris_France)", "capital of", "France (http://example.org/France)"),
        ("Paris (Paris_Texas)", rdf_type, "City"),
        ("France (http://example.org/France)", "motto", "Liberté, égalité, fraternité"),
        ("France (http://other.org/France)", "type (http://example.org/type)", "Country"),
        ("_:b1", "knows", "Texas"),  # blank nodes numbered in order of first appearance
        ("Texas", "has", "_:b2"),
        ("_:b2", "name", "anonymous"),
    }


def test_questions_use_label_names(tmp_path: Path, tmp_cache: Path) -> None:
    question = {
        "question": "Which city is the capital of France?",
        "answers": ["Paris (Paris_France)"],
        "topic_entities": ["France"],
    }
    name = write(tmp_path / "kg", {"kb.nt": NTRIPLES, "dev.jsonl": json.dumps(question) + "\n"})
    data = get_dataset(name)
    (record,) = data.questions("dev")
    assert record.topic_entities == ("France",) and record.answers == ("Paris (Paris_France)",)
    kg = data.kg
    answer, topic = kg.entity_id(record.answers[0]), kg.entity_id(record.topic_entities[0])
    assert [answer, kg.relation_id("capital of"), topic] in kg.triples.tolist()


@pytest.mark.parametrize(
    ("file", "text", "line", "problem"),
    [
        (
            "kb.nt",
            f'<{EX}a> <{EX}p> <{EX}b> .\n\n<{EX}a> <{EX}p> "c"\n<{EX}c> <{EX}p> <{EX}d> .\n',
            3,
            "invalid N-Triples (expected ' .' after the object, found the end of the line)",
        ),
        (
            "kb.ttl",
            f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\n\nex:c ex:p ex:d ex:e .\nex:f ex:p ex:g .\n",
            4,
            "invalid Turtle (expected '.' or '}' or ']' at end of statement)",
        ),
        ("kb.ttl", f"@prefix ex: <{EX}> .\nex:a ex:p ex:b .\nex:c ex:p", 3, "invalid Turtle"),
    ],
)
def test_bad_rdf_names_file_and_line(
    tmp_path: Path, tmp_cache: Path, file: str, text: str, line: int, problem: str
) -> None:
    with pytest.raises(DataFormatError) as caught:
        get_dataset(write(tmp_path / "kg", {file: text})).kg  # noqa: B018
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'kg' / file}:{line}: {problem}")
    assert caught.value.line_number == line and "\n" not in message


@pytest.mark.parametrize("file", ["kb.nt", "kb.ttl"])
def test_non_utf8_bytes_name_their_line(tmp_path: Path, tmp_cache: Path, file: str) -> None:
    text = f'<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> "caf\xe9" .\n'.encode("latin-1")
    with pytest.raises(DataFormatError, match=rf"{file}:2: not UTF-8 text \(byte 0xe9"):
        get_dataset(write(tmp_path / "kg", {file: text})).kg  # noqa: B018


def test_graph_of_labels_only_is_an_error(tmp_path: Path, tmp_cache: Path) -> None:
    with pytest.raises(DataFormatError, match=r"kb\.nt: holds no RDF triples"):
        get_dataset(write(tmp_path / "kg", {"kb.nt": f'<{EX}a> {LABEL} "A" .\n'})).kg  # noqa: B018


def test_name_length_limit(
    tmp_path: Path, tmp_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGVIZ_MAX_NAME_CHARS", "10")
    text = (
        f'<{EX}a> {LABEL} "a rather long label" .\n'
        f"<{EX}b> <{EX}p> <{EX}c> .\n"
        f"<{EX}a> <{EX}p> <{EX}b> .\n"
    )
    with pytest.raises(DataFormatError, match=r"kb\.nt:3: a name of 19 characters"):
        get_dataset(write(tmp_path / "kg", {"kb.nt": text})).kg  # noqa: B018


def test_two_kb_files_is_an_error(tmp_path: Path, tmp_cache: Path) -> None:
    name = write(tmp_path / "kg", {"kb.tsv": "a\tp\tb\n", "kb.nt": NTRIPLES})
    with pytest.raises(KgvizError, match=r"holds kb\.tsv, kb\.nt; keep only the one to use"):
        get_dataset(name).kg  # noqa: B018


def test_missing_kb_mentions_rdf_files(tmp_path: Path, tmp_cache: Path) -> None:
    with pytest.raises(MissingDataError, match=r"kb\.tsv not found .*or kb\.nt / kb\.ttl"):
        get_dataset(write(tmp_path / "kg", {})).kg  # noqa: B018


def test_dataset_toml_names_the_domain_methods_adapt_to(tmp_path: Path, tmp_cache: Path) -> None:
    assert get_dataset(write(tmp_path / "plain", {"kb.tsv": "a\tp\tb\n"})).domain == "generic"
    files = {"kb.tsv": "a\tp\tb\n", "dataset.toml": 'domain = "movies"\n'}
    assert get_dataset(write(tmp_path / "films", files)).domain == "movies"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('domain = "movie"\n', r"'domain' must be one of generic, movies, .* not 'movie'"),
        ('domian = "movies"\n', r"unknown key\(s\) domian; known: domain"),
        ("domain = \n", r"invalid TOML"),
    ],
)
def test_a_bad_dataset_toml_names_its_file(
    tmp_path: Path, tmp_cache: Path, text: str, message: str
) -> None:
    with pytest.raises(DataFormatError, match=rf"dataset\.toml.*{message}"):
        get_dataset(write(tmp_path / "kg", {"kb.tsv": "a\tp\tb\n", "dataset.toml": text}))


def test_every_dataset_declares_a_known_domain() -> None:
    assert {get_dataset(name).domain for name in dataset_names()} <= set(DOMAINS)
