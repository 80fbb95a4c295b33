"""Several first openers of a new database at once (threads of one process here; processes alike)
all get a working connection: switching a new file to WAL takes a lock SQLite's busy handler does
not wait for, and "database is locked" used to escape to whoever lost the race (a recall signal
lost under load)."""

from __future__ import annotations

import threading
from pathlib import Path

from reverie.store import connect


def test_first_openers_at_once_all_get_a_connection(tmp_path: Path):
    errors: list[str] = []
    for trial in range(25):
        db = tmp_path / f"new-{trial}.sqlite"

        def opener() -> None:
            try:
                conn = connect(db)
                conn.execute("CREATE TABLE IF NOT EXISTS t(a)")
                conn.execute("INSERT INTO t VALUES (1)")
                conn.close()
            except Exception as exc:  # noqa: BLE001 (any error is the failure this test looks for)
                errors.append(repr(exc))

        threads = [threading.Thread(target=opener) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        conn = connect(db)
        assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 6
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        conn.close()
    assert errors == []
