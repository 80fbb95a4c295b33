"""Reading SQLite databases without leaving files behind (a dry run changes no file)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator

import apsw


@contextlib.contextmanager
def leaves_no_wal(*folders: Path) -> Iterator[None]:
    """Read databases without leaving files they did not have. A read-only connection to a WAL
    database makes its ``-wal`` and ``-shm`` when they are missing and cannot remove them when it
    closes, so a dry run left both behind. Afterwards each database under ``folders`` that had no
    ``-wal`` before is opened read-write, read and closed: as the last connection, SQLite
    checkpoints nothing and removes both; while another process has it open they stay, as they
    must."""
    had_none = {p for f in folders if f.is_dir() for p in f.rglob("*.sqlite") if not Path(f"{p}-wal").exists()}
    try:
        yield
    finally:
        for p in had_none:
            if not Path(f"{p}-wal").exists():
                continue
            try:
                conn = apsw.Connection(str(p), flags=apsw.SQLITE_OPEN_READWRITE)
                try:
                    conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
                finally:
                    conn.close()
            except apsw.Error:
                pass  # (a read-only folder or file: nothing to tidy, nothing was left)
