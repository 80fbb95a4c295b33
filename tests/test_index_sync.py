"""Incremental sync: unchanged work is skipped, changed files are re-chunked alone, only new chunks
are embedded, a failing provider leaves keyword search working, identity mismatches say what to do,
forced rebuilds reuse the embedding cache, and the cache stays bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from reverie import Memory
from reverie.errors import EmbeddingError
from reverie.index import cache
from reverie.index.chunking import chunk_markdown
from reverie.index.manager import open_agent_db
from reverie.embeddings.fake import FakeEmbedder
from reverie.text.fts import build_query, query_terms, term_tokens

from engines import only_sqlite
from workspace_helpers import write

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

FAKE = ['memory.search.provider="fake"']


def keyword_paths(mem: Memory, query: str) -> set[str]:
    """Paths whose keyword rows hold every word of ``query``, read from either engine's rows."""
    conn = mem.index.conn()
    if mem.index.pg:
        tokenizer = mem.index.stored_identity()["ftsTokenizer"]
        need = [t for w in query_terms(query) for t in term_tokens(w, tokenizer)]
        return {r[0] for r in conn.execute("SELECT path FROM memory_index_chunks WHERE tokens @> ?::text[]", (need,))}
    q = build_query(query)
    return {r[0] for r in conn.execute(
        "SELECT c.path FROM memory_index_chunks_fts f JOIN memory_index_chunks c ON c.seq = f.rowid "
        "WHERE memory_index_chunks_fts MATCH ?", (q.strict,))}


def texts_of(mem: Memory, path: str) -> list[str]:
    return [r[0] for r in mem.index.conn().execute(
        "SELECT text FROM memory_index_chunks WHERE path=? ORDER BY start_line", (path,))]


def long_note(tag: str, lines: int = 60) -> str:
    return "# " + tag + "\n\n" + "\n".join(
        f"- {tag} line {i}: notes about the trip, the hotel and the budget, item {i * 7 % 13}" for i in range(lines)) + "\n"


# -- skipping unchanged work ------------------------------------------------------------------------
def test_second_sync_embeds_nothing(fake_memory: Memory):
    for i in range(5):
        write(fake_memory, f"memory/n{i}.md", f"- note {i} about hotels\n")
    first = fake_memory.sync()
    assert first.changed == 6 and first.embedded == 5  # MEMORY.md's lone heading makes no chunk
    calls = FakeEmbedder.calls
    rev = fake_memory.index.revision()
    again = fake_memory.sync()
    assert (again.changed, again.unchanged, again.embedded, again.chunks_written) == (0, 6, 0, 0)
    assert FakeEmbedder.calls == calls
    assert fake_memory.index.revision() == rev  # nothing derived was touched
    assert fake_memory.status()["dirty"] is False


def test_unchanged_file_is_not_read(fake_memory: Memory):
    """Proof that sync skips an unchanged file by mtime+size without reading it.

    chmod 000 proves nothing when tests run as root (root reads anyway), so instead the file's
    bytes are swapped for different bytes of the same size and its mtime is put back: a sync
    that read the file would index the new text; a sync that skipped by stat keeps the old."""
    p = write(fake_memory, "memory/a.md", "- the quick brown fox\n")
    fake_memory.sync()
    st = p.stat()
    p.write_text("- the slow  green elk\n", encoding="utf-8")
    assert p.stat().st_size == st.st_size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    report = fake_memory.sync()
    assert report.changed == 0
    assert texts_of(fake_memory, "memory/a.md") == ["- the quick brown fox"]  # the old text: not read
    assert keyword_paths(fake_memory, "elk") == set()
    # once the mtime moves, the file is read and the new text indexed
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert fake_memory.sync().changed == 1
    assert keyword_paths(fake_memory, "elk") == {"memory/a.md"}
    assert keyword_paths(fake_memory, "fox") == set()


