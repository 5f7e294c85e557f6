"""A KG behind a SPARQL endpoint: a real Oxigraph server on loopback serving the demo KG gives
every method the same evidence as the in-memory demo, question by question; a stopped, slow or
garbled endpoint is a one-line error (those use the stub server of `conftest.py`, and say so)."""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from kgviz.datasets import get_dataset
from kgviz.datasets.custom import CustomDataset
from kgviz.errors import DataFormatError, KgvizError
from kgviz.eval.plan import EvalPlan
from kgviz.eval.results_file import read_results
from kgviz.eval.runner import run_eval
from kgviz.kg.graph import KnowledgeGraph
from kgviz.llm.openai_backend import OpenAIBackend
from kgviz.reasoners.base import ReasonerContext
from kgviz.reasoners.grag.records import DESCRIPTION
from kgviz.reasoners.linking import LinkerConfig, _vector_matches
from kgviz.reasoners.registry import make_reasoner
from kgviz.reasoners.simgrag.config import SimGRAGConfig
from kgviz.reasoners.simgrag.path_pattern import path_pattern
from kgviz.reasoners.simgrag.pools import build_pools
from kgviz.reasoners.simgrag.query_pattern import QueryPattern
from kgviz.reasoners.simgrag.search import optimized_topk
from kgviz.reasoners.simgrag.views.tree_boxes import entity_name, triple_name
from kgviz.reasoners.tog.records import WALK
from kgviz.session import Session
from kgviz.triplestore import met, oxigraph
from kgviz.triplestore.client import (
    SparqlClient,
    SparqlError,
    SparqlTransient,
    SparqlUnavailable,
    code_rows,
    stream_tsv,
    tsv_rows,
)
from kgviz.triplestore.config import EndpointConfig
from kgviz.triplestore.export import write_ntriples
from kgviz.triplestore.graph import FetchLimitError, SparqlGraph
from kgviz.triplestore.terms import term_key, tsv_key

REPO = Path(__file__).resolve().parents[2]


def parse_cells(body: bytes, endpoint: str) -> list[list[str]]:
    """The rows of a TSV result, read whole."""
    return list(tsv_rows(body, endpoint)[0])


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo KG exported as N-Triples and loaded into an Oxigraph store folder."""
    folder = tmp_path_factory.mktemp("oxigraph")
    write_ntriples(get_dataset("demo").kg, folder / "demo.nt")
    oxigraph.load(folder / "demo.nt", folder / "store")
    return folder / "store"


@pytest.fixture(scope="module")
def endpoint(demo_store: Path):
    with oxigraph.served(demo_store) as (url, _):
        yield url


def sparql_folder(folder: Path, url: str, **settings: object) -> Path:
    """A `custom:` folder holding `kb.sparql` for `url` and the demo's questions."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f'endpoint = "{url}"'] + [f"{key} = {value}" for key, value in settings.items()]
    (folder / "kb.sparql").write_text("\n".join(lines) + "\n")
    shutil.copy(REPO / "data" / "demo" / "dev.jsonl", folder / "dev.jsonl")
    return folder


@pytest.fixture
def served_demo(tmp_cache, tmp_path: Path, endpoint: str) -> CustomDataset:
    folder = sparql_folder(tmp_path / "kg", endpoint)
    return CustomDataset(folder, name="demo-sparql", domain="movies")


def test_the_endpoint_names_what_the_file_names(served_demo):
    memory, served = get_dataset("demo").kg, served_demo.kg
    assert isinstance(served, SparqlGraph)
    assert sorted(served.store.entity_names()) == sorted(memory.entities)
    assert sorted(served.relations) == sorted(memory.relations)
    assert (served.stored_triples, served.stored_entities) == (
        memory.num_triples,
        memory.num_entities,
    )
    # nothing is fetched or met before a walk or a lookup asks; then only what it names
    assert served.num_triples == served.num_entities == 0
    assert served.entity_id("Forrest Gump") == 0 and served.num_entities == 1
    served.reach([0], 1)
    assert served.num_entities == len(
        memory.k_hop_subgraph([memory.entity_id("Forrest Gump")], 1)[0]
    )


def test_listings_paged_in_order_give_the_same_table(tmp_path, endpoint, served_demo, monkeypatch):
    """A listing longer than `page` is read in ordered pages (a server may cap its results)."""
    served_demo.kg  # noqa: B018  (its table is built in one request per listing)
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "another-cache"))
    paged = CustomDataset(sparql_folder(tmp_path / "paged", endpoint, page=7), name="paged").kg
    assert paged.store.entity_names() == served_demo.kg.store.entity_names()
    assert list(paged.relations) == list(served_demo.kg.relations)
    assert paged.client.stats.queries > 40  # 224 entities, 7 a page


def served_context(dataset: CustomDataset, index: str, folder: Path) -> ReasonerContext:
    """The context of a served KG, its vectors in faiss (`flat`) or in a Milvus Lite file."""
    if index == "flat":
        return ReasonerContext(dataset, None)
    return ReasonerContext(dataset, None, index_kind="milvus", milvus_uri=str(folder / "m.db"))


