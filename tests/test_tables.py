"""Structured memory: table files on real SQLite, hostile SQL included.

Every hostile statement is run for real against a real table file; each test checks both the
refusal and that nothing happened (no other file touched, no row changed)."""

from __future__ import annotations

import os
from pathlib import Path

import apsw
import pytest

from reverie.tables import TableError, TableStore
from reverie.tables.guard import open_table_file

ROWS = [["GET", "/users", 1, "List users"], ["POST", "/login", 0, "Sign in"],
        ["DELETE", "/users/{id}", 1, "Remove a user account"]]


@pytest.fixture
def store(tmp_path: Path) -> TableStore:
    ts = TableStore(tmp_path / "ws", tmp_path / "agent.sqlite")
    ts.write("api", "CREATE TABLE endpoints (method TEXT, path TEXT, auth INTEGER, summary TEXT)", origin="agent")
    ts.write("api", "INSERT INTO endpoints VALUES (?, ?, ?, ?)", rows=ROWS, origin="agent")
    return ts


def count(store: TableStore, table: str = "endpoints") -> int:
    return store.query("api", f"SELECT count(*) FROM {table}")["rows"][0][0]


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


# -- the ordinary path ----------------------------------------------------------------------------
def test_create_insert_query_and_schema(store):
    out = store.query("api", "SELECT method, path FROM endpoints WHERE auth = ? ORDER BY path", [1])
    assert out["columns"] == ["method", "path"]
    assert out["rows"] == [["GET", "/users"], ["DELETE", "/users/{id}"]] and out["truncated"] is False
    info = store.schema("api", sample=2)
    (t,) = info["tables"]
    assert t["name"] == "endpoints" and t["rows"] == 3 and len(t["sample"]) == 2
    assert [c["name"] for c in t["columns"]] == ["method", "path", "auth", "summary"]
    assert info["path"] == "tables/api.sqlite" and store.names() == ["api"]


def test_file_is_one_self_contained_file_in_the_workspace(store, tmp_path):
    # a rollback journal, not WAL: nothing beside the .sqlite once a write is done
    assert files_under(tmp_path / "ws") == {"tables", "tables/api.sqlite"}
    with apsw.Connection(str(tmp_path / "ws/tables/api.sqlite")) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_empty_result_still_names_columns(store):
    out = store.query("api", "SELECT method, auth FROM endpoints WHERE auth = 7")
    assert out["columns"] == ["method", "auth"] and out["rows"] == []


def test_write_returns_changes_and_returning_rows(store):
    out = store.write("api", "UPDATE endpoints SET auth = 1 WHERE path = ? RETURNING method", ["/login"], origin="owner")
    assert out["changes"] == 1 and out["returned"] == [["POST"]] and out["origin"] == "owner"
    assert count(store) == 3


def test_rows_cap_and_bytes_cap(store):
    store.write("api", "CREATE TABLE big (n INTEGER, body TEXT)", origin="agent")
    store.write("api", "INSERT INTO big VALUES (?, ?)", rows=[[i, "x" * 1000] for i in range(1200)], origin="agent")
    out = store.query("api", "SELECT n FROM big")
    assert out["rowCount"] == 100 and out["truncated"] and out["truncatedBy"] == "rows" and "LIMIT" in out["note"]
    out = store.query("api", "SELECT n, body FROM big", max_rows=1000)
    assert out["truncatedBy"] == "bytes" and 40 <= out["rowCount"] <= 70  # about 64 KB of rows
    assert store.query("api", "SELECT n FROM big", max_rows=5000)["rowCount"] == 1000  # hard cap


def test_drop_is_allowed_and_logged(store):
    store.write("api", "CREATE TABLE scratch (a)", origin="agent")
    store.write("api", "DROP TABLE scratch", origin="agent")
    assert [t["name"] for t in store.schema("api")["tables"]] == ["endpoints"]
    assert store.writes("api", 1)[0]["statement"] == "DROP TABLE scratch"


def test_failed_batch_is_all_or_nothing(store):
    store.write("api", "CREATE TABLE uniq (k TEXT PRIMARY KEY)", origin="agent")
    with pytest.raises(TableError, match="UNIQUE"):
        store.write("api", "INSERT INTO uniq VALUES (?)", rows=[["a"], ["b"], ["a"]], origin="agent")
    assert count(store, "uniq") == 0
    assert store.writes("api", 1)[0]["status"] == "failed"


def test_a_failed_first_statement_leaves_no_empty_file(tmp_path):
    ts = TableStore(tmp_path / "ws", tmp_path / "agent.sqlite")
    with pytest.raises(TableError):
        ts.write("new", "CREATE TABLE (", origin="agent")
    assert not (tmp_path / "ws/tables/new.sqlite").exists() and ts.names() == []


