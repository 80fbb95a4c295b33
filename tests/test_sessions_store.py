"""Transcripts in the agent database: complete JSON events, compression, session rows (reference
§20), /new and /reset keeping the old transcript, JSONL export and import, the window plan (§14.1)."""

from __future__ import annotations

import json
import zlib

import pytest

from reverie import Memory
from reverie.config import CompactionSettings, load_settings
from reverie.errors import UserError
from reverie.models.base import ChatMessage, ToolCall
from reverie.sessions import (TRANSCRIPT_MIGRATIONS, TranscriptStore, export_lines, import_jsonl, normalize_key,
                              parse_jsonl, window_plan)
from reverie.sessions.keys import channel_of, chat_type_of
from reverie.store import connect


@pytest.fixture
def store(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    s = TranscriptStore(mem.places.agent_db)
    yield s
    s.close()


def test_events_are_complete_json_and_long_ones_compressed(store):
    row = store.start_session("agent:main:main", chat_type="direct", channel="cli", sender="me")
    short = store.append_message(row.session_id, "user", ChatMessage("user", "我们决定住湖滨酒店"))
    long_text = "lorem ipsum dolor sit amet " * 400  # ~10 KiB
    big = store.append_message(row.session_id, "assistant", ChatMessage("assistant", long_text))
    call = store.append_message(row.session_id, "tool_call", ChatMessage(
        "assistant", "", [ToolCall("c1", "memory_search", {"query": "酒店"})]))
    store.append_message(row.session_id, "tool_result", ChatMessage("tool", '{"results": []}', tool_call_id="c1",
                                                                    name="memory_search"))
    rows = store.conn.execute("SELECT position, kind, encoding, body, bytes FROM transcript_events "
                              "WHERE session_id = ? ORDER BY position", (row.session_id,)).fetchall()
    assert [r[:3] for r in rows] == [(1, "user", "json"), (2, "assistant", "zlib"), (3, "tool_call", "json"),
                                     (4, "tool_result", "json")]
    doc = json.loads(rows[0][3])
    assert doc["type"] == "user" and doc["sessionId"] == row.session_id and doc["sessionKey"] == "agent:main:main"
    assert doc["message"] == {"role": "user", "content": "我们决定住湖滨酒店"} and doc["timestamp"].endswith("Z")
    raw = zlib.decompress(rows[1][3])
    assert len(raw) == rows[1][4] > 4096 and len(rows[1][3]) < len(raw) / 5
    assert json.loads(raw)["message"]["content"] == long_text
    # read back through the store, messages intact
    events = store.events(row.session_id)
    assert events[1].message.content == long_text and events[0].event_id == short.event_id
    assert events[2].message.tool_calls[0].arguments == {"query": "酒店"} and events[2].seq == call.seq
    s = store.session(row.session_id)
    assert s.event_count == 4 and s.transcript_bytes == sum(r[4] for r in rows)
    assert s.sender == "me" and s.channel == "cli" and s.chat_type == "direct"
    assert s.last_interaction_at is not None and s.compaction_count == 0 and not s.flushed_this_cycle
    assert big.bytes > 4096


def test_system_events_do_not_extend_freshness(store):
    row = store.start_session("agent:main:main")
    store.append_message(row.session_id, "user", ChatMessage("user", "hi"), at=1_000)
    store.append(row.session_id, "system", {"text": "heartbeat"}, at=5_000)
    assert store.session(row.session_id).last_interaction_at == 1_000


def test_migrations_are_named_and_applied_once(store):
    conn = connect(store.db_path)
    assert TRANSCRIPT_MIGRATIONS.applied(conn) == ["0001_sessions_events_fts", "0002_trust"]
    assert TRANSCRIPT_MIGRATIONS.pending(conn) == []
    conn.close()


def test_new_and_reset_start_new_ids_and_keep_the_old_transcript(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    rt = mem.runtime("offline")
    rt.send("first session: I prefer tea")
    first = rt.session.session_id
    rt.send("/new")
    second = rt.session.session_id
    rt.send("/reset")
    third = rt.session.session_id
    rt.wait_for_hooks(10)
    assert len({first, second, third}) == 3
    rows = {r.session_id: r for r in rt.store.sessions("agent:main:main")}
    assert rows[first].ended_reason == "new" and rows[second].ended_reason == "reset" and rows[third].ended_at is None
    texts = [e.text for e in rt.store.events(first, kinds=("user",))]
    assert texts == ["first session: I prefer tea"]
    assert [e.data["command"] for e in rt.store.events(first, kinds=("command",))] == ["new"]
    rt.close()
    # a new process resumes the open session of the key
    rt2 = Memory(overrides=['memory.search.provider="none"']).runtime("offline")
    assert rt2.session.session_id == third
    rt2.close()


def test_session_keys():
    assert normalize_key(None, "main") == "agent:main:main"
    assert normalize_key("telegram:group:42", "main") == "agent:main:telegram:group:42"
    assert chat_type_of("agent:main:telegram:group:42") == "group" and channel_of("agent:main:telegram:group:42") == "telegram"
    assert chat_type_of("agent:main:main") == "direct"
    assert normalize_key("cron:job1", "main") == "cron:job1"
    with pytest.raises(UserError, match="belongs to agent 'other'"):
        normalize_key("agent:other:main", "main")
    with pytest.raises(UserError):
        normalize_key("has space", "main")


@pytest.mark.parametrize("window,reserve,soft,flush_at,compact_at,keep", [
    (8_000, 4_000, 2_000, 2_000, 4_000, 2_000),
    (16_000, 8_000, 4_000, 4_000, 8_000, 4_000),
    (24_000, 16_000, 4_000, 4_000, 8_000, 4_000),
    (32_000, 20_000, 4_000, 8_000, 12_000, 6_000),
    (128_000, 20_000, 4_000, 104_000, 108_000, 20_000),
    (200_000, 20_000, 4_000, 176_000, 180_000, 20_000),
])
def test_window_plan_matches_the_reference_table(window, reserve, soft, flush_at, compact_at, keep):
    p = window_plan(window, CompactionSettings())
    assert (p.reserve, p.soft, p.flush_threshold, p.compaction_threshold, p.keep_recent) == \
        (reserve, soft, flush_at, compact_at, keep)
    assert p.force_flush_bytes == 2 * 1024 * 1024


def test_byte_and_duration_settings():
    s = load_settings(None, {}, ["compaction.memoryFlush.forceFlushTranscriptBytes=512kb", "sessions.pruning.ttl=1h"])
    assert s.compaction.memory_flush.force_flush_transcript_bytes == 512 * 1024
    assert s.sessions.pruning.ttl == 3600
    with pytest.raises(UserError, match="forceFlushTranscriptBytes"):
        load_settings(None, {}, ["compaction.memoryFlush.forceFlushTranscriptBytes=lots"])


# -- JSONL ------------------------------------------------------------------------------------------
OPENAI_LINES = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "我们决定住湖滨酒店。", "timestamp": "2026-05-01T08:00:00Z"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "memory_search", "arguments": "{\"query\": \"酒店\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "name": "memory_search", "content": "{\"results\": []}"},
    {"role": "assistant", "content": [{"type": "text", "text": "Noted: the Lakeside Hotel."}]},
]


def test_import_then_export_round_trip(store, tmp_path):
    src = tmp_path / "history.jsonl"
    src.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in OPENAI_LINES) + "\n\n", encoding="utf-8")
    rep = import_jsonl(store, src, session_key="agent:main:import:history", chat_type="direct", channel="import",
                       sender=None)
    assert rep.messages == 5 and len(rep.sessions) == 1
    row = store.session(rep.sessions[0])
    assert row.origin == "import" and row.ended_reason == "import" and row.started_at == 1777622400000
    kinds = [e.kind for e in store.events(row.session_id)]
    assert kinds == ["system", "user", "tool_call", "tool_result", "assistant"]
    out = [json.loads(line) for line in export_lines(store, row)]
    assert [m["role"] for m in out] == ["system", "user", "assistant", "tool", "assistant"]
    assert out[2]["tool_calls"][0]["function"] == {"name": "memory_search", "arguments": "{\"query\": \"酒店\"}"}
    assert out[3]["tool_call_id"] == "call_1" and out[4]["content"] == "Noted: the Lakeside Hotel."
    # imported text is searchable at once, Chinese included
    hits = store.conn.execute("SELECT count(*) FROM transcript_fts WHERE transcript_fts MATCH '\"酒店\"'").fetchone()[0]
    assert hits == 1


def test_import_conversations_per_line_and_bad_lines(store, tmp_path):
    src = tmp_path / "ft.jsonl"
    src.write_text("\n".join(json.dumps({"messages": [{"role": "user", "content": f"q{i}"},
                                                      {"role": "assistant", "content": f"a{i}"}]})
                             for i in range(3)), encoding="utf-8")
    rep = import_jsonl(store, src, session_key="agent:main:ft", chat_type="direct", channel="import", sender=None)
    assert len(rep.sessions) == 3 and rep.messages == 6
    with pytest.raises(UserError, match="line 2"):
        parse_jsonl(['{"role": "user", "content": "ok"}', "{not json"])
    with pytest.raises(UserError, match="role"):
        parse_jsonl(['{"role": "wizard", "content": "x"}'])
    # a failed import writes nothing
    before = len(store.sessions())
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "fine"}\n{"role": 3}\n', encoding="utf-8")
    with pytest.raises(UserError, match="line 2"):
        import_jsonl(store, bad, session_key="agent:main:bad", chat_type="direct", channel="import", sender=None)
    assert len(store.sessions()) == before
