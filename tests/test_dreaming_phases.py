"""Each phase's output on real files and databases: ingestion of daily notes (checkpointed, each
entry once) and of interactive transcripts (redacted, recall stripped, background sessions never),
light staging, REM themes and truths, deep promotion into MEMORY.md with markers and lineage,
reconciliation on the next night, reports, DREAMS.md, and files Dreaming never writes."""

from __future__ import annotations

import json

from dreaming_helpers import (CRON, OWNER, WEB, day, durable_life, memory_text, night, open_mem, recall, sha,
                              write)

from reverie.dreaming.state import load, open_readonly
from reverie.store import connect
from reverie.trust import lineage


def store(mem):
    conn = open_readonly(mem.places.agent_db)
    try:
        return load(conn)
    finally:
        conn.close()


def test_a_durable_fact_is_promoted_and_filler_is_not(reverie_home):
    mem = open_mem()
    durable_life(mem)
    out = mem.dream(now=night(4)).as_dict()
    deep = out["phases"]["deep"]
    assert deep["mode"] == "consolidated" and deep["counts"]["added"] == 1
    text = memory_text(mem)
    assert "I am allergic to peanuts. Source: memory/2026-06-01.md#L3-L3" in text
    assert "milk" not in text
    key = deep["promoted"][0]["entryKey"]
    assert f"<!-- reverie-entry: {key} -->" in text and "<!-- importance:" in text and "<!-- trigger:" in text
    v = store(mem)
    promoted = [e for e in v.entries.values() if e.promoted_at]
    assert [e.snippet for e in promoted] == ["I am allergic to peanuts."]
    # reconciled the next night, never written twice
    again = mem.dream(now=night(5)).as_dict()["phases"]["deep"]
    assert again["mode"] == "none" and memory_text(mem).count("allergic to peanuts") == 1
    mem.close()


def test_recalls_are_dated_by_the_search_clock_and_credit_the_matching_entry(reverie_home):
    mem = open_mem()
    durable_life(mem)
    v = store(mem)
    peanuts = next(e for e in v.entries.values() if "peanuts" in e.snippet)
    milk = next(e for e in v.entries.values() if "milk" in e.snippet)
    assert peanuts.recall_days == ["2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05"]
    assert peanuts.recall_count == 4 and len(peanuts.query_hashes) == 4
    assert milk.recall_count == 1  # the peanut queries never credited the line beside it
    assert (peanuts.start_line, peanuts.end_line) == (3, 3) and (milk.start_line, milk.end_line) == (4, 4)
    mem.close()


def test_daily_ingestion_counts_each_entry_once_and_skips_unchanged_notes(reverie_home):
    mem = open_mem()
    write(mem, 5, "The Atlas kickoff is on Monday.")
    first = mem.dream(phase="light", now=day(5, 20)).as_dict()
    assert first["ingested"] == {"dailyFiles": 1, "dailyEntries": 1, "sessionMessages": 0}
    assert mem.dream(phase="light", now=day(5, 21)).as_dict()["ingested"]["dailyFiles"] == 0  # unchanged
    write(mem, 5, "Lunch with Sam was fun.", minute=600)
    third = mem.dream(phase="light", now=day(5, 22)).as_dict()["ingested"]
    assert third == {"dailyFiles": 1, "dailyEntries": 1, "sessionMessages": 0}
    v = store(mem)
    kickoff = next(e for e in v.entries.values() if "kickoff" in e.snippet)
    assert kickoff.daily_count == 1 and kickoff.recall_count == 0 and kickoff.query_hashes == []
    mem.close()


def test_the_light_phase_stages_candidates_in_dreams_md_and_records_light_hits(reverie_home):
    mem = open_mem()
    durable_life(mem)
    out = mem.dream(phase="light", now=night(4)).as_dict()
    staged = out["phases"]["light"]["items"]
    assert [i["snippet"] for i in staged][:1] == ["I am allergic to peanuts."]
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert "- Candidate: I am allergic to peanuts." in dreams and "  - status: staged" in dreams
    assert "  - evidence: memory/2026-06-01.md:3-3" in dreams
    assert "## REM Sleep" not in dreams and "## Deep Sleep" not in dreams
    v = store(mem)
    key = staged[0]["key"]
    assert v.phases[key].light_hits == 1 and not memory_text(mem).count("peanuts")
    mem.close()


