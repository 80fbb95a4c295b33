"""`reverie hook claude-code EVENT`: Claude Code's hook input on stdin, its answer on stdout, for a
real Claude Code transcript (tests/fixtures/transcripts/claude_code.jsonl, written by Claude Code
2.1.332). Bad input is one line and exit 1 (never 2: that would block the user's prompt); every hook
is safe to repeat; a transcript that grows, is replaced or is gone; one session id under two agents;
two hooks of one session at once; the same answers through `reverie serve`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cli_helpers import _env, cli, ok, one_error

TRANSCRIPT = Path(__file__).parent / "fixtures" / "transcripts" / "claude_code.jsonl"
SID = "ee64e668-ed64-4ee2-8b8c-4ba6abecc52e"


def hook(home: Path, event: str, payload: dict | str, *args: str, env: dict | None = None):
    raw = payload if isinstance(payload, str) else json.dumps(payload)
    return cli(home, *args, "hook", "claude-code", event, stdin=raw, env=env)


@pytest.fixture
def home(reverie_home, tmp_path):
    ok(cli(reverie_home, "init"))
    (reverie_home / "workspace" / "MEMORY.md").write_text(
        "# Memory\n\n- Prefers green tea over coffee. <!-- trigger: green tea -->\n", encoding="utf-8")
    ok(cli(reverie_home, "remember", "Booked the lake-view room at the Hangzhou tea house for the spring trip."))
    ok(cli(reverie_home, "index"))
    shutil.copy(TRANSCRIPT, tmp_path / "live.jsonl")
    return reverie_home


def live(home) -> Path:
    return home.parent / "live.jsonl"


def payload(home, event: str, **extra) -> dict:
    return {"session_id": SID, "transcript_path": str(live(home)), "cwd": str(home), "hook_event_name": event,
            **extra}


def events(home, *args) -> list[dict]:
    """The session's events as `reverie sessions show --all --json` gives them, with the message's
    text, tool name and origin class at hand."""
    out = ok(cli(home, *args, "sessions", "show", f"agent:{args[1] if args else 'main'}:claude-code:{SID}",
                 "--json", "--all"))
    evs = []
    for e in json.loads(out.stdout)["events"]:
        msg = e.get("message") or {}
        evs.append({"kind": e["type"], "origin": e.get("originClass"), "text": msg.get("content", e.get("text")),
                    "name": msg.get("name"), "lane": e.get("lane"), "hostId": e.get("hostId"), "raw": e})
    return evs


def test_session_start_and_prompt_answer_in_claude_codes_terms(home):
    r = ok(hook(home, "SessionStart", payload(home, "SessionStart", source="startup")))
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "Prefers green tea" in out["additionalContext"] and "lake-view room" in out["additionalContext"]
    r = ok(hook(home, "UserPromptSubmit", payload(home, "UserPromptSubmit", prompt="Green tea or coffee?")))
    out = json.loads(r.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit" and "Prefers green tea" in out["additionalContext"]
    again = ok(hook(home, "UserPromptSubmit", payload(home, "UserPromptSubmit", prompt="Green tea or coffee?")))
    assert again.stdout == r.stdout  # a retried hook: the same answer
    nothing = ok(hook(home, "UserPromptSubmit", payload(home, "UserPromptSubmit", prompt="What time is it?")))
    assert nothing.stdout == ""  # nothing to recall: no output at all


def test_stop_records_the_transcript_with_provenance_once(home):
    ok(hook(home, "Stop", payload(home, "Stop")))
    evs = events(home)
    kinds = [(e["kind"], e.get("origin")) for e in evs if e["kind"] in ("user", "assistant", "tool_call", "tool_result")]
    assert ("user", "owner") in kinds and ("assistant", "agent") in kinds
    results = {e["kind"] + ":" + (e["name"] or ""): e["origin"] for e in evs if e["kind"] == "tool_result"}
    assert results["tool_result:Bash"] == "untrusted"
    assert results["tool_result:memory_search"] in ("owner", "agent")  # reverie's tool, by its own name
    assert any(e["kind"] == "system" and e["lane"] == "memory_search" for e in evs)  # the recall mark
    # after reading the Bash output, the agent's last words of that turn are untrusted
    said = [e for e in evs if e["kind"] == "assistant"]
    assert said[0].get("origin") == "untrusted" and said[-1].get("origin") == "agent"
    count = len(evs)
    ok(hook(home, "Stop", payload(home, "Stop")))
    assert len(events(home)) == count  # a retried Stop records nothing twice
    with live(home).open("a", encoding="utf-8") as f:  # the next turn arrives
        f.write(json.dumps({"type": "user", "uuid": "new-user-1", "sessionId": SID, "timestamp": "2026-12-02T01:00:00Z",
                            "message": {"role": "user", "content": "One more thing: book a taxi."}}) + "\n")
        f.write('{"type": "assistant", "uuid": "cut-short", "mess')  # not yet written whole
    ok(hook(home, "Stop", payload(home, "Stop")))
    evs = events(home)
    assert [e for e in evs if e["kind"] == "user"][-1]["text"] == "One more thing: book a taxi."
    assert len(evs) == count + 1


def test_a_replaced_or_missing_transcript(home):
    ok(hook(home, "Stop", payload(home, "Stop")))
    count = len(events(home))
    shutil.copy(TRANSCRIPT, live(home))  # rewritten from the start (shorter than what was read)
    ok(hook(home, "Stop", payload(home, "Stop")))
    assert len(events(home)) == count  # read again from 0; every line known by its id
    live(home).unlink()
    r = hook(home, "Stop", payload(home, "Stop"))
    assert r.returncode == 0 and "Traceback" not in r.stderr


def test_bad_input_is_one_line_and_never_blocks(home):
    for raw, event in (("{not json", "Stop"), ('{"session_id": "x"', "Stop"), ("[1, 2]", "Stop"),
                       ('{"transcript_path": "/tmp/x"}', "Stop"), ('{"session_id": "x"}', "Bogus"),
                       ('{"session_id": "x", "hook_event_name": "UserPromptSubmit"}', "")):
        args = ("hook", "claude-code", event) if event else ("hook", "claude-code")
        r = cli(home, *args, stdin=raw)
        line = one_error(r, 1)
        assert "reverie: error:" in line
    assert not list((home / "agents" / "main" / "agent").glob("sidecar/*.json"))  # nothing was followed


def test_one_session_id_under_two_agents_stays_apart(home):
    ok(cli(home, "--agent", "work", "init"))
    ok(hook(home, "Stop", payload(home, "Stop")))
    ok(hook(home, "Stop", payload(home, "Stop"), "--agent", "work"))
    main, work = events(home), events(home, "--agent", "work")
    assert [e["text"] for e in main if e["kind"] == "user"] == [e["text"] for e in work if e["kind"] == "user"]
    ok(hook(home, "SessionEnd", payload(home, "SessionEnd", reason="exit"), "--agent", "work"))
    sessions = json.loads(ok(cli(home, "sessions", "list", "--json")).stdout)["sessions"]
    mine = [s for s in sessions if s["sessionKey"] == f"agent:main:claude-code:{SID}"]
    assert mine and mine[0]["endedAt"] is None  # ending the work agent's session left main's open


def test_two_hooks_of_one_session_at_once(home):
    results = []

    def run(event):
        results.append(hook(home, event, payload(home, event, prompt="Green tea or coffee?")))

    threads = [threading.Thread(target=run, args=(e,)) for e in ("Stop", "UserPromptSubmit", "Stop")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r.returncode == 0 for r in results), [r.stderr for r in results]
    evs = events(home)
    host_ids = [e["hostId"] for e in evs if e["hostId"]]
    assert len(host_ids) == len(set(host_ids))  # no line of the transcript recorded twice
    assert [e["text"] for e in evs if e["kind"] == "user"].count("Green tea or coffee?") == 1


def test_pre_compact_flushes_and_session_end_writes_the_note(home):
    ok(hook(home, "PreCompact", payload(home, "PreCompact", trigger="auto", custom_instructions="")))
    flushes = [e for e in events(home) if e["kind"] == "flush"]
    assert len(flushes) == 1
    ok(hook(home, "PreCompact", payload(home, "PreCompact", trigger="auto")))
    assert len([e for e in events(home) if e["kind"] == "flush"]) == 1  # once per cycle
    ok(hook(home, "SessionStart", payload(home, "SessionStart", source="compact")))
    ok(hook(home, "SessionEnd", payload(home, "SessionEnd", reason="prompt_input_exit")))
    notes = [p.read_text(encoding="utf-8") for p in (home / "workspace" / "memory").glob("????-??-??-*.md")]
    assert len(notes) == 1
    assert "Where did I book a room for the spring trip?" in notes[0]  # the owner's words
    # what memory said (the memory_search result, quoted by the assistant) is not written back
    assert "Booked the lake-view room at the Hangzhou tea house" not in notes[0]
    ok(hook(home, "SessionEnd", payload(home, "SessionEnd", reason="prompt_input_exit")))
    assert len(list((home / "workspace" / "memory").glob("????-??-??-*.md"))) == 1  # a retried end: no 2nd note


def test_through_reverie_serve_the_same_answers(home):
    from test_serve import Served

    first = ok(hook(home, "SessionStart", payload(home, "SessionStart", source="startup")))
    served = Served(home)
    try:
        before = served.health()["cliCalls"]
        through = ok(hook(home, "SessionStart", payload(home, "SessionStart", source="startup")))
        assert through.stdout == first.stdout
        assert served.health()["cliCalls"] == before + 1
        bad = hook(home, "Stop", "{not json")
        assert bad.returncode == 1 and "not JSON" in bad.stderr
    finally:
        served.stop()


def test_a_result_read_a_hook_after_its_call_is_classed_by_that_call(home):
    """The Stop that reads a tool's result may come a hook after the one that read its call: the
    call's name is kept between hooks (not found by reading the transcript's start again)."""
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"tool_use"' in line and "memory_search" in line) + 1
    live(home).write_text("".join(lines[:cut]), encoding="utf-8")
    ok(hook(home, "Stop", payload(home, "Stop")))
    state = next((home / "agents" / "main" / "agent" / "sidecar").glob("*.json"))
    assert "mcp__reverie__memory_search" in json.loads(state.read_text())["tools"].values()
    live(home).write_text("".join(lines), encoding="utf-8")
    ok(hook(home, "Stop", payload(home, "Stop")))
    results = {e["name"]: e["origin"] for e in events(home) if e["kind"] == "tool_result"}
    assert results["memory_search"] in ("owner", "agent") and results["Bash"] == "untrusted"
