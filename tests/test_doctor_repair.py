"""A damaged agent database (issue 10 point 6): every command that meets it names the repair instead
of an internal error, and `reverie doctor --repair` salvages what can be read into a new file,
keeps the damaged one beside it, and says per table what was lost, truthfully."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import apsw
import pytest

from cli_helpers import batch, cli, ok, one_error

EVENTS_PER_SESSION = 60
SESSIONS = 25
INTENTS = 40


def _counts(db: Path) -> dict[str, int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN "
                                            "('sessions', 'transcript_events', 'standing_intents', "
                                            "'memory_embedding_cache', 'standing_intent_fires')")]
        return {n: conn.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        conn.close()


@pytest.fixture
def agent_db(reverie_home) -> Path:
    """A real agent database: transcripts, standing intents and an embedding cache, all in the
    main file (checkpointed), as a long-used agent has."""
    from reverie import Memory
    from reverie.intents import TurnContext
    from reverie.models.base import ChatMessage
    from reverie.sessions import TranscriptStore

    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    for i in range(60):
        (mem.workspace / "memory" / f"2026-05-{i % 28 + 1:02d}-{i}.md").write_text(
            f"# note {i}\n\n- decided item {i}: the lake-view room {i} was over budget\n", encoding="utf-8")
    mem.sync()
    owner = TurnContext(channel="cli", sender="local-owner", owner=True)
    for i in range(INTENTS):
        mem.intents.create(owner, description=f"remind me about topic {i}", trigger_keywords=[f"topic{i}"])
    store = TranscriptStore(mem.places.agent_db)
    for s in range(SESSIONS):
        sid = store.start_session(f"agent:main:s{s}").session_id
        for e in range(EVENTS_PER_SESSION):
            role = "user" if e % 2 == 0 else "assistant"
            store.append_message(sid, role, ChatMessage(role, f"session {s} message {e}: " + "words " * 40))
    store.close()
    mem.close()
    db = mem.places.agent_db
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return db


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _repair(home: Path) -> dict:
    r = ok(cli(home, "doctor", "--repair", "--json"))
    (agent,) = [d for d in json.loads(r.stdout)["databases"] if d["database"] == "agent database"]
    return agent


def _assert_truthful(report: dict, before: dict[str, int], after: dict[str, int]) -> None:
    """What the report says was lost is what is missing; 'nothing lost' is never said wrongly."""
    tables = {t["table"]: t for t in report["tables"]}
    for name, n in before.items():
        t = tables[name]
        assert after[name] == t["copied"], (name, t)
        if t["lost"] is not None:
            assert after[name] + t["lost"] == n, (name, t, after[name], n)


def test_a_truncated_agent_database_names_the_repair_and_is_salvaged(reverie_home, agent_db):
    before = _counts(agent_db)
    size = agent_db.stat().st_size
    with open(agent_db, "r+b") as fh:
        fh.truncate(int(size * 0.6))
    damaged = _sha(agent_db)
    status, *others = batch(reverie_home, ["status", "--json"], ["intent", "list"], ["sessions", "list"], ["index"],
                            ["chat", "-m", "hello"])
    for r in others:
        line = one_error(r)  # exit 1, one line, no traceback, no "internal error"
        assert "is damaged" in line and "reverie doctor --repair" in line and str(agent_db) in line, r.args
    seen = json.loads(ok(status).stdout)  # status reports what it can, and names the repair
    assert seen["store"]["damaged"] is True and seen["action"] == "reverie doctor --repair"

    report = _repair(reverie_home)
    assert report["status"] == "repaired" and "malformed" in report["problem"]
    kept = Path(report["kept"])
    assert kept.parent == agent_db.parent and _sha(kept) == damaged  # the damaged file, byte for byte
    after = _counts(agent_db)
    _assert_truthful(report, before, after)
    assert after["transcript_events"] > 0 and after["standing_intents"] + after["transcript_events"] > 0
    assert report["complete"] is False
    # every command works again, on what was saved
    status, listed, sessions = batch(reverie_home, ["status", "--json"], ["intent", "list", "--json"],
                                     ["sessions", "list", "--json", "--limit", "100"])
    ok(status)
    assert len(json.loads(ok(listed).stdout)["intents"]) == after["standing_intents"]
    assert len(json.loads(ok(sessions).stdout)["sessions"]) == after["sessions"]
    assert ok(cli(reverie_home, "doctor", "--repair")).stderr.startswith("agent database: healthy")


def test_a_damaged_page_loses_only_the_rows_on_it(reverie_home, agent_db):
    before = _counts(agent_db)
    conn = apsw.Connection(str(agent_db), flags=apsw.SQLITE_OPEN_READONLY)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.close()
    victim = pages // 2  # a page well inside the transcripts
    with open(agent_db, "r+b") as fh:
        fh.seek((victim - 1) * page_size)
        fh.write(os.urandom(page_size))
    report = _repair(reverie_home)
    after = _counts(agent_db)
    _assert_truthful(report, before, after)
    total_before = sum(before.values())
    assert sum(after.values()) >= total_before - 3 * (page_size // 100)  # at most a page or so of rows
    assert after["standing_intents"] == before["standing_intents"]
    # the session search index is made again from the saved events, whatever page was hit
    conn = apsw.Connection(str(agent_db), flags=apsw.SQLITE_OPEN_READONLY)
    indexed = conn.execute("SELECT count(*) FROM transcript_fts").fetchone()[0]
    events = conn.execute("SELECT count(*) FROM transcript_events WHERE kind IN ('user', 'assistant')").fetchone()[0]
    conn.close()
    assert indexed == events == after["transcript_events"]


def test_a_garbage_header_loses_nothing(reverie_home, agent_db):
    before = _counts(agent_db)
    with open(agent_db, "r+b") as fh:
        fh.write(os.urandom(100))
    line = one_error(cli(reverie_home, "intent", "list"))
    assert "file is not a database" in line and "doctor --repair" in line
    report = _repair(reverie_home)
    assert report["headerRebuilt"] is True and report["complete"] is True and report["lostRows"] == 0
    assert _counts(agent_db) == before
    found = json.loads(ok(cli(reverie_home, "sessions", "search", "message", "--json")).stdout)["results"]
    assert found  # the session search index came back with the transcripts


def test_committed_rows_still_in_the_wal_are_salvaged(reverie_home, agent_db):
    from reverie.intents import IntentStore, TurnContext

    before = _counts(agent_db)
    store = IntentStore(agent_db)
    conn = store.conn()
    conn.config(apsw.SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1)  # as a killed process leaves it
    store.create(TurnContext(channel="cli", sender="local-owner", owner=True), description="only in the WAL",
                 trigger_keywords=["walonly"])
    store.close()
    wal = Path(f"{agent_db}-wal")
    assert wal.stat().st_size > 0
    with open(agent_db, "r+b") as fh:
        fh.write(os.urandom(100))
    _repair(reverie_home)
    assert _counts(agent_db)["standing_intents"] == before["standing_intents"] + 1
    listed = json.loads(ok(cli(reverie_home, "intent", "list", "--json")).stdout)["intents"]
    assert "only in the WAL" in [i["description"] for i in listed]


def test_a_healthy_database_is_left_alone(reverie_home, agent_db):
    digest = _sha(agent_db)
    r = ok(cli(reverie_home, "doctor", "--repair"))
    assert "agent database: healthy, nothing to repair" in r.stderr
    assert _sha(agent_db) == digest and not list(agent_db.parent.glob("*.damaged-*"))


def test_the_report_speaks_per_table(reverie_home, agent_db):
    with open(agent_db, "r+b") as fh:
        fh.truncate(agent_db.stat().st_size // 2)
    r = ok(cli(reverie_home, "doctor", "--repair"))
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"agent database {agent_db} was damaged (")
    assert lines[1].startswith(f"  the damaged file is kept at {agent_db}.damaged-")
    assert any(line.startswith("  transcript_events (conversation events): ") for line in lines)
    assert any(line.startswith("  standing_intents (standing intents): ") for line in lines)
    assert lines[-1].startswith("restart any other reverie process")


def test_an_mcp_tool_meeting_a_damaged_database_names_the_repair(reverie_home, agent_db):
    import asyncio

    from reverie.mcp.client import Client

    from reverie import Memory
    from reverie.mcp.server import build_server
    from reverie.repair import diagnose

    with open(agent_db, "r+b") as fh:
        fh.truncate(agent_db.stat().st_size // 2)
    mem = Memory(overrides=['memory.search.provider="fake"'])

    async def go():
        server = build_server(mem.tools(), diagnose=lambda exc: diagnose(exc, [mem.places]))
        async with Client(server) as c:
            return await c.call_tool("intent_list", {})

    try:
        result = asyncio.run(go())
    finally:
        mem.close()
    text = result.content[0].text
    assert result.is_error and "is damaged" in text and "reverie doctor --repair" in text


# -- the migration ledger (issue 31 item 1) ----------------------------------------------------------
def _root_page(db: Path, table: str) -> tuple[int, int]:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        root = conn.execute("SELECT rootpage FROM sqlite_schema WHERE name = ?", (table,)).fetchone()[0]
        return root, conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()


def _installed_at(db: Path) -> str:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        return conn.execute("SELECT value FROM trust_meta WHERE key = 'installed_at'").fetchone()[0]
    finally:
        conn.close()


def test_a_damaged_ledger_page_is_seen_and_the_repaired_file_indexes_again(reverie_home, agent_db):
    """The ledger's own page damaged: the repaired file used to keep the trust tables without their
    ledger rows, and every later `index` failed with 'table ... already exists'."""
    installed = _installed_at(agent_db)
    root, page_size = _root_page(agent_db, "reverie_migrations")
    with open(agent_db, "r+b") as fh:
        fh.seek((root - 1) * page_size)
        fh.write(os.urandom(page_size))
    status = json.loads(ok(cli(reverie_home, "status", "--json")).stdout)
    assert status["store"]["damaged"] is True and status["action"] == "reverie doctor --repair"
    assert any(w.startswith("agent database damaged: ") for w in status["warnings"])

    report = _repair(reverie_home)
    assert report["status"] == "repaired"
    remember, index, force, again = batch(reverie_home, ["remember", "after the repair: the kayak is blue"],
                                          ["index"], ["index", "--force"], ["doctor", "--repair"])
    ok(remember)
    assert "provenance not recorded" not in remember.stderr
    ok(index), ok(force)
    assert again.stderr.startswith("agent database: healthy")
    found = json.loads(ok(cli(reverie_home, "search", "kayak", "--json")).stdout)["results"]
    assert found and "kayak" in found[0]["snippet"]
    assert _installed_at(agent_db) == installed  # the file's own install time, not the repair's


def test_a_ledger_that_lost_rows_is_named_and_repaired(reverie_home, agent_db):
    """A file left by the old repair (tables there, their ledger rows gone): commands name the
    repair instead of an internal error, `doctor` fails the leg, `doctor --repair` fixes it."""
    conn = apsw.Connection(str(agent_db))
    conn.execute("DELETE FROM reverie_migrations WHERE component = 'trust'")
    conn.close()
    installed = _installed_at(agent_db)
    ok(cli(reverie_home, "remember", "a new note the index must read"))
    line = one_error(cli(reverie_home, "index"))
    assert "migration ledger does not record trust/0001_daily_provenance" in line and "doctor --repair" in line
    doctor = cli(reverie_home, "doctor", "--json")
    assert doctor.returncode == 1
    (leg,) = [g for g in json.loads(doctor.stdout)["legs"] if g["name"] == "agent database"]
    assert not leg["ok"] and "trust/0001_daily_provenance" in leg["detail"]

    before = _counts(agent_db)
    report = _repair(reverie_home)
    assert report["status"] == "repaired" and "migration ledger" in report["problem"]
    assert report["complete"] is True and _counts(agent_db) == before
    ok(cli(reverie_home, "index", "--force"))
    assert _installed_at(agent_db) == installed
    status = json.loads(ok(cli(reverie_home, "status", "--json")).stdout)
    assert status["store"]["ok"] is True and "damaged" not in status["store"]
