"""The search index on both engines (docs/team.md): the same files give the same search, whether
the index lives in SQLite generation files or in the shared PostgreSQL database.

Each test runs once per engine (``store_backend``). Keyword search finds Chinese words of any
length, Japanese, Korean and stems, and never raises on query syntax; vectors, edits, removals,
a forced rebuild, provenance and recall metadata reach the ranking the same way."""

from __future__ import annotations

import pytest

from reverie import Memory

from engines import index_conn
from test_keyword_fts import NOTES


@pytest.fixture
def mem(store_backend, reverie_home):
    m = Memory(overrides=['memory.search.provider="fake"'])
    m.init()
    for rel, text in NOTES.items():
        p = m.workspace / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    m.index.sync()
    yield m
    m.close()


def paths(answer: dict) -> set[str]:
    return {r["path"] for r in answer["results"]}


@pytest.mark.parametrize("query, expected", [
    ("酒店", {"memory/2026-03-01.md", "memory/2026-03-02.md", "memory/trip-en.md"}),
    ("湖景房", {"memory/2026-03-02.md"}),
    ("返程车票", {"memory/2026-03-03.md"}),
    ("Hangzhou 酒店", {"memory/trip-en.md"}),
    ("予約", {"memory/japanese.md"}),
    ("호텔", {"memory/korean.md"}),
    ("hotels", {"memory/english.md"}),
])
def test_keyword_search_finds_the_same_notes_on_both_engines(mem, query, expected):
    got = mem.search(query, max_results=10, min_score=0.0)
    kw = {r["path"] for r in got["results"] if r.get("path") in expected}
    assert kw == expected, got["results"]
    assert got["debug"]["backend"] == mem.agent_store.engine


@pytest.mark.parametrize("query", ['"', "AND OR NOT", "a*b", "NEAR(x y)", "col:val", "(((", "^"])
def test_query_syntax_never_raises(mem, query):
    got = mem.search(query, max_results=5)
    assert isinstance(got["results"], list)


def test_hybrid_search_uses_vectors_and_follows_edits_and_removals(mem):
    got = mem.search("湖景房 预算", max_results=3)
    assert got["mode"] == "hybrid", got.get("debug")
    assert got["results"][0]["path"] == "memory/2026-03-02.md"
    note = mem.workspace / "memory" / "2026-03-04.md"
    note.write_text("# 2026-03-04\n\n- 12:00 订好了灵隐寺的门票，周六上午九点。\n", encoding="utf-8")
    mem.index.sync()
    assert "memory/2026-03-04.md" in paths(mem.search("灵隐寺门票", max_results=3))
    note.unlink()
    mem.index.sync()
    assert "memory/2026-03-04.md" not in paths(mem.search("灵隐寺门票", max_results=3))


def test_a_forced_rebuild_gives_the_same_results(mem):
    queries = ["酒店", "Hangzhou hotel", "返程车票", "conclusion-first plans"]
    before = [[(r["path"], r["startLine"]) for r in mem.search(q, max_results=5)["results"]] for q in queries]
    report = mem.index.rebuild()
    assert report.chunks_written > 0
    after = [[(r["path"], r["startLine"]) for r in mem.search(q, max_results=5)["results"]] for q in queries]
    assert after == before


def test_index_counts_and_status_agree(mem):
    conn = mem.index.conn()
    chunks, vectors = conn.execute("SELECT chunks, vectors FROM memory_index_state WHERE id = 1").fetchone()
    assert chunks == conn.execute("SELECT count(*) FROM memory_index_chunks").fetchone()[0] > 0
    assert vectors == chunks
    assert mem.index.dirty_state().dirty is False


def test_one_unknown_word_falls_back_to_the_others(mem):
    got = mem.search("Hangzhou zeppelin", max_results=5, min_score=0.0, explain=True)
    kw = [r for r in got["results"] if (r.get("explain") or {}).get("keyword")]
    assert kw and kw[0]["path"] == "memory/trip-en.md", got["results"]
    assert not kw[0]["explain"]["keyword"]["allTerms"]  # it holds part of the query's information


