"""One NUL byte from an agent must not hide a whole day (issue 10, point 1).

Agent-written text is cleaned of NUL, other control characters and lone surrogates before it is
written, on every path (the Python tool, MCP, chat, the flush, session notes, automation), and
the tool result says what was removed. A note that holds a NUL or invalid UTF-8 anyway (written
by another program) is indexed with the bad bytes replaced and named in status, never skipped whole.
"""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import datetime, timezone

from reverie.mcp.client import Client

from reverie import Memory
from reverie.mcp.server import build_server
from reverie.models.scripted import ScriptedModel
from reverie.sessions.flush import FlushResult, flush_tool
from reverie.sessions.hook import render_note
from reverie.text.fts import build_query
from reverie.workspace import append_daily
from reverie.workspace.textclean import clean_text, decode_note

UTC = timezone.utc


def today_note(mem: Memory):
    return mem.workspace / "memory" / f"{datetime.now(UTC).date()}.md"


def keyword_paths(mem: Memory, query: str) -> set[str]:
    return {r[0] for r in mem.index.conn().execute(
        "SELECT c.path FROM memory_index_chunks_fts f JOIN memory_index_chunks c ON c.seq = f.rowid "
        "WHERE memory_index_chunks_fts MATCH ?", (build_query(query).strict,))}


def tool(mem: Memory, name: str):
    return {t.name: t for t in mem.tools()}[name]


def test_clean_text_keeps_tab_and_newline_and_names_what_it_removed():
    out = clean_text("a\x00b\tc\r\nd\x07e\x1bf\x7f\x85g\ud800h")
    assert out.text == "ab\tc\ndefgh"
    assert out.removed == {"NUL character": 1, "other control character": 4, "lone surrogate": 1}
    assert out.summary() == "removed 1 NUL character, 4 other control characters and 1 lone surrogate"
    plain = clean_text("湖边酒店 hotel\n- second line")
    assert plain.text == "湖边酒店 hotel\n- second line" and plain.removed == {} and plain.summary() == ""


def test_memory_append_with_a_nul_keeps_the_whole_day_findable(fake_memory: Memory):
    fake_memory.remember("booked the lakeside hotel for the Hangzhou trip")
    out = tool(fake_memory, "memory_append").call({"text": "train at nine\x00 from Shanghai"})
    assert out["status"] == "appended" and out["cleaned"] == "removed 1 NUL character"
    raw = today_note(fake_memory).read_bytes()
    assert b"\x00" not in raw and b"train at nine from Shanghai" in raw
    report = fake_memory.sync()
    assert today_note(fake_memory).relative_to(fake_memory.workspace).as_posix() not in report.problems
    assert keyword_paths(fake_memory, "lakeside") == {f"memory/{today_note(fake_memory).name}"}
    assert keyword_paths(fake_memory, "Shanghai") == {f"memory/{today_note(fake_memory).name}"}


def test_a_lone_surrogate_is_removed_not_an_internal_error(fake_memory: Memory):
    out = tool(fake_memory, "memory_append").call({"text": "half a pair \ud83d here"})
    assert out["cleaned"] == "removed 1 lone surrogate"
    assert "half a pair  here" in today_note(fake_memory).read_text(encoding="utf-8")


def test_text_that_is_only_control_characters_is_refused_and_nothing_written(fake_memory: Memory):
    import pytest

    from reverie.tools import ToolError

    with pytest.raises(ToolError, match="empty.*removed 3 NUL characters"):
        tool(fake_memory, "memory_append").call({"text": "\x00\x00\x00"})
    assert not today_note(fake_memory).exists()


def test_mcp_append_is_cleaned_and_says_so(fake_memory: Memory):
    async def go():
        async with Client(build_server(fake_memory.tools())) as c:
            return await c.call_tool("memory_append", {"text": "wifi code\x00 is 2468\x1b[31m"})

    result = asyncio.run(go())
    assert result.is_error is False, result.content
    payload = json.loads(result.content[0].text)
    assert payload["cleaned"] == "removed 1 NUL character and 1 other control character"
    assert "wifi code is 2468[31m" in today_note(fake_memory).read_text(encoding="utf-8")


