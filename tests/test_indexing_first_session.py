"""A first session on a folder that was never indexed: searches answer at once from what is
indexed so far and say how far indexing got, a note written through reverie is found by the very
next search, a zero-hit query starts nothing, and a session start begins the sync.

The folder is small and the fake embedder's ``slow`` model sleeps 0.2 s per call, so that the
embedding takes seconds: an answer that carries ``indexing`` with vectors still to do was given
before the indexing finished (no timing is asserted)."""

from __future__ import annotations

import asyncio
import threading
import json
import os
import sys
import time
from pathlib import Path

from reverie.mcp.client import Client
from reverie.mcp.client import StdioServerParameters

from reverie import Memory
from reverie.index.identity import read_meta, write_meta
from reverie.store import transaction

SLOW = ['memory.search.provider="fake"', 'memory.search.model="slow"']
FAKE = ['memory.search.provider="fake"']
ANIMALS = ["otter", "heron", "lynx", "marten", "ibis", "gecko", "tapir", "okapi", "quoll", "dingo"]


def write_folder(ws: Path, n: int) -> None:
    """``n`` one-chunk notes; note i mentions a made-up code word ``codeword<i>``."""
    for i in range(n):
        folder = ws / "memory" / "notes"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note-{i:04d}.md").write_text(
            f"- Note {i}: saw a {ANIMALS[i % len(ANIMALS)]} near the river, codeword{i}.\n", encoding="utf-8")


def _payload(result) -> dict:
    assert result.is_error is False, result.content
    return json.loads(result.content[0].text)