@pytest.mark.parametrize("index", ["flat", "milvus"])
@pytest.mark.parametrize("method", ["kaping", "gnnrag", "subgraphrag", "grag"])
def test_every_question_gets_the_same_triples_as_in_memory(
    tmp_cache, endpoint, method, index, tmp_path
):
    """The demo in memory with faiss, against Oxigraph with faiss and with Milvus Lite; with
    faiss, the served KG holds at most one triple between runs, so each run starts from nothing
    (what a method keeps by entity id between runs must follow the renumbering)."""
    settings = {"cache_triples": 1} if index == "flat" else {}
    folder = sparql_folder(tmp_path / "kg", endpoint, **settings)
    served_demo = CustomDataset(folder, name="demo-sparql", domain="movies")
    memory = make_reasoner(method, ReasonerContext(get_dataset("demo"), None))
    served = make_reasoner(method, served_context(served_demo, index, tmp_path))
    records = get_dataset("demo").questions("dev")
    for record in records:
        expected = memory.retrieve_only(record.question, record.topic_entities)
        found = served.retrieve_only(record.question, record.topic_entities)
        assert found.evidence == expected.evidence, record.qid
        # GRAG's prompt: its graphs in the same order, each described the same way
        assert found.stages.get(DESCRIPTION) == expected.stages.get(DESCRIPTION), record.qid
    kg = served_demo.kg
    assert 0 < kg.num_triples <= kg.stored_triples
    assert kg.client.stats.queries > 0
    assert kg.generation == kg.walks.dropped
    assert (kg.generation > len(records) // 2) == bool(settings)  # most runs fetched 2 or more
    assert (tmp_path / "m.db").exists() == (index == "milvus")  # its vectors went to Milvus


@pytest.mark.parametrize("method", ["gnnrag", "subgraphrag", "grag"])
def test_name_vectors_over_an_endpoint_are_read_from_the_index(
    served_demo, method, tmp_path, monkeypatch
):
    """The learned retrievers' text features and GRAG's node vectors are the index's vectors of
    the names met: with the embedding cache emptied after the index is built, the (real)
    encoder, observed, encodes questions and relation texts, and no name."""
    context = ReasonerContext(served_demo, None)
    encoder = context.index.encoder
    monkeypatch.setenv("KGVIZ_CACHE", str(tmp_path / "an empty cache"))
    encoded: list[str] = []
    encode = encoder.encode

    def observed(texts: list[str], *args, **kwargs):
        encoded.extend(texts)
        return encode(texts, *args, **kwargs)

    monkeypatch.setattr(encoder, "encode", observed)
    reasoner = make_reasoner(method, context)
    for record in get_dataset("demo").questions("dev")[:6]:
        assert reasoner.retrieve_only(record.question, record.topic_entities).evidence
    assert encoded and not set(encoded) & set(get_dataset("demo").kg.entities)


@pytest.mark.llm
def test_tog_walks_the_same_beams_to_the_same_answer_over_the_endpoint(served_demo, local_llm):
    """Think-on-Graph reads the KG only through an entity's neighbours: over Oxigraph it lists
    the same relations, keeps the same candidates at every depth, and answers the same."""
    question = "who acted in the movies directed by the director of Titanic"
    walks = {}
    for name, dataset in (("memory", get_dataset("demo")), ("served", served_demo)):
        trace = make_reasoner("tog", ReasonerContext(dataset, local_llm)).run(question, ["Titanic"])
        walks[name] = (trace.stages[WALK], trace.answers, trace.evidence)
    (memory, answers, evidence), (served, served_answers, served_evidence) = walks.values()
    assert [step.beam for step in served.depths] == [step.beam for step in memory.depths]
    for mine, theirs in zip(memory.depths, served.depths, strict=True):
        assert theirs.relations == mine.relations and theirs.candidates == mine.candidates
        assert theirs.decision == mine.decision
    assert served_answers == answers and served_evidence == evidence and answers


def gold_pattern(record, kg) -> QueryPattern:
    """The pattern of the question's path to its first answer (ties in GSD are common: unknown
    nodes cost nothing, which is what the test wants)."""
    return path_pattern(kg, record.topic_entities[0], record.answers[0])


def top_k_by_name(context: ReasonerContext, pattern: QueryPattern, topics) -> list:
    """SimGRAG's top-k matches of `pattern`, named, found in one run."""
    config, kg = SimGRAGConfig(), context.kg
    with kg.in_use():
        pools = build_pools(context.index, pattern, config.k_nodes, config.k_relations, topics)
        return [_named_top_k(kg, part, pools, config) for part in pattern.searchable()]


def _named_top_k(kg, part, pools, config: SimGRAGConfig) -> list:
    result = optimized_topk(
        kg, part.graph, pools.for_component(part), config.k, max_expansions=None, time_limit_s=300
    )
    assert result.status == "complete"
    return [
        (
            round(match.gsd, 6),
            [kg.entities[e] for e in match.nodes],
            [kg.triple_names(row) for row in match.edges],
        )
        for match in result.matches
    ]


@pytest.mark.parametrize("index", ["flat", "milvus"])
def test_simgrag_finds_the_same_top_k_node_maps(tmp_cache, endpoint, index, tmp_path):
    """Each question a run; with faiss, the served KG starts every run from nothing (as in
    `test_every_question_gets_the_same_triples_as_in_memory`)."""
    settings = {"cache_triples": 1} if index == "flat" else {}
    folder = sparql_folder(tmp_path / "kg", endpoint, **settings)
    served_demo = CustomDataset(folder, name="demo-sparql", domain="movies")
    memory = ReasonerContext(get_dataset("demo"), None)
    served = served_context(served_demo, index, tmp_path)
    for record in get_dataset("demo").questions("dev"):
        pattern = gold_pattern(record, memory.kg)
        expected = top_k_by_name(memory, pattern, record.topic_entities)
        assert top_k_by_name(served, pattern, record.topic_entities) == expected, record.qid
    assert (served_demo.kg.generation > 10) == bool(settings)
    assert (tmp_path / "m.db").exists() == (index == "milvus")  # the pools came from Milvus


def test_fetched_triples_beyond_cache_triples_are_dropped_between_runs(
    tmp_cache, tmp_path, endpoint
):
    folder = sparql_folder(tmp_path / "kg", endpoint, cache_triples=5)
    served = CustomDataset(folder, name="small-cache", domain="movies")
    memory = make_reasoner("kaping", ReasonerContext(get_dataset("demo"), None))
    reasoner = make_reasoner("kaping", ReasonerContext(served, None))
    records = get_dataset("demo").questions("dev")[:3]
    for record in records:
        expected = memory.retrieve_only(record.question, record.topic_entities).evidence
        assert reasoner.retrieve_only(record.question, record.topic_entities).evidence == expected
        assert served.kg.num_triples > 5  # what the last run fetched stays until the next one
    assert served.kg.walks.dropped == served.kg.generation == len(records) - 1
    # the entities met with the dropped triples went with them: those held are the last run's
    held = served.kg.num_entities
    with served.kg.in_use():
        assert served.kg.num_triples == served.kg.num_entities == 0
        assert served.kg.entity_id("Forrest Gump") == 0  # ids are handed out from 0 again
    assert 0 < held < get_dataset("demo").kg.num_entities
    with served.kg.in_use():  # while a reader holds them, a run keeps what it finds
        dropped = served.kg.walks.dropped
        for record in records:
            reasoner.retrieve_only(record.question, record.topic_entities)
        assert served.kg.walks.dropped == dropped


def test_entities_met_without_triples_are_dropped_past_cache_triples(tmp_cache, tmp_path, endpoint):
    kg = CustomDataset(sparql_folder(tmp_path / "kg", endpoint, cache_triples=3), name="few").kg
    names = list(get_dataset("demo").kg.entities)[:4]
    with kg.in_use():  # name lookups meet entities and fetch no triple
        ids = [kg.entity_id(name) for name in names]
    assert kg.num_triples == 0 and kg.num_entities == 4 and ids == [0, 1, 2, 3]
    with kg.in_use():
        assert kg.num_entities == 0 and kg.generation == 1
        assert kg.entity_id(names[3]) == 0


def test_a_walk_past_max_fetch_stops_in_one_line(tmp_cache, tmp_path, endpoint):
    dataset = CustomDataset(sparql_folder(tmp_path / "kg", endpoint, max_fetch=20), name="small")
    kg = dataset.kg
    with pytest.raises(FetchLimitError, match="more than 20 triples; raise max_fetch") as error:
        kg.reach([kg.entity_id("Drama")], 2)
    assert "\n" not in str(error.value)
    assert kg.num_triples == 0  # the cut walk kept nothing
    assert kg.reach([kg.entity_id("Forrest Gump")], 1).num_triples > 0  # a small walk still runs


def test_a_walk_stopped_by_max_fetch_asks_no_more_batches(tmp_cache, tmp_path, endpoint):
    """Drama's 27 triples fit; its 27 neighbours' are asked two entities per query, two queries
    at a time, and the walk stops at the reply that passes max_fetch (the walk's budget),
    dropping the queries not yet asked."""
    folder = sparql_folder(tmp_path / "kg", endpoint, max_fetch=40, batch=2)
    kg = CustomDataset(folder, name="small").kg
    before = kg.client.stats.queries  # those that built the name store
    with pytest.raises(FetchLimitError, match="more than 40 triples"):
        kg.reach([kg.entity_id("Drama")], 2)
    assert kg.num_triples == 27  # the first hop's whole fetch is kept, none of the second's
    walk = kg.client.stats.queries - before
    assert walk < 1 + 14  # one for Drama, then fewer than its neighbours' 14 batches


def test_a_stopped_endpoint_is_unavailable_in_one_line(tmp_cache, tmp_path, demo_store):
    with oxigraph.served(demo_store) as (url, process):
        kg = CustomDataset(sparql_folder(tmp_path / "kg", url)).kg
        process.terminate()
        process.wait()
        with pytest.raises(SparqlUnavailable, match="no SPARQL endpoint answers at") as error:
            kg.reach([kg.entity_id("Forrest Gump")], 1)
    assert "\n" not in str(error.value)


def test_a_slow_endpoint_times_out_within_its_deadline(fault_server):
    """The stub server sends its reply a byte every 0.2 s (error handling only)."""
    server = fault_server(lambda n, body: (200, b'{"results": {"bindings": []}}', 0.2))
    client = SparqlClient(server.url, timeout_s=1.0)
    started = time.monotonic()
    with pytest.raises(SparqlTransient, match="did not answer within 1 s"):
        client.select("SELECT * WHERE { ?s ?p ?o }")
    assert time.monotonic() - started < 3.0


@pytest.mark.parametrize(
    "status, body, message",
    [
        (200, b"<html>busy</html>", "did not send a JSON result"),
        (200, b'{"boolean": true}', "not a SELECT result"),
        (200, b'{"results": {"bindings": [{"s": 3}]}}', "not a SELECT result"),
        (400, b"Parse error at line 1", "HTTP 400: Parse error"),
    ],
)
def test_a_garbled_reply_is_a_one_line_error(fault_server, status, body, message):
    """The stub server answers with what no SPARQL endpoint should send (error handling only)."""
    server = fault_server(lambda n, _: (status, body, 0.0))
    with pytest.raises(SparqlError, match=message) as error:
        SparqlClient(server.url, timeout_s=5.0).select("SELECT * WHERE { ?s ?p ?o }")
    assert "\n" not in str(error.value)


def test_a_server_error_is_retried(fault_server):
    """The stub fails the first request with HTTP 503, then answers (error handling only)."""
    ok = b'{"results": {"bindings": [{"n": {"type": "literal", "value": "1"}}]}}'
    server = fault_server(lambda n, _: (503, b"busy", 0.0) if n == 0 else (200, ok, 0.0))
    client = SparqlClient(server.url, timeout_s=10.0)
    assert client.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")[0]["n"]["value"] == "1"
    assert client.stats.retries == 1


@pytest.mark.parametrize(
    "text, message",
    [
        ('endpoint = "http://x/query"\nbatch = 0\n', "'batch' must be a whole number above 0"),
        ('endpoint = "http://x/query"\npage = 0.5\n', "'page' must be a whole number above 0"),
        ('endpoint = "ftp://x"\n', "'endpoint' must be an http"),
        ('endpoint = "http://x/query"\nlimit = 3\n', "unknown key"),
        ("endpoint = \n", "invalid TOML"),
        ('endpoint = "http://x/query"\nresults = "xml"\n', "'results' must be one of tsv, json"),
    ],
)
def test_a_bad_kb_sparql_names_the_file(tmp_path, text, message):
    (tmp_path / "kb.sparql").write_text(text)
    with pytest.raises(DataFormatError, match=message) as error:
        EndpointConfig.read(tmp_path / "kb.sparql")
    assert str(tmp_path / "kb.sparql") in str(error.value)


def test_a_view_shows_the_kg_degree_and_neighbours_from_the_endpoint(served_demo):
    from kgviz.viz.graph_data import VisNode
    from kgviz.viz.kg_links import link_to_kg

    drawn = [VisNode("n1", "Tom Hanks", "", {}), VisNode("n2", "not in the KG", "", {})]
    expected_nodes, expected = link_to_kg(drawn, get_dataset("demo").kg)
    found_nodes, found = link_to_kg(drawn, served_demo.kg)
    assert [n.title for n in found_nodes] == [n.title for n in expected_nodes]
    assert "degree" in found_nodes[0].title and set(found) == {"n1"}
    shown = {(e.source, e.target, e.label) for e in found["n1"].edges}
    assert shown == {(e.source, e.target, e.label) for e in expected["n1"].edges}
    assert [n.title for n in found["n1"].nodes] != [] and found["n1"].more == expected["n1"].more


def test_an_eval_stopped_by_its_endpoint_resumes_with_nothing_lost(
    tmp_cache, tmp_path, demo_store, fault_server
):
    """KAPING over the real Oxigraph server; the answers come from a stub LLM server (the test is
    about the endpoint stopping, not the answers)."""
    answer = {"choices": [{"message": {"content": "Robert Zemeckis"}, "finish_reason": "stop"}]}
    llm = fault_server(lambda n, _: (200, json.dumps(answer).encode(), 0))
    out = tmp_path / "results.jsonl"

    def session_on(url: str) -> Session:
        dataset = CustomDataset(sparql_folder(tmp_path / "kg", url), name="served", domain="movies")
        return Session(dataset, ReasonerContext(dataset, OpenAIBackend(llm.url + "/v1", "m")), "")

    def evaluate(session: Session, limit: int) -> None:
        run_eval(session, ["kaping"], EvalPlan("dev", limit=limit), out, progress=False)

    with oxigraph.served(demo_store) as (url, process):
        session = session_on(url)
        evaluate(session, 2)
        process.terminate()  # the endpoint stops while the KG is open: the next fetch fails
        process.wait()
        with pytest.raises(SparqlUnavailable, match="no SPARQL endpoint answers") as error:
            evaluate(session, 4)
    assert "\n" not in str(error.value)
    assert len(read_results(out)) == 2  # the rows written before the stop are kept
    with oxigraph.served(demo_store) as (url, _):  # back, at another address
        evaluate(session_on(url), 4)
    rows = read_results(out)
    assert len(rows) == 4 and len({row["qid"] for row in rows}) == 4


@pytest.fixture(scope="module")
def metaqa_served(shared_data, tmp_path_factory: pytest.TempPathFactory):
    """MetaQA's KB (134k triples) in Oxigraph, where the real data is present, read as a
    `kb.sparql` dataset. It uses the user cache (MetaQA's name vectors are there), and takes
    away the name store it adds, whose key names the test server's port."""
    folder = tmp_path_factory.mktemp("metaqa-oxigraph")
    write_ntriples(get_dataset("metaqa-1hop").kg, folder / "metaqa.nt")
    oxigraph.load(folder / "metaqa.nt", folder / "store")
    with oxigraph.served(folder / "store") as (url, _):
        dataset = CustomDataset(sparql_folder(folder / "kg", url), domain="movies")
        yield dataset
        dataset.kg.store.path.unlink(missing_ok=True)


METAQA_PER_HOP = 3


@pytest.mark.parametrize("method", ["kaping", "gnnrag", "subgraphrag", "grag", "simgrag-search"])
def test_metaqa_over_the_endpoint_gets_the_same_evidence(metaqa_served, method):
    records = [
        record
        for hops in (1, 2, 3)
        for record in get_dataset(f"metaqa-{hops}hop").questions("dev")[:METAQA_PER_HOP]
    ]
    memory = ReasonerContext(get_dataset("metaqa-1hop"), None)
    context = ReasonerContext(metaqa_served, None)
    if method == "simgrag-search":
        for record in records:
            pattern = gold_pattern(record, memory.kg)
            expected = top_k_by_name(memory, pattern, record.topic_entities)
            assert top_k_by_name(context, pattern, record.topic_entities) == expected, record.qid
        return
    in_memory, over_endpoint = make_reasoner(method, memory), make_reasoner(method, context)
    for record in records:
        expected = in_memory.retrieve_only(record.question, record.topic_entities).evidence
        found = over_endpoint.retrieve_only(record.question, record.topic_entities).evidence
        assert found == expected, record.qid


def test_a_rate_spaces_the_queries(fault_server):
    """The stub answers at once (only the client's pacing is tested)."""
    server = fault_server(lambda n, _: (200, b'{"results": {"bindings": []}}', 0.0))
    client = SparqlClient(server.url, timeout_s=5.0, rate=10.0)
    started = time.monotonic()
    for _ in range(4):
        client.select("SELECT * WHERE { ?s ?p ?o }")
    assert time.monotonic() - started >= 0.3  # 4 queries at 10 per second: 3 gaps of 0.1 s


def test_odd_characters_in_terms_are_sent_back_as_sparql_reads_them(tmp_cache, tmp_path):
    """A literal with a form feed and an IRI with a brace: their VALUES keys are escaped."""
    (tmp_path / "kb.nt").write_text(
        '<http://x.org/a> <http://x.org/says> "page\\u000Cbreak" .\n'
        '<http://x.org/b> <http://x.org/says> "page\\u000Cbreak" .\n'
        "<http://x.org/a> <http://x.org/knows> <http://x.org/c%7Bd%7D> .\n"
    )
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with oxigraph.served(tmp_path / "store") as (url, _):
        kg = CustomDataset(sparql_folder(tmp_path / "kg", url)).kg
        literal = kg.entity_id("page\\x0cbreak")  # names show control characters escaped
        walked = kg.reach([literal], 1)
        assert sorted(walked.triple_names(row)[0] for row in range(walked.num_triples)) == [
            "a",
            "b",
        ]
        assert kg.reach([kg.entity_id("a")], 1).num_triples == 3


ODD_TERMS = """\
<http://x.org/a> <http://x.org/says> "tab\\there \\"q\\" back\\\\slash nl\\nend" .
<http://x.org/a> <http://x.org/says> "42"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://x.org/a> <http://x.org/says> "-4.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
<http://x.org/a> <http://x.org/says> "1.5E3"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://x.org/a> <http://x.org/says> "true"^^<http://www.w3.org/2001/XMLSchema#boolean> .
<http://x.org/a> <http://x.org/says> "2020-01-01"^^<http://www.w3.org/2001/XMLSchema#date> .
<http://x.org/a> <http://x.org/says> "x"^^<http://www.w3.org/2001/XMLSchema#string> .
<http://x.org/a> <http://x.org/says> "chat"@fr .
<http://x.org/a> <http://x.org/says> "ctl\\u0001 uni \\u00E9 \\U0001F600" .
<http://x.org/a> <http://x.org/says> "" .
<http://x.org/a%20b> <http://x.org/knows> <http://x.org/c%7Bd%7D> .
_:b <http://x.org/knows> <http://x.org/c> .
"""


def test_tsv_cells_give_the_keys_json_terms_give(tmp_path):
    """Walks read TSV results (cheaper to write and read than JSON); for every kind of term
    Oxigraph writes, the key read from TSV is the one read from JSON."""
    (tmp_path / "kb.nt").write_text(ODD_TERMS)
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } ORDER BY ?s ?p ?o"
    with oxigraph.served(tmp_path / "store") as (url, _):
        client = SparqlClient(url)
        from_json = [[term_key(row[v]) for v in "spo"] for row in client.select(query)]
        cells = client.select_cells(query)
    assert len(from_json) == 12 and [[tsv_key(cell) for cell in row] for row in cells] == from_json
    objects = {row[2] for row in cells}
    assert {"42", "-4.5", "true"} <= objects  # SPARQL's short forms: typed literals, bare
    assert any("\\t" in cell for cell in objects)  # and escapes, read back


