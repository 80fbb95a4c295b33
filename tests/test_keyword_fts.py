"""The keyword index on a live generation: CJK words of any length, Japanese, Korean, English
stemming, and user text full of FTS5 syntax that must never raise."""

from __future__ import annotations

import apsw
import pytest

from reverie import Memory
from reverie.text.fts import TOKENIZERS, build_query, escape_like, query_terms, segment_for_index

NOTES = {
    "memory/2026-03-01.md": "# 2026-03-01\n\n- 09:00 周一规划周末去杭州两日游：讨论了酒店、车次和预算。\n",
    "memory/2026-03-02.md": "# 2026-03-02\n\n- 10:00 决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。\n",
    "memory/2026-03-03.md": "# 2026-03-03\n\n- 11:00 返程车票还没确认，周日下午的高铁候补中。\n",
    "memory/trip-en.md": "# Trip\n\n- Hangzhou: booked the 酒店 near West Lake for two nights.\n",
    "memory/english.md": "# Travel\n\n- The hotel was booked for the weekend.\n- The user dislikes long layovers.\n",
    "memory/japanese.md": "# 旅行\n\n- 京都のホテルを予約しました。\n",
    "memory/korean.md": "# 여행\n\n- 서울에서 호텔을 예약했다.\n",
    "MEMORY.md": "# Long-Term Memory\n\n- The user prefers conclusion-first plans.\n",
}


def fts_paths(mem: Memory, query: str, tokenizer: str = "cjk") -> set[str]:
    """Paths of chunks the keyword index finds: the strict query, then the relaxed one only if the
    strict one finds nothing (and, for trigram, substring terms)."""
    conn = mem.index.conn()
    q = build_query(query, tokenizer)
    if q.empty:
        return set()

    def run(match: str | None) -> set[str]:
        where, params = [], []
        if match:
            where.append("memory_index_chunks_fts MATCH ?")
            params.append(match)
        for term in q.like:
            where.append("c.text LIKE ? ESCAPE '\\'")
            params.append(f"%{escape_like(term)}%")
        sql = ("SELECT c.path FROM memory_index_chunks_fts f JOIN memory_index_chunks c ON c.seq = f.rowid "
               f"WHERE {' AND '.join(where)}")
        return {r[0] for r in conn.execute(sql, params)}

    found = run(q.strict) if (q.strict or q.like) else set()
    if not found and q.relaxed:
        found = run(q.relaxed)
    return found


@pytest.fixture
def indexed(fake_memory: Memory) -> Memory:
    for rel, text in NOTES.items():
        p = fake_memory.workspace / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    report = fake_memory.sync()
    assert report.changed == len(NOTES)
    return fake_memory


def test_index_uses_the_cjk_tokenizer(indexed: Memory):
    assert indexed.status()["fts"] == {"tokenizer": "cjk", "ok": True, "error": None}


@pytest.mark.parametrize("query, expected", [
    ("酒店", {"memory/2026-03-01.md", "memory/2026-03-02.md", "memory/trip-en.md"}),
    ("湖景房", {"memory/2026-03-02.md"}),
    ("返程车票", {"memory/2026-03-03.md"}),
    ("预算", {"memory/2026-03-01.md", "memory/2026-03-02.md"}),
    ("Hangzhou 酒店", {"memory/trip-en.md"}),  # both terms, one chunk
    ("予約", {"memory/japanese.md"}),
    ("ホテル", {"memory/japanese.md"}),
    ("호텔", {"memory/korean.md"}),
    ("hotels", {"memory/english.md"}),  # porter: hotels -> hotel
    ("booking", {"memory/english.md", "memory/trip-en.md"}),  # booked / booking share a stem
])
def test_keyword_finds(indexed: Memory, query: str, expected: set[str]):
    assert fts_paths(indexed, query) == expected


def test_cjk_word_is_not_found_where_its_characters_are_apart(indexed: Memory):
    # 湖 and 景 and 房 all occur elsewhere, but only 2026-03-02 holds the word 湖景房
    assert "memory/2026-03-01.md" not in fts_paths(indexed, "湖景房")
    assert fts_paths(indexed, "景湖") == set()