def test_first_mcp_session_answers_while_indexing_and_finds_an_append_at_once(reverie_home):
    writer = Memory(overrides=SLOW)
    writer.init()
    write_folder(writer.workspace, 150)
    (writer.workspace / "memory" / "pets.md").write_text("- The neighbour's parrot is named Captain Flint.\n",
                                                        encoding="utf-8")
    writer.close()  # nothing indexed: the server's start and first search begin the index
    params = StdioServerParameters(
        command=sys.executable,
        args=["-c", "from reverie.cli.main import run; run()", "mcp", *sum((["--set", s] for s in SLOW), [])],
        env={"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ["PATH"]})

    async def go():
        async with Client(params) as c:
            first = _payload(await c.call_tool("memory_search", {"query": "parrot Captain Flint"}))
            appended = _payload(await c.call_tool("memory_append",
                                                  {"text": "The spare key is under the blue flowerpot."}))
            right_after = _payload(await c.call_tool("memory_search", {"query": "spare key flowerpot"}))
            later = first
            deadline = time.monotonic() + 120
            while "indexing" in later and time.monotonic() < deadline:
                await asyncio.sleep(0.5)
                later = _payload(await c.call_tool("memory_search", {"query": "parrot Captain Flint"}))
            return first, appended, right_after, later

    first, appended, right_after, later = asyncio.run(go())
    # the first answer came from the keyword rows while vectors were still being computed
    assert [r["path"] for r in first["results"]][:1] == ["memory/pets.md"]
    assert first["stale"] is True and "still being indexed" in first["warning"]
    info = first["indexing"]
    assert info["state"] == "running"
    assert info["vectors"]["done"] < info["vectors"]["total"]
    assert first["mode"] == "keyword-only" and "still being computed" in first["debug"]["vectorSkipped"]
    # a note written through the tools is found by the next search, indexing or not
    assert appended["status"] == "appended"
    assert [r["path"] for r in right_after["results"]][:1] == [appended["path"]]
    # and indexing finishes in the background: hybrid, nothing stale
    assert "indexing" not in later and "stale" not in later
    assert later["mode"] == "hybrid" and later["results"][0]["path"] == "memory/pets.md"


def test_memory_append_then_search_in_the_same_process(reverie_home):
    mem = Memory(overrides=FAKE)
    mem.init()
    (mem.workspace / "memory" / "2026-11-01.md").write_text("- Booked the lake hotel.\n", encoding="utf-8")
    mem.sync()
    tools = {t.name: t for t in mem.tools()}
    mem.search("lake hotel")  # the embedder is loaded, as in a running server
    out = tools["memory_append"].call({"text": "Decided to take the 9am train to Suzhou."})
    found = tools["memory_search"].call({"query": "Suzhou train"})
    assert [r["path"] for r in found["results"]][:1] == [out["path"]]
    assert "stale" not in found and "indexing" not in found
    assert found["mode"] == "hybrid" and found["results"][0]["vectorScore"] is not None  # its vector too
    mem.close()


def test_remember_with_a_cold_embedder_indexes_the_text_and_the_vector_follows(reverie_home):
    first = Memory(overrides=FAKE)
    first.init()
    first.sync()
    first.close()
    mem = Memory(overrides=FAKE)  # a new process, as a one-shot `reverie remember` is
    path = mem.remember("Parked the car on level 3, row F.")
    assert not mem.index.embedder_ready  # a one-shot `reverie remember` loads no model
    out = mem.search("parked car level")
    assert [r["path"] for r in out["results"]][:1] == [path.relative_to(mem.workspace).as_posix()]
    assert mem.searcher.wait_for_sync(30)  # the search asked for the missing vector
    again = mem.search("parked car level")
    assert "stale" not in again and again["results"][0]["vectorScore"] is not None
    mem.close()


def test_an_append_during_a_long_index_run_is_searchable_at_once(reverie_home):
    mem = Memory(overrides=SLOW)
    mem.init()
    write_folder(mem.workspace, 120)
    mem.sync_in_background()  # a long first index (slow embedder) holds the sync lock
    assert mem.index.background.files_ready.wait(60)
    path = mem.remember("The wifi password is on the fridge.")
    out = mem.search("wifi password fridge")
    assert mem.index.background.running(), "the index run should still be embedding"
    assert [r["path"] for r in out["results"]][:1] == [path.relative_to(mem.workspace).as_posix()]
    assert not mem.index.pending_writes  # the running sync took the note between two batches
    mem.close()


def test_a_zero_hit_query_never_triggers_a_reindex(reverie_home):
    mem = Memory(overrides=FAKE)
    mem.init()  # a workspace with nothing to index: the index stays without chunks
    mem.sync()
    conn = mem.index.conn()
    with transaction(conn):
        write_meta(conn, "last_sync", {"at": 1, "marker": "before"})
    for _ in range(3):
        assert mem.search("nothing matches this")["results"] == []
    assert mem.searcher.wait_for_sync(10)
    assert read_meta(mem.index.conn(), "last_sync") == {"at": 1, "marker": "before"}  # no sync ran
    mem.close()


def test_session_start_kicks_off_a_background_sync(reverie_home):
    mem = Memory(overrides=FAKE)
    mem.init()
    (mem.workspace / "memory" / "2026-11-02.md").write_text("- Met Ana at the station.\n", encoding="utf-8")
    rt = mem.runtime("offline")
    rt.session  # the session starts: nothing else asked for a sync or a search
    assert mem.index.background.wait(30)
    assert mem.index.chunk_count() >= 1
    assert mem.index.dirty_state().dirty is False
    rt.close()
    mem.close()


def test_an_append_while_another_process_embeds_is_searchable_at_once(reverie_home):
    import subprocess

    mem = Memory(overrides=SLOW)
    mem.init()
    write_folder(mem.workspace, 1280)  # 20 vector batches of 0.2 s in the other process
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC")
    proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "index",
                             *sum((["--set", s] for s in SLOW), [])],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # its plain progress lines: wait for the vectors phase
            if line.startswith("indexing vectors:"):
                break
        path = mem.remember("The boiler service is booked for Thursday.")
        assert proc.poll() is None, "the other index run should still be embedding"
        out = mem.search("boiler service Thursday")
        assert [r["path"] for r in out["results"]][:1] == [path.relative_to(mem.workspace).as_posix()]
        assert not mem.index.pending_writes
    finally:
        proc.wait(120)
    mem.close()
    again = Memory(overrides=SLOW)
    assert again.status()["vector"]["missing"] == 0  # the other run embedded the note too
    again.close()


class _GatedEmbedder:
    """A provider whose passage batches wait for a gate (queries never do), registered like any
    other: a background batch can be held inside the engine while a search runs."""

    gate = threading.Event()
    inside = threading.Event()


def _gated(settings):
    from reverie.embeddings.fake import FakeEmbedder

    class Gated(FakeEmbedder):
        provider = "gated"

        def _embed_batch(self, texts, *, query):
            if not query:
                _GatedEmbedder.inside.set()
                _GatedEmbedder.gate.wait(30)
            return super()._embed_batch(texts, query=query)

    return Gated()


def test_a_search_never_queues_behind_a_background_batch(reverie_home):
    from reverie.embeddings import register

    register("gated", _gated)
    _GatedEmbedder.gate.set()
    mem = Memory(overrides=['memory.search.provider="gated"'])
    mem.init()
    write_folder(mem.workspace, 200)
    mem.sync()
    assert mem.search("otter river")["mode"] == "hybrid"
    _GatedEmbedder.gate.clear()
    _GatedEmbedder.inside.clear()
    (mem.workspace / "memory" / "late.md").write_text("- A late note about an otter.\n", encoding="utf-8")
    mem.index.sync_in_background(paths=["memory/late.md"])  # its vector: a batch held in the engine
    try:
        assert _GatedEmbedder.inside.wait(30)
        out = mem.search("otter river")  # would wait for the gate if it queued behind the batch
        assert "busy indexing" in out["debug"]["vectorSkipped"] and out["mode"] == "keyword-only"
        assert out["results"] and out["stale"] is True  # answered, and said it is behind
    finally:
        _GatedEmbedder.gate.set()
    assert mem.searcher.wait_for_sync(30)
    assert mem.search("otter river")["mode"] == "hybrid"
    mem.close()


def test_an_append_during_a_rebuild_elsewhere_is_searchable_during_and_after_it(reverie_home):
    import subprocess

    from reverie.store import connect

    mem = Memory(overrides=SLOW)
    mem.init()
    write_folder(mem.workspace, 1280)
    mem.sync()
    agent = connect(mem.places.agent_db)
    agent.execute("DELETE FROM memory_embedding_cache")  # the rebuild must embed: it takes seconds
    agent.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC")
    proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "index", "--force",
                             *sum((["--set", s] for s in SLOW), [])],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:
            if line.startswith("indexing vectors:"):
                break
        path = mem.remember("The plumber comes on Friday at ten.")
        rel = path.relative_to(mem.workspace).as_posix()
        assert proc.poll() is None, "the rebuild should still be running"
        assert [r["path"] for r in mem.search("plumber Friday")["results"]][:1] == [rel]
    finally:
        assert proc.wait(300) == 0
    mem.search("plumber Friday")  # the new generation is live: the pending note is re-synced
    assert mem.searcher.wait_for_sync(30)
    assert [r["path"] for r in mem.search("plumber Friday")["results"]][:1] == [rel]
    assert not mem.index.pending_writes
    mem.close()