@pytest.mark.parametrize("results", ["tsv", "json"])
def test_walks_read_tsv_or_json_alike(tmp_cache, tmp_path, results):
    """`results = "json"` (for an endpoint whose TSV is loose) walks to the same triples."""
    (tmp_path / "kb.nt").write_text(ODD_TERMS)
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with oxigraph.served(tmp_path / "store") as (url, _):
        folder = sparql_folder(tmp_path / "kg", url, results=f'"{results}"')
        kg = CustomDataset(folder).kg
        walked = kg.reach([kg.entity_id("a"), kg.entity_id("a b")], 1)
        triples = sorted(walked.triple_names(row) for row in range(walked.num_triples))
    assert len(triples) == 11  # all but the blank node's
    assert {("a", "says", "42"), ("a", "says", "1500"), ("a b", "knows", "c{d}")} <= set(triples)


def test_tsv_results_are_read_whatever_their_line_ends_and_garbage_is_one_line():
    crlf = b"?s\t?o\r\n<http://x.org/a>\t42\r\n<http://x.org/b>\t\r\n"
    assert parse_cells(crlf, "E") == [["<http://x.org/a>", "42"], ["<http://x.org/b>", ""]]
    assert parse_cells(b"?x\n\n<http://x.org/a>\n", "E") == [[""], ["<http://x.org/a>"]]
    assert parse_cells(b"?x\n", "E") == []
    with pytest.raises(SparqlError, match="did not send a TSV result"):
        parse_cells(b'{"results": {"bindings": []}}', "E")
    with pytest.raises(SparqlError, match="a TSV row of 1 cells under 2 variables \\(line 3\\)"):
        parse_cells(b"?s\t?o\n<a>\t<b>\n<c>\n", "E")
    with pytest.raises(ValueError, match="no RDF term"):
        tsv_key("not a term")


