"""Two results of one search as ``memory_search`` returns them: an earlier statement on 2 October and
a later one on 20 October, for the tests of the newest-first order's reading of two answers."""

from __future__ import annotations


def two_answers(earlier: str, later: str, scores: tuple[float, float] = (0.6, 0.58)) -> list[dict]:
    return [{"path": "memory/2026-10-02.md", "snippet": f"user: {earlier}", "score": scores[0], "startLine": 9,
             "citation": "memory/2026-10-02.md#L9-L9"},
            {"path": "memory/2026-10-20.md", "snippet": f"user: {later}", "score": scores[1], "startLine": 9,
             "citation": "memory/2026-10-20.md#L9-L9"}]


def assert_earlier_first(out: list[dict]) -> None:
    """The earlier answer of :func:`two_answers` still leads, marked by no update."""
    assert out[0]["path"] == "memory/2026-10-02.md" and "supersededBy" not in out[0], [r["snippet"] for r in out]


def assert_later_first(out: list[dict]) -> None:
    """The later answer of :func:`two_answers` leads, the earlier marked as updated."""
    assert out[0]["path"] == "memory/2026-10-20.md" and out[1]["supersededBy"], [r["snippet"] for r in out]