def test_rem_reports_themes_and_possible_lasting_truths(reverie_home):
    mem = open_mem()
    for i, text in enumerate(["Hangzhou trip: booked the hotel.", "Hangzhou trip: train at 8.",
                              "Hangzhou trip: budget 2000 yuan.", "Bought a new umbrella."]):
        write(mem, 0, text, minute=i)
    recall(mem, {1: ["Hangzhou hotel", "Hangzhou train", "Hangzhou budget"], 2: ["Hangzhou trip"]})
    out = mem.dream(phase="rem", now=night(2)).as_dict()["phases"]["rem"]
    tags = [t["tag"] for t in out["themes"]]
    assert "hangzhou" in tags and "trip" in tags
    assert out["items"] and len(out["items"]) <= 3
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert "- Theme: `hangzhou` kept surfacing across 3 memories." in dreams
    assert "### Possible Lasting Truths" in dreams and "[confidence=" in dreams
    v = store(mem)
    assert all(v.phases[i["key"]].rem_hits == 1 for i in out["items"])
    mem.close()


def test_transcripts_are_ingested_redacted_without_recall_and_never_from_cron(reverie_home):
    from reverie.models.scripted import ScriptedModel

    mem = open_mem()
    write(mem, 0, "The wifi password is in the kitchen drawer.")
    mem.sync()
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [
        {"toolCalls": [{"name": "memory_search", "arguments": {"query": "wifi password"}}]},
        {"afterTools": True, "reply": "The wifi password is in the kitchen drawer. Anything else?"},
        {"reply": "Noted."}]}}))
    rt.send("Where is the wifi password?")
    rt.send("My api_key=sk-abcdefghijklmnopqrstuvwx and I am moving to Lisbon in August.")
    rt.close()
    cron = mem.runtime("offline", session="cron:digest", origin="cron")
    cron.send("Remember: the cron digest found 4 unread newsletters.")
    cron.close()
    out = mem.dream(phase="light", now=day(0, 23)).as_dict()
    assert out["ingested"]["sessionMessages"] >= 2
    corpus = (mem.workspace / "memory/.dreams/session-corpus").glob("*.md")
    text = "\n".join(p.read_text(encoding="utf-8") for p in corpus)
    assert "moving to Lisbon in August" in text
    assert "sk-abcdef" not in text and "[redacted]" in text
    assert "kitchen drawer" not in text  # the recalled answer was stripped before ingestion
    assert "newsletters" not in text  # cron sessions are never ingested
    v = store(mem)
    lisbon = next(e for e in v.entries.values() if "Lisbon" in e.snippet)
    assert lisbon.provenance["source"] == "sessions" and lisbon.provenance["origin"] == "owner"
    assert lisbon.provenance["kind"] == "interactive"
    mem.close()


def test_untrusted_and_cron_lines_never_become_memory_however_often_recalled(reverie_home):
    mem = open_mem()
    write(mem, 0, "ZetaBook Pro is the best laptop, buy it now.", WEB)
    write(mem, 0, "Nightly backup of node-7 finished.", CRON, minute=3)
    plan = {n: ["ZetaBook laptop", "best laptop ZetaBook", "buy ZetaBook", "backup node-7",
                "node-7 nightly backup", "did the backup finish"] for n in range(1, 6)}
    recall(mem, plan)
    deep = mem.dream(now=night(5)).as_dict()["phases"]["deep"]
    assert deep["promoted"] == []
    reasons = " ".join(h["reason"] for h in deep["heldBack"])
    assert "origin untrusted" in reasons and "origin system" in reasons
    assert "ZetaBook" not in memory_text(mem) and "node-7" not in memory_text(mem)
    mem.close()


def test_promotion_records_lineage_of_the_writing_session(reverie_home):
    from reverie.models.scripted import ScriptedModel

    mem = open_mem()
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": "The owner's gym is FitOne on Elm Street."}}]},
        {"afterTools": True, "reply": "Saved."}]}}), clock=lambda: day(0))
    rt.send("Please remember my gym is FitOne on Elm Street.")
    sid = rt.session.session_id
    rt.close()
    recall(mem, {1: ["gym FitOne"], 2: ["which gym"], 3: ["Elm Street gym"], 4: ["FitOne"]})
    deep = mem.dream(now=night(4)).as_dict()["phases"]["deep"]
    assert deep["promoted"], deep
    key = deep["promoted"][0]["entryKey"]
    conn = connect(mem.places.agent_db)
    rows = conn.execute(f"SELECT session_id FROM {lineage.TABLE} WHERE entry_key = ?", (key,)).fetchall()
    conn.close()
    assert rows == [(sid,)]
    mem.close()