@pytest.mark.parametrize("blank", [True, False])
def test_blank_nodes_and_labels_are_not_edges_and_their_absence_is_noticed(
    tmp_cache, tmp_path, blank
):
    """Listings test each triple for blank nodes only when the KG holds one (the test makes
    a whole-KG scan many times slower); either way the table holds the same entities."""
    lines = [
        '<http://x.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .',
        "<http://x.org/a> <http://x.org/knows> <http://x.org/b> .",
        '<http://x.org/b> <http://x.org/says> "hello" .',
    ]
    if blank:
        lines += ["<http://x.org/c> <http://x.org/knows> _:x .", "_:x <http://x.org/owns> _:y ."]
    (tmp_path / "kb.nt").write_text("\n".join(lines) + "\n")
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with oxigraph.served(tmp_path / "store") as (url, _):
        kg = CustomDataset(sparql_folder(tmp_path / "kg", url)).kg
        assert sorted(kg.store.entity_names()) == ["Alpha", "b", "hello"]
        assert sorted(kg.relations) == ["knows", "says"]
        assert kg.stored_triples == 2
        assert kg.reach([kg.entity_id("Alpha")], 2).num_triples == 2


def test_an_endpoint_of_labels_only_is_a_one_line_error(tmp_cache, tmp_path):
    (tmp_path / "kb.nt").write_text(
        '<http://x.org/a> <http://www.w3.org/2000/01/rdf-schema#label> "Alpha" .\n'
    )
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with (
        oxigraph.served(tmp_path / "store") as (url, _),
        pytest.raises(KgvizError, match=r"holds no triples other than labels"),
    ):
        CustomDataset(sparql_folder(tmp_path / "kg", url)).kg  # noqa: B018


