"""Named, ordered, transactional migrations, one set per component (as sqlite-utils does).

Each migration runs inside its own transaction together with the row that records it, so a crash
leaves it either fully applied or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import apsw

from .connection import transaction

_LEDGER = """CREATE TABLE IF NOT EXISTS reverie_migrations (
  component TEXT NOT NULL,
  name TEXT NOT NULL,
  applied_at INTEGER NOT NULL DEFAULT (unixepoch()),
  PRIMARY KEY (component, name)
) STRICT"""


@dataclass(frozen=True)
class Migration:
    name: str
    apply: Callable[[apsw.Connection], None] | str
    # readers work without it (they fall back to what came before): a read-only home made before
    # this step still answers searches instead of failing to write the step
    readers_cope: bool = False


class Migrations:
    def __init__(self, component: str, steps: list[Migration]):
        names = [s.name for s in steps]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate migration names in {component}")
        self.component = component
        self.steps = steps

    def applied(self, conn: apsw.Connection) -> list[str]:
        if getattr(conn, "engine", None) == "postgres":
            return [s.name for s in self.steps]  # the whole schema migrates at once there (store/postgres/pool.py)
        conn.execute(_LEDGER)
        rows = conn.execute(
            "SELECT name FROM reverie_migrations WHERE component = ?", (self.component,)
        ).fetchall()
        done = {r[0] for r in rows}
        return [s.name for s in self.steps if s.name in done]

    def pending(self, conn: apsw.Connection) -> list[str]:
        done = set(self.applied(conn))
        return [s.name for s in self.steps if s.name not in done]

    def apply(self, conn: apsw.Connection) -> list[str]:
        ran: list[str] = []
        todo = set(self.pending(conn))
        if not todo:
            return ran
        if all(s.readers_cope for s in self.steps if s.name in todo) and _read_only(conn):
            return ran
        for step in self.steps:
            if step.name not in todo:
                continue
            with transaction(conn):
                # another process may have applied it between our check and the lock
                if conn.execute(
                    "SELECT 1 FROM reverie_migrations WHERE component=? AND name=?",
                    (self.component, step.name),
                ).fetchone():
                    continue
                if isinstance(step.apply, str):
                    conn.execute(step.apply)
                else:
                    step.apply(conn)
                conn.execute(
                    "INSERT INTO reverie_migrations(component, name) VALUES (?, ?)",
                    (self.component, step.name),
                )
            ran.append(step.name)
        return ran


def _read_only(conn) -> bool:
    try:
        return bool(conn.readonly("main"))
    except (AttributeError, apsw.Error):
        return False