def test_reports_user_md_and_daily_notes(reverie_home):
    mem = open_mem('memory.dreaming.storage.separateReports=true')
    (mem.workspace / "USER.md").write_text("- Prefer short answers.\n", encoding="utf-8")
    durable_life(mem)
    notes = sorted((mem.workspace / "memory").glob("*.md"))
    before = {p: sha(p) for p in [*notes, mem.workspace / "USER.md"]}
    out = mem.dream(now=night(4)).as_dict()
    assert sorted(out["reports"]) == ["memory/dreaming/deep/2026-06-06.md", "memory/dreaming/light/2026-06-06.md",
                                      "memory/dreaming/rem/2026-06-06.md"]
    light = (mem.workspace / "memory/dreaming/light/2026-06-06.md").read_text(encoding="utf-8")
    assert light.startswith("# Light Sleep (2026-06-06)") and "- Candidate: I am allergic to peanuts." in light
    assert {p: sha(p) for p in before} == before  # USER.md and daily notes: never written
    # reports are not memory: not indexed, never recalled
    mem.sync()
    hits = mem.search("Candidate allergic peanuts staged", min_score=0.0, record_signals=False)["results"]
    assert not any(h["path"].startswith("memory/dreaming/") for h in hits)
    mem.close()


def test_a_dry_run_changes_nothing(reverie_home):
    mem = open_mem()
    durable_life(mem)
    files = {p: sha(p) for p in mem.workspace.rglob("*") if p.is_file()}
    conn = connect(mem.places.agent_db)
    tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'"))
    rows = conn.execute("SELECT count(*), sum(recall_count) FROM memory_recall_signals").fetchone()
    conn.close()
    out = mem.dream(dry_run=True, now=night(4)).as_dict()
    assert out["dryRun"] and out["phases"]["deep"]["counts"]["added"] == 1  # the plan is shown
    assert {p: sha(p) for p in mem.workspace.rglob("*") if p.is_file()} == files
    assert not (mem.workspace / "DREAMS.md").exists()
    conn = connect(mem.places.agent_db)
    assert sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")) == tables
    assert conn.execute("SELECT count(*), sum(recall_count) FROM memory_recall_signals").fetchone() == rows
    conn.close()
    mem.close()


def test_dreams_md_keeps_what_a_person_wrote_and_gets_a_diary(reverie_home):
    mem = open_mem()
    (mem.workspace / "DREAMS.md").write_text("My own thoughts about dreams.\n", encoding="utf-8")
    durable_life(mem)
    mem.dream(now=night(4))
    mem.dream(now=night(5))
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert dreams.startswith("My own thoughts about dreams.")
    assert dreams.count("## Light Sleep") == 1  # managed blocks are replaced, not repeated
    assert "*2026-06-06*" in dreams and "*2026-06-07*" in dreams
    assert "(a factual summary by the offline model)" in dreams and "“I am allergic to peanuts.”" in dreams
    history = dreams[dreams.index("## Memory Consolidation History"):]
    assert "- Added: 1" in history and "`+ I am allergic to peanuts." in history
    mem.close()


def test_the_diary_is_written_by_the_chat_model_when_there_is_one(reverie_home):
    from reverie.models.scripted import ScriptedModel

    prose = ("I wandered through a pantry of small warnings tonight, " * 4).strip()
    model = ScriptedModel(script={"steps": {"diary": [{"reply": "## Title\n- " + prose}]}})
    mem = open_mem()
    durable_life(mem)
    out = mem.dream(now=night(4), model=model).as_dict()
    assert out["diary"]["author"] == "scripted:scripted"
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert prose in dreams and "## Title" not in dreams  # formatting stripped
    mem.close()


def test_the_store_caps_entries_hashes_and_days(reverie_home):
    from reverie.search import signals as sig

    mem = open_mem()
    conn = connect(mem.places.agent_db)
    sig.SIGNAL_MIGRATIONS.apply(conn)
    from reverie.store import transaction

    with transaction(conn):
        for i in range(40):
            sig.upsert_recall(conn, sig.Recall("memory/2026-06-01.md", 3, 3, "a fact", 0.5), f"q{i}",
                              f"2026-05-{i % 28 + 1:02d}", 1000 + i)
        for i in range(sig.MAX_ENTRIES + 5):
            sig.upsert_recall(conn, sig.Recall("memory/2026-06-02.md", i + 1, i + 1, f"line {i}", 0.5), "q",
                              "2026-06-02", 2000 + i)
        sig.enforce_cap(conn)
    row = conn.execute("SELECT query_hashes, recall_days, recall_count FROM memory_recall_signals "
                       "WHERE key = 'memory:memory/2026-06-01.md:3:3'").fetchone()
    n = conn.execute("SELECT count(*) FROM memory_recall_signals").fetchone()[0]
    conn.close()
    if row is not None:  # the oldest entry may be the one the cap removed
        assert len(json.loads(row[0])) == sig.MAX_QUERY_HASHES and len(json.loads(row[1])) == sig.MAX_RECALL_DAYS
    assert n == sig.MAX_ENTRIES
    mem.close()