def test_a_kg_in_a_store_is_not_exported_again(served_demo, tmp_path, capsys):
    from kgviz.cli import main

    assert main(["data", "export", f"custom:{served_demo.root}", str(tmp_path / "x.nt")]) == 2
    assert "already in a triple store" in capsys.readouterr().err


SHARED_NAMES = """\
<http://x.org/a/Paris> <http://www.w3.org/2000/01/rdf-schema#label> "Paris"@en .
<http://x.org/b/Paris> <http://www.w3.org/2000/01/rdf-schema#label> "Paris" .
<http://x.org/c/Paris_Texas> <http://www.w3.org/2000/01/rdf-schema#label> "Paris"@fr .
<http://x.org/c/Paris_Texas> <http://www.w3.org/2000/01/rdf-schema#label> "Paris, Texas"@en .
<http://x.org/a/Paris> <http://x.org/p/near> <http://x.org/b/Paris> .
<http://x.org/b/Paris> <http://x.org/q/near> <http://x.org/c/Paris_Texas> .
<http://x.org/c/Paris_Texas> <http://x.org/p/founded> "1844" .
<http://x.org/d/1844> <http://x.org/p/near> <http://x.org/e/Paris%20(Paris)> .
<http://x.org/e/Paris%20(Paris)> <http://x.org/p/says> "Paris, Texas" .
<http://x.org/g/1> <http://www.w3.org/2000/01/rdf-schema#label> "A" .
<http://x.org/g/2> <http://www.w3.org/2000/01/rdf-schema#label> "A" .
<http://y.org/z1> <http://www.w3.org/2000/01/rdf-schema#label> "A (1)" .
<http://y.org/z2> <http://www.w3.org/2000/01/rdf-schema#label> "A (1)" .
<http://x.org/g/1> <http://x.org/p/near> <http://x.org/g/2> .
<http://y.org/z1> <http://x.org/p/near> <http://y.org/z2> .
<http://x.org/g/1> <http://x.org/p/near> <http://y.org/z1> .
<http://x.org/h/a%0Ab> <http://www.w3.org/2000/01/rdf-schema#label> "B" .
<http://x.org/i/B> <http://www.w3.org/2000/01/rdf-schema#label> "B" .
<http://x.org/h/a%0Ab> <http://x.org/p/near> <http://x.org/i/B> .
<http://x.org/i/B> <http://x.org/p/near> <http://x.org/g/2> .
"""