def test_touched_but_identical_file_is_not_rechunked(fake_memory: Memory):
    p = write(fake_memory, "memory/a.md", "- same bytes\n")
    fake_memory.sync()
    rows = fake_memory.index.conn().execute("SELECT seq, id FROM memory_index_chunks").fetchall()
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
    report = fake_memory.sync()
    assert report.changed == 0 and report.chunks_written == 0 and report.embedded == 0
    assert fake_memory.index.conn().execute("SELECT seq, id FROM memory_index_chunks").fetchall() == rows
    assert fake_memory.status()["dirty"] is False  # the new mtime was recorded


def test_one_line_edit_among_200_files(fake_memory: Memory):
    for i in range(200):
        write(fake_memory, f"memory/2026/n{i:03d}.md", f"# Note {i}\n\n- entry {i}: hotel room {i} booked\n")
    big = write(fake_memory, "memory/big.md", long_note("big"))
    first = fake_memory.sync()
    assert first.changed == 202
    old_chunks = chunk_markdown(big.read_text(encoding="utf-8")).units
    assert len(old_chunks) >= 3

    text = big.read_text(encoding="utf-8").replace("big line 55:", "big line 55 EDITED:")
    big.write_text(text, encoding="utf-8")
    new_chunks = chunk_markdown(text).units
    expected_embeds = len({c.hash for c in new_chunks} - {c.hash for c in old_chunks})
    assert 1 <= expected_embeds < len(new_chunks)

    calls = FakeEmbedder.calls
    report = fake_memory.sync()
    assert report.changed == 1
    assert report.unchanged == 201
    assert report.chunks_written == len(new_chunks)  # only big.md was re-chunked
    assert report.embedded == expected_embeds
    assert FakeEmbedder.calls - calls == expected_embeds  # unchanged chunks came from the cache
    assert keyword_paths(fake_memory, "EDITED") == {"memory/big.md"}


def test_deleted_file_drops_its_chunks(fake_memory: Memory):
    keep = write(fake_memory, "memory/keep.md", "- keep this hotel\n")
    gone = write(fake_memory, "memory/gone.md", "- drop this zeppelin\n")
    fake_memory.sync()
    assert keyword_paths(fake_memory, "zeppelin") == {"memory/gone.md"}
    rev = fake_memory.index.revision()
    gone.unlink()
    assert fake_memory.status()["pending"]["removed"] == 1
    report = fake_memory.sync()
    assert report.removed == 1
    assert keyword_paths(fake_memory, "zeppelin") == set()
    conn = fake_memory.index.conn()
    assert conn.execute("SELECT count(*) FROM memory_index_chunks WHERE path='memory/gone.md'").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM memory_index_sources WHERE path='memory/gone.md'").fetchone()[0] == 0
    # no orphan FTS rows: every FTS row points at a live chunk (PostgreSQL: the tokens are in the row)
    assert fake_memory.index.pg or conn.execute("SELECT count(*) FROM memory_index_chunks_fts WHERE rowid NOT IN "
                        "(SELECT seq FROM memory_index_chunks)").fetchone()[0] == 0
    assert fake_memory.index.revision() > rev
    assert keep.exists() and keyword_paths(fake_memory, "hotel") == {"memory/keep.md"}


def test_revision_increases_on_change(fake_memory: Memory):
    p = write(fake_memory, "memory/a.md", "- v1\n")
    fake_memory.sync()
    r1 = fake_memory.index.revision()
    p.write_text("- version two, longer\n", encoding="utf-8")
    fake_memory.sync()
    r2 = fake_memory.index.revision()
    write(fake_memory, "memory/b.md", "- new file\n")
    fake_memory.sync()
    r3 = fake_memory.index.revision()
    assert 0 < r1 < r2 < r3


