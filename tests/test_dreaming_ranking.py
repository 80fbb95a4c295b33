"""The promotion ranking (reference §15.3): each component by its formula, the thresholds, spaced
recalls over raw counts, phase boosts fresh over stale, the half-life, renormalised weights; and
concurrent recall writers that never lose a count."""

from __future__ import annotations

import math
import threading

import pytest

from reverie.dreaming.ranking import Thresholds, phase_boost, rank, score_entry, spaced
from reverie.dreaming.state import PhaseSignal, ShortTermEntry

DAY = 86_400
NOW = 1_780_000_000


def entry(**kw) -> ShortTermEntry:
    base = dict(key="memory:memory/2026-06-01.md:3:3", path="memory/2026-06-01.md", start_line=3, end_line=3,
                snippet="I am allergic to peanuts.", recall_count=3, total_score=2.1, max_score=0.8,
                first_recalled_at=NOW - 5 * DAY, last_recalled_at=NOW - DAY,
                query_hashes=["a", "b", "c"], recall_days=["2026-06-02", "2026-06-04", "2026-06-06"],
                concept_tags=["allergic", "peanuts", "food"])
    base.update(kw)
    return ShortTermEntry(**base)


def test_each_component_follows_its_formula():
    e = entry(daily_count=1, total_score=2.1 + 0.62)
    r = score_entry(e, None, NOW, Thresholds())
    c = r.components
    assert c["relevance"] == pytest.approx((2.1 + 0.62) / 4)
    assert c["frequency"] == pytest.approx(math.log(5) / math.log(11))
    assert c["diversity"] == pytest.approx(3 / 5)
    assert c["recency"] == pytest.approx(math.exp(-math.log(2) / 14 * 1))
    assert c["consolidation"] == pytest.approx(0.55 * (math.log(3) / math.log(5)) + 0.45 * (4 / 7))
    assert c["conceptual"] == pytest.approx(3 / 6)
    expected = (0.30 * c["relevance"] + 0.24 * c["frequency"] + 0.15 * c["diversity"] + 0.15 * c["recency"]
                + 0.10 * c["consolidation"] + 0.06 * c["conceptual"])
    assert r.score == pytest.approx(expected)


def test_thresholds_each_hold_an_entry_back():
    th = Thresholds(min_score=0.0)
    assert "minRecallCount" in " ".join(score_entry(entry(recall_count=2, total_score=1.4), None, NOW, th).reasons)
    one_query = entry(query_hashes=["a"], recall_days=["2026-06-02"])
    assert "minUniqueQueries" in " ".join(score_entry(one_query, None, NOW, th).reasons)
    old = entry(last_recalled_at=NOW - 40 * DAY)
    assert "maxAgeDays" in " ".join(score_entry(old, None, NOW, th).reasons)
    assert score_entry(old, None, NOW, Thresholds(min_score=0.0, max_age_days=-1)).passed
    assert "minScore" in " ".join(score_entry(entry(), None, NOW, Thresholds(min_score=0.99)).reasons)
    assert score_entry(entry(), None, NOW, th).passed


def test_days_count_as_diversity_when_the_same_query_repeats():
    same_query = entry(query_hashes=["a"])
    assert score_entry(same_query, None, NOW, Thresholds(min_score=0)).diversity_count == 3


def test_spaced_recalls_beat_the_same_count_on_one_day():
    assert spaced([]) == 0 and spaced(["2026-06-02"]) == 0.2
    burst = entry(recall_days=["2026-06-02"], query_hashes=["a", "b", "c"])
    spread = entry(recall_days=["2026-06-02", "2026-06-06", "2026-06-10"])
    th = Thresholds(min_score=0)
    assert score_entry(spread, None, NOW, th).score > score_entry(burst, None, NOW, th).score


def test_grounded_evidence_counts_as_consolidation():
    e = entry(recall_days=[], grounded_count=3)
    assert score_entry(e, None, NOW, Thresholds(min_score=0)).components["consolidation"] == 1.0


def test_the_half_life_tunes_recency():
    e = entry(last_recalled_at=NOW - 14 * DAY)
    assert score_entry(e, None, NOW, Thresholds(half_life_days=14)).components["recency"] == pytest.approx(0.5)
    assert score_entry(e, None, NOW, Thresholds(half_life_days=7)).components["recency"] == pytest.approx(0.25)


def test_fresh_phase_signals_boost_more_than_stale_ones():
    fresh = PhaseSignal("k", light_hits=2, rem_hits=1, last_light_at=NOW - DAY, last_rem_at=NOW - DAY)
    stale = PhaseSignal("k", light_hits=2, rem_hits=1, last_light_at=NOW - 40 * DAY, last_rem_at=NOW - 40 * DAY)
    assert phase_boost(None, NOW) == 0
    assert phase_boost(fresh, NOW) > phase_boost(stale, NOW) > 0
    strength = math.log(3) / math.log(7)
    assert phase_boost(PhaseSignal("k", light_hits=2, last_light_at=NOW), NOW) == pytest.approx(0.06 * strength)
    assert score_entry(entry(), fresh, NOW, Thresholds()).score > score_entry(entry(), None, NOW, Thresholds()).score


def test_overridden_weights_are_renormalised_and_negative_ones_dropped():
    r = score_entry(entry(), None, NOW, Thresholds(), {"relevance": 3, "frequency": -1, "diversity": 0,
                                                        "recency": 0, "consolidation": 0, "conceptual": 1})
    assert sum(r.weights.values()) == pytest.approx(1.0) and r.weights["frequency"] == 0
    assert r.weights["relevance"] == pytest.approx(0.75)


def test_rank_orders_by_score_then_recalls_then_path():
    a = entry(key="a", path="memory/2026-06-02.md")
    b = entry(key="b", path="memory/2026-06-01.md")
    c = entry(key="c", total_score=0.3)
    order = [r.key for r in rank([a, c, b], {}, NOW, Thresholds(min_score=0))]
    assert order == ["b", "a", "c"]


def test_concurrent_recall_writers_never_lose_a_count(reverie_home):
    from reverie.search import signals as sig

    db = reverie_home / "agent.sqlite"
    db.parent.mkdir(parents=True, exist_ok=True)
    result = {"path": "memory/2026-06-01.md", "startLine": 3, "endLine": 3, "snippet": "- 09:00 I am allergic to peanuts.",
              "score": 0.6, "source": "memory"}

    def worker(n: int) -> None:
        for i in range(10):
            sig.record(db, f"peanuts {n} {i}", [result], "2026-06-02", 1_000 + i)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    from reverie.store import connect

    conn = connect(db)
    count, total = conn.execute("SELECT recall_count, total_score FROM memory_recall_signals").fetchone()
    conn.close()
    assert count == 40 and total == pytest.approx(24.0)
