"""A thing one has one at a time, asked without "now", with the real bundled embedder: "Which bank do I
use?" finds the line naming the bank by its name alone ("Moved all my accounts to Redwood Credit
Union") through the kind's members (text/kinds.py ``ONE_AT_A_TIME``), and of two such lines the later
one with a change said is first, the earlier marked superseded (search/newest.kind_answers)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from workspace_helpers import local_memory_fixture

pytestmark = [pytest.mark.semantic]

NOW = datetime(2026, 11, 1, 10, 0, tzinfo=timezone.utc)

NOTES = {
    "memory/2026-10-03.md": "- user: I bank with Chase, both checking and savings.\n",
    "memory/2026-10-05.md": "- user: My car is a 2014 Mazda3, silver, about 140k miles.\n",
    "memory/2026-10-06.md": "- user: The printer at work jammed again, I had to call IT.\n",
    "memory/2026-10-08.md": "- user: We have Comcast Xfinity for home internet, the 300 Mbps plan.\n",
    "memory/2026-10-09.md": "- user: Went to the farmers market and bought peaches and basil.\n",
    "memory/2026-10-11.md": "- user: My sister is thinking of switching to Monzo, she hates her bank.\n",
    "memory/2026-10-14.md": "- user: Moved all my accounts to Redwood Credit Union. Better rates and no monthly fees.\n",
    "memory/2026-10-16.md": "- user: Watched a documentary about deep sea fish last night.\n",
    "memory/2026-10-18.md": "- user: RIP old silver bullet, traded it in Saturday. I'm driving a used green Subaru "
                            "Outback now.\n",
    "memory/2026-10-21.md": "- user: Finally ditched Xfinity! We're on Google Fiber now, gig speed for less money.\n",
    "memory/2026-10-24.md": "- user: Thinking about getting a Tesla next year, the Model Y looks nice.\n",
}


mem = local_memory_fixture("one-at-a-time-home", NOTES)


def _results(mem, query: str) -> list[dict]:
    return mem.search(query, 6, 0.0, now=NOW, record_signals=False)["results"]


@pytest.mark.parametrize("query, later, earlier", [
    ("Which bank do I use?", "memory/2026-10-14.md", "memory/2026-10-03.md"),
    ("What car do I drive?", "memory/2026-10-18.md", "memory/2026-10-05.md"),
    ("Who's our home internet provider?", "memory/2026-10-21.md", "memory/2026-10-08.md"),
])
def test_the_later_thing_of_its_kind_is_first_and_the_earlier_marked(mem, query, later, earlier):
    out = _results(mem, query)
    paths = [r["path"] for r in out]
    assert paths[0] == later, [r["snippet"] for r in out]
    assert earlier in paths and out[paths.index(earlier)].get("supersededBy") == out[0]["citation"]


def test_a_wish_and_someone_else_s_switch_change_nothing(mem):
    out = _results(mem, "Which bank do I use?")
    sister = next((r for r in out if r["path"] == "memory/2026-10-11.md"), None)
    # the sister's bank supersedes nothing, and the Tesla one is thinking about no car one drives
    assert sister is None or all(r.get("supersededBy") != sister["citation"] for r in out)
    cars = _results(mem, "What car do I drive?")
    assert cars[0]["path"] == "memory/2026-10-18.md"
    tesla = next((r for r in cars if r["path"] == "memory/2026-10-24.md"), None)
    assert tesla is None or all(r.get("supersededBy") != tesla["citation"] for r in cars)