# -- a failing provider ---------------------------------------------------------------------------
def test_broken_provider_still_indexes_text(reverie_home: Path):
    mem = Memory(overrides=[*FAKE, 'memory.search.model="broken"'])
    mem.init()
    write(mem, "memory/a.md", "- booked the lake-view hotel\n")
    write(mem, "memory/b.md", "- 返程车票还没确认\n")
    try:
        report = mem.sync()
        assert report.embedding_error and "broken" in report.embedding_error
        assert report.chunks_written == 2 and report.vectors_missing == 2
        assert keyword_paths(mem, "hotel") == {"memory/a.md"}
        assert keyword_paths(mem, "车票") == {"memory/b.md"}
        s = mem.status()
        assert s["vector"]["missing"] == 2 and s["vector"]["vectors"] == 0
        assert any("could not embed" in w and "broken" in w for w in s["warnings"])
        assert s["last_sync"]["embedding_error"] == report.embedding_error
    finally:
        mem.close()


class OutageFake(FakeEmbedder):
    """The fake provider (same identity: fake / hash-64) during an outage."""

    def _embed_batch(self, texts, *, query):
        raise EmbeddingError("fake: service unavailable")


def test_later_sync_fills_missing_vectors(reverie_home: Path):
    down = Memory(overrides=FAKE, embedder=OutageFake())
    down.init()
    write(down, "memory/a.md", "- booked the lake-view hotel\n")
    write(down, "memory/b.md", "- train tickets home\n")
    assert down.sync().vectors_missing == 2
    down.close()

    up = Memory(overrides=FAKE)
    try:
        assert up.status()["identity"]["status"] == "valid"
        calls = FakeEmbedder.calls
        report = up.sync()  # no file changed: only the missing vectors are embedded
        assert report.changed == 0
        assert report.embedded == 2 and FakeEmbedder.calls - calls == 2
        assert report.vectors_missing == 0 and report.embedding_error is None
        s = up.status()
        assert s["vector"]["missing"] == 0 and s["vector"]["vectors"] == 2
        assert not any("could not embed" in w for w in s["warnings"])
    finally:
        up.close()


# -- identity --------------------------------------------------------------------------------------
@pytest.mark.parametrize("override, field", [
    ("memory.search.chunking.tokens=200", "chunkTokens"),
    ("memory.search.chunking.overlap=40", "chunkOverlap"),
    ('memory.search.provider="none"', "provider"),
    ('memory.search.model="other-model"', "model"),
    ('memory.search.store.fts.tokenizer="trigram"', "ftsTokenizer"),
])
def test_identity_mismatch_names_reason_and_action(fake_memory: Memory, override: str, field: str):
    write(fake_memory, "memory/a.md", "- hotel\n")
    fake_memory.sync()
    assert fake_memory.status()["identity"] == {"status": "valid"}
    changed = Memory(overrides=[*FAKE, override])
    try:
        ident = changed.status()["identity"]
        assert ident["status"] == "mismatched"
        assert field in ident["reason"]
        assert ident["action"] == "reverie index --force"
        assert any("reverie index --force" in w for w in changed.status()["warnings"])
        changed.rebuild()
        assert changed.status()["identity"] == {"status": "valid"}
        assert keyword_paths(changed, "hotel") == {"memory/a.md"}
    finally:
        changed.close()


def test_forced_rebuild_reuses_cached_vectors(fake_memory: Memory):
    for i in range(30):
        write(fake_memory, f"memory/n{i}.md", long_note(f"n{i}", lines=8))
    first = fake_memory.sync()
    gen = fake_memory.index.generation
    chunks = fake_memory.index.chunk_count()
    assert first.embedded == chunks
    calls = FakeEmbedder.calls
    report = fake_memory.rebuild()
    assert FakeEmbedder.calls == calls
    assert report.embedded == 0 and report.cache_hits == chunks
    if not fake_memory.index.pg:  # (PostgreSQL: one live copy, rebuilt in one transaction)
        assert fake_memory.index.generation != gen
    assert fake_memory.index.chunk_count() == chunks
    s = fake_memory.status()
    assert s["identity"] == {"status": "valid"}
    assert s["vector"]["missing"] == 0 and s["vector"]["vectors"] == chunks


