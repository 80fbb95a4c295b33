"""Relevance dominates the multipliers, with the real bundled embedder: an importance-8 entry that
is not about the query must not outrank the note that answers it (issue "Retrieval quality" §6)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory

pytestmark = pytest.mark.semantic

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
MEMORY = ("# Long-Term Memory\n\n"
          "- Prefers window seats and vegetarian meals on long-haul flights <!-- importance: 8 -->\n"
          "- Likes hiking in the Alps in summer <!-- importance: 8 -->\n"
          "- Always books hotels with a gym <!-- importance: 9 -->\n")
NOTE = ("# 2026-11-20\n\n"
        "- The vendor proposal was rejected because it was over budget by 40 percent.\n"
        "- Lunch with Dana at the noodle place.\n")


@pytest.fixture(scope="module")
def mem(tmp_path_factory):
    m = Memory(home=tmp_path_factory.mktemp("relevance-home"), env={"REVERIE_TIMEZONE": "UTC"},
               overrides=['memory.search.provider="local"'])
    m.init()
    (m.workspace / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    (m.workspace / "memory" / "2026-11-20.md").write_text(NOTE, encoding="utf-8")
    m.sync()
    yield m
    m.close()


def test_price_too_high_finds_the_over_budget_note_above_important_unrelated_entries(mem):
    out = mem.search("price too high", 5, now=NOW, explain=True, record_signals=False)
    assert out["mode"] == "hybrid"
    top = out["results"][0]
    rows = "\n".join(f"{r['score']:.3f} {r['snippet'][:40]} imp={r['explain']['importance']}" for r in out["results"])
    assert "over budget" in top["snippet"], rows
    # the important entries still carry their multiplier: it reorders near-ties, not relevance
    important = [r for r in out["results"] if r.get("importance")]
    assert important and all(r["explain"]["importance"]["multiplier"] > 1 for r in important)


def test_importance_still_breaks_a_near_tie(mem):
    out = mem.search("hotel with a gym", 5, now=NOW, explain=True, record_signals=False)
    assert "gym" in out["results"][0]["snippet"]
