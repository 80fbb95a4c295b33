"""A forced rebuild publishes a whole new generation or nothing: killed, interrupted or failing
rebuilds leave CURRENT on the complete old generation, which keeps serving; the next rebuild
clears the leftovers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from reverie import Memory
from reverie.embeddings.fake import FakeEmbedder
from reverie.errors import EmbeddingError
from reverie.index import generations
from reverie.store import connect
from reverie.text.fts import build_query

FAKE = ['memory.search.provider="fake"']
CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]


def keyword_count(mem: Memory, query: str) -> int:
    return mem.index.conn().execute(
        "SELECT count(*) FROM memory_index_chunks_fts WHERE memory_index_chunks_fts MATCH ?",
        (build_query(query).strict,)).fetchone()[0]


def generation_files(index_dir: Path) -> list[str]:
    return sorted(p.name for p in index_dir.iterdir() if p.name.startswith("index-"))


def fill_workspace(mem: Memory, files: int, lines: int) -> None:
    for f in range(files):
        body = "\n".join(f"- note {f}.{i}: the hotel {i % 17} and budget {f * i % 23} for trip {f}"
                         for i in range(lines))
        (mem.workspace / "memory" / f"n{f:03d}.md").write_text(f"# Note {f}\n\n{body}\n", encoding="utf-8")


def _vectors_in(path: Path) -> int:
    conn = connect(path, readonly=True)
    try:
        return conn.execute("SELECT count(*) FROM memory_index_chunks WHERE embedding IS NOT NULL").fetchone()[0]
    except Exception:  # (the table may not be there yet)
        return 0
    finally:
        conn.close()


def test_kill_9_during_forced_rebuild_keeps_old_generation(fake_memory: Memory):
    fill_workspace(fake_memory, files=150, lines=200)  # ~1,400 chunks: ~4.5 s of "slow" embedding
    fake_memory.sync()
    index_dir = fake_memory.places.index_dir
    old = generations.current_name(index_dir)
    chunks = fake_memory.index.chunk_count()
    hotels = keyword_count(fake_memory, "hotel")
    assert chunks > 1200 and hotels > 0
    fake_memory.close()

    # A new model means cache misses, so the rebuild embeds everything with 0.2 s per batch.
    proc = subprocess.Popen([*CLI, "index", "--force", "--set", 'memory.search.provider="fake"',
                             "--set", 'memory.search.model="slow"'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, "FAKE_EMBEDDER_STUCK_AFTER": "3"})  # never finishes by itself
    try:
        deadline = time.monotonic() + 30
        while not [n for n in generation_files(index_dir) if n != old and n.endswith(".sqlite")]:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            assert time.monotonic() < deadline, "the rebuild never created its generation file"
            time.sleep(0.02)
        # while the rebuild runs, the old generation keeps serving searches
        reader = Memory(overrides=FAKE)
        assert reader.index.generation == old
        assert keyword_count(reader, "hotel") == hotels
        # well into embedding (a batch of vectors stored in the new generation); the fourth batch
        # never returns, so the kill always lands mid-rebuild
        building = index_dir / next(n for n in generation_files(index_dir) if n != old and n.endswith(".sqlite"))
        while not _vectors_in(building):
            assert proc.poll() is None and time.monotonic() < deadline + 60, "the rebuild never embedded"
            time.sleep(0.05)
        assert proc.poll() is None, "the rebuild ended by itself"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    partial = [n for n in generation_files(index_dir) if n != old and n.endswith(".sqlite")]
    assert partial, "the killed rebuild's partial generation should still be on disk"
    assert generations.current_name(index_dir) == old
    assert (index_dir / "CURRENT").read_text(encoding="utf-8").strip() == old

    # the old index is complete and searchable
    assert reader.index.generation == old
    assert reader.index.chunk_count() == chunks
    assert keyword_count(reader, "hotel") == hotels
    s = reader.status()
    assert s["index"]["generation"] == old and s["chunks"]["total"] == chunks
    assert s["identity"] == {"status": "valid"}  # hash-64, as built
    reader.close()

    # the next forced rebuild (hash-64 again: every vector is cached) clears the leftovers
    r = subprocess.run([*CLI, "index", "--force", "--json", "--set", 'memory.search.provider="fake"'],
                       capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["forced"] is True and report["embedded"] == 0 and report["cache_hits"] > 0
    new = generations.current_name(index_dir)
    assert new is not None and new != old
    left = generation_files(index_dir)
    assert left == [new] or set(left) <= {new, f"{new}-wal", f"{new}-shm"}
    after = Memory(overrides=FAKE)
    try:
        assert after.index.chunk_count() == chunks
        assert keyword_count(after, "hotel") == hotels
        assert after.status()["identity"] == {"status": "valid"}
    finally:
        after.close()


def test_interrupted_rebuild_keeps_old_generation(fake_memory: Memory):
    fill_workspace(fake_memory, files=10, lines=40)
    fake_memory.sync()
    index_dir = fake_memory.places.index_dir
    old = generations.current_name(index_dir)
    chunks = fake_memory.index.chunk_count()

    def interrupt(stage: str, done: int, total: int) -> None:
        if stage == "files" and done > 0:
            raise KeyboardInterrupt  # Ctrl-C half-way through writing the new generation

    with pytest.raises(KeyboardInterrupt):
        fake_memory.rebuild(interrupt)
    assert generations.current_name(index_dir) == old
    assert generation_files(index_dir) == [old] or set(generation_files(index_dir)) <= {
        old, f"{old}-wal", f"{old}-shm"}  # the partial generation was removed
    assert fake_memory.index.generation == old
    assert fake_memory.index.chunk_count() == chunks
    assert keyword_count(fake_memory, "hotel") > 0
    fake_memory.rebuild()  # and a later rebuild works
    assert generations.current_name(index_dir) != old
    assert fake_memory.index.chunk_count() == chunks


class CrashingProvider(FakeEmbedder):
    """A provider whose library blows up past the base class's error wrapping."""

    def embed_documents(self, texts, progress=None):
        raise RuntimeError("provider library crashed")


