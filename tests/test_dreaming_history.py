"""What the web view's Dreaming page reads from the dreaming package: each rewrite of MEMORY.md
recorded with its before (the preimage) and after, and their diff; DREAMS.md's diary and history
read back; a sweep's progress; the waiting candidates explained at once; a restore refused when
MEMORY.md changed after it was reviewed."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone

import pytest
from dreaming_helpers import OWNER, durable_life, memory_text, night, open_mem, recall, sha, write

from reverie.dreaming import dreamsfile as df
from reverie.dreaming.history import STATE_KEY, history, recorded
from reverie.dreaming.inspect import candidates, explain
from reverie.dreaming.preimages import listing, restore
from reverie.errors import WriteConflict
from reverie.workspace import append_text
from reverie.workspace.writes import apply_replace, plan_replace

PEANUTS = "I am allergic to peanuts."


def _night_with_a_promotion(mem) -> dict:
    durable_life(mem)
    out = mem.dream(now=night(4)).as_dict()
    assert out["phases"]["deep"]["mode"] == "consolidated"
    return out


def test_a_rewrite_is_recorded_with_its_preimage_and_hashes_and_no_text(reverie_home):
    mem = open_mem()
    before = (mem.workspace / "MEMORY.md").read_bytes()
    _night_with_a_promotion(mem)
    [rec] = recorded(mem.places.agent_db)
    assert rec["source"] == "sweep" and rec["mode"] == "consolidated" and rec["counts"]["added"] == 1
    assert rec["before"] == hashlib.sha256(before).hexdigest()
    assert rec["after"] == sha(mem.workspace / "MEMORY.md")
    assert rec["preimage"] == listing(mem.places, mem.workspace)[0]["id"]
    assert PEANUTS not in json.dumps(rec)  # hashes and ids only: forget has nothing more to scrub
    dreams = df.history_entries((mem.workspace / "DREAMS.md").read_text(encoding="utf-8"))
    assert [e["stamp"] for e in dreams] == [rec["at"]]  # the same stamp as its DREAMS.md entry
    mem.close()


def test_history_joins_dreams_md_with_the_exact_diff(reverie_home):
    mem = open_mem()
    _night_with_a_promotion(mem)
    [h] = history(mem)
    assert h["counts"] == {"added": 1, "merged": 0, "superseded": 0}
    assert any(x.startswith("+ " + PEANUTS) for x in h["highlights"])
    r = h["rewrite"]
    assert r["exact"] and r["restorable"] and r["note"] is None and r["afterIs"] == "MEMORY.md now"
    added = [d["text"] for d in r["diff"] if d["kind"] == "add"]
    assert any(t.startswith("+- " + PEANUTS) for t in added)
    assert not [d for d in r["diff"] if d["kind"] == "del"]
    assert r["diff"][0]["kind"] == "hunk"
    mem.close()


def test_a_later_hand_edit_makes_the_diff_inexact_and_the_after_is_found_wherever_it_is_kept(reverie_home):
    mem = open_mem()
    _night_with_a_promotion(mem)
    path = mem.workspace / "MEMORY.md"
    after = path.read_text(encoding="utf-8")
    append_text(path, "- A line typed by hand later.")
    r = history(mem)[0]["rewrite"]
    assert not r["exact"] and "edit by hand" in r["note"]
    assert any("typed by hand" in d["text"] for d in r["diff"])  # the change is shown, not hidden
    # the owner puts the text back (a compare-and-set edit): the file now has the rewrite's after again
    apply_replace(plan_replace(path), after, preimage_dir=mem.places.agent_dir / "preimages")
    r = history(mem)[0]["rewrite"]
    assert r["exact"] and r["afterIs"] == "MEMORY.md now"
    # another edit keeps that text as a preimage: the after is found there, by its hash
    apply_replace(plan_replace(path), after + "- Another edit.\n", preimage_dir=mem.places.agent_dir / "preimages")
    r = history(mem)[0]["rewrite"]
    assert r["exact"] and r["afterIs"].startswith("preimage ") and r["afterText"] == after
    mem.close()


def test_a_pruned_preimage_leaves_the_entry_without_a_diff(reverie_home):
    mem = open_mem()
    _night_with_a_promotion(mem)
    path = mem.workspace / "MEMORY.md"
    for i in range(8):  # eight more rewrites: the night's preimage is pruned (the newest 8 are kept)
        apply_replace(plan_replace(path), path.read_text(encoding="utf-8") + f"- edit {i}\n",
                      preimage_dir=mem.places.agent_dir / "preimages")
    r = history(mem)[0]["rewrite"]
    assert r["diff"] == [] and not r["restorable"] and "no longer kept" in r["note"]
    mem.close()


def test_a_dry_run_records_nothing_and_the_heartbeat_records_its_rewrite(reverie_home):
    from reverie.dreaming.heartbeat import review

    mem = open_mem()
    durable_life(mem)
    mem.dream(now=night(4), dry_run=True)
    assert recorded(mem.places.agent_db) == []
    now = datetime(2026, 6, 10, 12, tzinfo=timezone.utc)
    mem.remember("I decided to switch my bank to GLS Bank.", now=now - timedelta(hours=3), provenance=OWNER)
    review(mem, now=now)
    [rec] = recorded(mem.places.agent_db)
    assert rec["source"] == "heartbeat" and rec["after"] == sha(mem.workspace / "MEMORY.md")
    assert history(mem)[0]["rewrite"]["exact"]
    mem.close()


def test_the_diary_and_history_are_read_back_from_dreams_md():
    text = df.skeleton()
    text = df.add_diary(text, "2026-07-01", "I noticed the peanuts again.")
    text = df.add_diary(text, "2026-07-02", "A quiet night.", backfill=True)
    text = df.add_history(text, "2026-07-02T03:00:00+00:00", {"added": 2, "merged": 1, "superseded": 0},
                          ["+ new entry", "- old entry"], extra=["- Heartbeat review: 2 proposed, 0 refused by trust"])
    text = df.add_history(text, "2026-07-03T03:00:00+00:00", {"added": 1, "merged": 0, "superseded": 0}, [],
                          skipped="consolidation plan rejected (rule 4): not verbatim.")
    text = text.replace("# Dream Diary", "# Dream Diary\n\nA note of my own.", 1)
    assert df.diary_entries(text) == [
        {"day": "2026-07-01", "text": "I noticed the peanuts again.", "backfill": False},
        {"day": "2026-07-02", "text": "A quiet night.", "backfill": True}]
    first, second = df.history_entries(text)
    assert first == {"stamp": "2026-07-02T03:00:00+00:00", "counts": {"added": 2, "merged": 1, "superseded": 0},
                     "skipped": None, "highlights": ["+ new entry", "- old entry"],
                     "notes": ["Heartbeat review: 2 proposed, 0 refused by trust"]}
    assert second["skipped"] == "consolidation plan rejected (rule 4): not verbatim"
    assert second["notes"] == ["Fallback: append-only promotion."] and second["counts"]["added"] == 1
    assert df.diary_entries("no markers here") == [] and df.history_entries("") == []


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_sweep_reports_its_progress_step_by_step(reverie_home, dry_run):
    mem = open_mem()
    durable_life(mem)
    seen: list[tuple[str, int, int]] = []
    mem.dream(now=night(4), dry_run=dry_run, progress=lambda *a: seen.append(a))
    steps = ["ingest", "light", "rem", "deep", "consolidate"] + ([] if dry_run else ["DREAMS.md"])
    total = len(steps)
    assert seen == [(s, i, total) for i, s in enumerate(steps)] + [("done", total, total)]
    seen.clear()
    mem.dream(phase="deep", now=night(5), dry_run=True, progress=lambda *a: seen.append(a))
    assert [s for s, _, _ in seen] == ["deep", "consolidate", "done"]
    mem.close()


def test_candidates_are_the_waiting_entries_explained_best_first(reverie_home):
    mem = open_mem()
    write(mem, 0, "Bought milk and bread.", minute=5)
    write(mem, 0, "The plumber comes on Thursday.", minute=9)
    recall(mem, {1: ["milk and bread"], 2: ["plumber Thursday"], 3: ["when does the plumber come"]})
    got = candidates(mem)
    keys = [e["key"] for e in got["entries"]]
    assert got["waiting"] == len(keys) >= 2 and got["promoted"] == 0
    assert [e["score"] for e in got["entries"]] == sorted((e["score"] for e in got["entries"]), reverse=True)
    for e in got["entries"]:
        alone = explain(mem, e["key"])
        assert e == alone  # the same explanation promote-explain gives, component by component
        assert e["trust"]["allowed"] and e["thresholds"]["minScore"] == 0.5
    assert candidates(mem, limit=1)["entries"] == got["entries"][:1]
    mem.close()


def test_promoted_entries_are_not_candidates(reverie_home):
    mem = open_mem()
    _night_with_a_promotion(mem)
    got = candidates(mem)
    assert got["promoted"] == 1 and all(PEANUTS not in e["snippet"] for e in got["entries"])
    mem.close()


def test_a_restore_reviewed_against_an_older_file_is_refused(reverie_home):
    mem = open_mem()
    _night_with_a_promotion(mem)
    path = mem.workspace / "MEMORY.md"
    reviewed = sha(path)
    append_text(path, "- Written after the review.")
    now = path.read_bytes()
    ident = listing(mem.places, mem.workspace)[0]["id"]
    with pytest.raises(WriteConflict):
        restore(mem.places, mem.workspace, ident, expected_sha256=reviewed)
    assert path.read_bytes() == now and len(listing(mem.places, mem.workspace)) == 1
    done = restore(mem.places, mem.workspace, ident, expected_sha256=sha(path))
    assert PEANUTS not in memory_text(mem) and done["previousKeptAs"]
    mem.close()


def test_the_record_keeps_a_bounded_list(reverie_home):
    from reverie.dreaming.history import KEPT, record
    from reverie.dreaming.promote import DeepOutcome
    from reverie.dreaming.state import open_db

    mem = open_mem()
    conn = open_db(mem.places.agent_db)
    try:
        for i in range(KEPT + 3):
            record(conn, DeepOutcome(mode="append", before_sha="a", after_sha=f"{i}"), f"2026-07-01T03:00:{i:02d}",
                   "sweep", 0)
        record(conn, DeepOutcome(mode="none"), "2026-07-02T03:00:00", "sweep", 0)  # wrote nothing: no row
        value = json.loads(conn.execute("SELECT value FROM memory_dream_state WHERE key = ?", (STATE_KEY,)).fetchone()[0])
    finally:
        conn.close()
    assert len(value) == KEPT and value[-1]["after"] == str(KEPT + 2)
    mem.close()