def test_single_cjk_character_is_a_prefix_query(indexed: Memory):
    assert "memory/2026-03-03.md" in fts_paths(indexed, "票")  # last character of a run


def test_unmatched_word_relaxes_to_the_others(indexed: Memory):
    # strict (all terms) finds nothing; relaxed keeps the chunk with 湖景房
    assert fts_paths(indexed, "湖景房 zebra") == {"memory/2026-03-02.md"}


@pytest.mark.parametrize("query", [
    '"AND NOT * ( : NEAR hotel',
    'hotel" OR "x',
    "hotel)",
    "NEAR(hotel layovers, 2)",
    "hotel^ -booked {text}:x",
    "hotel AND",
    "'; DROP TABLE memory_index_chunks; -- hotel",
])
def test_fts_syntax_in_user_text_never_raises(indexed: Memory, query: str):
    assert "memory/english.md" in fts_paths(indexed, query)
    assert indexed.index.chunk_count() > 0  # nothing was dropped


@pytest.mark.parametrize("query", ['"', "*", "()", "AND", ":", "   ", "。，！", "^^^"])
def test_punctuation_only_queries_are_empty_or_harmless(indexed: Memory, query: str):
    q = build_query(query)
    if q.empty:
        return
    fts_paths(indexed, query)  # must not raise


def test_query_terms_split_cjk_from_latin():
    assert query_terms("Hangzhou酒店 hotels") == ["hangzhou", "酒店", "hotels"]
    assert query_terms("_a_ __ NEAR") == ["a", "near"]


def test_segment_for_index_writes_bigrams_and_last_character():
    assert segment_for_index("酒店预算").split() == ["酒店", "店预", "预算", "算"]
    assert segment_for_index("plain text") == "plain text"
    assert segment_for_index("酒店", "unicode61") == "酒店"


@pytest.mark.parametrize("tokenizer", sorted(TOKENIZERS))
@pytest.mark.parametrize("query", ['"AND NOT * ( : NEAR hotel', "酒店", "湖景房", "a", "酒", "hotel NOT"])
def test_build_query_is_valid_fts5_for_every_tokenizer(tokenizer: str, query: str):
    conn = apsw.Connection(":memory:")
    conn.execute(f"CREATE VIRTUAL TABLE t USING fts5(text, tokenize='{TOKENIZERS[tokenizer]}')")
    for text in ["The hotel near the lake", "决定住西湖边的湖滨酒店，没有订湖景房", "酒"]:
        conn.execute("INSERT INTO t(text) VALUES (?)", (segment_for_index(text, tokenizer),))
    q = build_query(query, tokenizer)
    for match in (q.strict, q.relaxed):
        if match:
            conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (match,)).fetchall()


def test_unicode61_tokenizer_index(reverie_home):
    mem = Memory(overrides=['memory.search.provider="fake"', 'memory.search.store.fts.tokenizer="unicode61"'])
    mem.init()
    (mem.workspace / "memory" / "a.md").write_text("- The hotel was booked\n", encoding="utf-8")
    mem.sync()
    try:
        assert mem.status()["fts"]["tokenizer"] == "unicode61"
        assert fts_paths(mem, "hotel", "unicode61") == {"memory/a.md"}
        assert fts_paths(mem, "hotels", "unicode61") == set()  # no stemming without porter
    finally:
        mem.close()


def test_trigram_tokenizer_finds_short_cjk_by_substring(reverie_home):
    mem = Memory(overrides=['memory.search.provider="fake"', 'memory.search.store.fts.tokenizer="trigram"'])
    mem.init()
    (mem.workspace / "memory" / "a.md").write_text("- 决定住西湖边的湖滨酒店\n", encoding="utf-8")
    (mem.workspace / "memory" / "b.md").write_text("- 返程车票还没确认\n", encoding="utf-8")
    mem.sync()
    try:
        assert fts_paths(mem, "酒店", "trigram") == {"memory/a.md"}
        assert fts_paths(mem, "返程车票", "trigram") == {"memory/b.md"}
    finally:
        mem.close()
