"""Two (or more) matchers of the same turn, each with its own connection, fire an intent once:
threads in one process, and separate processes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reverie.intents import IntentStore, TurnContext

T0 = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
T1 = datetime(2026, 7, 1, 10, 0, tzinfo=timezone.utc)
OWNER = TurnContext(channel="telegram", sender="42", conversation="chat-1", owner=True)


@pytest.fixture
def db(agent_db):
    """The agent database on each engine in turn: on PostgreSQL the agent's advisory lock plays
    SQLite's write lock."""
    return agent_db


def spec(db) -> str:
    """How a child process reaches ``db``."""
    if getattr(db, "engine", "sqlite") == "postgres":
        return json.dumps({"dsn": db.dsn, "agent": db.agent})
    return json.dumps({"path": str(db)})


def _seed(db) -> str:
    s = IntentStore(db)
    try:
        return s.create(OWNER, description="Confirm the return ticket", trigger_keywords=["杭州", "hangzhou"],
                        now=T0)["intent"]["id"]
    finally:
        s.close()


def test_concurrent_threads_fire_once(db):
    intent_id = _seed(db)
    n = 8
    stores = [IntentStore(db) for _ in range(n)]
    for s in stores:
        s.conn()  # connections opened before the race
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def worker(k: int) -> None:
        barrier.wait()
        results[k] = stores[k].match("明天去杭州", OWNER, now=T1)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    try:
        assert all(r is not None and r.error is None for r in results), [r and r.error for r in results]
        blocks = [r.block for r in results if r.block]
        assert len(blocks) == 1 and "Confirm the return ticket" in blocks[0]
        got = stores[0].get(intent_id)
        assert got["fireCount"] == 1 and got["status"] == "fired"
        assert len(stores[0].fires(intent_id)) == 1
    finally:
        for s in stores:
            s.close()


CHILD = """
import json, sys, time
from datetime import datetime, timezone
from pathlib import Path
from reverie.intents import IntentStore, TurnContext
from reverie.store import PostgresAgentDatabase
where, go = json.loads(sys.argv[1]), Path(sys.argv[2])
db = Path(where["path"]) if "path" in where else PostgresAgentDatabase(where["dsn"], where["agent"])
s = IntentStore(db)
s.conn()
print("ready", flush=True)
while not go.exists():
    time.sleep(0.002)
r = s.match("going to Hangzhou tomorrow", TurnContext(channel="telegram", sender="42", conversation="chat-1"),
            now=datetime(2026, 7, 1, 10, 0, tzinfo=timezone.utc))
print(json.dumps(r.as_dict()), flush=True)
"""


def test_concurrent_processes_fire_once(db, tmp_path: Path):
    intent_id = _seed(db)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, spec(db), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    try:
        for p in procs:
            assert p.stdout.readline().strip() == "ready"
        go.touch()
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=60)
            assert p.returncode == 0, err
            outs.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert all(o["error"] is None for o in outs), outs
    fired = [o for o in outs if o["block"]]
    assert len(fired) == 1 and fired[0]["fired"][0]["id"] == intent_id
    s = IntentStore(db)
    try:
        assert s.get(intent_id)["fireCount"] == 1
    finally:
        s.close()
