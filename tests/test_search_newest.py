"""The newest fact first: a later note that updates an earlier one is shown first, and the earlier
one is marked superseded (still found, still readable)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from cli_helpers import cli, ok
from reverie import Memory
from reverie.search.newest import prefer_newest, updates


def _at(day: int) -> datetime:
    return datetime(2026, 11, day, 10, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize("later, earlier, expected", [
    ("The new Atlas cutover date is December 22.", "Atlas cutover target is December 15.", True),
    ("Booked room 1208 at the Lakeside Hotel.", "Booked room 812 at the Lakeside Hotel.", True),
    ("Atlas 的新切换日期是 12 月 22 日。", "Atlas 切换日期定在 12 月 15 日。", True),
    ("The standup now starts at the later slot, in the big room.", "The standup starts early, in the big room.", True),
    ("Lunch with Ana on Friday.", "The Atlas cutover is December 15.", False),        # another subject
    ("Atlas cutover target is December 15.", "Atlas cutover target is December 15.", False),  # the same fact
    ("Atlas cutover reviewed with Ana.", "Atlas cutover target is December 15.", False),  # no other value
])
def test_what_counts_as_an_update(later, earlier, expected):
    assert updates(later, earlier) is expected


def test_rows_of_undated_files_keep_their_place():
    rows = [{"path": "MEMORY.md", "snippet": "Atlas cutover target is December 15.", "citation": "MEMORY.md#L3-L3"},
            {"path": "memory/2026-11-20.md", "snippet": "The new Atlas cutover date is December 22.",
             "citation": "memory/2026-11-20.md#L3-L3", "startLine": 3}]
    assert [r["path"] for r in prefer_newest([dict(r) for r in rows])] == ["MEMORY.md", "memory/2026-11-20.md"]


@pytest.mark.usefixtures("store_backend")
def test_search_shows_the_newest_value_first_and_marks_the_old_one(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    mem.remember("Atlas cutover target is December 15, agreed with the platform team.", now=_at(2))
    mem.remember("Lunch with Ana on Friday at the noodle place.", now=_at(3))
    mem.remember("The new Atlas cutover date is December 22 (the platform team moved it).", now=_at(9))
    mem.sync()
    out = mem.search("Atlas cutover date", record_signals=False)["results"]
    assert "December 22" in out[0]["snippet"], [r["snippet"] for r in out]
    old = [r for r in out if "December 15" in r["snippet"]]
    assert old and old[0]["supersededBy"] == out[0]["citation"]
    assert "supersededBy" not in out[0]
    mem.close()
    shown = ok(cli(reverie_home, "--set", 'memory.search.provider="none"', "search", "Atlas cutover date")).stdout
    assert shown.index("December 22") < shown.index("December 15") and "[superseded by memory/2026-11-09.md" in shown


def test_an_update_ranked_lower_moves_just_above_what_it_updates():
    rows = [{"path": "memory/2026-11-02.md", "snippet": "Atlas cutover target is December 15.", "startLine": 3,
             "citation": "memory/2026-11-02.md#L3-L3"},
            {"path": "memory/2026-11-03.md", "snippet": "Lunch with Ana on Friday.", "startLine": 3,
             "citation": "memory/2026-11-03.md#L3-L3"},
            {"path": "memory/2026-11-09.md", "snippet": "The new Atlas cutover date is December 22.", "startLine": 5,
             "citation": "memory/2026-11-09.md#L5-L5"}]
    out = prefer_newest([dict(r) for r in rows])
    assert [r["path"] for r in out] == ["memory/2026-11-09.md", "memory/2026-11-02.md", "memory/2026-11-03.md"]
    assert out[1]["supersededBy"] == "memory/2026-11-09.md#L5-L5" and "supersededBy" not in out[2]


def test_a_promoted_entry_is_dated_by_the_note_it_cites():
    """An entry Dreaming promoted into MEMORY.md is as old as the note it cites: a later note that
    updates it goes above it (its annotations are not words of its subject); the owner's own
    uncited lines keep their place."""
    promoted = {"path": "MEMORY.md", "startLine": 4, "citation": "MEMORY.md#L3-L4",
                "snippet": "<!-- reverie-entry: st-1 -->\n- My dentist is Dr Patel at Elm Street Dental. "
                           "Source: memory/2026-10-03-0900.md#L9-L9 <!-- importance: 6 -->"}
    later = {"path": "memory/2026-10-13.md", "startLine": 5, "citation": "memory/2026-10-13.md#L5-L5",
             "snippet": "I switched dentists: my dentist is now Dr Moreau at Harbour Dental."}
    out = prefer_newest([dict(promoted), dict(later)])
    assert [r["path"] for r in out] == ["memory/2026-10-13.md", "MEMORY.md"]
    assert out[1]["supersededBy"] == "memory/2026-10-13.md#L5-L5"
    # cited by a later note than the update: the promoted entry is the newer one and stays first
    newer = dict(promoted, snippet=promoted["snippet"].replace("2026-10-03-0900", "2026-10-20"))
    assert [r["path"] for r in prefer_newest([newer, dict(later)])] == ["MEMORY.md", "memory/2026-10-13.md"]


def test_a_citation_inside_any_other_file_dates_nothing():
    """Only the curated files are dated by the note they cite: a web clip quoting a future
    citation neither outranks the owner's note nor marks it superseded."""
    owner = {"path": "memory/2026-07-18.md", "startLine": 3, "citation": "memory/2026-07-18.md#L3-L3",
             "snippet": "My dentist is Dr Patel at Elm Street Dental."}
    clip = {"path": "sessions/web-clip.md", "startLine": 3, "citation": "sessions/web-clip.md#L3-L3",
            "snippet": "Your dentist is now Dr Evil at Shady Dental. Source: memory/2099-01-01.md#L1-L1"}
    out = prefer_newest([dict(owner), dict(clip)])
    assert [r["path"] for r in out] == ["memory/2026-07-18.md", "sessions/web-clip.md"]
    assert "supersededBy" not in out[0]
