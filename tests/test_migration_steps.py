"""Named migrations (store/migrations.py): a step readers cope without is left for a writer when the
database is read-only, so a read-only home made by an older reverie still answers."""

from __future__ import annotations

import apsw
import pytest

from reverie.store import Migration, Migrations
from reverie.store.connection import connect, read_only


def _make(path, steps: Migrations) -> None:
    conn = connect(path)
    steps.apply(conn)
    conn.close()


BASE = Migration("0001_base", "CREATE TABLE t (path TEXT NOT NULL)")
KEYS = Migration("0002_keys", "ALTER TABLE t ADD COLUMN k TEXT GENERATED ALWAYS AS (lower(path)) VIRTUAL",
                 readers_cope=True)
DATA = Migration("0002_data", "ALTER TABLE t ADD COLUMN n INTEGER NOT NULL DEFAULT 0")


def test_a_step_readers_cope_without_waits_for_a_writer(tmp_path):
    db = tmp_path / "a.sqlite"
    _make(db, Migrations("c", [BASE]))
    steps = Migrations("c", [BASE, KEYS])
    ro = read_only(db)
    assert steps.apply(ro) == []  # nothing written, no error
    assert steps.pending(ro) == ["0002_keys"]
    ro.close()
    rw = connect(db)
    assert steps.apply(rw) == ["0002_keys"]
    rw.execute("INSERT INTO t(path) VALUES ('A/B')")
    assert rw.execute("SELECT k FROM t").fetchall() == [("a/b",)]
    rw.close()


def test_a_step_readers_need_still_fails_on_a_read_only_database(tmp_path):
    db = tmp_path / "b.sqlite"
    _make(db, Migrations("c", [BASE]))
    ro = read_only(db)
    with pytest.raises(apsw.ReadOnlyError):
        Migrations("c", [BASE, KEYS, DATA]).apply(ro)  # one step readers need: all are tried
    ro.close()
