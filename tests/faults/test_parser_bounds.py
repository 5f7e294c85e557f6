"""Parsers are bounded: deep nesting, huge literals and empty files are one line naming the file
and line, never a RecursionError; a long comment is a value, not a name, and passes; control
characters in RDF names are escaped, so an evidence line stays one line."""

from __future__ import annotations

import json

import pytest

from kgviz.errors import DataFormatError
from kgviz.kg.graph import KnowledgeGraph
from kgviz.kg.rdf import read_rdf_triples

PREFIXES = (
    "@prefix ex: <http://example.org/> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
)


def turtle(tmp_path, body: str, name: str = "kb.ttl"):
    path = tmp_path / name
    path.write_text(PREFIXES + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("depth", [200, 300])
def test_deep_nesting_is_one_line_with_its_line(kgviz_cli, tmp_path, depth):
    folder = tmp_path / "kg"
    folder.mkdir()
    nested = "ex:a ex:p " + "[ ex:q\n" * depth + "ex:z" + " ]" * depth + " .\n"
    (folder / "kb.ttl").write_text(PREFIXES + nested)
    (folder / "dev.jsonl").write_text(json.dumps({"question": "q", "answers": ["z"]}) + "\n")
    run = kgviz_cli("data", "info", f"custom:{folder}")
    assert run.returncode == 2
    assert f"{folder / 'kb.ttl'}:35: brackets nested more than 32 levels deep" in run.error


def test_nesting_within_the_bound_and_brackets_in_strings_and_iris_pass(tmp_path):
    body = (
        "ex:a ex:p " + "[ ex:q " * 32 + "ex:z" + " ]" * 32 + " .\n"
        'ex:b ex:says "[[[[ (((( # not a comment" ; rdfs:label "b" .\n'
        "ex:c ex:links <http://example.org/x#[(> . # a comment [[[[\n"
    )
    assert len(read_rdf_triples(turtle(tmp_path, body))) == 32 + 1 + 1 + 1


@pytest.mark.parametrize("name", ["kb.ttl", "kb.nt"])
def test_a_huge_literal_is_one_line_with_its_line(tmp_path, name):
    big = "x" * 10_001
    if name == "kb.ttl":
        path = turtle(tmp_path, f'ex:a ex:p "short" .\nex:a ex:q """{big}""" .\n')
        line = 4
    else:
        path = tmp_path / name
        path.write_text(
            f'<http://e/a> <http://e/p> "short" .\n<http://e/a> <http://e/q> "{big}" .\n'
        )
        line = 2
    with pytest.raises(DataFormatError) as error:
        read_rdf_triples(path)
    assert str(error.value).startswith(f"{path}:{line}: a literal of 10,001 characters")


def test_a_long_comment_is_a_value_not_a_name(tmp_path):
    comment = "A film. " * 191  # 1,528 characters, as an ordinary description can be
    path = turtle(tmp_path, f'ex:film rdfs:label "Apollo 13" ; rdfs:comment "{comment} " .\n')
    ((head, relation, tail),) = read_rdf_triples(path)
    assert (head, relation, len(tail)) == ("Apollo 13", "comment", len(comment.strip()))


def test_a_long_label_of_a_node_in_a_triple_is_a_name(tmp_path):
    path = turtle(tmp_path, f'ex:film rdfs:label "{"y" * 1529}" ; ex:year "1995" .\n')
    with pytest.raises(DataFormatError, match="a name of 1,529 characters"):
        read_rdf_triples(path)


def test_an_rdf_file_with_nothing_but_prefixes_is_one_line(tmp_path):
    with pytest.raises(DataFormatError, match=r"kb.ttl: holds no RDF triples"):
        read_rdf_triples(turtle(tmp_path, "\n"))


def test_a_nul_in_an_rdf_value_is_refused(tmp_path):
    path = tmp_path / "kb.nt"
    path.write_text('<http://e/a> <http://e/p> "x" .\n<http://e/a> <http://e/q> "a\\u0000b" .\n')
    with pytest.raises(DataFormatError, match=r"kb.nt:2: a name holds a NUL character"):
        read_rdf_triples(path)


def test_tabs_and_line_breaks_in_rdf_names_are_escaped_in_evidence(tmp_path):
    path = turtle(
        tmp_path,
        'ex:film rdfs:label "Apollo\\t13" ; ex:directedBy ex:ron .\n'
        'ex:ron rdfs:label "Ron\\nHoward" .\n'
        'ex:other rdfs:label "Apollo\\\\t13" ; ex:directedBy ex:ron .\n',  # spelled `\t`
    )
    kg = KnowledgeGraph.from_triples(read_rdf_triples(path))
    evidence = [" | ".join(kg.triple_names(edge)) for edge in range(kg.num_triples)]
    assert all("\t" not in line and "\n" not in line for line in evidence)
    assert evidence[0] == "Apollo\\t13 (film) | directedBy | Ron\\nHoward"
    assert evidence[1] == "Apollo\\t13 (other) | directedBy | Ron\\nHoward"  # never merged