def test_rebuild_after_mismatch_then_back_reuses_cache(fake_memory: Memory):
    for i in range(10):
        write(fake_memory, f"memory/n{i}.md", long_note(f"n{i}", lines=30))
    fake_memory.sync()
    calls = FakeEmbedder.calls
    small = Memory(overrides=[*FAKE, "memory.search.chunking.tokens=100", "memory.search.chunking.overlap=10"])
    small.rebuild()  # other windows over the same units: every vector comes from the cache
    assert FakeEmbedder.calls == calls
    assert small.status()["identity"] == {"status": "valid"}
    small.close()
    back = Memory(overrides=FAKE)
    assert back.status()["identity"]["status"] == "mismatched"
    calls = FakeEmbedder.calls
    back.rebuild()  # the 400/80 chunks are still in the cache
    assert FakeEmbedder.calls == calls
    assert back.status()["identity"] == {"status": "valid"}
    back.close()


# -- the embedding cache ------------------------------------------------------------------------------
def test_cache_prune_drops_least_recently_used(fake_memory: Memory):
    for i in range(12):
        write(fake_memory, f"memory/n{i:02d}.md", f"- distinct note number {i} about topic {i * 31}\n")
    fake_memory.sync()
    conn = open_agent_db(fake_memory.places, fake_memory.agent_store)
    try:
        assert cache.count(conn) == 12
        hashes = [r[0] for r in conn.execute("SELECT hash FROM memory_embedding_cache ORDER BY hash")]
        recent = set(hashes[:4])
        # age everything, then make four entries recently used
        conn.execute("UPDATE memory_embedding_cache SET updated_at = 1000")
        conn.execute(f"UPDATE memory_embedding_cache SET updated_at = 2000 WHERE hash IN "
                     f"({','.join('?' * len(recent))})", tuple(recent))
        assert cache.prune(conn, max_entries=20) == 0
        assert cache.prune(conn, max_entries=4) == 8
        assert cache.count(conn) == 4
        assert {r[0] for r in conn.execute("SELECT hash FROM memory_embedding_cache")} == recent
    finally:
        conn.close()
    # the index keeps its vectors; a forced rebuild re-embeds exactly the pruned chunks
    calls = FakeEmbedder.calls
    report = fake_memory.rebuild()
    assert report.cache_hits == 4 and report.embedded == 8
    assert FakeEmbedder.calls - calls == 8


def test_sync_keeps_the_cache_under_its_cap(fake_memory: Memory, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(cache, "MAX_ENTRIES", 5)
    for i in range(9):
        write(fake_memory, f"memory/n{i}.md", f"- note {i} with its own words {i * 17}\n")
    report = fake_memory.sync()
    assert report.embedded == 9
    assert fake_memory.status()["cache_entries"] == 5


def test_keyword_tables_store_no_second_copy_of_the_text(fake_memory, store_backend):
    only_sqlite(store_backend, "FTS5's contentless tables (PostgreSQL keeps the tokens in the unit's row)")
    (fake_memory.workspace / "memory" / "2026-11-20.md").write_text("- 湖景房 over budget\n", encoding="utf-8")
    fake_memory.sync()
    conn = fake_memory.index.conn()
    for table in ("memory_index_chunks_fts", "memory_index_paths_fts"):
        sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
        assert "content=''" in sql and "contentless_delete=1" in sql, sql
    # and a changed file's rows can still be replaced: the old words are gone from the index
    (fake_memory.workspace / "memory" / "2026-11-20.md").write_text("- 返程车票\n", encoding="utf-8")
    fake_memory.sync()
    hits = conn.execute("SELECT count(*) FROM memory_index_chunks_fts WHERE memory_index_chunks_fts MATCH ?",
                        ('"湖景 景房"',)).fetchone()[0]
    assert hits == 0
