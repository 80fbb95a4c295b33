"""Transcript search rows made again from the events (``reverie doctor --repair``, ``reverie db move``,
forget's rewrite, an imported session) are exactly the rows the runtime's writes made: memory
recalled into a session and quoted by the agent stays out of transcript search, before and after.

A rebuild used to index an agent message's whole text, recalled spans included, so after a repair
``sessions_search`` found text that had only ever been recalled memory (docs/trust.md)."""

from __future__ import annotations

import json
import os

import apsw
import pytest

from cli_helpers import cli, ok
from engines import transcript_hits
from reverie import Memory
from reverie.models.scripted import ScriptedModel
from reverie.sessions import TranscriptStore
from reverie.sessions.store import rebuild_search_index
from reverie.store import transaction

HOTEL = "Decided: we stay at the Lakeside Hotel in Hangzhou, two nights, room 1208."
NEW = "I also booked a taxi for nine tomorrow morning."
LATER = "The ferry to the island leaves at noon."


def search_rows(conn) -> list[tuple]:
    """Every transcript search row, as stored, on either engine."""
    if getattr(conn, "engine", "sqlite") == "postgres":
        rows = conn.execute("SELECT seq, session_id, role, tokens FROM transcript_search ORDER BY seq").fetchall()
        return [(seq, sid, role, sorted(tokens)) for seq, sid, role, tokens in rows]
    return [tuple(r) for r in conn.execute("SELECT rowid, text, session_id, role FROM transcript_fts ORDER BY rowid")]


def content(rows: list[tuple], session_id: str) -> list[tuple]:
    """The rows of one session without their sequence numbers (what a copy of it must equal)."""
    return [tuple(v for v in r[1:] if v != session_id) for r in rows if session_id in r[1:3]]


def quoting_session(mem: Memory) -> str:
    """Two conversations whose agent searched memory and quoted the hit (plus a sentence of its
    own), written through the runtime as any chat is. Returns the second session's id."""
    mem.remember(HOTEL)
    mem.sync()
    for key, own in (("agent:main:trip", NEW), ("agent:main:plans", LATER)):
        script = {"steps": {"turn": [
            {"toolCalls": [{"name": "memory_search", "arguments": {"query": "Lakeside Hotel Hangzhou"}}]},
            {"afterTools": True, "reply": f"You told me: {HOTEL}\n{own}"}]}}
        rt = mem.runtime(ScriptedModel(script=script), session=key)
        try:
            rt.send("Where are we staying in Hangzhou?")
            sid = rt.session.session_id
        finally:
            rt.close()
    return sid


def findable(mem: Memory, query: str) -> bool:
    rt = mem.runtime("offline")
    try:
        return bool({t.name: t for t in rt.tools()}["sessions_search"].call({"query": query})["results"])
    finally:
        rt.close()


@pytest.mark.usefixtures("store_backend")
def test_a_rebuild_gives_exactly_the_rows_the_runtime_wrote(fake_memory):
    mem = fake_memory
    quoting_session(mem)
    store = TranscriptStore(mem.agent_store)
    try:
        before = search_rows(store.conn)
        assert before and transcript_hits(store.conn, "taxi") == 1 == transcript_hits(store.conn, "ferry") and transcript_hits(store.conn, "Lakeside") == 0
        with transaction(store.conn):
            written = rebuild_search_index(store.conn)
        assert written == len(before)
        assert search_rows(store.conn) == before
        assert transcript_hits(store.conn, "Lakeside") == 0 and transcript_hits(store.conn, "1208") == 0
    finally:
        store.close()
    assert not findable(mem, "Lakeside Hotel room 1208")
    assert findable(mem, "taxi tomorrow morning") and findable(mem, "where are we staying")


def test_doctor_repair_does_not_index_recalled_memory(fake_memory, reverie_home):
    mem = fake_memory
    quoting_session(mem)
    db = mem.places.agent_db
    mem.close()
    conn = apsw.Connection(str(db))
    before = search_rows(conn)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(db, "r+b") as fh:  # a garbage header: every row is saved, the search rows are rebuilt
        fh.write(os.urandom(100))
    out = json.loads(ok(cli(reverie_home, "doctor", "--repair", "--json")).stdout)
    (agent,) = [d for d in out["databases"] if d["database"] == "agent database"]
    assert agent["status"] == "repaired"
    assert "rebuilt" in {t["table"]: t for t in agent["tables"]}["transcript_fts"]["note"]
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert search_rows(conn) == before
    finally:
        conn.close()
    found = json.loads(ok(cli(reverie_home, "sessions", "search", "Lakeside room 1208", "--json")).stdout)
    assert found["results"] == []
    found = json.loads(ok(cli(reverie_home, "sessions", "search", "taxi", "--json")).stdout)
    assert found["results"]


@pytest.mark.usefixtures("store_backend")
def test_a_restored_session_is_indexed_as_it_was_written(fake_memory):
    mem = fake_memory
    sid = quoting_session(mem)
    store = TranscriptStore(mem.agent_store)
    try:
        row = {k: v for k, v in store.session(sid).__dict__.items()}
        events = [(ev.kind, {k: v for k, v in ev.data.items()
                             if k not in ("id", "type", "sessionId", "sessionKey", "position", "timestamp")},
                   ev.created_at, ev.event_id + "-copy") for ev in store.events(sid)]
        row["session_id"] = sid + "-copy"
        assert store.restore_session(row, events)
        rows = search_rows(store.conn)
        assert content(rows, sid + "-copy") == content(rows, sid) != []
        assert transcript_hits(store.conn, "Lakeside") == 0 and transcript_hits(store.conn, "ferry") == 2
    finally:
        store.close()


@pytest.mark.usefixtures("store_backend")
def test_forget_text_keeps_recalled_memory_out_of_the_rewritten_rows(fake_memory):
    from reverie.forget import Selectors, forget

    mem = fake_memory
    quoting_session(mem)
    forget(mem, Selectors(texts=["booked a taxi for nine"]))
    store = TranscriptStore(mem.agent_store)
    try:
        after = search_rows(store.conn)
        assert transcript_hits(store.conn, "taxi") == 0 and transcript_hits(store.conn, "Lakeside") == 0
        with transaction(store.conn):
            rebuild_search_index(store.conn)
        assert search_rows(store.conn) == after
    finally:
        store.close()