def test_rebuild_with_crashing_provider_keeps_old_generation(fake_memory: Memory):
    fill_workspace(fake_memory, files=5, lines=20)
    fake_memory.sync()
    index_dir = fake_memory.places.index_dir
    old = generations.current_name(index_dir)
    chunks = fake_memory.index.chunk_count()
    fake_memory.close()

    # a new note, so the provider is really called (other settings change windows, not unit texts)
    (fake_memory.workspace / "memory" / "fresh.md").write_text("- a fresh note about zeppelins\n", encoding="utf-8")
    crashing = Memory(overrides=[*FAKE, "memory.search.chunking.tokens=100", "memory.search.chunking.overlap=10"],
                      embedder=CrashingProvider())
    with pytest.raises(RuntimeError, match="crashed"):
        crashing.rebuild()
    crashing.close()
    assert generations.current_name(index_dir) == old
    assert generation_files(index_dir) == [old] or set(generation_files(index_dir)) <= {
        old, f"{old}-wal", f"{old}-shm"}
    mem = Memory(overrides=FAKE)
    try:
        assert mem.index.chunk_count() == chunks
        assert mem.status()["vector"]["missing"] == 0
    finally:
        mem.close()


class OutageFake(FakeEmbedder):
    """The fake provider (same identity) while its service is down."""

    def _embed_batch(self, texts, *, query):
        raise EmbeddingError("fake: service unavailable")


def test_rebuild_during_provider_outage_does_not_replace_working_vectors(fake_memory: Memory):
    fill_workspace(fake_memory, files=5, lines=20)
    fake_memory.sync()
    index_dir = fake_memory.places.index_dir
    old = generations.current_name(index_dir)
    chunks = fake_memory.index.chunk_count()
    fake_memory.close()

    (fake_memory.workspace / "memory" / "fresh.md").write_text("- a fresh note about zeppelins\n", encoding="utf-8")
    down = Memory(overrides=[*FAKE, "memory.search.chunking.tokens=100", "memory.search.chunking.overlap=10"],
                  embedder=OutageFake())
    with pytest.raises(EmbeddingError, match="service unavailable"):
        down.rebuild()  # publishing would swap a full vector index for one with no vectors
    down.close()
    assert generations.current_name(index_dir) == old
    mem = Memory(overrides=FAKE)
    try:
        s = mem.status()
        assert s["chunks"]["total"] == chunks
        assert s["vector"]["missing"] == 0 and s["vector"]["vectors"] == chunks
    finally:
        mem.close()


def test_rebuild_with_broken_provider_on_keyword_only_index_publishes(reverie_home: Path):
    """Nothing to lose (the live generation has no usable vectors): the text is published."""
    none = Memory(overrides=['memory.search.provider="none"'])
    none.init()
    fill_workspace(none, files=3, lines=10)
    none.sync()
    old = generations.current_name(none.places.index_dir)
    none.close()
    broken = Memory(overrides=[*FAKE, 'memory.search.model="broken"'])
    try:
        report = broken.rebuild()
        assert report.embedding_error and report.vectors_missing == report.chunks_written > 0
        assert generations.current_name(broken.places.index_dir) != old
        assert keyword_count(broken, "hotel") > 0
    finally:
        broken.close()