def test_the_name_store_names_shared_and_clashing_names_as_the_rdf_reader(tmp_cache, tmp_path):
    """Shared labels made unique (by local name, else IRI; a renamed node taking a name another
    group shares; a control character in a local name), a literal spelled like a node being
    that node, predicates sharing a local name: the store streamed from the endpoint names them
    all as the file reader does, and a walk meets them by those names."""
    from kgviz.kg.rdf import read_rdf_triples

    (tmp_path / "kb.nt").write_text(SHARED_NAMES)
    read = KnowledgeGraph.from_triples(read_rdf_triples(tmp_path / "kb.nt"))
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with oxigraph.served(tmp_path / "store") as (url, _):
        kg = CustomDataset(sparql_folder(tmp_path / "kg", url)).kg
        assert sorted(kg.store.entity_names()) == sorted(read.entities)
        assert sorted(kg.relations) == sorted(read.relations)
        seeds = ("Paris, Texas", "A (1) (z1)", "B (a\\nb)")
        walked = kg.reach([kg.entity_id(name) for name in seeds], 3)
        names = {walked.triple_names(row) for row in range(walked.num_triples)}
    assert names == {read.triple_names(row) for row in range(read.num_triples)}


def test_a_torn_name_store_is_set_aside_and_built_again(served_demo, tmp_path, endpoint):
    path = served_demo.kg.store.path
    served_demo.kg.store.close()
    path.write_bytes(path.read_bytes()[:5000])  # cut short, as by a full disk
    again = CustomDataset(sparql_folder(tmp_path / "again", endpoint), name="demo-sparql").kg
    assert again.stored_entities == get_dataset("demo").kg.num_entities
    assert path.with_name(path.name + ".corrupt").is_file()


