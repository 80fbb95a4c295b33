"""Kinds and their members (text/kinds.py, keyword.expand_kinds): a question that counts or gathers
names a kind ("doctors", "演出"), the notes name its members ("orthodontist", "芭蕾"). Real SQLite
and PostgreSQL, keyword-only: the keyword index is all these tests ask of. The notes use members
the long-history benchmark does not (it was in view when the lexicon was written)."""

from __future__ import annotations

from datetime import datetime, timezone

import apsw
import pytest

from reverie.search.keyword import analyse_query, expand_kinds

engines = pytest.mark.usefixtures("store_backend")

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
DOCTORS = {
    "memory/2026-02-03.md": "- Saw an orthodontist about the gap in my teeth.\n",
    "memory/2026-03-11.md": "- The cardiologist says my heart is fine, just less coffee.\n",
    "memory/2026-04-20.md": "- Booked a neurologist for the headaches, went on Friday.\n",
    "memory/2026-05-02.md": "- Painted the garden fence, two coats.\n",
    "memory/2026-05-09.md": "- The doctor's office moved to Elm Street.\n",
}


def paths(m, query: str) -> list[str]:
    out = m.search(query, 10, 0.0, now=NOW, record_signals=False)
    return [r["path"] for r in out["results"]]


def test_a_head_word_is_held_by_its_members():
    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')")
    qt = analyse_query(conn, "How many plants did I buy?", "cjk", "t", 10)
    words = expand_kinds(qt, "cjk")
    assert "monstera" in words and "绿萝" in words  # the leg asks for members in both languages
    plant = qt.tokens.index("plant")
    assert qt.mask("I bought a monstera for the hall.", "cjk")[plant]
    assert qt.mask("买了一盆绿萝。", "cjk")[plant]
    assert not qt.mask("I bought a new lamp for the hall.", "cjk")[plant]
    # a phrase member needs all of its words: "snake plant", not "snake"
    qt2 = analyse_query(conn, "How many houseplants do I have?", "cjk", "t", 10)
    expand_kinds(qt2, "cjk")
    i = qt2.tokens.index(qt2.tokens[0])
    assert qt2.mask("Got a snake plant for the bedroom.", "cjk")[i]
    assert not qt2.mask("Saw a snake in the garden.", "cjk")[i]
    # a question naming no kind, or the trigram tokenizer: nothing
    qt3 = analyse_query(conn, "How many emails did I send?", "cjk", "t", 10)
    assert expand_kinds(qt3, "cjk") == "" and not qt3.alts
    assert expand_kinds(analyse_query(conn, "How many plants?", "trigram", "t", 10), "trigram") == ""


@engines
def test_a_count_of_a_kind_finds_each_member_named(keyword_memory):
    m = keyword_memory(DOCTORS)
    got = paths(m, "How many different doctors did I see?")
    for note in ("memory/2026-02-03.md", "memory/2026-03-11.md", "memory/2026-04-20.md"):
        assert note in got, got
    assert "memory/2026-05-02.md" not in got
    # a lookup asks for one note its own words find: the members are not brought
    assert paths(m, "Where is the doctor's office?") == ["memory/2026-05-09.md"]


@engines
def test_a_chinese_count_finds_the_shows_and_what_was_spent(keyword_memory):
    m = keyword_memory({
        "memory/2026-02-14.md": "- 在大剧院看了一场芭蕾，很美。\n",
        "memory/2026-03-08.md": "- 周末和朋友去听了相声。\n",
        "memory/2026-04-25.md": "- 去音乐节玩了两天，晒黑了。\n",
        "memory/2026-05-01.md": "- 把阳台打扫了一遍。\n",
    })
    got = paths(m, "我一共看了几场演出？")
    assert set(got[:3]) == {"memory/2026-02-14.md", "memory/2026-03-08.md", "memory/2026-04-25.md"}, got
    assert "memory/2026-05-01.md" not in got


@engines
def test_money_spent_on_a_thing_is_found_under_its_other_names(keyword_memory):
    m = keyword_memory({
        "memory/2026-03-02.md": "- Paid 40 dollars for new brake pads on the bicycle.\n",
        "memory/2026-03-20.md": "- A helmet for cycling, 55 dollars.\n",
        "memory/2026-04-04.md": "- Bought groceries for the week.\n",
        "memory/2026-04-18.md": "- Watered the tomatoes.\n",
    })
    got = paths(m, "How much have I spent on my bike in total?")
    assert got[:2] == ["memory/2026-03-20.md", "memory/2026-03-02.md"] or \
        set(got[:2]) == {"memory/2026-03-02.md", "memory/2026-03-20.md"}, got
    assert "memory/2026-04-18.md" not in got
