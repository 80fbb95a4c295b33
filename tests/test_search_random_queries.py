"""Search takes any text an agent or a person can type: random queries built from the words each of
the pipeline's special readings looks for (counting and its kinds, what holds now, time in the
question, tastes, other people, dialogue turns, file paths) mixed with FTS5 syntax, control and
invisible characters, emoji, odd Unicode and very long runs. Every answer is well formed, the same
query asked twice gets the same answer (nothing in a search may depend on timing or on the order a
set is walked), and the explain trace is plain JSON.

Seeded, so a failure names a query that can be replayed.
"""

from __future__ import annotations

import json
import math
import random
from datetime import datetime, timezone

import pytest

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)

NOTES = {
    "memory/2026-10-03.md": "# 2026-10-03\n\n- Went to a jazz concert at the Blue Room with Mia.\n"
                            "- My sister's manager moved to Berlin last week.\n",
    "memory/2026-10-11.md": "# 2026-10-11\n\n- 今天去游泳，游了 20 圈。\n- 和妈妈去听了一场音乐会，很感动。\n",
    "memory/2026-10-20.md": "# 2026-10-20\n\n- We live in Munich, near the English Garden.\n"
                            "- I love quiet mountain villages; I hate crowded beaches.\n",
    "memory/2026-11-02.md": "# 2026-11-02\n\n- We moved: we live in Berlin now, in Kreuzberg.\n"
                            "- The gym locker code is 4417.\n- 我现在开的是一辆蓝色的比亚迪海豹。\n",
    "memory/2026-11-15-trip.md": "# Session: 2026-11-15 09:00:00 UTC\n\n- **Session Key**: agent:main:main\n"
                                 "- **Session ID**: 0b7e4c1e-1f1a-4f43-9d8e-5d7f3e0a1b2c\n- **Source**: reverie\n\n"
                                 "## Conversation Summary\n\nuser: 下周去杭州出差三天，订了西湖边的酒店。\n"
                                 "assistant: 好的，记下了。\n",
    "MEMORY.md": "# Memory\n\n- The Atlas migration cutover moved to December 22.\n- 用户对花生严重过敏。\n",
}

PIECES = [
    # the pipeline's readings
    "how many", "in total", "how many times", "多少", "几次", "一共", "几本书", "什么车", "几场音乐会",
    "concerts", "concert", "shows", "游了", "圈", "now", "现在", "currently", "still", "where do we live",
    "my manager", "我妹妹", "her manager", "last week", "the week before", "上周", "上个月", "去年", "yesterday",
    "昨天", "12月22日", "December 15", "2026-10-11", "recommend", "推荐", "I love", "我不喜欢", "should I",
    "do you remember", "你还记得", "remind me", "password", "密码", "4417", "Berlin", "柏林", "西湖",
    "memory/2026-10-03.md", "MEMORY.md", "#L3", "用户：", "助手：", "user:", "assistant:", "\n",
    # syntax and odd text
    '"', "'", "*", "^", "NEAR(", "AND", "OR", "NOT", ":", "-", "(", ")", "{", "}", "\\", "%", "_", "?", "？",
    "。", "\x00", "\x1b[31m", "\u200b", "\ufeff", "\u202e", "🙂", "👨‍👩‍👧", "Straße", "İı", "ﬁ", "①", "二〇二六年",
    "x" * 400, "的" * 150, "1e309", "-0", "NaN", "$", "¥", " ", "\t",
]


def _query(rnd: random.Random) -> str:
    return "".join(rnd.choice(PIECES) + rnd.choice(("", " ", "")) for _ in range(rnd.randint(0, 9)))


def _well_formed(mem, out: dict) -> None:
    assert isinstance(out["results"], list)
    for r in out["results"]:
        assert (mem.workspace / r["path"]).is_file(), r["path"]
        assert 1 <= r["startLine"] <= r["endLine"], r
        assert isinstance(r["score"], float) and math.isfinite(r["score"]) and r["score"] >= 0, r
        assert isinstance(r["snippet"], str)
    json.dumps(out, allow_nan=False)  # explain and debug included: plain JSON, no NaN or infinity


@pytest.mark.parametrize("provider, count", [("none", 300), ("fake", 120)])
def test_random_queries_get_well_formed_repeatable_answers(keyword_memory, provider, count):
    mem = keyword_memory(NOTES, (f'memory.search.provider="{provider}"', 'timezone="UTC"'))
    rnd = random.Random(30 if provider == "none" else 31)
    asked = 0
    for i in range(count):
        query = _query(rnd)
        n = rnd.choice((None, 1, 6, 20))
        min_score = rnd.choice((None, 0.0, 0.35))
        kw = dict(now=NOW, explain=rnd.random() < 0.5, record_signals=False)
        try:
            out = mem.search(query, n, min_score, **kw)
            _well_formed(mem, out)
            if i % 4 == 0:  # asked again: the same answer, in the same order, with the same scores
                again = mem.search(query, n, min_score, **kw)
                assert [(r["path"], r["startLine"], r["score"]) for r in again["results"]] == \
                    [(r["path"], r["startLine"], r["score"]) for r in out["results"]]
        except AssertionError:
            raise
        except Exception as exc:  # the query that broke it, so it can be replayed
            raise AssertionError(f"search({query!r}, {n}, {min_score}) raised {exc!r}") from exc
        asked += 1
    assert asked == count


def test_the_random_queries_reach_the_special_readings(keyword_memory):
    """The pieces are not idle: among the random queries some are read as counts, some ask what
    holds now, some carry a time, some ask for advice from stated tastes, and many find a note
    (else the test above would exercise only the plain path)."""
    mem = keyword_memory(NOTES, ('memory.search.provider="none"', 'timezone="UTC"'))
    rnd = random.Random(30)
    seen: set[str] = set()
    found = 0
    for _ in range(300):
        out = mem.search(_query(rnd), None, None, now=NOW, explain=True, record_signals=False)
        for r in out["results"]:
            seen.update(k for k in ("count", "now", "time", "taste") if (r.get("explain") or {}).get(k))
        found += bool(out["results"])
    assert found >= 100
    assert {"count", "now", "time", "taste"} <= seen, seen
