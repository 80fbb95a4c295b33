"""Tombstones: what ``reverie forget`` removed, kept so that it never comes back.

Written (durably, first) by forget; read by anything that brings content in again -- the sessions
JSONL import skips messages that were forgotten. A tombstone never holds the forgotten text, only
a hash of its normalised form (and its length, so that the text can be found *inside* a longer
message by hashing windows of that length).

Kinds: ``session`` (a session id, or an explicit selector that resolved to nothing), ``message``
(a forgotten message, by the hash of its normalised text), ``text`` (``forget --text``) and
``line`` (a line forget removed from a memory file, bullet and time left out), which keeps an
import of files from bringing a forgotten note back.
"""

from __future__ import annotations

import hashlib
import re
import time

import apsw

from ..store import Migration, Migrations, transaction
from .recall import normalise

TABLE = "memory_forget_tombstones"
TOMBSTONE_MIGRATIONS = Migrations("tombstones", [Migration("0001_tombstones", f"""
CREATE TABLE {TABLE} (
  kind TEXT NOT NULL CHECK (kind IN ('session', 'message', 'text', 'line')),
  key TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT 'forgotten',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (kind, key)
) STRICT;
""")])


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\d{1,2}:\d{2}\s+)?")
_SESSION_ID = re.compile(r"\*\*Session ID\*\*:\s*(\S+)")


def line_body(line: str) -> str:
    """A note line without its bullet and time stamp (``- 10:00 text`` -> ``text``)."""
    return _BULLET.sub("", line, count=1)


def line_key(line: str) -> str:
    return digest(normalise(line_body(line)))


def digest(norm: str) -> str:
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()[:40]


def text_key(text: str) -> str:
    norm = normalise(text)
    return f"{len(norm)}:{digest(norm)}"


def message_key(text: str) -> str:
    return digest(normalise(text))


def message_texts(content: str, arguments: list) -> list[str]:
    """The texts of a message a tombstone covers: its content and every string argument of its
    tool calls (a fact saved through ``memory_append`` lives in the call's arguments)."""
    out = [content] if content and content.strip() else []
    stack = list(arguments)
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if v.strip():
                out.append(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def table_exists(conn: apsw.Connection, name: str = TABLE) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)).fetchone() is not None


def write(conn: apsw.Connection, rows: list[tuple[str, str]], reason: str = "forgotten") -> int:
    """Insert ``(kind, key)`` tombstones (existing ones are kept as they are); returns how many are new."""
    TOMBSTONE_MIGRATIONS.apply(conn)
    now = int(time.time() * 1000)
    with transaction(conn):
        before = conn.total_changes()
        conn.executemany(f"INSERT OR IGNORE INTO {TABLE}(kind, key, reason, created_at) VALUES (?,?,?,?)",
                         [(k, key, reason, now) for k, key in rows])
        return conn.total_changes() - before


class Tombstones:
    """The tombstones of one agent database, loaded once for a batch of checks."""

    def __init__(self, conn: apsw.Connection | None):
        self.sessions: set[str] = set()
        self.messages: set[str] = set()
        self.texts: dict[int, set[str]] = {}
        self.lines: set[str] = set()
        if conn is None or not table_exists(conn):
            return
        for kind, key in conn.execute(f"SELECT kind, key FROM {TABLE}"):
            if kind == "session":
                self.sessions.add(key)
            elif kind == "message":
                self.messages.add(key)
            elif kind == "line":
                self.lines.add(key)
            elif kind == "text":
                n, _, h = key.partition(":")
                self.texts.setdefault(int(n), set()).add(h)

    def __bool__(self) -> bool:
        return bool(self.sessions or self.messages or self.texts or self.lines)

    def note_holds_forgotten(self, text: str) -> bool:
        """Whether a memory file's text holds a line forget removed, a forgotten text, or names a
        forgotten session (``**Session ID**: …``): an import must not bring it back."""
        for line in text.split("\n"):
            if not line.strip():
                continue
            if digest(normalise(line_body(line))) in self.lines or self.forgotten(line):
                return True
            m = _SESSION_ID.search(line)
            if m and m.group(1) in self.sessions:
                return True
        return False

    def forgotten(self, text: str) -> bool:
        """Whether ``text`` is a forgotten message or holds a forgotten text."""
        norm = normalise(text)
        if not norm:
            return False
        if digest(norm) in self.messages:
            return True
        for n, hashes in self.texts.items():
            for i in range(0, len(norm) - n + 1):
                if digest(norm[i:i + n]) in hashes:
                    return True
        return False
