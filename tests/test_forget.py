"""Lineage forget (reference §17; issue 13 point 5): `reverie forget --session` as a dry run (which
changes nothing: files, tables, revision), for real (every file, index row, vector, cached
embedding, recall signal, transcript and preimage loses the session's facts, down to the bytes on
disk), and again (same sessions, all counts 0); a re-index and a re-import bring nothing back;
`forget --text` removes one fact everywhere; selectors, conflicts and bad input."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reverie import Memory
from reverie.forget import Selectors, forget
from reverie.forget.apply import rewrite_files
from reverie.forget.plan import Planner
from reverie.models.scripted import ScriptedModel
from reverie.sessions import TranscriptStore, export_lines, import_jsonl
from reverie.store import connect
from reverie.trust import lineage
from reverie.errors import WriteConflict

from engines import engine_env, grep_home, rows_holding

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

SECRET = "locker code 7781-ZEBRA"
SECRET2 = "the spare key hides under the blue flowerpot"
KEEP = "bike lock combination is 5512"


@pytest.fixture
def mem(fake_memory):
    return fake_memory


def today() -> str:
    return f"memory/{datetime.now(timezone.utc).date().isoformat()}.md"


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC", "PATH": "", **engine_env()}
    return subprocess.run([sys.executable, "-m", "reverie.cli.main", "--set", 'memory.search.provider="fake"', *args],
                          capture_output=True, text=True, env=env, timeout=120)


def snapshot(mem) -> dict:
    files = {str(p.relative_to(mem.places.home)): hashlib.sha256(p.read_bytes()).hexdigest()
             for p in mem.workspace.rglob("*") if p.is_file()}
    conn = connect(mem.agent_store)
    # the tables SQLite has made so far (PostgreSQL's schema holds every table from the start)
    tables = sorted(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")) \
        if mem.agent_store.engine == "sqlite" else []
    events = conn.execute("SELECT count(*) FROM transcript_events").fetchone()[0]
    # SQLite makes the tombstone table on first use; PostgreSQL's schema always has it
    tombstones = (conn.execute("SELECT count(*) FROM memory_forget_tombstones").fetchone()[0]
                  if "memory_forget_tombstones" in tables or mem.agent_store.engine != "sqlite" else 0)
    conn.close()
    return {"files": files, "tables": tables, "events": events, "tombstones": tombstones,
            "revision": mem.index.revision()}


def forgettable_session(mem) -> tuple[str, str]:
    """Session A says the secret (memory_append, flush, session note); session B survives."""
    script = {"steps": {
        "turn": [{"toolCalls": [{"name": "memory_append", "arguments": {"text": f"The owner's {SECRET}."}}]},
                 {"afterTools": True, "reply": "Noted."}, {"reply": "Sure."}],
        "flush": [{"toolCalls": [{"name": "memory_append", "arguments": {"text": f"Remember: {SECRET2}."}}]},
                  {"afterTools": True, "reply": "NO_REPLY"}]}}
    rt = mem.runtime(ScriptedModel(script=script))
    rt.send(f"Please remember my {SECRET}.")
    rt.send(f"Also, {SECRET2}.")
    rt.flush("manual")
    a = rt.session.session_id
    rt.send("/new")
    assert rt.wait_for_hooks(10)
    script_b = {"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": f"My {KEEP}."}}]},
        {"afterTools": True, "reply": "Noted."}]}}
    rt.close()
    rt = mem.runtime(ScriptedModel(script=script_b), session="errands")
    rt.send(f"Remember my {KEEP}.")
    b = rt.session.session_id
    rt.close()
    return a, b


def add_promotions(mem, a: str, b: str) -> None:
    """What Dreaming will write: marked entries in MEMORY.md with their lineage."""
    body = ("# Long-Term Memory\n\n"
            f"{lineage.entry_marker('e-a')}\n- The owner's {SECRET}.\n"
            f"{lineage.entry_marker('e-b')}\n- The owner's {KEEP}.\n"
            f"{lineage.entry_marker('e-mixed')}\n- Keys: {SECRET2}, and more.\n  (from two talks)\n"
            f"{lineage.entry_marker('e-orphan')}\n- Prefers green tea.\n")
    (mem.workspace / "MEMORY.md").write_text(body, encoding="utf-8")
    conn = connect(mem.agent_store)
    lineage.record_origins(conn, "e-a", [a])
    lineage.record_origins(conn, "e-b", [b])
    lineage.record_origins(conn, "e-mixed", [a, b])
    conn.close()
    pre = mem.places.agent_dir / "preimages"
    pre.mkdir(parents=True, exist_ok=True)
    (pre / "MEMORY.md.20260101T000000000000").write_text(f"# old\n- The owner's {SECRET}.\n- tea\n", encoding="utf-8")


def test_forget_session_dry_run_then_for_real_then_again(mem, reverie_home):
    a, b = forgettable_session(mem)
    add_promotions(mem, a, b)
    store = TranscriptStore(mem.agent_store)
    exported = list(export_lines(store, store.session(a)))
    store.close()
    mem.sync()
    assert mem.search("locker code 7781", record_signals=True)["results"]
    mem.close()  # flush the recall signals
    assert grep_home(reverie_home, "7781-ZEBRA") and grep_home(reverie_home, "7781")  # it is everywhere before
    if mem.agent_store.engine == "postgres":
        assert rows_holding(mem.agent_store, "7781-ZEBRA")

    before = snapshot(mem)
    dry = cli(reverie_home, "forget", "--session", a, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    plan = json.loads(dry.stdout)
    assert snapshot(mem) == before  # files, tables, transcript, revision: unchanged
    assert snapshot(mem)["tombstones"] == 0
    if mem.agent_store.engine == "sqlite":
        assert "memory_forget_tombstones" not in snapshot(mem)["tables"]
    assert plan["dryRun"] and plan["sessionIds"] == [a] and plan["sessionResolutions"][0]["source"] == "live"
    art = plan["artifacts"]
    assert art["memoryLines"] >= 2 and art["sessionCorpusFiles"] == 1 and art["memoryEntries"] == 2
    assert art["indexChunks"] > 0 and art["vectorRows"] > 0 and art["embeddingCacheRows"] > 0
    assert art["shortTermEntries"] >= 1 and art["backups"] == 1 and art["originRows"] == 2
    assert art["transcriptEvents"] > 0
    assert plan["entryKeys"] == ["e-a", "e-mixed"] and plan["mixedLineageEntryKeys"] == ["e-mixed"]
    assert plan["untargetableEntryKeys"] == ["e-orphan"]

    real = cli(reverie_home, "forget", "--session", a, "--json")
    assert real.returncode == 0, real.stderr
    done = json.loads(real.stdout)
    assert done["artifacts"] == art and not done["dryRun"] and done["refusals"] == []
    for needle in ("7781-ZEBRA", "blue flowerpot", "7781", "flowerpot"):
        assert grep_home(reverie_home, needle) + rows_holding(mem.agent_store, needle) == [], needle
    memory_md = (mem.workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert KEEP in memory_md and "green tea" in memory_md and "e-orphan" in memory_md
    assert "e-a" not in memory_md and "e-mixed" not in memory_md and "(from two talks)" not in memory_md
    assert KEEP in (mem.workspace / today()).read_text(encoding="utf-8")
    assert snapshot(mem)["revision"] > before["revision"]

    # a re-index (even a full rebuild) brings nothing back; the survivor is still found
    m2 = Memory(overrides=['memory.search.provider="fake"'])
    m2.rebuild()
    assert not [h for h in m2.search("locker code 7781-ZEBRA", min_score=0)["results"] if "7781" in h["snippet"]]
    assert any(KEEP in h["snippet"] for h in m2.search("bike lock combination")["results"])
    rt = m2.runtime("offline")
    found = {t.name: t for t in rt.tools()}["sessions_search"].call({"query": "7781 ZEBRA"})
    assert found["results"] == []
    rt.close()
    # re-importing the session's exported transcript does not restore it
    store = TranscriptStore(m2.agent_store)
    src = reverie_home / "a.jsonl"
    src.write_text("\n".join(exported) + "\n", encoding="utf-8")
    rep = import_jsonl(store, src, session_key="agent:main:imported", chat_type="direct", channel="import",
                       sender=None)
    assert rep.forgotten >= 2
    text = json.dumps([e.data for s in rep.sessions for e in store.events(s)])
    assert "7781" not in text and "flowerpot" not in text
    store.close()
    src.unlink()
    m2.close()

    again = cli(reverie_home, "forget", "--session", a, "--json")
    second = json.loads(again.stdout)
    assert second["sessionIds"] == [a] and set(second["artifacts"].values()) == {0}
    assert second["sessionResolutions"][0]["source"] == "forgotten"


def test_unresolved_selectors_are_tombstoned_and_never_prefix_match(mem):
    a, _ = forgettable_session(mem)
    sel = Selectors(sessions=[a[:8], "no-such-session"])
    first = forget(mem, sel)
    assert [r["source"] for r in first["sessionResolutions"]] == ["unresolved", "unresolved"]
    assert set(first["artifacts"].values()) == {0}
    assert forget(mem, Selectors(sessions=[a[:8], "no-such-session"])) == first
    conn = connect(mem.agent_store)
    n = conn.execute("SELECT count(*) FROM memory_forget_tombstones WHERE kind='session'").fetchone()[0]
    conn.close()
    assert n == 2
    assert SECRET in (mem.workspace / today()).read_text(encoding="utf-8")  # the prefix matched nothing


def test_participant_and_hook_source_select_recorded_sessions(mem):
    model = ScriptedModel(script={"steps": {"turn": [{"reply": "ok"}] * 3}})
    rt = mem.runtime(model, session="slack:group:g1", sender="owner-id")
    rt.send("The printer code is 4242-QUILL.", sender="mallory", owner=False)
    group = rt.session.session_id
    rt.close()
    rt = mem.runtime(model, session="hook:mail-1", hook_source="gmail")
    rt.send("Invoice 99 from ACME is due on Friday.")
    hook = rt.session.session_id
    assert rt.store.events(hook, kinds=("user",))[0].origin == "untrusted"
    rt.close()
    out = forget(mem, Selectors(participants=["mallory"]), dry_run=True)
    assert out["sessionIds"] == [group] and out["participantMatches"] == [{"participant": "mallory",
                                                                           "sessionIds": [group]}]
    assert forget(mem, Selectors(hook_sources=["gmail"]), dry_run=True)["sessionIds"] == [hook]
    assert forget(mem, Selectors(hook_sources=["gmail"], since=datetime(2999, 1, 1, tzinfo=timezone.utc)),
                  dry_run=True)["sessionIds"] == []
    forget(mem, Selectors(participants=["mallory"]))
    assert TranscriptStore(mem.agent_store).events(group) == []


def test_forget_text_removes_one_fact_from_every_file_and_store(mem, reverie_home):
    # (letters no hash or timestamp holds: the file's bytes are searched, and a hex digest of the note,
    # "…ea513c04514b…", once held "0451" by chance and failed the test)
    fact = "Grandma's pin is 0451zq"
    mem.remember(f"{fact}, do not share.")
    mem.remember("Grandma likes orchids.")
    (mem.workspace / "USER.md").write_text(f"# User\n\n- {fact}.\n- Likes hiking.\n", encoding="utf-8")
    (mem.workspace / "MEMORY.md").write_text(f"# Long-Term Memory\n\n- Family:\n  {fact}\n- Tea.\n", encoding="utf-8")
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [{"reply": f"I will keep {fact} safe."}]}}))
    rt.send("What do you know about grandma?")
    rt.close()
    mem.sync()
    mem.search("grandma pin")
    mem.close()
    before = snapshot(mem)
    dry = forget(mem, Selectors(texts=[fact]), dry_run=True)
    assert snapshot(mem) == before and fact not in json.dumps(dry)
    assert dry["artifacts"]["memoryLines"] >= 4 and dry["artifacts"]["transcriptEvents"] >= 1
    forget(mem, Selectors(texts=["grandma's PIN is 0451ZQ"]))  # case and spacing do not matter
    assert grep_home(reverie_home, "0451zq") + rows_holding(mem.agent_store, "0451zq") == []
    assert "orchids" in (mem.workspace / today()).read_text(encoding="utf-8")
    assert "Tea." in (mem.workspace / "MEMORY.md").read_text(encoding="utf-8")
    assert "hiking" in (mem.workspace / "USER.md").read_text(encoding="utf-8")
    rt = Memory(overrides=['memory.search.provider="fake"']).runtime("offline")
    (assistant,) = rt.store.events(rt.store.sessions()[0].session_id, kinds=("assistant",))
    assert assistant.text == "I will keep [forgotten] safe."
    rt.close()


def test_a_file_that_changes_after_planning_is_not_overwritten(mem):
    a, _ = forgettable_session(mem)
    plan = Planner(mem, Selectors(sessions=[a])).build()
    path = mem.workspace / today()
    path.write_text(path.read_text(encoding="utf-8") + "- 23:59 written meanwhile\n", encoding="utf-8")
    with pytest.raises(WriteConflict, match="changed before the memory forget rewrite could commit"):
        rewrite_files(plan)
    assert "written meanwhile" in path.read_text(encoding="utf-8") and SECRET in path.read_text(encoding="utf-8")
    # the command itself plans again and completes
    out = forget(mem, Selectors(sessions=[a]))
    assert out["refusals"] == [] and SECRET not in path.read_text(encoding="utf-8")
    assert "written meanwhile" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("args,needle", [
    ((), "needs a selector"),
    (("--text", "a"), "too short"),
    (("--participant", "x", "--since", "yesterday-ish"), "--since"),
])
def test_bad_input_is_one_line_and_exit_1(reverie_home, args, needle):
    done = cli(reverie_home, "forget", *args)
    assert done.returncode == 1 and needle in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_export_made_before_forget_does_not_bring_the_session_back(mem, tmp_path):
    from reverie.transfer.archive import export_agent, import_archive

    a, _ = forgettable_session(mem)
    note = next(p for p in (mem.workspace / "memory").iterdir() if p.name.count("-") > 2)  # the session note
    assert SECRET in note.read_text(encoding="utf-8")
    export_agent(mem, tmp_path / "backup")
    forget(mem, Selectors(sessions=[a]))
    assert not note.exists()
    report = import_archive(mem, tmp_path / "backup").as_dict()
    assert not note.exists()  # the deleted session note is left, not copied back
    assert any("reverie forget" in x["reason"] for x in report["left"]["items"])
    assert report["sessions"].get("forgotten")  # the session itself is not restored
    text = "\n".join(p.read_text(encoding="utf-8") for p in mem.workspace.rglob("*.md"))
    assert SECRET not in text and "flowerpot" not in text
    store = TranscriptStore(mem.agent_store)
    assert not any(SECRET in json.dumps(e.data) for s in store.sessions() for e in store.events(s.session_id))
    store.close()
