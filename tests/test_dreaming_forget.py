"""`reverie forget` reaches everything Dreaming produced (reference §17): the promoted entry (by
lineage) and its lineage marker, the Dream Diary's quotes, the consolidation history's highlights,
phase reports, the session corpus, the short-term store, phase signals and ingestion state."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dreaming_helpers import FAKE, LOW_BAR, day, night, open_mem, recall

from reverie.models.scripted import ScriptedModel
from reverie.store import connect

from engines import engine_env, grep_home, rows_holding

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

SECRET = "locker number 7781-ZEBRA"  # (a fact to forget, not a secret: a code would never be promoted)


def test_forget_removes_a_promoted_entry_its_diary_quotes_and_every_dreaming_trace(reverie_home):
    mem = open_mem("memory.dreaming.storage.separateReports=true")
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": f"The owner's {SECRET} for the gym."}}]},
        {"afterTools": True, "reply": "Saved."}]}}), clock=lambda: day(0))
    rt.send(f"Please remember my {SECRET} for the gym.")
    sid = rt.session.session_id
    rt.close()
    mem.remember("I water the plants on Sundays.", now=day(0, 1))
    recall(mem, {1: ["locker number gym", "water plants Sundays"], 2: ["gym locker", "plants Sunday"],
                 3: ["7781-ZEBRA locker", "watering the plants"], 4: ["what is my locker number", "plants"]})
    mem.dream(phase="light", now=day(0, 20))  # ingests the session into the corpus
    out = mem.dream(now=night(4)).as_dict()
    promoted = [p["snippet"] for p in out["phases"]["deep"]["promoted"]]
    assert any(SECRET in p for p in promoted) and any("plants" in p for p in promoted)
    dreams = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8")
    assert SECRET in dreams[:dreams.index("## Memory Consolidation History")]  # the diary quotes it
    assert SECRET in dreams[dreams.index("## Memory Consolidation History"):]  # and the history
    assert any(SECRET in p.read_text(encoding="utf-8") for p in (mem.workspace / "memory/dreaming").rglob("*.md"))
    assert any(SECRET in p.read_text(encoding="utf-8")
               for p in (mem.workspace / "memory/.dreams/session-corpus").glob("*.md"))
    mem.close()

    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": "", **engine_env()}
    res = subprocess.run([sys.executable, "-m", "reverie.cli.main", "--set", FAKE, "--set", LOW_BAR, "forget",
                          "--session", sid, "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["artifacts"]["memoryEntries"] == 1 and report["artifacts"]["seenHashScopes"] == 1
    assert report["artifacts"]["sessionCorpusLines"] >= 1 and report["artifacts"]["shortTermEntries"] >= 1
    for needle in ("7781-ZEBRA", "7781"):
        assert grep_home(reverie_home, needle) + rows_holding(mem.agent_store, needle) == [], needle
    ws = reverie_home / "workspace"
    memory = (ws / "MEMORY.md").read_text(encoding="utf-8")
    assert "I water the plants on Sundays." in memory  # the other promotion stays
    dreams = (ws / "DREAMS.md").read_text(encoding="utf-8")
    assert "plants" in dreams and "<!-- reverie:dreaming:diary:start -->" in dreams
    conn = connect(mem.agent_store)
    keys = [r[0] for r in conn.execute("SELECT key FROM memory_recall_signals")]
    phases = [r[0] for r in conn.execute("SELECT key FROM memory_phase_signals")]
    scopes = [r[0] for r in conn.execute("SELECT scope FROM memory_dream_ingestion")]
    conn.close()
    assert set(phases) <= set(keys) and f"session:{sid}" not in scopes, (phases, keys)
    # the next night brings nothing back
    mem = open_mem()
    mem.dream(now=night(5))
    mem.close()
    assert grep_home(reverie_home, "7781-ZEBRA") + rows_holding(mem.agent_store, "7781-ZEBRA") == []
