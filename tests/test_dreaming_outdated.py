"""Facts that change, kept current by Dreaming (dreaming/outdated.py): when a promoted fact updates an
entry Dreaming promoted before, the earlier entry is marked ``status: superseded`` in place (the seeds'
observed/status contract), judged by reverie's code — never removed, never a person's line, never
another person's fact, and the older of the two whichever was promoted first. A marked entry no
longer fires its trigger and search ranks the newer fact above it."""

from __future__ import annotations

from datetime import datetime, timezone

from reverie.dreaming.consolidate import Group, consolidate
from reverie.dreaming.memoryfile import consolidated_entry
from reverie.dreaming.validate import ConsolidationCandidate
from reverie.models.offline import OfflineModel
from reverie.recall.projects import ProjectScope
from reverie.recall.trigger import match

from workspace_helpers import write

OLD_PHONE = consolidated_entry("My phone number is 0176 5550 1234.", "memory/2026-10-10.md", 3, 3,
                               ["phone number"], 0.8, None)
SON = consolidated_entry("My son's piano lesson is on Tuesday at 5.", "memory/2026-10-11.md", 3, 3,
                         ["piano lesson"], 0.8, None)
MINE = "- My yoga class is at the Riverside studio."  # a line the owner wrote
SUPERSEDED = "status: superseded -->"


def current(*blocks: tuple[str, str]) -> str:
    lines = ["# Long-Term Memory", "", MINE, "", "## Consolidated Memory (2026-10-12)"]
    for key, entry in blocks:
        lines += [f"<!-- reverie-entry: {key} -->", entry]
    return "\n".join(lines) + "\n"


def cand(alias: str, text: str, day: str) -> ConsolidationCandidate:
    path = f"memory/{day}.md"
    entry = consolidated_entry(text, path, 4, 4, ["x"], 0.8, None)
    return ConsolidationCandidate(alias, f"memory:{path}:4:4", f"st-{alias}", text, entry, f"{path}#L4-L4",
                                  "owner", None, None)


def plan_for(text: str, *cands: ConsolidationCandidate):
    return consolidate(OfflineModel(), text, [Group(None, list(cands))], day="2026-10-23", timeout=5,
                       max_loss=0.25, budget=20_000)


def marked(text: str, entry: str) -> bool:
    lines = text.split("\n")
    i = lines.index(entry)
    j = i - 1
    while j >= 0 and lines[j].startswith("<!--"):
        if SUPERSEDED in lines[j]:
            return True
        j -= 1
    return False


def test_a_new_value_marks_the_old_entry_superseded_in_place():
    new = cand("c1", "I got a new phone number: 0151 5550 9876.", "2026-10-22")
    plan = plan_for(current(("st-old", OLD_PHONE)), new)
    assert plan.counts()["outdated"] == 1 and plan.outdated == [(OLD_PHONE, "memory/2026-10-22.md#L4")]
    assert OLD_PHONE in plan.text and new.result_entry in plan.text  # nothing removed: the history stays
    assert marked(plan.text, OLD_PHONE) and not marked(plan.text, new.result_entry)
    assert "<!-- observed: 2026-10-10 | status: superseded -->" in plan.text  # the old fact's own date
    again = plan_for(plan.text, cand("c2", "I got a new phone number: 0151 5550 9876, said twice.", "2026-10-24"))
    assert again.text.count(SUPERSEDED) == 1  # an entry is marked once


def test_an_older_fact_promoted_late_is_the_one_marked():
    """Recalls can promote the old value after the new one: the dates decide, not the order."""
    newer = consolidated_entry("I got a new phone number: 0151 5550 9876.", "memory/2026-10-22.md", 3, 3,
                               ["new phone"], 0.8, None)
    late = cand("c1", "My phone number is 0176 5550 1234.", "2026-10-10")
    plan = plan_for(current(("st-new", newer)), late)
    assert marked(plan.text, late.result_entry) and not marked(plan.text, newer)


def test_what_is_not_an_update_is_left_alone():
    plan = plan_for(current(("st-old", OLD_PHONE), ("st-son", SON)),
                    cand("c1", "I bought a new phone case, a blue one.", "2026-10-20"),  # one shared word
                    cand("c2", "My daughter's piano lesson is on Saturday at 10.", "2026-10-21"),  # another person
                    cand("c3", "Yoga moved to the Hilltop studio from next week.", "2026-10-22"))  # the owner's line
    assert SUPERSEDED not in plan.text and plan.counts()["outdated"] == 0
    assert MINE in plan.text


def test_a_marked_entry_no_longer_fires_and_ranks_below_the_new_fact(fake_memory):
    mem = fake_memory
    new = cand("c1", "I got a new phone number: 0151 5550 9876.", "2026-10-22")
    text = plan_for(current(("st-old", OLD_PHONE)), new).text
    write(mem, "MEMORY.md", text)
    mem.sync()
    conn, generation = mem.index.snapshot()
    fired = match(conn, generation, "what's my phone number again?", ProjectScope([]), threshold=0.65, limit=3)
    assert [m.entry.text for m in fired.matches if "0176" in m.entry.text] == []
    out = mem.search("my phone number", 5, 0.0, now=datetime(2026, 10, 25, tzinfo=timezone.utc),
                     record_signals=False)
    snippets = [r["snippet"] for r in out["results"]]
    first_new = next(i for i, s in enumerate(snippets) if "9876" in s)
    first_old = next(i for i, s in enumerate(snippets) if "1234" in s)
    assert first_new < first_old
    assert any(r.get("status") == "superseded" for r in out["results"] if "1234" in r["snippet"])