def test_bad_names_and_missing_files(store):
    for bad in ("../x", "a/b", "", ".hidden", "x" * 65, "a b"):
        with pytest.raises(TableError, match="bad table file name"):
            store.query(bad, "SELECT 1")
    with pytest.raises(TableError, match="no table file 'nope'.*known: api"):
        store.query("nope", "SELECT 1")
    assert store.query("api.sqlite", "SELECT 1")["rows"] == [[1]]  # the suffix is forgiven


# -- who may write --------------------------------------------------------------------------------
def test_untrusted_caller_is_refused_and_logged(store):
    with pytest.raises(TableError, match="owner and the agent; this caller is untrusted"):
        store.write("api", "DELETE FROM endpoints", origin="untrusted", session="s1", sender="stranger")
    assert count(store) == 3
    entry = store.writes("api", 1)[0]
    assert (entry["status"], entry["origin"], entry["sender"], entry["session"]) == \
        ("refused", "untrusted", "stranger", "s1")


def test_every_write_is_logged_with_origin(store):
    store.write("api", "DELETE FROM endpoints WHERE method = 'POST'", origin="owner", surface="cli")
    newest, *older = store.writes("api")
    assert (newest["origin"], newest["surface"], newest["status"], newest["changes"]) == ("owner", "cli", "ok", 1)
    assert [e["origin"] for e in older] == ["agent", "agent"]
    assert older[0]["paramSets"] == 3 and older[0]["params"].startswith('[["GET"')


# -- hostile SQL ----------------------------------------------------------------------------------
HOSTILE_WRITES = [
    ("ATTACH DATABASE '{elsewhere}' AS other", "ATTACH"),
    ("DETACH DATABASE main", "ATTACH"),
    ("VACUUM INTO '{elsewhere}'", "VACUUM"),
    ("  /* hidden */ vacuum", "VACUUM"),
    ("SELECT load_extension('{elsewhere}')", "load_extension"),
    ("PRAGMA writable_schema = 1", "writable_schema"),
    ("PRAGMA journal_mode = WAL", "journal_mode"),
    ("PRAGMA temp_store_directory = '/tmp'", "temp_store_directory"),
    ("CREATE TEMP TRIGGER t AFTER INSERT ON endpoints BEGIN DELETE FROM endpoints; END", "temporary"),
    ("CREATE TEMP TABLE side (a)", "temporary"),
    ("CREATE TRIGGER t AFTER INSERT ON endpoints BEGIN DELETE FROM endpoints; END", "triggers"),
    ("CREATE VIRTUAL TABLE v USING fts5(a)", "virtual tables"),
    ("INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, 'CREATE TABLE x (a)')", "sqlite_master"),
    ("UPDATE sqlite_master SET sql = 'CREATE TABLE endpoints (a)' WHERE name = 'endpoints'", "sqlite_master"),
    ("DELETE FROM sqlite_schema", "sqlite_"),
    ("BEGIN", "transaction"),
    ("DELETE FROM endpoints; DELETE FROM endpoints", "one SQL statement"),
    ("INSERT INTO endpoints (summary) VALUES (zeroblob(1000000000))", "too big"),
    ("INSERT INTO endpoints (summary) VALUES (randomblob(50000000))", "too big"),
    ("INSERT INTO endpoints (summary) VALUES (printf('%.*c', 20000000, 'x'))", "too big"),
]


@pytest.mark.parametrize("sql,why", HOSTILE_WRITES, ids=[w for _, w in HOSTILE_WRITES])
def test_hostile_writes_are_refused_and_change_nothing(store, tmp_path, sql, why):
    elsewhere = tmp_path / "elsewhere.sqlite"
    before = files_under(tmp_path)
    schema_before = store.schema("api")["tables"]
    with pytest.raises(TableError) as info:
        store.write("api", sql.format(elsewhere=elsewhere), origin="agent")
    assert why.lower() in str(info.value).lower()
    assert not elsewhere.exists()
    assert files_under(tmp_path) == before
    assert store.schema("api")["tables"] == schema_before and count(store) == 3


@pytest.mark.parametrize("sql", [
    "DELETE FROM endpoints", "INSERT INTO endpoints VALUES ('x', 'y', 0, 'z')", "UPDATE endpoints SET auth = 0",
    "CREATE TABLE t (a)", "DROP TABLE endpoints", "ATTACH DATABASE 'x.sqlite' AS x", "PRAGMA user_version = 7",
    "WITH d AS (SELECT 1) DELETE FROM endpoints",
])
def test_query_is_read_only(store, sql):
    with pytest.raises(TableError, match="not allowed|refused"):
        store.query("api", sql)
    assert count(store) == 3 and [t["name"] for t in store.schema("api")["tables"]] == ["endpoints"]


