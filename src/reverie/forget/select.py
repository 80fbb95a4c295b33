"""Which sessions a forget targets (reference §17): by id or key, by participant, by hook source.

Everything here only reads. An explicit ``--session`` that matches nothing is reported
``unresolved`` (and still tombstoned, so it can never appear later); selectors never match by
prefix. ``--participant`` and ``--hook-source`` match recorded sessions only, optionally those
started at or after ``--since``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import apsw

from ..errors import UserError
from ..trust.recall import MIN_WEIGHT, normalise, weight

MIN_TEXT_WEIGHT = 4  # forget --text refuses shorter text: it would cut every line holding a common word


@dataclass
class Selectors:
    sessions: list[str] = field(default_factory=list)
    participants: list[str] = field(default_factory=list)
    hook_sources: list[str] = field(default_factory=list)
    since: datetime | None = None
    texts: list[str] = field(default_factory=list)

    def check(self) -> None:
        if not (self.sessions or self.participants or self.hook_sources or self.texts):
            raise UserError("forget needs a selector: --session, --participant, --hook-source or --text")
        for name, values in (("--session", self.sessions), ("--participant", self.participants),
                             ("--hook-source", self.hook_sources)):
            for v in values:
                if not v or not v.strip():
                    raise UserError(f"forget: {name} needs a value")
        for t in self.texts:
            if weight(normalise(t)) < MIN_TEXT_WEIGHT:
                raise UserError(f"forget --text {t!r} is too short to forget safely: give at least "
                                f"{MIN_TEXT_WEIGHT} letters or digits (2 Chinese/Japanese/Korean characters)")


def parse_since(raw: str | None, tz) -> datetime | None:
    """``--since``: a date or a time (ISO 8601), in ``tz`` unless it names its own offset."""
    if not raw or not raw.strip():
        return None
    try:
        when = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise UserError(f"--since {raw!r}: expected a date such as 2026-07-01 or 2026-07-01T09:00") from None
    return when if when.tzinfo else when.replace(tzinfo=tz)


@dataclass
class Resolution:
    session_id: str
    source: str  # live | forgotten | unresolved | participant | hook-source
    session_key: str | None = None

    def as_dict(self) -> dict:
        d = {"sessionId": self.session_id, "source": self.source}
        if self.session_key:
            d["sessionKey"] = self.session_key
        return d


def _has(conn: apsw.Connection | None, table: str) -> bool:
    return conn is not None and conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (table,)).fetchone() is not None


def _rows(conn, sql: str, params) -> list[tuple]:
    return conn.execute(sql, params).fetchall()


def resolve(conn: apsw.Connection | None, sel: Selectors, agent: str) -> tuple[list[Resolution], list[dict]]:
    """(resolutions, participant matches). ``conn`` may be None (no agent database yet)."""
    from ..sessions.keys import normalize_key

    out: list[Resolution] = []
    seen: set[str] = set()
    have = _has(conn, "sessions")
    has_forgotten = have and any(r[1] == "forgotten_at" for r in conn.execute("PRAGMA table_info(sessions)"))
    cols = "session_id, session_key" + (", forgotten_at" if has_forgotten else ", NULL")

    def add(rows, source: str | None = None) -> None:
        for sid, key, forgotten in rows:
            if sid not in seen:
                seen.add(sid)
                out.append(Resolution(sid, source or ("forgotten" if forgotten else "live"), key))

    for raw in sel.sessions:
        value = raw.strip()
        rows = _rows(conn, f"SELECT {cols} FROM sessions WHERE session_id = ?", (value,)) if have else []
        if not rows and have:
            keys = {value}
            try:
                keys.add(normalize_key(value, agent))
            except UserError:
                pass
            marks = ",".join("?" * len(keys))
            rows = _rows(conn, f"SELECT {cols} FROM sessions WHERE session_key IN ({marks}) ORDER BY started_at",
                         tuple(keys))
        if rows:
            add(rows)
        elif value not in seen:
            seen.add(value)
            out.append(Resolution(value, "unresolved"))
    since_ms = int(sel.since.timestamp() * 1000) if sel.since else None
    matches: list[dict] = []
    if have and sel.participants:
        has_participants = _has(conn, "session_participants")
        for actor in sel.participants:
            sql = (f"SELECT {cols} FROM sessions s WHERE (s.sender = ?"
                   + (" OR EXISTS (SELECT 1 FROM session_participants p WHERE p.session_id = s.session_id "
                      "AND p.actor = ?)" if has_participants else "") + ")")
            params: list = [actor, actor] if has_participants else [actor]
            if since_ms is not None:
                sql += " AND s.started_at >= ?"
                params.append(since_ms)
            rows = _rows(conn, sql + " ORDER BY s.started_at", params)
            matches.append({"participant": actor, "sessionIds": [r[0] for r in rows]})
            add(rows, "participant")
    elif sel.participants:
        matches = [{"participant": a, "sessionIds": []} for a in sel.participants]
    if have and sel.hook_sources and any(r[1] == "hook_source" for r in conn.execute("PRAGMA table_info(sessions)")):
        for src in sel.hook_sources:
            sql = f"SELECT {cols} FROM sessions WHERE hook_source = ?"
            params = [src]
            if since_ms is not None:
                sql += " AND started_at >= ?"
                params.append(since_ms)
            add(_rows(conn, sql + " ORDER BY started_at", params), "hook-source")
    return out, matches


__all__ = ["Selectors", "Resolution", "resolve", "parse_since", "MIN_WEIGHT"]