def test_tsv_read_in_chunks_gives_the_rows_read_whole():
    body = b'?s\t?o\r\n<http://x.org/a>\t"\xc3\xa9t\xc3\xa9"@fr\n<http://x.org/b>\t\n<c>\t<d>'
    whole = parse_cells(body, "E")
    for size in (1, 2, 5, 64):
        rows: list[list[str]] = []
        chunks = (body[at : at + size] for at in range(0, len(body), size))
        assert stream_tsv(chunks, rows.extend, "E") == len(whole) == 3
        assert rows == whole
    with pytest.raises(SparqlError, match="did not send a TSV result"):
        stream_tsv(iter([b'{"results": ', b"{}}\n"]), list, "E")


def test_a_name_store_that_fails_a_read_is_one_line_naming_it(served_demo):
    kg = served_demo.kg
    kg.store.close()  # as a file gone unreadable under a running process
    with pytest.raises(KgvizError, match=r"the name store .*sparql-.*\.sqlite could not be read"):
        kg.entity_id("Forrest Gump")


def test_a_served_kg_is_indexed_into_milvus_without_meeting_its_entities(
    served_demo, tmp_path, capsys
):
    """`kgviz index build` streams the name store's names into the collection a chunk at a time;
    the process meets no entity until a search hits one, then meets just its hits."""
    from kgviz.cli import main
    from kgviz.embed import KGIndex

    uri = str(tmp_path / "m.db")
    dataset = f"custom:{served_demo.root}"
    assert main(["index", "build", dataset, "--kind", "milvus", "--milvus-uri", uri]) == 0
    entities = get_dataset("demo").kg.num_entities
    assert f"{entities} entity and" in capsys.readouterr().out
    kg = served_demo.kg
    index = KGIndex.build(kg, kind="milvus", milvus_uri=uri)  # the collection, reopened
    assert kg.num_entities == 0
    hit = index.nearest_entities("Forrest Gump", 3)[0]
    assert hit.name == "Forrest Gump" and kg.entities[hit.id] == "Forrest Gump"
    assert kg.num_entities == 3


def test_an_empty_reply_to_a_listing_is_no_tsv_result():
    with pytest.raises(SparqlError, match="did not send a TSV result"):
        stream_tsv(iter([]), list, "E")