def test_recursive_cte_bomb_is_stopped_by_the_time_limit(store):
    bomb = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"
    with pytest.raises(TableError, match="time limit"):
        store.query("api", bomb, seconds=0.3)
    # an endless CTE that yields rows is cut by the row cap instead
    out = store.query("api", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c")
    assert out["truncatedBy"] == "rows" and out["rows"][-1] == [100]


def test_cte_bomb_in_a_write_is_stopped_and_rolled_back(store):
    bomb = ("INSERT INTO endpoints (summary) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
            "SELECT x FROM c")
    with pytest.raises(TableError, match="time limit|size limit"):
        store.write("api", bomb, origin="agent", seconds=0.3)
    assert count(store) == 3
    assert store.writes("api", 1)[0]["status"] == "failed"


def test_huge_blob_in_a_query_is_refused(store):
    with pytest.raises(TableError, match="too big"):
        store.query("api", "SELECT zeroblob(1000000000)")
    out = store.query("api", "SELECT zeroblob(1000)")  # a small BLOB is described, not dumped
    assert out["rows"] == [[{"blob": 1000}]]


def test_a_planted_trigger_never_fires(store, tmp_path):
    """A table file made elsewhere (a copy, an import) may carry triggers that write behind the
    statement's back; the guarded connection runs with triggers off."""
    path = tmp_path / "ws/tables/api.sqlite"
    with apsw.Connection(str(path)) as raw:  # planted outside reverie's guard
        raw.execute("CREATE TABLE audit (n)")
        raw.execute("CREATE TRIGGER spy AFTER INSERT ON endpoints BEGIN INSERT INTO audit VALUES (1); "
                    "DELETE FROM endpoints WHERE rowid = 1; END")
    store.write("api", "INSERT INTO endpoints VALUES ('PUT', '/x', 1, 'y')", origin="agent")
    assert count(store) == 4 and count(store, "audit") == 0


def test_writable_schema_cannot_be_turned_on_even_through_a_crafted_file(store, tmp_path):
    path = tmp_path / "ws/tables/api.sqlite"
    conn, guard = open_table_file(path, write=True)
    try:
        with pytest.raises(apsw.AuthError):
            conn.execute("PRAGMA writable_schema = ON")
        assert guard.refused and "writable_schema" in guard.refused
    finally:
        conn.close()


def test_a_symlinked_table_file_is_refused(store, tmp_path):
    secret = tmp_path / "secret.sqlite"
    with apsw.Connection(str(secret)) as raw:
        raw.execute("CREATE TABLE keys (k)")
        raw.execute("INSERT INTO keys VALUES ('hunter2')")
    os.symlink(secret, tmp_path / "ws/tables/evil.sqlite")
    assert store.names() == ["api"]
    with pytest.raises(TableError, match="symlink"):
        store.query("evil", "SELECT * FROM keys")
    with pytest.raises(TableError, match="symlink"):
        store.write("evil", "DELETE FROM keys", origin="owner")
    with apsw.Connection(str(secret)) as raw:
        assert raw.execute("SELECT count(*) FROM keys").fetchone()[0] == 1


def test_a_file_that_is_not_a_database(store, tmp_path):
    (tmp_path / "ws/tables/junk.sqlite").write_bytes(b"this is not a database at all" * 100)
    with pytest.raises(TableError, match="tables/junk.sqlite is not a readable SQLite database"):
        store.query("junk", "SELECT 1")
    listed = {f["file"]: f for f in store.list()}
    assert listed["junk"]["error"] and listed["api"]["tables"][0]["rows"] == 3


def test_an_endless_view_does_not_stop_the_listing_or_the_description(store):
    store.write("api", "CREATE VIEW endless AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
                       "SELECT x FROM c", origin="agent")
    tables = {t["name"]: t for t in store.schema("api", sample=2)["tables"]}
    assert tables["endless"]["rows"] is None and tables["endless"]["sample"] == [[1], [2]]
    assert tables["endpoints"]["rows"] == 3
    from reverie.tables.describe import render

    store.write("api", "INSERT INTO endpoints VALUES ('GET', ?, 1, 'x')", ["/evil\x1b[31m\x00"], origin="agent")
    text, _, problem = render(store, "api")
    assert problem is None and "too many rows to count quickly" in text and "(4 rows)" in text
    assert "\x1b" not in text and "\x00" not in text


def test_a_hard_linked_table_file_is_refused(store, tmp_path):
    """A second name for a database outside the workspace (say another agent's) is not a table."""
    other = tmp_path / "other-agent.sqlite"
    with apsw.Connection(str(other)) as raw:
        raw.execute("CREATE TABLE secrets (s)")
        raw.execute("INSERT INTO secrets VALUES ('x')")
    os.link(other, tmp_path / "ws/tables/linked.sqlite")
    for call in (lambda: store.query("linked", "SELECT * FROM secrets"),
                 lambda: store.write("linked", "DELETE FROM secrets", origin="owner")):
        with pytest.raises(TableError, match="hard links"):
            call()
    from reverie.tables.describe import table_sources

    sources, problems = table_sources(tmp_path / "ws")
    assert [s[0] for s in sources] == ["tables/api.sqlite"] and "hard links" in problems["tables/linked.sqlite"]
    with apsw.Connection(str(other)) as raw:
        assert raw.execute("SELECT count(*) FROM secrets").fetchone()[0] == 1