@pytest.mark.parametrize("word", ["Japanese", "generously", "organization"])
def test_a_word_whose_stem_stems_again_is_found(mem, word):
    """FTS5 stems a query term again, and a porter stem is not always a fixpoint ("japanese" ->
    "japanes" -> "japan"): the keyword leg once found nothing for "Japanese course" on SQLite."""
    (mem.workspace / "memory" / "2026-03-05.md").write_text(
        f"# 2026-03-05\n\n- Signed up for the {word} course on Tuesdays.\n", encoding="utf-8")
    mem.index.sync()
    got = mem.search(f"{word} course", max_results=5, min_score=0.0, explain=True)
    top = got["results"][0]
    assert top["path"] == "memory/2026-03-05.md", got["results"]
    assert top["explain"]["keyword"]["allTerms"] is True


def test_a_search_reads_the_index_tables_once_and_sees_later_changes(mem):
    """Inside one search the index's meta and counters come from one read (a round trip each on
    PostgreSQL); the next search, or the same one after ``forget``, reads them again."""
    from reverie.index import progress, reads
    from reverie.index.identity import read_meta, write_meta

    conn = mem.index.conn()
    chunks, vectors = progress.counts(conn)
    assert chunks > 0 and vectors == chunks
    with reads.once(conn):
        assert read_meta(conn, "probe") is None
        write_meta(conn, "probe", {"n": 1})
        assert read_meta(conn, "probe") is None  # the search's one read, taken before the write
        assert reads.state(conn, "chunks", "vectors") == (chunks, vectors)
        reads.forget()
        assert read_meta(conn, "probe") == {"n": 1}
    assert read_meta(conn, "probe") == {"n": 1}  # outside a search: the table itself
    write_meta(conn, "probe", {"n": 2})
    assert read_meta(conn, "probe") == {"n": 2}
    # a search after a sync sees the new units (its counters and identity are read afresh)
    (mem.workspace / "memory/2026-04-01.md").write_text("- 新的笔记：雷峰塔的门票已经订好。\n", encoding="utf-8")
    mem.index.sync()
    assert progress.counts(conn)[0] > chunks
    assert "memory/2026-04-01.md" in paths(mem.search("雷峰塔"))


def _keyword_fetch_hits(mem, query: str, limit: int) -> list[tuple[str, float]]:
    """The keyword leg's candidates, best first, as (the unit's text, its bm25) (either engine)."""
    conn = mem.index.conn()
    if mem.index.pg:
        from reverie.search import postgres as engine

        hits = engine.keyword_leg(conn, engine.analyse(conn, query, "cjk"), limit)
    else:
        from reverie.search.keyword import analyse_query, keyword_leg, memory_doc_count

        qt = analyse_query(conn, query, "cjk", "memory_index_chunks_fts", memory_doc_count(conn))
        hits = keyword_leg(conn, qt, limit)
    seqs = [h.seq for h in hits]
    texts = dict(conn.execute(f"SELECT seq, text FROM memory_index_chunks WHERE seq IN ({','.join('?' * len(seqs))})",
                              seqs).fetchall())
    return [(texts[h.seq], float(h.bm25)) for h in hits]


def _keyword_fetch(mem, query: str, limit: int) -> list[str]:
    return [t for t, _ in _keyword_fetch_hits(mem, query, limit)]


def test_the_keyword_fetch_ranks_every_match_on_both_engines(store_backend, reverie_home):
    """The keyword leg ranks every unit holding a word by bm25, not a sample of them: the short
    notes that say "budget" outrank hundreds of long ones written before them, on both engines (on
    PostgreSQL a pass once ranked the first few hundred matching rows it read)."""
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    filler = "the team reviewed item {i} of the plan with several colleagues during a long afternoon session"
    for f in range(48):
        lines = [f"- {filler.format(i=f * 50 + j)}" + (" and the budget" if (f * 50 + j) % 6 == 0 else "")
                 for j in range(50)]
        (m.workspace / f"memory/2025-01-{f % 28 + 1:02d}-{f:02d}.md").write_text("\n".join(lines) + "\n")
    short = [f"- Budget approved for project {w}." for w in ("alder", "birch", "cedar", "dogwood", "elm")]
    (m.workspace / "memory/2026-06-30.md").write_text("\n".join(short) + "\n")
    m.index.sync()
    try:
        got = _keyword_fetch(m, "budget", 20)
        assert len(got) == 20
        assert sorted(got[:5]) == sorted(short), got[:6]
    finally:
        m.close()


