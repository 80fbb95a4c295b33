"""`reverie sessions import` of native host transcripts (Claude Code, Codex CLI, OpenClaw), on real
SQLite: who wrote what (the class of every message), recall results marked so that what memory
said is never indexed or written back again, idempotency, bad lines, detection, folders, and the
Claude Code reader the sidecar uses on a growing transcript.

claude_code.jsonl was written by the real Claude Code (tests/fixtures/transcripts/make_claude_code.py);
the other fixtures are hand-made in the shapes the hosts write (see the parsers' docstrings).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_helpers import batch, ok, one_error

from reverie.errors import UserError
from reverie.sessions import SessionRow, TranscriptStore, search
from reverie.sessions.compaction import active_context
from reverie.sessions.flush import recall_free
from reverie.sessions.hook import picked_messages
from reverie.sessions.native import detect, parse
from reverie.sessions.native.batch import plan, run
from reverie.sessions.native.claude_code import parse_from
from reverie.trust.tombstones import message_key
from reverie.trust.tombstones import write as write_tombstones

FIX = Path(__file__).parent / "fixtures" / "transcripts"
CLAUDE = FIX / "claude_code.jsonl"  # real: Claude Code 2.1.332 with reverie over MCP
FEATURES = FIX / "claude_code_features.jsonl"
CODEX = FIX / "codex_rollout.jsonl"
OPENCLAW = FIX / "openclaw_session.jsonl"
CLAUDE_NOTE = "Booked the lake-view room at the Hangzhou tea house for the spring trip"
CODEX_NOTE = "We picked the 07:40 Nozomi to Kyoto, reserved seats in car 7"
OPENCLAW_NOTE = "Decided: cedar fence, 1.2 m high, along the north side of the garden"


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


@pytest.fixture
def store(tmp_path: Path):
    s = TranscriptStore(tmp_path / "agent.sqlite")
    yield s
    s.close()


def imported(store: TranscriptStore, path: Path, fmt: str = "auto", **kw) -> list[dict]:
    return [r for r, _ in run(store, plan(path, fmt), "main", **kw)]


def recorded(store: TranscriptStore, sid: str) -> list[tuple[str, str | None, str]]:
    """(kind, origin class, tool name or text) of every event."""
    out = []
    for ev in store.events(sid):
        msg = ev.data.get("message") or {}
        what = msg.get("name") or ",".join(c["name"] for c in msg.get("toolCalls") or []) or ev.text
        out.append((ev.kind, ev.origin, what))
    return out


def owner_caller() -> SessionRow:
    return SessionRow("", "agent:main:main", "cli", None, "direct", "chat", None, 0, None, None, None, 0, None, None,
                      0, 0, 0, 0, 0, 0)


# -- detection --------------------------------------------------------------------------------------
def test_each_format_is_told_from_its_first_lines():
    assert detect(lines_of(CLAUDE)) == "claude-code"  # opens with queue-operation lines
    assert detect(lines_of(FEATURES)) == "claude-code"  # opens with a summary line
    assert detect(lines_of(CODEX)) == "codex"
    assert detect(lines_of(OPENCLAW)) == "openclaw"
    assert detect(['{"role": "user", "content": "hi"}']) == "openai"
    assert detect(['{"messages": [{"role": "user", "content": "hi"}]}']) == "openai"
    assert detect(["not json", '{"a": 1}', "[1, 2]", ""]) is None
    assert detect([]) is None


# -- who wrote what ---------------------------------------------------------------------------------
def test_a_real_claude_code_transcript_keeps_who_wrote_what(store: TranscriptStore):
    (rep,) = imported(store, CLAUDE)
    assert rep["format"] == "claude-code" and rep["hostSession"] == "ee64e668-ed64-4ee2-8b8c-4ba6abecc52e"
    assert rep["sessionKey"] == "agent:main:claude-code:ee64e668-ed64-4ee2-8b8c-4ba6abecc52e"
    assert rep["taken"] == {"user": 2, "tool_call": 2, "tool_result": 2, "assistant": 2} and rep["recallMarked"] == 1
    assert rep["skipped"]["byType"]["attachment"] == 10 and "problems" not in rep["skipped"]
    events = recorded(store, rep["sessionId"])
    assert [(k, o) for k, o, _ in events] == [
        ("user", "owner"), ("tool_call", "agent"),
        ("system", "system"),  # the recall mark, before the result it marks
        ("tool_result", "owner"),  # memory_search: the class of the entries it returned
        ("tool_call", "agent"), ("tool_result", "untrusted"),  # Bash: outside content
        ("assistant", "untrusted"),  # said after reading Bash's output, in the same turn
        ("user", "owner"), ("assistant", "agent")]  # a new turn starts clean
    assert events[1][2] == events[3][2] == "memory_search" and events[5][2] == "Bash"
    mark = store.events(rep["sessionId"])[2].data
    assert mark["event"] == "recall" and mark["auto"] is False and CLAUDE_NOTE in mark["items"][0]["text"]
    # each message keeps the host's id and time
    lines = [json.loads(x) for x in lines_of(CLAUDE) if x.strip()]
    first = next(d for d in lines if d.get("type") == "user")
    ev = store.events(rep["sessionId"])[0]
    assert ev.data["hostId"] == first["uuid"] and ev.timestamp == first["timestamp"]
    assert ev.data["host"] == {"format": "claude-code", "session": rep["hostSession"]}
    row = store.session(rep["sessionId"])
    assert (row.origin, row.channel, row.session_kind, row.ended_reason) == ("import", "claude-code", "interactive",
                                                                             "import")


def test_claude_code_commands_meta_lines_and_sub_agents():
    msgs, skipped = parse("claude-code", lines_of(FEATURES))
    got = [(m.role, m.origin, m.text) for m in msgs if m.role != "tool_result"]
    assert ("user", "owner", "/model sonnet") in got and ("user", "owner", "/cost") in got
    assert ("system", "untrusted", "Set model to Sonnet") in got  # what a command printed
    assert ("user", "owner", "!date +%F") in got and ("system", "untrusted", "2026-11-22") in got
    assert ("system", "system", "API Error: 529 Overloaded") in got  # Claude Code's, not the model's
    assert ("system", "system", "[Request interrupted by user]") in got
    assert [o for r, o, t in got if t.startswith("This session is being continued")] == ["system"]
    assert got[0][:2] == ("system", "system")  # isMeta caveat
    assert not any("Sub-agent" in t for _, _, t in got) and skipped.types["user (sub-agent)"] == 1
    results = [m for m in msgs if m.role == "tool_result"]  # two results on one line, an id each
    assert [(m.tool_name, m.origin, m.host_id) for m in results] == [
        ("mcp__reverie__memory_search", "recall", "u-0009:toolu_01M"), ("WebFetch", "untrusted", "u-0009:toolu_01W")]
    assert [(n, why) for n, why in skipped.problems] == [
        (23, "unknown line type 'future-kind'"), (24, "not JSON"), (26, "cut short (last line)")]


def test_codex_rollout_keeps_who_wrote_what(store: TranscriptStore):
    (rep,) = imported(store, CODEX)
    assert rep["format"] == "codex" and rep["hostSession"] == "0199a5c2-7d1e-7b30-9c4e-2f6a1b0c9d11"
    events = recorded(store, rep["sessionId"])
    assert [(k, o) for k, o, _ in events[:3]] == [("system", "system")] * 3  # Codex's own instructions and context
    assert events[3] == ("user", "owner", "Which train did we pick for the Kyoto trip?")
    assert events[4:7] == [("tool_call", "agent", "memory_search"),
                           ("system", "system", "recall (memory_search): 1 item(s)"),
                           ("tool_result", "owner", "memory_search")]
    assert events[7:10] == [("tool_call", "agent", "shell"), ("tool_result", "untrusted", "shell"),
                            ("assistant", "untrusted", events[9][2])]
    assert events[10] == ("user", "owner", "Add the rail pass to my notes, please.")
    # apply_patch's answer is outside content: memory_append after it is tainted, its result is reverie's own
    assert events[11:] == [("tool_call", "agent", "apply_patch"), ("tool_result", "untrusted", "apply_patch"),
                           ("tool_call", "untrusted", "memory_append"), ("tool_result", "agent", "memory_append"),
                           ("assistant", "untrusted", "Noted in your todo list and in today's memory.")]
    result = store.events(rep["sessionId"])[6].data
    # the MCP content blocks Codex kept are unwrapped to reverie's JSON answer
    assert json.loads(result["message"]["content"])["results"][0]["snippet"].endswith(CODEX_NOTE)
    assert result["host"]["tool"] == "mcp__reverie__memory_search"
    assert rep["skipped"]["byType"]["event_msg (user_message)"] == 2
    assert rep["skipped"]["problems"] == [{"line": 29, "why": "unknown line type 'world_state'"}]


def test_a_2025_codex_rollout_without_the_envelope_is_read_too():
    lines = [json.dumps(x) for x in [
        {"id": "0198f0aa-1111-7000-8000-000000000001", "timestamp": "2025-09-02T17:17:41.762Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/home/owner/app</cwd>\n</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Rename the config file."}]},
        {"type": "function_call", "name": "shell", "arguments": "{\"command\": [\"ls\"]}", "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": {"content": "app.toml", "success": True}},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]},
        {"record_type": "state"}]]
    assert detect(lines) == "codex"
    parsed = parse("codex", lines)
    assert parsed.session_id == "0198f0aa-1111-7000-8000-000000000001"
    assert [(m.role, m.origin) for m in parsed.messages] == [
        ("system", "system"), ("user", "owner"), ("tool_call", "agent"), ("tool_result", "untrusted"),
        ("assistant", "agent")]  # without typed-prompt events, Codex's scaffolding is told by its tags
    assert [m.text for m in parsed.messages[1:]] == ["Rename the config file.", "", "app.toml", "Done."]
    assert parsed.skipped.types == {"state": 2} and not parsed.skipped.problems


def test_openclaw_session_keeps_who_wrote_what(store: TranscriptStore):
    (rep,) = imported(store, OPENCLAW)
    assert rep["format"] == "openclaw" and rep["hostSession"] == "5f0c2a9e-3b7d-4c1e-9a26-7d4b8e0f1a35"
    events = recorded(store, rep["sessionId"])
    assert [(k, o) for k, o, _ in events] == [
        ("user", "owner"), ("tool_call", "agent"), ("system", "system"), ("tool_result", "owner"),
        ("tool_call", "agent"), ("tool_result", "untrusted"), ("assistant", "untrusted"),
        ("system", "system"),  # a plugin's message in the context
        ("system", "untrusted"),  # a ! command and its output
        ("user", "owner"), ("assistant", "agent")]
    assert store.events(rep["sessionId"])[0].data["hostId"] == "d4e5f6a7"
    assert rep["skipped"]["byType"] == {"compaction": 1, "custom": 1, "label": 1, "model_change": 1,
                                        "thinking_level_change": 1}


def test_an_openclaw_group_chat_does_not_trust_its_user_messages(store: TranscriptStore, tmp_path: Path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(OPENCLAW, folder / "5f0c2a9e-3b7d-4c1e-9a26-7d4b8e0f1a35.jsonl")
    (folder / "sessions.json").write_text(json.dumps({"agent:main:telegram:group:42": {
        "sessionId": "5f0c2a9e-3b7d-4c1e-9a26-7d4b8e0f1a35"}}))
    (rep,) = imported(store, folder)
    row = store.session(rep["sessionId"])
    assert row.chat_type == "group" and row.low_trust
    events = recorded(store, rep["sessionId"])
    assert {o for k, o, _ in events if k in ("user", "assistant")} == {"untrusted"}


# -- recall is not ingested again -------------------------------------------------------------------
@pytest.mark.parametrize("path, note, other", [
    (CLAUDE, CLAUDE_NOTE, "weather-check: mild and dry"),
    (CODEX, CODEX_NOTE, "buy rail pass"),
    (OPENCLAW, OPENCLAW_NOTE, "15 to 20 years"),
], ids=["claude-code", "codex", "openclaw"])
def test_what_memory_said_is_not_indexed_or_written_back(store: TranscriptStore, path: Path, note: str, other: str):
    (rep,) = imported(store, path)
    sid = rep["sessionId"]
    quoting = [ev for ev in store.events(sid, kinds=("assistant",)) if note in ev.text]
    assert quoting, "the fixture's assistant quotes the note"
    # transcript search: the note's words do not find the assistant quoting it
    found = search(store, owner_caller(), note, visibility="agent", owner=True)["results"]
    assert not {r["messageId"] for r in found} & {ev.event_id for ev in quoting}, found
    # the session note reads the conversation without it
    picked = picked_messages(store, sid, 50)
    assert picked and not any(note in text for _, text, _ in picked)
    # the flush reads the conversation without it: the result dropped, the quote stripped
    history = [ev.message for ev in active_context(store, sid).events if ev.message is not None]
    clean = recall_free(history, store.recall_pool(sid))
    assert not any(note in (m.content or "") for m in clean)
    assert not any(m.name == "memory_search" for m in clean)
    assert any(other in (m.content or "") for m in clean)  # what memory did not say stays


# -- idempotency --------------------------------------------------------------------------------------
def test_importing_twice_adds_nothing_and_a_grown_transcript_adds_only_the_new(store: TranscriptStore,
                                                                               tmp_path: Path):
    lines = [x for x in lines_of(CLAUDE) if x.strip()]
    cut = next(i for i, x in enumerate(lines) if '"Thanks! That is all."' in x)  # the second turn
    early = tmp_path / "early.jsonl"
    early.write_text("\n".join(lines[:cut]) + "\n")
    (first,) = imported(store, early)
    assert first["messages"] == 6
    (grown,) = imported(store, CLAUDE)
    assert grown["sessionId"] == first["sessionId"] and grown["messages"] == 2 and grown["alreadyRecorded"] == 6
    (again,) = imported(store, CLAUDE)
    assert again["messages"] == 0 and again["alreadyRecorded"] == 8 and again["recallMarked"] == 0
    assert len(store.sessions()) == 1
    fresh = TranscriptStore(tmp_path / "fresh.sqlite")
    try:  # in pieces or at once, the same events
        (whole,) = imported(fresh, CLAUDE)
        assert recorded(fresh, whole["sessionId"]) == recorded(store, first["sessionId"])
    finally:
        fresh.close()


def test_a_forgotten_message_is_not_brought_back(store: TranscriptStore):
    write_tombstones(store.conn, [("message", message_key("Thanks! That is all."))])
    (rep,) = imported(store, CLAUDE)
    assert rep["forgotten"] == 1 and rep["messages"] == 7
    assert "Thanks! That is all." not in [ev.text for ev in store.events(rep["sessionId"])]


# -- bad input ----------------------------------------------------------------------------------------
def test_bad_lines_are_skipped_and_named_never_fatal(store: TranscriptStore):
    (rep,) = imported(store, FEATURES)
    assert rep["messages"] == 18 and rep["skipped"]["problems"] == [
        {"line": 23, "why": "unknown line type 'future-kind'"}, {"line": 24, "why": "not JSON"},
        {"line": 26, "why": "cut short (last line)"}]


def test_a_file_in_no_known_format_writes_nothing(store: TranscriptStore, tmp_path: Path):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"event": "click", "x": 3}\n{"event": "scroll"}\n')
    with pytest.raises(UserError) as err:
        plan(odd)
    assert "Claude Code, Codex CLI, OpenClaw" in str(err.value) and "line 1" in str(err.value)
    with pytest.raises(UserError, match="no Claude Code lines"):
        plan(CODEX, "claude-code")
    with pytest.raises(UserError, match="--format"):
        plan(CODEX, "gemini")
    folder = tmp_path / "mixed"
    folder.mkdir()
    shutil.copy(CLAUDE, folder / "a.jsonl")
    shutil.copy(odd, folder / "b.jsonl")
    with pytest.raises(UserError, match="b.jsonl"):
        plan(folder)
    assert store.sessions() == []


def test_a_folder_imports_each_jsonl_in_it(store: TranscriptStore, tmp_path: Path):
    folder = tmp_path / "project"
    (folder / "ee64e668" / "subagents").mkdir(parents=True)
    for src in (CLAUDE, CODEX, OPENCLAW):
        shutil.copy(src, folder / src.name)
    shutil.copy(FEATURES, folder / "ee64e668" / "subagents" / "agent-1.jsonl")  # not directly inside: left alone
    (folder / "notes.txt").write_text("not a transcript")
    reports = imported(store, folder)
    assert [(Path(r["path"]).name, r["format"]) for r in reports] == [
        ("claude_code.jsonl", "claude-code"), ("codex_rollout.jsonl", "codex"), ("openclaw_session.jsonl", "openclaw")]
    assert len(store.sessions()) == 3


# -- the sidecar's reader: a live transcript, read as it grows ----------------------------------------
def test_parse_from_reads_whole_lines_and_returns_where_to_go_on(tmp_path: Path):
    raw = CLAUDE.read_bytes()
    live = tmp_path / "live.jsonl"
    cut = raw.index(b'"Thanks! That is all."')  # in the middle of a line
    live.write_bytes(raw[:cut])
    tools: dict[str, str] = {}
    head, offset = parse_from(live, 0, tools)
    assert offset == raw.rindex(b"\n", 0, cut) + 1 and not head.skipped.problems  # the unfinished line waits
    assert head.session_id == "ee64e668-ed64-4ee2-8b8c-4ba6abecc52e"
    live.write_bytes(raw)
    tail, end = parse_from(live, offset, tools)
    assert end == len(raw)
    whole = parse("claude-code", lines_of(CLAUDE)).messages
    assert head.messages + tail.messages == whole
    # without the calls seen so far, the part before the offset is read for them
    at_results = raw.rindex(b"\n", 0, raw.index(b'"tool_result"')) + 1
    results = [m for m in parse_from(live, at_results)[0].messages if m.role == "tool_result"]
    assert [m.origin for m in results] == ["recall", "untrusted"]
    assert parse_from(live, len(raw) + 10, {})[0].messages == whole  # a replaced file starts again


# -- the command ----------------------------------------------------------------------------------------
def test_the_command_imports_reports_and_leaves_recall_out(reverie_home: Path, tmp_path: Path):
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"event": "click"}\n')
    first, human, again, found, bad, wrong = batch(
        reverie_home, ["sessions", "import", str(CLAUDE), "--json"], ["sessions", "import", str(CODEX)],
        ["sessions", "import", str(CLAUDE), "--json"], ["sessions", "search", "lake-view room Hangzhou", "--json"],
        ["sessions", "import", str(odd)], ["sessions", "import", str(CLAUDE), "--format", "gemini"])
    (rep,) = json.loads(ok(first).stdout)["files"]
    assert rep["messages"] == 8 and rep["recallMarked"] == 1 and rep["skipped"]["lines"] == 33
    assert "codex_rollout.jsonl: Codex CLI session 0199a5c2" in ok(human).stderr
    assert "took 15 message(s)" in human.stderr
    (rep2,) = json.loads(ok(again).stdout)["files"]
    assert rep2["messages"] == 0 and rep2["alreadyRecorded"] == 8
    assert not [r for r in json.loads(ok(found).stdout)["results"] if "lake-view" in r["snippet"]]
    assert "not a transcript reverie can read" in one_error(bad) and "OpenClaw" in one_error(bad)
    assert "--format must be" in one_error(wrong)