def test_chat_tool_call_is_cleaned_and_the_model_is_told(fake_memory: Memory):
    script = {"steps": {"turn": [{"toolCalls": [{"name": "memory_append",
                                                 "arguments": {"text": "seat 12A\x00 by the window"}}]},
                                 {"afterTools": True, "reply": "saved"}]}}
    rt = fake_memory.runtime(ScriptedModel(script=script))
    assert rt.send("remember my seat").reply == "saved"
    (res,) = rt.store.events(rt.session.session_id, kinds=("tool_result",))
    assert json.loads(res.message.content)["cleaned"] == "removed 1 NUL character"
    rt.close()
    assert b"\x00" not in today_note(fake_memory).read_bytes()


def test_flush_tool_cleans_and_says_so(fake_memory: Memory):
    when = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    result = FlushResult(status="running", trigger="test")
    t = flush_tool(fake_memory.workspace, UTC, when, result, threading.Event())
    out = t.call({"text": "decided\x00 to fly\x08 back on Sunday"})
    assert out["status"] == "appended" and "1 NUL character" in out["cleaned"]
    note = (fake_memory.workspace / "memory" / "2026-03-01.md").read_bytes()
    assert b"decided to fly back on Sunday" in note and b"\x00" not in note and b"\x08" not in note


def test_session_note_and_automation_text_are_cleaned(fake_memory: Memory):
    when = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
    body = render_note([("user", "the code is\x00 1234"), ("assistant", "ok\x07")], when=when,
                       session_key="k", session_id="s", source="cli")
    assert "\x00" not in body and "\x07" not in body and "user: the code is 1234" in body
    # automations (cron system events) append through append_daily, which cleans too
    path = append_daily(fake_memory.workspace, "[automation] water\x00 the plants", now=when, tz=UTC)
    assert b"\x00" not in path.read_bytes() and b"water the plants" in path.read_bytes()


def test_decode_note_replaces_bad_bytes_and_keeps_line_numbers():
    text, problem = decode_note(b"# day\n- one\x00 two\n- caf\xe9\n- three\n")
    assert text == "# day\n- one\ufffd two\n- caf\ufffd\n- three\n"
    assert "1 NUL byte (first at byte 11)" in problem and "invalid UTF-8 (first at byte 22)" in problem
    assert decode_note(b"- fine\n") == ("- fine\n", None)
    text, problem = decode_note(bytes(range(256)) * 8)
    assert text is None and "binary" in problem


def test_a_nul_written_by_another_program_does_not_hide_the_day(fake_memory: Memory):
    note = fake_memory.workspace / "memory" / "2026-03-01.md"
    note.write_bytes(b"# 2026-03-01\n\n- 09:00 booked the lakeside hotel\n- 10:00 junk \x00\x00 here\n"
                     b"- 11:00 bought the train tickets\n")
    report = fake_memory.sync()
    assert "NUL" in report.problems["memory/2026-03-01.md"]
    assert keyword_paths(fake_memory, "lakeside") == {"memory/2026-03-01.md"}
    assert keyword_paths(fake_memory, "tickets") == {"memory/2026-03-01.md"}
    # status names the repair, and keeps naming it while the file is unchanged
    for _ in range(2):
        listed = {p["path"]: p["problem"] for p in fake_memory.status()["problems"]}
        assert "2 NUL bytes" in listed["memory/2026-03-01.md"] and "replaced" in listed["memory/2026-03-01.md"]
        assert fake_memory.status()["dirty"] is False
        fake_memory.sync()
    got = fake_memory.get("memory/2026-03-01.md")
    assert "- 10:00 junk \ufffd\ufffd here" in got["text"] and "NUL" in got["warning"]
    # fixed by hand: indexed plainly and no longer listed
    note.write_bytes(note.read_bytes().replace(b"\x00", b""))
    fake_memory.sync()
    assert "memory/2026-03-01.md" not in {p["path"] for p in fake_memory.status()["problems"]}
