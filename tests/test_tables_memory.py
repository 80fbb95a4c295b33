"""Table files as part of an agent's memory: the tools (origin from the turn), the chat runtime's
transcript, memory search pointing at a table, and the ``reverie table`` commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from reverie import Memory
from reverie.intents import TurnContext
from reverie.models.scripted import ScriptedModel

OWNER = TurnContext(channel="telegram", sender="42", conversation="c1", owner=True, session="s-owner")
GUEST = TurnContext(channel="telegram", sender="99", conversation="c1", owner=False)
CSV = ("method,path,auth,summary\n"
       "GET,/users,1,List user accounts\n"
       "POST,/login,0,Sign in with a password\n"
       "DELETE,/users/{id},1,Remove a user account\n"
       "GET,/health,0,Liveness probe\n")


@pytest.fixture
def mem(fake_memory):
    return fake_memory


def tools(mem, context=None) -> dict:
    return {t.name: t for t in mem.tools(context)}


def seed(mem) -> None:
    t = tools(mem)
    t["table_write"].call({"file": "api", "sql": "CREATE TABLE endpoints (method TEXT, path TEXT, auth INTEGER, "
                                                 "summary TEXT)"})
    t["table_write"].call({"file": "api", "sql": "INSERT INTO endpoints VALUES (?, ?, ?, ?)",
                           "rows": [r.split(",") for r in CSV.splitlines()[1:]]})


def test_tools_schema_flags_and_origin(mem):
    t = tools(mem)
    assert t["table_list"].read_only and t["table_query"].read_only
    assert not t["table_write"].read_only and t["table_write"].destructive
    seed(mem)
    out = t["table_query"].call({"file": "api", "sql": "SELECT path FROM endpoints WHERE auth = ?", "params": ["1"]})
    assert sorted(r[0] for r in out["rows"]) == ["/users", "/users/{id}"]
    listed = t["table_list"].call({})["files"]
    assert listed[0]["file"] == "api" and listed[0]["tables"][0]["rows"] == 4
    assert len(t["table_list"].call({"file": "api"})["tables"][0]["sample"]) == 4
    # no turn context (MCP, scripts): the agent working for the local owner
    assert mem.tables.writes("api", 1)[0]["origin"] == "agent"


def test_an_untrusted_sender_cannot_write_but_can_read(mem):
    seed(mem)
    guest = tools(mem, GUEST)
    with pytest.raises(Exception, match="this caller is untrusted"):
        guest["table_write"].call({"file": "api", "sql": "DELETE FROM endpoints"})
    assert guest["table_query"].call({"file": "api", "sql": "SELECT count(*) FROM endpoints"})["rows"] == [[4]]
    owner = tools(mem, OWNER)
    out = owner["table_write"].call({"file": "api", "sql": "DELETE FROM endpoints WHERE path = '/health'"})
    assert out["origin"] == "agent" and out["changes"] == 1
    newest, refused = mem.tables.writes("api", 2)
    assert (newest["session"], newest["sender"]) == ("s-owner", "42")
    assert (refused["status"], refused["origin"], refused["sender"]) == ("refused", "untrusted", "99")


def test_an_explicit_origin_on_the_context_wins(mem):
    class Ctx:
        owner = True
        origin = "untrusted"  # e.g. a turn carrying fetched web content
        session = sender = None

    with pytest.raises(Exception, match="untrusted"):
        tools(mem, Ctx())["table_write"].call({"file": "x", "sql": "CREATE TABLE t (a)"})
    assert not (mem.workspace / "tables" / "x.sqlite").exists()


def test_runtime_records_the_write_and_its_origin_in_the_transcript(mem):
    script = {"steps": {"turn": [
        {"toolCalls": [{"name": "table_write", "arguments": {
            "file": "budget", "sql": "CREATE TABLE spend (item TEXT, yuan INTEGER)"}}]},
        {"afterTools": True, "toolCalls": [{"name": "table_write", "arguments": {
            "file": "budget", "sql": "INSERT INTO spend VALUES (?, ?)", "params": ["高铁票", 626]}}]},
        {"afterTools": True, "reply": "saved"}]}}
    rt = mem.runtime(ScriptedModel(script=script))
    assert rt.send("记下高铁票 626 元").reply == "saved"
    results = rt.store.events(rt.session.session_id, kinds=("tool_result",))
    bodies = [json.loads(e.message.content) for e in results]
    assert [b["status"] for b in bodies] == ["ok", "ok"] and bodies[1]["changes"] == 1
    assert all(b["origin"] == "agent" for b in bodies)
    calls = rt.store.events(rt.session.session_id, kinds=("tool_call",))
    assert calls[1].message.tool_calls[0].arguments["params"] == ["高铁票", 626]
    entry = mem.tables.writes("budget", 1)[0]
    assert entry["session"] == rt.session.session_id and entry["sender"] == "local-owner"
    assert mem.tables.query("budget", "SELECT * FROM spend")["rows"] == [["高铁票", 626]]
    rt.close()


def test_a_guest_turn_is_refused_and_the_refusal_is_in_the_transcript(mem):
    script = {"steps": {"turn": [
        {"toolCalls": [{"name": "table_write", "arguments": {"file": "x", "sql": "CREATE TABLE t (a)"}}]},
        {"afterTools": True, "reply": "no"}]}}
    rt = mem.runtime(ScriptedModel(script=script), owner=False, sender="stranger", session="agent:main:telegram:group:7")
    rt.send("make a table")
    (res,) = rt.store.events(rt.session.session_id, kinds=("tool_result",))
    assert "untrusted" in json.loads(res.message.content)["error"]
    assert not (mem.workspace / "tables" / "x.sqlite").exists()
    rt.close()


def test_memory_search_points_at_the_table(mem):
    mem.remember("Lunch with Wei on Friday; she prefers dumplings.")
    seed(mem)
    mem.sync()
    out = mem.search("API endpoints needing auth", min_score=0)
    top = out["results"][0]
    assert top["path"] == "tables/api.sqlite" and top["source"] == "table"
    assert "table_query" in top["snippet"] and "endpoints" in top["snippet"]
    # a change to the table is picked up by the next sync (size/mtime of the file)
    tools(mem)["table_write"].call({"file": "api", "sql": "INSERT INTO endpoints VALUES ('PUT', '/users/{id}/roles', "
                                                          "1, 'Grant a role')"})
    assert mem.index.dirty_state().changed == 1
    report = mem.sync()
    assert report.changed == 1
    chunk = mem.index.conn().execute("SELECT text FROM memory_index_chunks WHERE source = 'table'").fetchone()[0]
    assert "(5 rows)" in chunk


def test_a_symlinked_table_is_not_indexed_and_is_reported(mem, tmp_path):
    seed(mem)
    os.symlink(mem.tables.path_of("api"), mem.workspace / "tables" / "mirror.sqlite")
    (mem.workspace / "tables" / "junk.sqlite").write_bytes(b"not a database " * 100)
    mem.sync()
    paths = {r[0] for r in mem.index.conn().execute("SELECT path FROM memory_index_sources")}
    assert "tables/api.sqlite" in paths and "tables/mirror.sqlite" not in paths
    problems = {p["path"]: p["problem"] for p in mem.status()["problems"]}
    assert problems["tables/mirror.sqlite"] == "symlink skipped"
    assert problems["tables/junk.sqlite"].startswith("table file not described: tables/junk.sqlite is not a readable")


@pytest.mark.semantic
def test_semantic_search_finds_the_table_among_notes(reverie_home):
    m = Memory(overrides=['memory.search.provider="local"'])
    m.init()
    for note in ("Booked the lakeside hotel in Hangzhou for two nights.",
                 "The team prefers short stand-ups at 9:30.",
                 "Wei's birthday is on 12 March; she likes jasmine tea."):
        m.remember(note)
    seed(m)
    m.sync()
    top = m.search("API endpoints needing auth")["results"][0]
    assert top["path"] == "tables/api.sqlite"
    m.close()


# -- the command line -----------------------------------------------------------------------------
def run(home: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake")
    proc = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args], env=env,
                          capture_output=True, text=True, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_cli_import_list_show_query_export_log(reverie_home, tmp_path):
    run(reverie_home, "init")
    csv_path = tmp_path / "endpoints.csv"
    csv_path.write_text(CSV, encoding="utf-8")
    plan = json.loads(run(reverie_home, "table", "import", "api", str(csv_path), "--dry-run", "--json").stdout)
    assert plan["dryRun"] and plan["create"] and plan["rows"] == 4
    assert [c["type"] for c in plan["columns"]] == ["TEXT", "TEXT", "INTEGER", "TEXT"]
    assert not (reverie_home / "workspace" / "tables").exists()
    done = json.loads(run(reverie_home, "table", "import", "api", str(csv_path), "--json").stdout)
    assert done["inserted"] == 4 and done["table"] == "endpoints"
    listed = json.loads(run(reverie_home, "table", "list", "--json").stdout)["files"]
    assert listed[0]["tables"][0]["rows"] == 4
    shown = run(reverie_home, "table", "show", "api").stdout
    assert "endpoints: 4 rows" in shown and "/users/{id}" in shown
    q = json.loads(run(reverie_home, "table", "query", "api", "SELECT path FROM endpoints WHERE auth = ?",
                       "-p", "1", "--json").stdout)
    assert q["rows"] == [["/users"], ["/users/{id}"]]
    assert run(reverie_home, "table", "export", "api", "endpoints").stdout == CSV
    out = tmp_path / "out.csv"
    run(reverie_home, "table", "export", "api", "endpoints", "-o", str(out))
    assert out.read_text(encoding="utf-8") == CSV
    again = run(reverie_home, "table", "export", "api", "endpoints", "-o", str(out), ok=False)
    assert again.returncode == 1 and "not overwritten" in again.stderr
    log = json.loads(run(reverie_home, "table", "log", "--json").stdout)["writes"]
    assert [(e["origin"], e["surface"], e["status"]) for e in log] == [("owner", "cli", "ok")]
    # a second import appends by column name
    run(reverie_home, "table", "import", "api", str(csv_path))
    assert json.loads(run(reverie_home, "table", "query", "api", "SELECT count(*) FROM endpoints",
                          "--json").stdout)["rows"] == [[8]]


def test_cli_errors_are_one_line_with_exit_1(reverie_home, tmp_path):
    run(reverie_home, "init")
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2,3\n", encoding="utf-8")
    for args, needle in ((("table", "import", "api", str(bad)), "line 2 has 3 values"),
                         (("table", "query", "nope", "SELECT 1"), "no table file 'nope'"),
                         (("table", "show", "../etc"), "bad table file name"),
                         (("table", "import", "api", str(tmp_path / "missing.csv")), "cannot read")):
        proc = run(reverie_home, *args, ok=False)
        assert proc.returncode == 1 and needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    good = tmp_path / "t.csv"
    good.write_text("n\n1\n", encoding="utf-8")
    run(reverie_home, "table", "import", "api", str(good))
    proc = run(reverie_home, "table", "query", "api", "ATTACH 'x' AS y", ok=False)
    assert proc.returncode == 1 and "ATTACH" in proc.stderr


def test_table_tools_over_mcp(mem):
    import asyncio

    from reverie.mcp.client import Client

    from reverie.mcp.server import build_server

    async def go():
        async with Client(build_server(mem.tools())) as c:
            made = await c.call_tool("table_write", {"file": "crm", "sql": "CREATE TABLE people (name TEXT, city TEXT)"})
            rows = await c.call_tool("table_write", {"file": "crm", "sql": "INSERT INTO people VALUES (?, ?)",
                                                     "rows": [["Wei", "杭州"], ["Ana", "Lisbon"]]})
            found = await c.call_tool("table_query", {"file": "crm", "sql": "SELECT name FROM people WHERE city = ?",
                                                      "params": ["杭州"]})
            refused = await c.call_tool("table_query", {"file": "crm", "sql": "ATTACH 'x' AS y"})
            return made, rows, found, refused

    made, rows, found, refused = asyncio.run(go())
    assert not made.is_error and json.loads(rows.content[0].text)["changes"] == 2
    assert json.loads(found.content[0].text)["rows"] == [["Wei"]]
    assert refused.is_error and "ATTACH" in refused.content[0].text
    assert [e["origin"] for e in mem.tables.writes("crm")] == ["agent", "agent"]
