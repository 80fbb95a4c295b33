"""Issue 31 item 3: `forget --text` reaches every store of the home, not only the notes, the index
and the agent database's memory tables: a table file's cells (and so its search description), the
table write log, a cron job's message and its run history, and the damaged copy `doctor --repair`
keeps (deleted: it cannot be searched or scrubbed with certainty). A dry run changes none of them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import apsw

from cli_helpers import batch, cli, ok

FACT = "the vault code is 7731-HERON"
NEEDLE = b"7731-HERON"


def _holding(home: Path) -> list[str]:
    """Every file under the home whose bytes hold the fact (databases, WAL files, copies)."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file() and NEEDLE in p.read_bytes())


def _digests(home: Path) -> dict[str, str]:
    return {str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in home.rglob("*") if p.is_file() and not p.name.endswith(("-wal", "-shm"))}


def _home_with_the_fact_everywhere(home: Path, tmp_path: Path) -> Path:
    csv = tmp_path / "vault.csv"
    csv.write_text(f"name,note\nvault,{FACT}\nshed,the rake is behind the door\n", encoding="utf-8")
    for r in batch(home, ["init"], ["remember", FACT], ["remember", "the kayak is blue"],
                   ["table", "import", "vault", str(csv), "--table", "notes"],
                   ["cron", "add", "--every", "1h", "--name", "vault check", "--message", f"check that {FACT} works"],
                   ["index"]):
        ok(r)
    agent_db = home / "agents" / "main" / "agent" / "reverie-agent.sqlite"
    conn = apsw.Connection(str(agent_db))
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    with open(agent_db, "r+b") as fh:  # a garbage header: doctor --repair keeps the damaged file
        fh.write(b"\x00" * 100)
    ok(cli(home, "doctor", "--repair"))
    return agent_db


def test_forget_text_reaches_table_files_the_write_log_automations_and_damaged_copies(reverie_home, tmp_path):
    agent_db = _home_with_the_fact_everywhere(reverie_home, tmp_path)
    (damaged,) = agent_db.parent.glob("reverie-agent.sqlite.damaged-*")
    before = _holding(reverie_home)
    assert {"workspace/tables/vault.sqlite", "state/reverie.sqlite", str(damaged.relative_to(reverie_home)),
            str(agent_db.relative_to(reverie_home))} <= set(before)
    found = json.loads(ok(cli(reverie_home, "search", "HERON", "--json")).stdout)["results"]
    assert "tables/vault.sqlite" in {r["path"] for r in found}

    digests = _digests(reverie_home)
    dry = json.loads(ok(cli(reverie_home, "forget", "--text", FACT, "--dry-run", "--json")).stdout)
    a = dry["artifacts"]
    assert (a["tableFiles"], a["tableCells"], a["cronJobs"], a["damagedCopies"]) == (1, 1, 1, 1)
    assert a["tableWriteLogRows"] >= 1
    assert dry["damagedCopies"] == [str(damaged)] and "7731" not in json.dumps(dry)
    assert _digests(reverie_home) == digests  # the dry run changed nothing

    done = ok(cli(reverie_home, "forget", "--text", FACT))
    assert f"deleted {damaged}" in done.stderr and "scrubbed the text from cron job" in done.stderr
    ok(cli(reverie_home, "index", "--force"))
    assert _holding(reverie_home) == []
    search, query, jobs, log = batch(reverie_home, ["search", "HERON", "--json"],
                                     ["table", "query", "vault", "SELECT name, note FROM notes ORDER BY name", "--json"],
                                     ["cron", "list", "--json"], ["table", "log", "--json"])
    assert json.loads(ok(search).stdout)["results"] == []
    rows = json.loads(ok(query).stdout)["rows"]
    assert rows == [["shed", "the rake is behind the door"], ["vault", "[forgotten]"]]  # the rest kept
    (job,) = json.loads(ok(jobs).stdout)["jobs"]
    assert job["name"] == "vault check" and "[forgotten]" in json.dumps(job) and job["enabled"] is True
    assert "[forgotten]" in ok(log).stdout
    kayak = json.loads(ok(cli(reverie_home, "search", "kayak", "--json")).stdout)["results"]
    assert kayak and "kayak is blue" in kayak[0]["snippet"]
