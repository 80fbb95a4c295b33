"""Startup context (reference §3, addendum row 9): today's and yesterday's notes (slugged session
notes first), the workspace files by session kind, budgets with visible truncation, project
filtering, and the reports: /context, reverie context, status and doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

from reverie.recall.startup import plan, select_days
from reverie.recall.projects import ProjectScope
from tests.recall_helpers import recall_marks, scripted, system_of, write, write_trusted

NOW = datetime(2026, 7, 2, 9, 30, tzinfo=timezone.utc)
TODAY, YESTERDAY, OLD = "2026-07-02", "2026-07-01", "2026-06-29"


@pytest.fixture
def mem(fake_memory):
    m = fake_memory
    write(m, "MEMORY.md", "# Long-Term Memory\n\n- The user's cat is called Mochi.\n"
                          "- Release checklist lives in docs/release.md. <!-- project: github.com/acme/app -->\n")
    write(m, "USER.md", "<!-- observed: 2026-06-01 | status: active -->\n\n- Prefer short answers.\n")
    write_trusted(m, f"memory/{TODAY}.md", f"# {TODAY}\n\n- 09:00 Booked the dentist for Friday.\n")
    write_trusted(m, f"memory/{TODAY}-trip-plan.md", "# Session: trip plan\n\n- user: train to Hangzhou at 9\n")
    write_trusted(m, f"memory/{YESTERDAY}.md", f"# {YESTERDAY}\n\n- 18:00 Paid the electricity bill.\n")
    write_trusted(m, f"memory/{OLD}.md", f"# {OLD}\n\n- An old note that must not load.\n")
    return m


def runtime(mem, model, **kw):
    return mem.runtime(model, clock=lambda: NOW, **kw)


def test_new_session_starts_with_today_and_yesterday_session_note_first(mem):
    model = scripted(turn=[{"reply": "hi"}, {"reply": "again"}])
    rt = runtime(mem, model)
    rt.send("good morning")
    system = system_of(model)
    block = system.split('<recalled-memory lane="startup"')[1].split("</recalled-memory>")[0]
    order = [p for p in (f"memory/{TODAY}-trip-plan.md", f"memory/{YESTERDAY}.md", f"memory/{TODAY}.md")
             if p in block]
    # the first file of each day (today's session note, yesterday's note), then today's date-only note
    assert order == [f"memory/{TODAY}-trip-plan.md", f"memory/{YESTERDAY}.md", f"memory/{TODAY}.md"]
    assert block.index("trip-plan") < block.index(f"memory/{YESTERDAY}.md") < block.index(f"memory/{TODAY}.md#")
    assert "Paid the electricity bill" in block and "Booked the dentist" in block
    assert "An old note" not in system
    assert "Mochi" in system and "Prefer short answers" in system  # main session: MEMORY.md and USER.md
    # the notes stay for the session, marked once
    rt.send("and now?")
    assert "Paid the electricity bill" in system_of(model)
    notes = [m for m in recall_marks(rt, "startup") if m["items"][0]["path"].startswith("memory/")]
    assert len(notes) == 1 and len(notes[0]["items"]) == 3
    assert "session note of today" in notes[0]["items"][0]["why"]
    rt.close()


def test_a_resumed_session_keeps_its_notes_and_a_reset_reloads_them(mem):
    model = scripted(turn=[{"reply": "1"}, {"reply": "2"}, {"reply": "3"}])
    rt = runtime(mem, model)
    rt.send("hello")
    rt.close()
    write_trusted(mem, f"memory/{TODAY}-later.md", "# later\n\n- user: a note written after the start\n")
    rt = runtime(mem, model)
    rt.send("still there?")  # resumed: the notes it began with, not the new file
    assert "Paid the electricity bill" in system_of(model) and "written after the start" not in system_of(model)
    rt.send("/reset what is new?")
    assert "written after the start" in system_of(model)
    rt.close()


def test_startup_notes_are_off_when_the_session_kind_is_not_a_direct_chat(mem):
    for kw in ({"session": "telegram:group:1", "sender": "me"}, {"session": "cron:nightly"},
               {"session": "agent:main:subagent:x"}):
        model = scripted(turn=[{"reply": "ok"}])
        rt = runtime(mem, model, **kw)
        rt.send("hello")
        assert "Paid the electricity bill" not in system_of(model), kw
        rt.close()


def test_group_session_never_sees_memory_md(mem):
    model = scripted(turn=[{"reply": "ok"}])
    rt = runtime(mem, model, session="slack:group:team", sender="me")
    rt.send("hi all")
    system = system_of(model)
    assert "Mochi" not in system and "### MEMORY.md" not in system and "Prefer short answers" not in system
    report = rt.context_report()["input"]["bootstrap"]
    out = {f["name"]: f for f in report}
    assert out["MEMORY.md"]["status"] == "left-out" and "group" in out["MEMORY.md"]["reason"]
    rt.close()


def test_bootstrap_files_by_session_kind(mem):
    for name in ("AGENTS.md", "SOUL.md", "IDENTITY.md", "HEARTBEAT.md"):
        write(mem, name, f"# {name}\n\ncontent of {name}\n")

    def injected(**kw):
        return [f.name for f in plan(mem, **kw).files if f.text]

    assert injected() == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"]
    assert injected(chat_type="group") == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "HEARTBEAT.md"]
    assert injected(session_kind="cron") == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"]
    assert injected(session_kind="subagent") == ["AGENTS.md"]


def test_memory_md_entries_of_inactive_projects_are_removed_at_startup(mem):
    p = plan(mem, now=NOW)
    memory = next(f for f in p.files if f.name == "MEMORY.md")
    assert "Mochi" in memory.text and "Release checklist" not in memory.text
    assert memory.removed_entries == 1 and "inactive project" in memory.reason
    p = plan(mem, now=NOW, scope=ProjectScope(["github.com/acme/app"]))
    assert "Release checklist" in next(f for f in p.files if f.name == "MEMORY.md").text


def test_budgets_cut_head_and_tail_with_a_visible_marker(mem):
    body = "\n".join(f"- line {i:03d} of a long day" for i in range(200))
    (mem.workspace / f"memory/{TODAY}.md").unlink()
    write_trusted(mem, f"memory/{TODAY}.md", f"# {TODAY}\n\n{body}\n")
    write(mem, "USER.md", "- Prefer tea. " * 600)
    p = plan(mem, now=NOW)
    note = next(n for n in p.notes if n.path == f"memory/{TODAY}.md")
    assert note.truncated and note.injected_chars <= 1_200 + 200
    assert "truncated here: read memory/2026-07-02.md for full content" in note.text
    assert "line 000" in note.text and "line 199" in note.text  # head and tail kept
    assert sum(n.injected_chars for n in p.notes) <= 2_800
    user = next(f for f in p.files if f.name == "USER.md")
    assert user.truncated and user.raw_chars > 4_000 and user.injected_chars < 4_300
    assert set(p.truncated) >= {"USER.md", f"memory/{TODAY}.md"}


def test_utc_boundary_day_with_a_session_note(fake_memory):
    # 21:00 in New York on 1 July is 2 July in UTC: a host that dated its session note by UTC
    write_trusted(fake_memory, "memory/2026-07-02-night.md", "# night\n\n- user: late call with Bo\n")
    write_trusted(fake_memory, "memory/2026-07-01.md", "# 2026-07-01\n\n- local note\n")
    from zoneinfo import ZoneInfo

    chosen, listed = select_days(fake_memory.workspace, datetime(2026, 7, 2, 1, 0, tzinfo=timezone.utc),
                                 ZoneInfo("America/New_York"), 2)
    assert [(d, why) for d, why, _ in chosen] == [("2026-07-01", "today"), ("2026-07-02", "UTC date")]
    assert any(d["day"] == "2026-06-30" and not d["chosen"] for d in listed)


def test_context_list_reports_truncation(mem):
    write(mem, "MEMORY.md", "# Memory\n\n" + "- a long entry about many things\n" * 1500)
    (mem.workspace / f"memory/{YESTERDAY}.md").unlink()
    write_trusted(mem, f"memory/{YESTERDAY}.md", "".join(f"- {i:03d} a busy day of notes\n" for i in range(200)))
    model = scripted(turn=[{"reply": "ok"}])
    rt = runtime(mem, model)
    rt.send("hi")
    listed = rt.send("/context list").reply
    assert "MEMORY.md      TRUNCATED" in listed and "cut: MEMORY.md" in listed
    assert f"startup notes cut (in context only; memory_get reads the rest): memory/{YESTERDAY}.md" in listed
    detail = rt.send("/context detail").reply
    assert "Recall events of this session:" in detail and "[startup]" in detail
    assert f"memory/{TODAY}-trip-plan.md#L1-L3" in detail
    rt.close()


def _cli(home, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args,
                           "--set", 'memory.search.provider="fake"'], capture_output=True, text=True, env=env,
                          timeout=120, cwd=str(home))


def test_reverie_context_prints_what_each_kind_starts_with(mem, reverie_home):
    today = datetime.now(timezone.utc).date().isoformat()
    write_trusted(mem, f"memory/{today}-now.md", "# now\n\n- user: a note of the real today\n")
    r = _cli(reverie_home, "context", "--session-kind", "group")
    assert r.returncode == 0, r.stderr
    assert "out  MEMORY.md" in r.stdout and "never get MEMORY.md" in r.stdout
    assert "group sessions get no daily notes" in r.stdout
    r = _cli(reverie_home, "context", "--json")
    data = json.loads(r.stdout)
    files = {f["name"]: f for f in data["files"]}
    assert files["MEMORY.md"]["status"] == "injected" and files["MEMORY.md"]["removed_entries"] == 1
    assert any(n["path"] == f"memory/{today}-now.md" and n["injected_chars"] for n in data["notes"])
    r = _cli(reverie_home, "context", "--project", "github.com/acme/app", "--json")
    assert json.loads(r.stdout)["projects"] == ["github.com/acme/app"]
    r = _cli(reverie_home, "context", "--session-kind", "cron")
    assert "out  MEMORY.md" in r.stdout and "cron sessions get only" in r.stdout
    r = _cli(reverie_home, "context", "--session-kind", "nope")
    assert r.returncode == 1 and "--session-kind must be one of" in r.stderr


def test_status_and_doctor_report_a_cut_at_session_start(mem):
    write(mem, "MEMORY.md", "# Memory\n\n" + "- a long entry about many things\n" * 1500)
    st = mem.status()
    assert "MEMORY.md" in st["startup"]["truncated"]
    assert any("cut at session start" in w and "MEMORY.md truncated" in w for w in st["warnings"])
    from reverie.doctor import run_doctor

    leg = next(leg for leg in run_doctor(mem)["legs"] if leg["name"] == "startup context")
    assert leg["ok"] and "TRUNCATED" in leg["detail"] and "MEMORY.md" in leg["detail"]


def test_forget_session_scrubs_its_lines_from_another_sessions_startup_notes(fake_memory):
    from reverie.forget import Selectors, forget
    from reverie.sessions.store import TranscriptStore

    a = fake_memory.runtime(scripted(turn=[{"toolCalls": [{"name": "memory_append", "arguments": {
        "text": "The storage unit code is 4471-OTTER."}}]}, {"afterTools": True, "reply": "Noted."}]))
    a.send("Remember the storage unit code 4471-OTTER.")
    sid = a.session.session_id
    a.close()
    model = scripted(turn=[{"reply": "hi"}])
    b = fake_memory.runtime(model, session="errands")
    b.send("good morning")  # starts with today's note, which holds the code
    assert "4471-OTTER" in system_of(model)
    b.close()
    forget(fake_memory, Selectors(sessions=[sid]))
    store = TranscriptStore(fake_memory.places.agent_db)
    try:
        held = [e for s in store.sessions() for e in store.events(s.session_id) if "4471-OTTER" in json.dumps(e.data)]
    finally:
        store.close()
    assert held == []
