"""The search pipeline (reference §7) on the deterministic ``fake`` embedder or keyword-only.

Preflight (empty query, empty index), keyword-only search in Chinese and English, FTS5 syntax in
queries, prefix monotonicity, minScore judged before decay, importance and project multipliers,
MMR, the explain trace, staleness without waiting for a reindex (field-failures theme 7), recall
signals, and identity mismatches.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import date, datetime, timedelta, timezone

import pytest

from reverie import Memory
from reverie.embeddings.fake import FakeEmbedder
from reverie.index.chunking import chunk_markdown
from reverie.index.identity import read_meta
from reverie.store import connect

from engines import only_sqlite
from workspace_helpers import open_mem, write

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

FAKE = 'memory.search.provider="fake"'
NONE = 'memory.search.provider="none"'
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def paths(out: dict) -> list[str]:
    return [r["path"] for r in out["results"]]


def by_path(out: dict) -> dict[str, dict]:
    return {r["path"]: r for r in out["results"]}


def search(mem: Memory, query: str, n: int | None = 20, **kw) -> dict:
    kw.setdefault("now", NOW)
    kw.setdefault("record_signals", False)
    return mem.search(query, n, **kw)


TRAVEL = {
    "memory/2026-11-18.md": "- 在杭州西湖附近找了一家酒店，步行就能到断桥。\n",
    "memory/2026-11-19.md": "- 买了周日下午的返程高铁车票。\n",
    "memory/2026-11-20.md": "- 没有订湖景房，因为超出预算。\n",
    "memory/2026-11-21.md": "- Booked the hotel by the railway station for two nights.\n",
    "memory/2026-11-22.md": "- The weather forecast says heavy rain on Saturday.\n",
    "memory/2026-11-23.md": "- Bought apples, bread and coffee beans at the grocery store.\n",
    "memory/2026-11-24.md": "- Refactored the Python test suite to use pytest fixtures.\n",
}


@pytest.fixture(scope="module")
def keyword_mem(tmp_path_factory):
    """Shared by the module (searches here record no signals, so nothing changes it)."""
    mem = Memory(home=tmp_path_factory.mktemp("keyword-home"), env={"REVERIE_TIMEZONE": "UTC"}, overrides=[NONE])
    mem.init()
    for rel, text in TRAVEL.items():
        write(mem, rel, text)
    mem.sync()
    yield mem
    mem.close()


@pytest.fixture
def fake_mem(reverie_home):
    mem = open_mem(FAKE)
    yield mem
    mem.close()


# -- preflight ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", ["", "  ", "\t\n ", "\u3000"])
def test_empty_query_returns_nothing_without_resolving_the_embedder(reverie_home, query):
    mem = Memory(overrides=['memory.search.provider="local"'])  # loading it would cost time
    mem.init()
    out = mem.search(query)
    assert out["results"] == []
    assert out["mode"] == "empty-query"
    assert mem._provider_state is None and mem._embedder is None
    assert mem._index is None and mem._search is None  # not even the index was opened
    # the tool path takes the same shortcut
    search_tool = {t.name: t for t in mem.tools()}["memory_search"]
    assert search_tool.call({"query": query})["results"] == []
    assert mem._provider_state is None
    mem.close()


def test_first_search_on_an_empty_index_syncs_once_and_finds_the_note(fake_mem):
    write(fake_mem, "memory/2026-11-28.md", "- Decided to rent a canoe on Lake Tahoe.\n")
    assert fake_mem.index.chunk_count() == 0  # never synced
    before = FakeEmbedder.calls
    # (sync_wait: on a busy machine the first answer may otherwise come from the keyword rows
    # before the note's vector is in, which is right but not what this test is about)
    out = search(fake_mem, "canoe tahoe", sync_wait=30)
    assert paths(out)[:1] == ["memory/2026-11-28.md"]
    assert not out.get("stale")
    assert FakeEmbedder.calls - before == 2  # one chunk for the sync, one for the query
    assert read_meta(fake_mem.index.conn(), "last_sync") is not None
    assert fake_mem.index.dirty_state().dirty is False
    before = FakeEmbedder.calls
    again = search(fake_mem, "canoe")
    assert paths(again)[:1] == ["memory/2026-11-28.md"]
    assert FakeEmbedder.calls - before == 1  # the query only: no second sync


def test_search_on_a_workspace_without_notes_returns_empty(fake_mem):
    out = search(fake_mem, "anything at all")
    assert out["results"] == [] and "unavailable" not in out


# -- keyword-only -------------------------------------------------------------------------------------
@pytest.mark.parametrize("query,expected", [
    # (a hotel is one thing in both languages, text/bilingual.py: the note in the question's language first)
    ("酒店", ["memory/2026-11-18.md", "memory/2026-11-21.md"]),
    ("湖景房", ["memory/2026-11-20.md"]),
    ("预算", ["memory/2026-11-20.md"]),
    ("hotels", ["memory/2026-11-21.md", "memory/2026-11-18.md"]),  # porter stemming: hotels -> hotel
    ("hotel", ["memory/2026-11-21.md", "memory/2026-11-18.md"]),
    ("booking", ["memory/2026-11-21.md"]),  # booking ~ Booked
])
def test_keyword_only_finds_chinese_and_english_words(keyword_mem, query, expected):
    out = search(keyword_mem, query)
    assert out["mode"] == "keyword-only" and out["provider"] == "none"
    assert paths(out) == expected
    hit = out["results"][0]
    assert hit["vectorScore"] is None and hit["textScore"] > 0
    assert out["debug"]["legs"]["vector"] is None


@pytest.mark.parametrize("query,expected", [
    ("为什么没订湖景房", "memory/2026-11-20.md"),
    ("杭州的酒店在哪里", "memory/2026-11-18.md"),
    ("返程车票买了吗", "memory/2026-11-19.md"),
    ("西湖酒店", "memory/2026-11-18.md"),  # both words present, not next to each other
])
def test_keyword_only_answers_unspaced_chinese_questions(keyword_mem, query, expected):
    # field-failures theme 2: an unspaced multi-word CJK query must not miss silently
    out = search(keyword_mem, query)
    assert paths(out)[:1] == [expected], out["debug"]


@pytest.mark.parametrize("query", [
    '"AND NOT * ( : NEAR hotel', 'hotel"', "hotel*", "-hotel", "hotel OR", "hotel AND NOT", "{hotel}",
    "hotel:", "^hotel", "hotel NEAR/2", "(hotel)", "hotel'", "hotel -- ; DROP TABLE memory_index_chunks",
])
def test_fts_syntax_in_a_query_never_raises_and_the_plain_word_still_matches(keyword_mem, query):
    out = search(keyword_mem, query)
    assert paths(out)[:1] == ["memory/2026-11-21.md"], query


def test_fts_syntax_with_a_chinese_word_still_matches(keyword_mem):
    out = search(keyword_mem, '酒店 OR "')
    assert paths(out)[:1] == ["memory/2026-11-18.md"]


@pytest.mark.parametrize("query", ["(*)", "NEAR(", '"', "*", ":", ")", "NOT NOT", "^", '""', "'", "{}"])
def test_pure_fts_syntax_returns_empty_without_error(keyword_mem, query):
    # (no note holds the word "near" or "not": operator words are matched as plain words)
    out = search(keyword_mem, query)
    assert out["results"] == []


@pytest.mark.parametrize("query", ['"AND NOT * ( : NEAR hotel', "(*)", "NEAR(", '酒店 OR "'])
def test_fts_syntax_is_safe_in_hybrid_mode_too(fake_mem, query):
    for rel, text in TRAVEL.items():
        write(fake_mem, rel, text)
    fake_mem.sync()
    out = search(fake_mem, query)
    # a query without words embeds to a zero vector, which skips the vector leg (reference §7.2)
    assert out["mode"] == ("keyword-only" if query == "(*)" else "hybrid")
    if "hotel" in query:
        assert paths(out)[0] == "memory/2026-11-21.md"
    if "酒店" in query:
        assert paths(out)[0] == "memory/2026-11-18.md"


# -- prefix monotonicity ------------------------------------------------------------------------------
def _many_notes(mem: Memory, count: int) -> None:
    topics = ["hotel booking", "train tickets", "grocery list", "python scripts", "rainy weather",
              "hotel budget", "lake view", "business trip", "杭州 酒店", "返程 车票"]
    for i in range(count):
        day = date(2026, 10, 1) + timedelta(days=i % 50)
        t = topics[i % len(topics)]
        write(mem, f"memory/{day.isoformat()}-n{i}.md",
              f"- Note {i} about {t}: detail {i * 7 % 11}, remark {i % 5} on {t.split()[0]}.\n")


@pytest.mark.parametrize("provider", [FAKE, NONE])
def test_prefix_monotonic_across_result_counts(reverie_home, provider):
    mem = open_mem(provider)
    _many_notes(mem, 40)
    mem.sync()
    for query in ["hotel", "hotel budget", "train tickets", "杭州酒店", "weather rain", "python"]:
        runs = {n: search(mem, query, n) for n in (1, 2, 6, 20)}
        assert runs[1]["results"], query
        rows = {n: [(r["path"], r["startLine"], r["score"]) for r in out["results"]] for n, out in runs.items()}
        leaders = {rows[n][0] for n in rows}
        assert len(leaders) == 1, (query, leaders)
        assert rows[2] == rows[6][:len(rows[2])], query
        assert rows[6] == rows[20][:len(rows[6])], query
        assert len(rows[6]) == min(6, len(rows[20]))
    mem.close()


def test_prefix_monotonic_when_a_large_request_widens_the_window(reverie_home):
    mem = open_mem(FAKE)
    _many_notes(mem, 90)
    mem.sync()
    for query in ["hotel budget", "train tickets"]:
        small = search(mem, query, 6)
        large = search(mem, query, 40)  # 40 x 2 > 48: the candidate window widens
        assert large["debug"]["window"] > small["debug"]["window"]
        rows_s = [(r["path"], r["score"]) for r in small["results"]]
        rows_l = [(r["path"], r["score"]) for r in large["results"]]
        assert rows_s == rows_l[:len(rows_s)], query
    mem.close()


# -- minScore before decay, and evergreen files -------------------------------------------------------
SAME = "- Decided to keep the quarterly budget review on Friday afternoons.\n"


def _same_text_in_three_places(mem: Memory) -> str:
    old_day = (NOW.date() - timedelta(days=200)).isoformat()
    write(mem, f"memory/{old_day}.md", SAME)
    write(mem, "memory/2026-11-30.md", SAME)
    write(mem, "MEMORY.md", SAME)
    write(mem, "memory/2026-11-29.md", "- Picked up the dry cleaning.\n")
    mem.sync()
    return f"memory/{old_day}.md"


def test_min_score_is_judged_before_decay(reverie_home):
    # the reference's pure exponential (floor 0), where a 200-day-old note decays to ~1%
    mem = open_mem(FAKE, "memory.search.temporalDecay.floor=0")
    old_path = _same_text_in_three_places(mem)
    out = search(mem, "quarterly budget review", explain=True)
    hits = by_path(out)
    old, fresh, curated = hits[old_path], hits["memory/2026-11-30.md"], hits["MEMORY.md"]
    # the old note is returned although its decayed score is far below minScore 0.35 ...
    assert old["score"] < 0.35 and old["explain"]["eligible"] is True
    assert old["explain"]["preDecay"] >= 0.35
    assert old["explain"]["decay"]["ageDays"] == pytest.approx(200.5)
    assert old["explain"]["decay"]["multiplier"] == pytest.approx(0.5 ** (200.5 / 30), abs=1e-4)
    # ... but ranks below the fresh note with the same text
    order = paths(out)
    assert order.index("memory/2026-11-30.md") < order.index(old_path)
    assert fresh["explain"]["preDecay"] == old["explain"]["preDecay"]
    assert fresh["score"] > old["score"]
    assert fresh["explain"]["decay"]["ageDays"] == pytest.approx(0.5)
    # MEMORY.md never decays
    assert curated["explain"]["decay"] == {"multiplier": 1.0, "ageDays": None}
    assert curated["score"] == pytest.approx(curated["explain"]["preDecay"], abs=1e-4)
    assert out["debug"]["selection"] == "strict"
    mem.close()


def test_default_decay_floor_reorders_but_never_buries(fake_mem):
    old_path = _same_text_in_three_places(fake_mem)
    out = search(fake_mem, "quarterly budget review", explain=True)
    hits = by_path(out)
    old, fresh, curated = hits[old_path], hits["memory/2026-11-30.md"], hits["MEMORY.md"]
    assert old["explain"]["decay"]["multiplier"] == pytest.approx(
        0.95 + 0.05 * 0.5 ** (200.5 / 30), abs=1e-4)
    assert fresh["explain"]["decay"]["multiplier"] == pytest.approx(0.95 + 0.05 * 0.5 ** (0.5 / 30), abs=1e-4)
    assert curated["explain"]["decay"] == {"multiplier": 1.0, "ageDays": None}
    order = paths(out)
    assert order.index("MEMORY.md") < order.index("memory/2026-11-30.md") < order.index(old_path)
    assert old["score"] >= 0.95 * old["explain"]["preDecay"] - 1e-4


def test_undated_notes_under_memory_do_not_decay(fake_mem):
    write(fake_mem, "memory/projects/kayak.md", "- Kayak rental costs forty dollars a day.\n")
    write(fake_mem, "memory/2026-02-31.md", "- Kayak paddles are in the garage.\n")  # no such date
    fake_mem.sync()
    out = search(fake_mem, "kayak", explain=True)
    for hit in out["results"]:
        assert hit["explain"]["decay"] == {"multiplier": 1.0, "ageDays": None}, hit["path"]
    assert set(paths(out)) == {"memory/projects/kayak.md", "memory/2026-02-31.md"}


def test_a_raised_min_score_drops_results_and_a_lowered_one_keeps_them(keyword_mem):
    assert search(keyword_mem, "hotel railway", min_score=0.0)["results"]
    # a note holding every query word scores 1.0 in keyword-only mode: it clears any threshold (the Chinese
    # hotel note, holding "hotel" only in its own language, is the lexical fill after it)
    whole = search(keyword_mem, "hotel railway", min_score=1.0)
    assert paths(whole) == ["memory/2026-11-21.md", "memory/2026-11-18.md"]
    assert whole["results"][1]["score"] < whole["results"][0]["score"]
    strict = search(keyword_mem, "hotel zeppelin", min_score=1.0)
    # no note holds "zeppelin": nothing clears 1.0, and keyword-backed hits come back through the
    # lexical fallback
    assert strict["debug"]["selection"] == "lexical-fallback"
    assert paths(strict) == ["memory/2026-11-21.md", "memory/2026-11-18.md"]


# -- importance and project affinity ------------------------------------------------------------------
def test_importance_annotation_raises_a_chunk(fake_mem):
    base = "- Tea tasting with Bob: the oolong was best."
    write(fake_mem, "memory/tea-a.md", base + "\n")
    write(fake_mem, "memory/tea-z.md", base + " <!-- importance: 10 -->\n")
    write(fake_mem, "memory/tea-m.md", base + " <!-- importance: 1 -->\n")
    fake_mem.sync()
    out = search(fake_mem, "tea tasting oolong", explain=True)
    hits = by_path(out)
    assert paths(out)[0] == "memory/tea-z.md"
    assert paths(out)[-1] == "memory/tea-m.md"
    assert hits["memory/tea-z.md"]["importance"] == 10
    assert "importance" not in hits["memory/tea-a.md"]
    for rel, mult in (("memory/tea-z.md", 1.25), ("memory/tea-a.md", 1.0), ("memory/tea-m.md", 0.8)):
        ex = hits[rel]["explain"]
        assert ex["importance"]["multiplier"] == pytest.approx(mult)
        assert ex["preDecay"] == pytest.approx(ex["merge"]["content"] * mult, abs=1e-3)
    # without the multiplier the annotated chunk would not lead: its text is longer
    z, a = hits["memory/tea-z.md"]["explain"], hits["memory/tea-a.md"]["explain"]
    assert z["merge"]["content"] <= a["merge"]["content"]


def test_project_affinity_multipliers(fake_mem):
    write(fake_mem, "memory/garden-home.md", "- Garden plan: tomatoes on the balcony. <!-- project: home -->\n")
    write(fake_mem, "memory/garden-work.md", "- Garden plan: tomatoes on the roof. <!-- project: work -->\n")
    write(fake_mem, "memory/garden-both.md", "- Garden plan: tomatoes on the porch. <!-- project: home; garden -->\n")
    write(fake_mem, "memory/garden-none.md", "- Garden plan: tomatoes in the yard.\n")
    fake_mem.sync()
    plain = by_path(search(fake_mem, "garden plan tomatoes", explain=True))
    home = by_path(search(fake_mem, "garden plan tomatoes", explain=True, projects=["home"]))
    both = by_path(search(fake_mem, "garden plan tomatoes", explain=True, projects=["home", "garden"]))
    assert set(plain) == set(home) == set(both) == {
        "memory/garden-home.md", "memory/garden-work.md", "memory/garden-both.md", "memory/garden-none.md"}
    expected_home = {"memory/garden-home.md": 1.15, "memory/garden-work.md": 0.90,
                     "memory/garden-both.md": 0.90,  # not every key is active
                     "memory/garden-none.md": 1.0}
    for rel, mult in expected_home.items():
        assert plain[rel]["explain"]["project"]["multiplier"] == 1.0
        assert home[rel]["explain"]["project"]["multiplier"] == mult, rel
        assert home[rel]["explain"]["project"]["active"] == ["home"]
        assert home[rel]["score"] == pytest.approx(plain[rel]["score"] * mult, rel=1e-3), rel
    assert both["memory/garden-both.md"]["explain"]["project"]["multiplier"] == 1.15
    assert home["memory/garden-home.md"]["projectKey"] == "home"
    assert both["memory/garden-both.md"]["projectKey"] == "home; garden"


# -- MMR ----------------------------------------------------------------------------------------------
def test_mmr_demotes_a_near_duplicate_below_a_distinct_close_result(fake_mem):
    write(fake_mem, "memory/a.md", "Hangzhou hotel budget: the lake view room was rejected as over budget.\n")
    write(fake_mem, "memory/b.md", "Hangzhou hotel budget: the lake view room was rejected as over budget, again.\n")
    write(fake_mem, "memory/c.md", "Hangzhou hotel budget: cheaper business hotel downtown.\n")
    write(fake_mem, "memory/d.md", "Hotel breakfast in Suzhou was fine.\n")
    write(fake_mem, "memory/e.md", "Budget for groceries this month.\n")
    fake_mem.sync()
    out = search(fake_mem, "hangzhou hotel budget", explain=True)
    hits = by_path(out)
    a, b, c = hits["memory/a.md"], hits["memory/b.md"], hits["memory/c.md"]
    # by score the near-duplicate b comes second and the distinct c third, close behind ...
    assert a["score"] > b["score"] > c["score"]
    assert b["score"] - c["score"] < 0.1 * b["score"]
    assert (b["explain"]["mmr"]["before"], c["explain"]["mmr"]["before"]) == (2, 3)
    # ... MMR swaps them: c follows a, the duplicate comes after
    assert (b["explain"]["mmr"]["after"], c["explain"]["mmr"]["after"]) == (3, 2)
    assert paths(out)[:3] == ["memory/a.md", "memory/c.md", "memory/b.md"]
    assert b["explain"]["mmr"]["penalty"] > 0.8 > 0.3 > c["explain"]["mmr"]["penalty"]
    assert a["explain"]["mmr"] == {"before": 1, "after": 1, "penalty": 0.0}


def test_mmr_reorders_but_never_changes_scores(fake_mem):
    write(fake_mem, "memory/a.md", "Hangzhou hotel budget: the lake view room was rejected as over budget.\n")
    write(fake_mem, "memory/b.md", "Hangzhou hotel budget: the lake view room was rejected as over budget, again.\n")
    write(fake_mem, "memory/c.md", "Hangzhou hotel budget: cheaper business hotel downtown.\n")
    fake_mem.sync()
    out = search(fake_mem, "hangzhou hotel budget", explain=True)
    for hit in out["results"]:
        assert hit["score"] == pytest.approx(hit["explain"]["score"], abs=1e-4)
        assert hit["score"] == pytest.approx(hit["explain"]["preDecay"] * hit["explain"]["decay"]["multiplier"],
                                             abs=1e-3)


# -- explain ------------------------------------------------------------------------------------------
EXPLAIN_KEYS = {"vector", "keyword", "path", "merge", "importance", "status", "project", "boost", "preDecay",
                "eligible", "decay", "score", "mmr"}


def test_explain_has_every_leg_merge_multiplier_and_mmr(fake_mem):
    for rel, text in TRAVEL.items():
        write(fake_mem, rel, text)
    fake_mem.sync()
    out = search(fake_mem, "hotel", explain=True)
    assert out["results"]
    for hit in out["results"]:
        ex = hit["explain"]
        assert set(ex) == EXPLAIN_KEYS, hit["path"]
        assert set(ex["vector"]) == {"cosine", "calibrated", "rank", "floor", "unit", "window", "file"}
        assert set(ex["merge"]) == {"content", "formula", "context"} and "vector" in ex["merge"]["formula"]
        assert set(ex["status"]) == {"value", "multiplier"}
        assert set(ex["importance"]) == {"value", "multiplier"}
        assert set(ex["project"]) == {"key", "active", "multiplier"}
        assert set(ex["decay"]) == {"multiplier", "ageDays"}
        assert set(ex["mmr"]) == {"before", "after", "penalty"}
        assert isinstance(ex["eligible"], bool)
    top = out["results"][0]["explain"]
    assert set(top["keyword"]) == {"score", "bm25", "coverage", "allTerms", "rank", "unit", "window", "file"}
    # each leg blends the unit's own score with its window's and its file's
    for leg in ("vector", "keyword"):
        part = top[leg]
        own = part["unit"] if leg == "keyword" else part["unit"]
        assert part["calibrated" if leg == "vector" else "score"] == pytest.approx(
            0.5 * own + 0.5 * (0.7 * part["window"] + 0.3 * part["file"]), abs=2e-3)
    assert top["merge"]["content"] == pytest.approx(
        0.7 * top["vector"]["calibrated"] + 0.3 * top["keyword"]["score"], abs=1e-3)
    debug = out["debug"]
    for key in ("backend", "configuredMode", "effectiveMode", "selection", "candidates", "window", "legs",
                "hits", "embedMs", "rankMs", "searchMs"):
        assert key in debug, key
    assert set(debug["legs"]) == {"vector", "keyword", "path"}
    # without explain, no trace is attached
    assert all("explain" not in h for h in search(fake_mem, "hotel")["results"])


def test_explain_path_leg_for_a_file_name_query(fake_mem):
    for rel, text in TRAVEL.items():
        write(fake_mem, rel, text)
    fake_mem.sync()
    out = search(fake_mem, "2026-11-22", explain=True)
    top = out["results"][0]
    assert top["path"] == "memory/2026-11-22.md"
    assert top["explain"]["path"]["exactTier"] == 1  # the file stem
    assert out["debug"]["legs"]["path"] >= 1


def test_explain_in_keyword_only_mode(keyword_mem):
    out = search(keyword_mem, "hotel", explain=True)
    ex = out["results"][0]["explain"]
    assert set(ex) == EXPLAIN_KEYS
    assert ex["vector"] is None and ex["merge"]["formula"] == "keyword only"
    assert ex["merge"]["content"] == pytest.approx(ex["keyword"]["score"], abs=1e-4)


# -- staleness: never wait for a reindex --------------------------------------------------------------
def test_dirty_index_answers_at_once_as_stale_and_a_background_sync_catches_up(fake_mem):
    note = write(fake_mem, "memory/2026-11-29.md", "- Visited the aquarium.\n")
    fake_mem.sync()
    with note.open("a", encoding="utf-8") as fh:
        fh.write("- Saw a zanzibar gecko at the reptile house.\n")
    out = search(fake_mem, "zanzibar gecko")
    assert out["stale"] is True
    assert "dirty" in out["warning"].lower() and "reverie index" in out["action"]
    deadline = time.monotonic() + 5
    found = False
    while time.monotonic() < deadline and not found:
        fake_mem.searcher.wait_for_sync(1.0)
        found = "zanzibar" in " ".join(r["snippet"] for r in search(fake_mem, "zanzibar gecko")["results"])
        if not found:
            time.sleep(0.1)
    assert found, "the background sync never indexed the change"
    assert fake_mem.index.dirty_state().dirty is False
    # once the background sync is done, the next search no longer calls a fresh index stale
    assert fake_mem.searcher.wait_for_sync(5)
    assert "stale" not in search(fake_mem, "zanzibar gecko")


def test_sync_wait_lets_a_dirty_index_catch_up_first(fake_mem):
    note = write(fake_mem, "memory/2026-11-29.md", "- Visited the aquarium.\n")
    fake_mem.sync()
    note.write_text("- Visited the aquarium and fed the quokka.\n", encoding="utf-8")
    out = search(fake_mem, "quokka", sync_wait=5.0)
    assert "stale" not in out
    assert paths(out) == ["memory/2026-11-29.md"] and "quokka" in out["results"][0]["snippet"]


def test_search_never_waits_for_a_slow_reindex(reverie_home):
    mem = open_mem('memory.search.provider="fake"', 'memory.search.model="slow"')
    write(mem, "memory/2026-11-01.md", "- The first note, about the slow reindex experiment.\n")
    mem.sync()
    filler = " ".join(f"word{j}" for j in range(180))  # ~320 tokens per file: three units
    for i in range(220):
        write(mem, f"memory/bulk/n{i:03}.md", f"- bulk note {i}: {filler}\n")
    units = len(chunk_markdown(f"- bulk note 100: {filler}\n").units)
    FakeEmbedder.hold = threading.Event()  # the reindex's batches of passages wait until we have looked
    try:
        out = search(mem, "slow reindex experiment")
        # answered while the reindex the search started cannot have finished (its vectors are held)
        assert not mem.searcher.wait_for_sync(0)
    finally:
        FakeEmbedder.hold.set()
        FakeEmbedder.hold = None
    assert out["stale"] is True
    assert paths(out)[:1] == ["memory/2026-11-01.md"]
    assert mem.searcher.wait_for_sync(60)
    assert mem.index.chunk_count() == 1 + 220 * units
    assert "n123.md" in " ".join(paths(search(mem, "bulk note 123", 3)))
    mem.close()


# -- recall signals -----------------------------------------------------------------------------------
def _signals(mem: Memory) -> list[dict]:
    conn = connect(mem.agent_store)
    try:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if "memory_recall_signals" not in names:
            return []
        cols = [r[1] for r in conn.execute("PRAGMA table_info(memory_recall_signals)")]
        return [dict(zip(cols, row)) for row in conn.execute(f"SELECT {', '.join(cols)} FROM memory_recall_signals")]
    finally:
        conn.close()


def test_recall_signals_count_dated_notes_only(reverie_home):
    mem = open_mem(NONE)
    write(mem, "memory/2026-11-20.md", "- Booked the hotel by the lake for the anniversary.\n")
    write(mem, "MEMORY.md", "# Long-Term Memory\n\n- Prefers window seats on trains.\n")
    mem.sync()
    assert paths(mem.search("hotel lake", now=NOW)) == ["memory/2026-11-20.md"]
    assert paths(mem.search("anniversary", now=NOW)) == ["memory/2026-11-20.md"]
    assert paths(mem.search("window seats", now=NOW)) == ["MEMORY.md"]
    assert paths(mem.search("hotel", now=NOW, record_signals=False)) == ["memory/2026-11-20.md"]
    mem.close()  # flushes the recorder
    rows = _signals(mem)
    assert [r["path"] for r in rows] == ["memory/2026-11-20.md"]  # MEMORY.md earns no signal
    row = rows[0]
    assert row["recall_count"] == 2  # record_signals=False did not count
    assert len(json.loads(row["query_hashes"])) == 2
    assert row["max_score"] > 0 and row["total_score"] >= row["max_score"]
    assert "hotel by the lake" in row["snippet"]
    # the same query again counts, without growing the distinct-query list
    mem2 = Memory(overrides=[NONE])
    mem2.search("hotel lake", now=NOW)
    mem2.close()
    row = _signals(mem2)[0]
    assert row["recall_count"] == 3 and len(json.loads(row["query_hashes"])) == 2


def test_no_signal_table_rows_when_nothing_dated_surfaces(reverie_home):
    mem = open_mem(NONE)
    write(mem, "MEMORY.md", "- Prefers window seats on trains.\n")
    mem.sync()
    assert paths(mem.search("window seats", now=NOW)) == ["MEMORY.md"]
    mem.close()
    assert _signals(mem) == []


# -- identity mismatch --------------------------------------------------------------------------------
def _built_with_fake() -> None:
    mem = open_mem(FAKE)
    write(mem, "memory/2026-11-20.md", "- Booked the hotel near the lake.\n")
    mem.sync()
    mem.close()


@pytest.mark.parametrize("override", [NONE, 'memory.search.model="other-model"'])
def test_identity_mismatch_skips_the_vector_leg_and_says_so(reverie_home, override):
    _built_with_fake()
    mem = Memory(overrides=[FAKE, override])
    out = search(mem, "hotel")
    assert paths(out) == ["memory/2026-11-20.md"]  # keywords still work
    assert out["mode"] == "keyword-only"
    assert out["debug"]["legs"]["vector"] is None
    assert out["debug"].get("vectorSkipped"), out["debug"]
    assert out["stale"] is True
    assert "stale" in out["warning"] and "reverie index --force" in out["action"]
    assert out["results"][0]["vectorScore"] is None
    mem.close()


def test_a_search_of_an_empty_index_embeds_no_query(reverie_home):
    """Nothing to compare a query vector with: no query embedding (for the bundled model, no model load)."""
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    out = mem.search("anything at all")
    assert out["results"] == []
    assert out["debug"]["vectorSkipped"] == "the index holds no vectors yet"
    assert out["debug"]["embedMs"] == 0.0
    mem.close()


def test_a_search_says_when_a_damaged_agent_database_stops_indexing(reverie_home, store_backend):
    """The index cannot follow the files while the agent database is damaged: the answer says so
    and names the repair, instead of returning stale results in silence."""
    only_sqlite(store_backend, "it damages the agent's SQLite file")
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    mem.remember("the heron nests by the mill")  # (this opens the agent database)
    mem.close()
    db = mem.places.agent_db
    raw = db.read_bytes()
    db.write_bytes(raw[:100] + b"garbage" * 2000)
    (mem.workspace / "memory" / "pets.md").write_text("- The parrot is named Flint.\n", encoding="utf-8")
    again = Memory(overrides=['memory.search.provider="fake"'])
    again.search("parrot")
    assert again.index.background.wait(30)
    out = again.search("parrot")
    assert out["stale"] is True
    assert "agent database" in out["warning"] and "damaged" in out["warning"]
    assert "reverie doctor --repair" in out["action"]
    again.close()


def test_a_semantic_neighbour_beside_the_answer_earns_no_recall(tmp_path):
    """Results are single entries: a search lists the nearest one-off lines beside the answer. Only
    entries sharing a word with the query, or the first result, earn a recall (else filler that
    sits near many questions collects the recalls Dreaming promotes on)."""
    from reverie.search import signals

    def hit(line: int, text: str, score: float) -> dict:
        return {"path": "memory/2026-11-20.md", "source": "memory", "startLine": 1, "endLine": 6,
                "snippetStartLine": line, "snippetEndLine": line, "snippet": f"- {text}", "score": score}

    results = [hit(2, "My dentist is Dr. Weber on Hauptstrasse.", 0.8),  # the answer, no shared word
               hit(4, "The printer jammed again.", 0.6),  # a neighbour: no shared word
               hit(5, "Booked a tooth cleaning for Friday.", 0.5)]  # shares "tooth"
    db = tmp_path / "agent.sqlite"
    assert signals.record(db, "who fixes my tooth", results, "2026-11-20") == 2
    conn = connect(db)
    got = sorted(r[0] for r in conn.execute("SELECT start_line FROM memory_recall_signals"))
    conn.close()
    assert got == [2, 5]
