"""A cache write that fails (file too large, disk full, I/O error, a file where a folder should
be) ends in one line naming the file and what was kept; the cache keeps what it held and no
temporary file is left."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from kgviz.embed.cache import EmbeddingCache
from kgviz.llm.cache import CachedLLM
from kgviz.storage.atomic import WriteError

CACHE_WRITES = {
    # which cache: (code that writes a small file, then a large one; where it writes)
    "embedding shard": """
        from kgviz.embed.cache import EmbeddingCache
        cache = EmbeddingCache("m", folder)
        small = lambda: cache.put(["kept"], np.ones((1, 4), np.float32))
        large = lambda: cache.put([f"t{i}" for i in range(4000)], np.ones((4000, 4), np.float32))
    """,
    "vector index": """
        from kgviz.embed.index import FaissIndex
        small = lambda: FaissIndex.build(np.eye(4, dtype=np.float32)).save(folder / "i.faiss")
        large = lambda: FaissIndex.build(np.ones((4000, 4), np.float32)).save(folder / "i.faiss")
    """,
    "processed graph": """
        from kgviz.kg.graph import KnowledgeGraph
        from kgviz.kg.store import save_graph
        graph = lambda n: KnowledgeGraph.from_triples((f"e{i}", "r", f"e{i + 1}") for i in range(n))
        small = lambda: save_graph(graph(2), folder / "g.npz")
        large = lambda: save_graph(graph(4000), folder / "g.npz")
    """,
}


@pytest.mark.parametrize("which", CACHE_WRITES)
def test_a_file_size_limit_is_one_line_and_keeps_the_cache(tmp_path, which):
    """A real EFBIG: the process's file size limit (RLIMIT_FSIZE) is set below the large write."""
    script = (
        "import resource, sys\nfrom pathlib import Path\nimport numpy as np\n"
        "from kgviz.errors import KgvizError\nfolder = Path(sys.argv[1])\n"
        + textwrap.dedent(CACHE_WRITES[which])
        + "small()\nresource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))\n"
        "try:\n    large()\nexcept KgvizError as error:\n"
        "    sys.exit(f'kgviz: error: {error}')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    (line,) = result.stderr.strip().splitlines()
    assert f"could not write {tmp_path}/" in line and "File too large" in line
    assert "is kept" in line or "keeps" in line
    assert not list(tmp_path.glob(".*.tmp"))
    assert len(list(tmp_path.iterdir())) == 1  # the small file, still there


def test_a_file_size_limit_while_recording_a_reply_is_one_line(kgviz_cli, fault_server, tmp_path):
    """`kgviz ask` under a real file size limit: the reply cannot be cached, which is said in
    one line naming the entry; the replies recorded before stay. (`--json`: a streamed reply
    leaves its line open when the command fails, which is the CLI's to close.)"""
    reply = json.dumps(
        {"choices": [{"message": {"content": "Ron Howard"}, "finish_reason": "stop"}]}
    )
    server = fault_server(lambda n, _: (200, reply.encode(), 0))
    ask = ("ask", "--json", "--method", "llm-only", "--llm", f"openai:{server.url}/v1#m")
    assert kgviz_cli(*ask, "who directed Apollo 13").returncode == 0
    entries = sorted((tmp_path / "cache" / "llm-responses").rglob("*.json"))
    assert len(entries) == 1
    run = kgviz_cli(*ask, "who directed Forrest Gump", file_limit=512)
    assert run.returncode == 2 and "File too large" in run.error
    assert "llm-responses" in run.error and "the cache keeps the replies it held" in run.error
    assert sorted((tmp_path / "cache" / "llm-responses").rglob("*.json")) == entries
    assert not list((tmp_path / "cache").rglob(".*.tmp"))


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_a_full_disk_or_an_io_error_is_one_line(tmp_path, monkeypatch, code, reply_llm):
    """The OSError is injected (at the fsync that publishes every cache file): a disk cannot be
    filled here. Each cache says which file and that it keeps what it held."""
    shards = EmbeddingCache("m", tmp_path / "embeddings")
    shards.put(["kept"], np.ones((1, 4), np.float32))
    llm = CachedLLM(reply_llm, tmp_path / "llm-responses")

    def fail(fd: int) -> None:
        raise OSError(code, "injected: " + errno.errorcode[code])

    monkeypatch.setattr("kgviz.storage.atomic.os.fsync", fail)
    with pytest.raises(WriteError) as shard_error:
        shards.put(["new"], np.ones((1, 4), np.float32))
    with pytest.raises(WriteError) as entry_error:
        llm.complete([{"role": "user", "content": "who directed Apollo 13"}])
    for error, kept in ((shard_error, "the vectors it held"), (entry_error, "the replies")):
        message = str(error.value)
        assert "\n" not in message and f"injected: {errno.errorcode[code]}" in message
        assert message.startswith(f"could not write {tmp_path}/") and kept in message
    monkeypatch.undo()
    found, missing = EmbeddingCache("m", tmp_path / "embeddings").lookup(["kept", "new"])
    assert missing == [1] and found is not None and found[0].tolist() == [1.0] * 4
    assert not list(tmp_path.rglob(".*.tmp"))


def test_a_file_where_a_folder_should_be_says_not_a_directory(tmp_path):
    """mkdir says "File exists" when a file is in the way; the error says what is meant."""
    (tmp_path / "graphs").write_text("not a folder")
    from kgviz.kg.graph import KnowledgeGraph
    from kgviz.kg.store import save_graph

    graph = KnowledgeGraph.from_triples([("a", "r", "b")])
    for target in (tmp_path / "graphs" / "g.npz", tmp_path / "graphs" / "sub" / "g.npz"):
        with pytest.raises(WriteError) as error:
            save_graph(graph, target)
        assert str(error.value) == (
            f"could not write {target}: Not a directory ({tmp_path / 'graphs'} is a file); "
            "nothing was written"
        )