def test_entities_met_in_any_order_keep_their_ids_and_names(served_demo, monkeypatch):
    monkeypatch.setattr(met, "MERGE_AT", 8)  # the store-id index merges its runs at this size
    kg = served_demo.kg
    rng = np.random.default_rng(0)
    rows = rng.permutation(kg.stored_entities)
    first = kg.entities_at(rows[: len(rows) // 3])
    # a batch mixing entities met before (with repeats) and new ones
    mixed = np.concatenate([rows[: len(rows) // 2], rows[:5]])
    ids = kg.entities_at(mixed)
    assert (ids[: len(first)] == first).all()
    assert (ids[-5:] == first[:5]).all()
    assert len(set(ids.tolist())) == len(rows) // 2 == kg.num_entities
    assert (kg.met.stored_of(ids) == mixed).all()
    assert (kg.met.here(mixed) == ids).all()
    assert (kg.met.here(rows[len(rows) // 2 :]) == -1).all()  # not met yet
    latest = kg.entities_at(rows[-3:])  # a run too small to merge: looked up in both
    assert (kg.met.here(np.concatenate([mixed, rows[-3:]])) == [*ids, *latest]).all()
    names = kg.store.names_of(mixed.tolist())
    assert kg.entities.names_of(ids.tolist()) == [names[row] for row in mixed.tolist()]


def test_terms_looked_up_in_any_order_find_their_entities(tmp_cache, tmp_path):
    """Keys are asked sorted and their entities read back alone, so Python's order of the keys
    must be SQLite's (as it is for UTF-8); a key the store lacks is left out (its batch asked
    again with keys)."""
    ends = ["<http://x.org/z>", "<http://x.org/Z>", "<http://x.org/é>", "<http://x.org/😀>"]
    ends += ['"Å"', '"zoë"', '"a\\tb"', '"10"^^<http://www.w3.org/2001/XMLSchema#integer>']
    lines = [f"<http://x.org/hub> <http://x.org/links> {end} ." for end in ends]
    (tmp_path / "kb.nt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    oxigraph.load(tmp_path / "kb.nt", tmp_path / "store")
    with oxigraph.served(tmp_path / "store") as (url, _):
        store = CustomDataset(sparql_folder(tmp_path / "kg", url)).kg.store
    terms = store.terms_of(list(range(store.num_entities)))
    expected = {key: entity for entity, keys in terms.items() for key in keys}
    assert len(expected) == 9 and any(not key.isascii() for key in expected)
    keys = list(expected)
    for seed in range(5):
        random.Random(seed).shuffle(keys)
        assert store.entities_of_terms(keys) == expected
    with_absent = [*keys, "<http://x.org/absent>", '"Zoë"']
    assert store.entities_of_terms(with_absent) == expected


def test_a_coded_reply_gives_back_its_rows():
    rows = [["<a>", "<p>", "<b>"], ["<b>", "<p>", "<a>"], ["<a>", "<q>", '"x"']]
    reply = code_rows(iter(rows), 3)
    assert reply.codes.dtype == np.int32 and reply.codes.shape == (3, 3)
    assert len(reply.cells) == 5  # each distinct cell once
    assert [[reply.cells[code] for code in row] for row in reply.codes.tolist()] == rows
    assert code_rows(iter([]), 3).codes.shape == (0, 3)


def test_name_ranks_order_the_entities_asked_for_and_keep_no_names(served_demo):
    kg, memory = served_demo.kg, get_dataset("demo").kg
    kg.entities_at(np.arange(kg.stored_entities))  # every entity met, most not named yet
    unnamed = kg.met._unnamed
    ids = np.array([5, 3, 5, 40, 11, 3])
    ranks = kg.entity_rank[ids]
    assert kg.met._unnamed == unnamed  # their names were read for the ranking, not kept
    names = kg.entities.names_of(ids.tolist())
    assert ranks.tolist() == [sorted(set(names)).index(name) for name in names]
    in_memory = memory.entity_rank[[memory.entity_id(name) for name in names]]
    assert (np.argsort(ranks, kind="stable") == np.argsort(in_memory, kind="stable")).all()


def test_vector_linking_names_the_entities_memory_names(served_demo):
    memory = ReasonerContext(get_dataset("demo"), None)
    served = ReasonerContext(served_demo, None)
    served_demo.kg.entities_at(np.arange(40)[::-1])  # met in another order than stored
    config, linked = LinkerConfig(), 0
    for record in get_dataset("demo").questions("dev"):
        expected = _vector_matches(memory, record.question, config)
        found = _vector_matches(served, record.question, config)
        assert [(e.name, e.score) for e in found] == [(e.name, e.score) for e in expected]
        linked += bool(expected)
    assert linked >= 10  # most demo questions have an entity near enough


def test_a_search_tree_keeps_its_names_after_its_triples_are_dropped(tmp_cache, tmp_path, endpoint):
    served = CustomDataset(sparql_folder(tmp_path / "kg", endpoint, cache_triples=1), name="drop")
    context, memory = ReasonerContext(served, None), get_dataset("demo").kg
    config, kg = SimGRAGConfig(), served.kg
    first, second = get_dataset("demo").questions("dev")[:2]
    pattern = gold_pattern(first, memory)
    part = pattern.searchable()[0]
    with kg.in_use():
        pools = build_pools(context.index, pattern, config.k_nodes, config.k_relations, ())
        tree = optimized_topk(
            kg, part.graph, pools.for_component(part), config.k, record_tree=True
        ).tree
    rows = [record for record in range(len(tree)) if tree.triple[record] >= 0]
    assert tree is not None and rows
    as_found = [kg.triple_names(tree.triple[record]) for record in rows]
    names = [kg.entities[entity] for entity in tree.entity]
    with kg.in_use():  # the next run drops what the first fetched, and fetches other triples
        kg.reach([kg.entities.id(second.topic_entities[0])], 2)
    assert kg.walks.dropped == 1
    assert [triple_name(tree, record, None) for record in rows] == as_found
    assert [entity_name(tree, record, None) for record in range(len(tree))] == names
    assert [kg.triple_names(tree.triple[record]) for record in rows] != as_found  # rows reused