def test_a_search_that_waited_for_a_sync_reads_the_index_after_it(mem):
    """`reverie search` waits for the sync it starts (sync_wait): what the search then reads of the
    index (counters, identity, progress) is the index after that sync, not before it."""
    from reverie.index import progress, reads

    conn = mem.index.conn()
    before = progress.counts(conn)[0]
    for i in range(3):
        (mem.workspace / f"memory/2026-06-0{i + 1}.md").write_text(f"- a quokka at the zoo, visit {i}\n", "utf-8")
    service = mem.searcher
    with reads.once(conn):
        service._preflight(sync_wait=10)
        assert progress.counts(conn)[0] == before + 3
    answer = mem.search("quokka")
    assert len({r["path"] for r in answer["results"]}) == 3 and not answer.get("stale")


@pytest.mark.parametrize("query, expected", [
    ("alpha", {"memory/alpha.md": 1, "memory/sub/ALPHA.md": 1}),
    ("Alpha.MD", {"memory/alpha.md": 2, "memory/sub/ALPHA.md": 2}),
    ("memory/alpha.md", {"memory/alpha.md": 3}),
    ("alpha.notes", {"memory/Alpha.Notes.md": 1}),
    ("alpha.notes.md", {"memory/Alpha.Notes.md": 2}),
    ("notes", {}),  # a word inside a file's name is the path words' match, not a named file
    ("alpha notes", {}),  # a sentence never names a file
    ("100%_x", {"memory/100%_x.md": 1}),  # LIKE's wildcards are plain characters here
])
def test_a_query_naming_a_file_finds_it_on_both_engines(store_backend, reverie_home, query, expected):
    """A one-word query that is a file's whole path, file name or stem (any case) names that file,
    on both engines from the sources' indexed path keys."""
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    for rel in ("memory/alpha.md", "memory/sub/ALPHA.md", "memory/Alpha.Notes.md", "memory/100%_x.md",
                "memory/100a_xb.md", "memory/beta.md"):
        (m.workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (m.workspace / rel).write_text(f"- a note in {rel}\n", encoding="utf-8")
    m.index.sync()
    from reverie.search.keyword import exact_path_hits
    conn = index_conn(m)
    try:
        got = {h.path: h.specificity for h in exact_path_hits(conn, query)}
        assert got == expected
    finally:
        conn.close()
        m.close()


def test_a_generation_without_the_path_keys_still_finds_named_files():
    """A generation file a read-only process could not migrate (no path key columns) is matched by
    scanning the paths, with the same answer as the indexed keys give."""
    import apsw

    from reverie.index.schema import _INDEX_BASE, _PATH_KEYS
    from reverie.search.keyword import exact_path_hits
    got = []
    for steps in ((_INDEX_BASE,), (_INDEX_BASE, _PATH_KEYS)):
        conn = apsw.Connection(":memory:")
        for step in steps:
            conn.execute(step)
        for rel in ("memory/alpha.md", "memory/sub/ALPHA.md", "memory/Alpha.Notes.md", "MEMORY.md", "memory/.md"):
            conn.execute("INSERT INTO memory_index_sources(path, hash, mtime, size, indexed_at) VALUES (?, 'h', 0, 0, 0)",
                         (rel,))
        got.append([sorted((h.path, h.specificity) for h in exact_path_hits(conn, q))
                    for q in ("alpha", "alpha.md", "memory", "memory.md", "alpha.notes", "memory/sub/alpha.md", "")])
        conn.close()
    assert got[0] == got[1]
    assert got[1][0] == [("memory/alpha.md", 1), ("memory/sub/ALPHA.md", 1)]
    assert got[1][2] == [("MEMORY.md", 1)]
    assert got[1][5] == [("memory/sub/ALPHA.md", 3)]


def test_the_names_kept_for_one_word_queries_follow_the_index(reverie_home):
    """A file added (or renamed away) is found (or no longer found) by a one-word query naming it,
    at the next search after its sync."""
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    (m.workspace / "memory" / "alpha.md").write_text("- first file\n", encoding="utf-8")
    m.sync()
    assert [r["path"] for r in m.search("alpha", min_score=0)["results"]][:1] == ["memory/alpha.md"]
    assert not [r for r in m.search("gamma", min_score=0)["results"] if r["path"] == "memory/gamma.md"]
    (m.workspace / "memory" / "alpha.md").rename(m.workspace / "memory" / "gamma.md")
    m.sync()
    assert [r["path"] for r in m.search("gamma", min_score=0)["results"]][:1] == ["memory/gamma.md"]
    assert not [r for r in m.search("alpha", min_score=0)["results"] if r["path"] == "memory/alpha.md"]
    m.close()
