"""What only the shared PostgreSQL engine has: its schema migrated once under a lock, row-level
security between agents (and a login role bound to one agent), several processes writing several
agents at once, moving an agent's rows between the engines (resumable, verified), the local server
commands and a clear error when the server cannot be reached. Everything else runs on both engines
through the ``store_backend`` parameter (conftest.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import uuid

import pytest

from reverie import Memory
from reverie.errors import UserError
from reverie.models.base import ChatMessage
from reverie.sessions import TranscriptStore
from reverie.store import PostgresAgentDatabase, SqliteAgentDatabase, connect
from reverie.store.move import TABLES, move
from reverie.store.postgres.dialect import translate
from reverie.store.postgres.schema import MIGRATIONS

from engines import engine_env

FAKE = 'memory.search.provider="fake"'


def key() -> str:
    return f"t{uuid.uuid4().hex[:12]}"


def conninfo(dsn: str, **kw) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(dsn, **kw)


def run_py(code: str, env: dict | None = None, timeout: int = 120) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})


def finish(p: subprocess.Popen, timeout: int = 120) -> str:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    return out


# -- the SQL dialect -----------------------------------------------------------------------------------
def test_the_dialect_rewrites_only_the_idioms_it_lists():
    assert translate("INSERT OR IGNORE INTO t(a) VALUES (?)") == "INSERT INTO t(a) VALUES (%s) ON CONFLICT DO NOTHING"
    assert translate("INSERT INTO t(k, v) VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v") == \
        "INSERT INTO t(k, v) VALUES (%s, %s) ON CONFLICT (agent_id, k) DO UPDATE SET v = excluded.v"
    assert translate("SELECT max(a, b), max(c) FROM t WHERE x LIKE '50%?'") == \
        "SELECT greatest(a, b), max(c) FROM t WHERE x LIKE '50%%?'"  # a ? inside a literal stays
    assert translate("PRAGMA wal_checkpoint(TRUNCATE)") == "SELECT 1 WHERE false"


# -- schema ----------------------------------------------------------------------------------------------
def test_the_schema_migrates_once_when_processes_start_together(fresh_db):
    code = f"""
        import json
        from reverie.store.postgres.pool import migrate
        print(json.dumps(migrate({fresh_db!r})))
    """
    procs = [run_py(code) for _ in range(4)]
    ran = [json.loads(finish(p)) for p in procs]
    assert sorted(len(r) for r in ran) == [0, 0, 0, len(MIGRATIONS)]  # one process applied them all
    from reverie.store.postgres.pool import pending_migrations, raw_connect

    with raw_connect(fresh_db) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM reverie.schema_migrations ORDER BY version")]
    assert versions == [m.version for m in MIGRATIONS] and pending_migrations(fresh_db) == []


# -- agents apart ----------------------------------------------------------------------------------------
def _session(db, text: str) -> str:
    store = TranscriptStore(db)
    row = store.start_session("agent:main:main")
    store.append_message(row.session_id, "user", ChatMessage("user", text))
    store.close()
    return row.session_id


def test_an_agent_sees_only_its_rows_and_a_bound_role_cannot_claim_another(pg_dsn):
    from reverie.store.postgres.admin import grant_agent
    from reverie.store.postgres.pool import raw_connect

    a, b = key(), key()
    sa = _session(PostgresAgentDatabase(pg_dsn, a), "alpha's hotel is the Lakeside")
    sb = _session(PostgresAgentDatabase(pg_dsn, b), "beta's hotel is the Hilltop")
    as_b = TranscriptStore(PostgresAgentDatabase(pg_dsn, b))
    assert [s.session_id for s in as_b.sessions()] == [sb]
    assert as_b.session(sa) is None
    as_b.close()
    role = f"r_{a}"
    grant_agent(pg_dsn, a, role)
    role_dsn = conninfo(pg_dsn, user=role)
    # the role claims to be agent b: row-level security still shows it agent a's rows only
    claims_b = TranscriptStore(PostgresAgentDatabase(role_dsn, b))
    assert [s.session_id for s in claims_b.sessions()] == [sa]
    claims_b.close()
    with raw_connect(role_dsn) as conn:
        conn.execute("SELECT set_config('reverie.agent_id', %s, false)", (b,))
        assert conn.execute("SELECT count(*) FROM sessions WHERE agent_id = %s", (b,)).fetchone()[0] == 0
        with pytest.raises(Exception, match="row-level security"):
            conn.execute("INSERT INTO trust_meta(agent_id, key, value) VALUES (%s, 'x', 'y')", (b,))
        with pytest.raises(Exception, match="permission denied"):
            conn.execute("SELECT * FROM agent_roles")


def test_two_processes_write_two_agents_while_a_third_reads(pg_dsn):
    ns = key()
    writer = """
        import sys
        from reverie.models.base import ChatMessage
        from reverie.sessions import TranscriptStore
        from reverie.store import PostgresAgentDatabase
        store = TranscriptStore(PostgresAgentDatabase({dsn!r}, {agent!r}))
        row = store.start_session("agent:main:main")
        for i in range(60):
            store.append_message(row.session_id, "user", ChatMessage("user", f"{agent} note {{i}} 湖景房"))
        store.close()
    """
    reader = f"""
        import time
        from reverie.sessions import TranscriptStore
        from reverie.store import PostgresAgentDatabase
        store = TranscriptStore(PostgresAgentDatabase({pg_dsn!r}, "{ns}/a"))
        seen = 0
        for _ in range(40):
            for s in store.sessions():
                evs = store.events(s.session_id)
                assert all(e.text.startswith("{ns}/a ") for e in evs), "another agent's event"
                assert [e.position for e in evs] == list(range(1, len(evs) + 1)), "a gap or a double"
                assert len(evs) >= seen
                seen = len(evs)
            time.sleep(0.02)
        print(seen)
    """
    procs = [run_py(writer.format(dsn=pg_dsn, agent=f"{ns}/{x}")) for x in "ab"] + [run_py(reader)]
    for p in procs:
        finish(p)
    for x in "ab":
        store = TranscriptStore(PostgresAgentDatabase(pg_dsn, f"{ns}/{x}"))
        (s,) = store.sessions()
        texts = [e.text for e in store.events(s.session_id)]
        assert texts == [f"{ns}/{x} note {i} 湖景房" for i in range(60)]
        store.close()


# -- moving between engines ----------------------------------------------------------------------------
def _lived_in(mem) -> None:
    """An agent with rows of several kinds: talks, an intent, provenance, signals."""
    from reverie.intents import TurnContext
    from reverie.models.scripted import ScriptedModel

    mem.remember("Booked the lake-view room (湖景房) at the Lakeside Hotel in Hangzhou.")
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [{"reply": "Noted: 湖景房, two nights."}]}}))
    rt.send("我们订了湖景房, and the return ticket is still open")
    rt.close()
    owner = TurnContext(channel="cli", sender="me", conversation="c1", owner=True)
    mem.intents.create(owner, description="confirm the return ticket", trigger_keywords=["hangzhou", "返程车票"])
    mem.sync()
    mem.search("lake-view room Hangzhou", record_signals=True)
    mem.close()


def test_migrate_to_postgres_and_back_keeps_every_row_and_search(reverie_home, pg_dsn):
    from reverie.search.keyword import analyse_query
    from reverie.sessions.search_rows import count, frequencies, matches
    from reverie.store.move import digest, pg_columns, rows_of

    mem = Memory(overrides=[FAKE])
    mem.init()
    _lived_in(mem)
    lite = SqliteAgentDatabase(mem.places.agent_db)
    pg = PostgresAgentDatabase(pg_dsn, key())
    with connect(pg) as pconn:
        cols = {t: pg_columns(pconn, t) for t in TABLES}

    def picture(db):
        conn = connect(db)
        try:
            return {t: (len(r), digest(r)) for t in TABLES for r in [rows_of(conn, t, cols[t])]}
        finally:
            conn.close()

    before = picture(lite)
    assert before["transcript_events"][0] >= 3 and before["standing_intents"][0] == 1
    assert before["memory_daily_provenance"][0] >= 1
    marker = mem.places.agent_dir / "migrating-to-postgres.json"
    # a run that stops after three tables (a crash) leaves them; the next run copies only the rest
    stop = RuntimeError("stopped")

    def crash(table, i, n):
        if i == 3:
            raise stop

    with pytest.raises(RuntimeError):
        move(lite, pg, marker, progress=crash)
    assert marker.exists()
    report = move(lite, pg, marker)
    copied = {t.table for t in report.tables if t.copied}
    assert "sessions" not in copied and "standing_intents" in copied and not marker.exists()
    assert picture(pg) == before
    # a run with nothing to do copies nothing; another agent's database is refused unless replaced
    assert not any(t.copied for t in move(lite, pg, marker).tables)
    # back to a new SQLite file: the same rows, and session search finds the same events
    back = SqliteAgentDatabase(reverie_home / "back.sqlite")
    move(pg, back, reverie_home / "m.json")
    assert picture(back) == before
    for db in (lite, pg, back):
        store = TranscriptStore(db)
        (s,) = [s for s in store.sessions() if store.events(s.session_id)]
        q = analyse_query(store.conn, "湖景房", "cjk", "transcript_fts", count(store.conn),
                          frequencies=lambda toks: frequencies(store.conn, toks))
        hits = matches(store.conn, q.strict, True, [s.session_id], 10)
        assert len(hits) == 2, db  # the user's message and the reply
        store.close()
    other = SqliteAgentDatabase(reverie_home / "other.sqlite")
    _session(other, "a different life")
    with pytest.raises(UserError, match="already holds other rows"):
        move(pg, other, reverie_home / "o.json")
    move(pg, other, reverie_home / "o.json", replace=True)
    assert picture(other) == before


def test_the_migrate_command_switches_nothing_and_says_how(reverie_home, pg_dsn):
    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": "",
           "REVERIE_POSTGRES_DSN": pg_dsn, "REVERIE_STORE_NAMESPACE": key()}
    base = [sys.executable, "-m", "reverie.cli.main", "--set", FAKE]
    assert subprocess.run(base + ["remember", "Hangzhou: the lake-view room"], env=env, capture_output=True,
                          timeout=120).returncode == 0
    done = subprocess.run(base + ["db", "migrate", "--to", "postgres", "--json"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verified"] and report["rows"] >= 2 and "[16/16] table_writes" in done.stderr
    bad = subprocess.run(base + ["db", "migrate", "--to", "mysql"], env=env, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 1 and bad.stderr.strip() == "reverie: error: --to must be postgres or sqlite, not 'mysql'"


# -- errors and the local server ---------------------------------------------------------------------------
def test_an_unreachable_server_is_one_clear_line(reverie_home):
    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": "",
           "REVERIE_STORE_BACKEND": "postgres", "REVERIE_POSTGRES_DSN": "postgresql://nobody@127.0.0.1:9/none"}
    base = [sys.executable, "-m", "reverie.cli.main", "--set", FAKE]
    subprocess.run(base + ["init"], env=env, capture_output=True, timeout=120)
    search = subprocess.run(base + ["search", "hotel"], env=env, capture_output=True, text=True, timeout=120)
    assert search.returncode == 1
    assert search.stderr.startswith("reverie: error: cannot connect to PostgreSQL at postgresql://nobody@127.0.0.1:9/none")
    assert len(search.stderr.strip().splitlines()) == 1
    status = subprocess.run(base + ["status", "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert status.returncode == 0, status.stderr
    st = json.loads(status.stdout)["store"]
    assert st["engine"] == "postgres" and st["ok"] is False and "cannot connect" in st["error"]
    db = subprocess.run(base + ["db", "status"], env=env, capture_output=True, text=True, timeout=120)
    assert db.returncode == 1 and "postgres UNREACHABLE" in db.stdout
    unset = subprocess.run(base + ["search", "hotel"], env={**env, "REVERIE_POSTGRES_DSN": ""},
                           capture_output=True, text=True, timeout=120)
    assert unset.returncode == 1 and "reverie db start" in unset.stderr


def test_db_start_runs_a_server_the_postgres_backend_finds(reverie_home):
    from reverie.store.builtin import local_server

    env = {"REVERIE_HOME": str(reverie_home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ.get("PATH", "")}
    base = [sys.executable, "-m", "reverie.cli.main", "--set", FAKE]
    subprocess.run(base + ["init"], env=env, capture_output=True, timeout=120)
    server = local_server(reverie_home)
    try:
        start = subprocess.run(base + ["db", "start", "--json"], env=env, capture_output=True, text=True, timeout=120)
        assert start.returncode == 0, start.stderr
        assert json.loads(start.stdout)["running"] and server.running()
        from reverie.store.postgres.pool import raw_connect
        from reverie.store.postgres.server import memory_settings

        with raw_connect(server.dsn()) as conn:  # buffers sized to this machine, not a fixed 256 MB
            assert conn.execute("SHOW shared_buffers").fetchone()[0] == f"{memory_settings()[0]}MB"
        pg = {**env, "REVERIE_STORE_BACKEND": "postgres"}  # no DSN: the home's local server
        assert subprocess.run(base + ["remember", "the lake-view room"], env=pg, capture_output=True,
                              timeout=120).returncode == 0
        st = subprocess.run(base + ["db", "status", "--json"], env=pg, capture_output=True, text=True, timeout=120)
        data = json.loads(st.stdout)
        assert st.returncode == 0 and data["store"]["ok"] and data["store"]["server"].startswith("18")
        assert data["localServer"]["running"]
        stop = subprocess.run(base + ["db", "stop"], env=env, capture_output=True, text=True, timeout=120)
        assert stop.returncode == 0 and not server.running()
    finally:
        server.remove()


def test_the_local_servers_memory_follows_the_machines():
    """A quarter of the memory for shared buffers (128 MB to 8 GB), half for the planner's cache."""
    from reverie.store.postgres.server import memory_settings

    gb = 1 << 30
    assert memory_settings(24 * gb) == (6144, 12288)
    assert memory_settings(gb // 4) == (128, 256)  # a small machine still gets a working server
    assert memory_settings(128 * gb) == (8192, 65536)


def test_a_server_that_goes_away_mid_process_is_one_clear_line(reverie_home):
    """A long-lived process whose server stops: the next call says so in one line (no traceback,
    no half-minute hang), and the stores work again once it is back."""
    from reverie.store.postgres.server import temporary_server

    server = temporary_server("reverie-test-gone-")
    try:
        dsn = server.start()
        store = TranscriptStore(PostgresAgentDatabase(dsn, key()))
        row = store.start_session("agent:main:main")
        server.stop("immediate")
        with pytest.raises(UserError, match=r"^lost the connection to PostgreSQL \(postgresql://"):
            store.append_message(row.session_id, "user", ChatMessage("user", "still there?"))
        server.start()
        store.append_message(row.session_id, "user", ChatMessage("user", "back again"))
        assert [e.text for e in store.events(row.session_id)] == ["back again"]
        store.close()
    finally:
        from reverie.store.postgres.pool import close_pools

        close_pools()
        server.remove()
