"""SQLite statements as PostgreSQL runs them: the short, fixed list of idioms reverie's stores use.

The stores keep one copy of their SQL, written for SQLite. The tables on PostgreSQL have the same
names and columns plus a leading ``agent_id`` that defaults to the connection's agent and that
row-level security checks (see :mod:`reverie.store.postgres.schema`), so most statements run
unchanged. What differs is rewritten here, once per distinct statement (cached):

| SQLite | PostgreSQL |
|---|---|
| ``?`` parameters | ``%s`` (and a literal ``%`` doubled) |
| ``INSERT OR IGNORE INTO t ...`` | ``INSERT INTO t ... ON CONFLICT DO NOTHING`` |
| ``ON CONFLICT (k)`` | ``ON CONFLICT (agent_id, k)``: every key leads with the agent |
| scalar ``max(a, b)`` / ``min(a, b)`` | ``greatest(a, b)`` / ``least(a, b)`` |
| ``unixepoch()`` | the epoch second as ``bigint`` |
| ``PRAGMA table_info(t)`` | the same rows from ``information_schema.columns`` |
| other ``PRAGMA``s, ``VACUUM`` | nothing (PostgreSQL vacuums by itself; see docs/team.md) |
| ``sqlite_master`` | a view of the schema's tables with the same columns |

Anything engine-specific beyond this list (full-text ``MATCH``, FTS maintenance) is not
translated: the stores ask their engine for it (``engine == "postgres"``).
"""

from __future__ import annotations

import re
from functools import lru_cache

_PRAGMA_INFO = re.compile(r"^\s*PRAGMA\s+table_info\s*\(\s*['\"]?(\w+)['\"]?\s*\)\s*;?\s*$", re.I)
_PRAGMA = re.compile(r"^\s*(PRAGMA|VACUUM)\b", re.I)
_OR_IGNORE = re.compile(r"\bINSERT\s+OR\s+IGNORE\s+INTO\b", re.I)
_CONFLICT = re.compile(r"\bON\s+CONFLICT\s*\(", re.I)
_RETURNING = re.compile(r"\bRETURNING\b", re.I)
_UNIXEPOCH = re.compile(r"\bunixepoch\(\s*\)", re.I)
_MINMAX = re.compile(r"\b(max|min)\s*\(", re.I)
NOTHING = "SELECT 1 WHERE false"


def _outside_literals(sql: str):
    """(start, end, is_literal) spans of ``sql``: single-quoted literals and the rest."""
    out, i, start, n = [], 0, 0, len(sql)
    while i < n:
        if sql[i] == "'":
            if i > start:
                out.append((start, i, False))
            j = i + 1
            while j < n:
                if sql[j] == "'":
                    if j + 1 < n and sql[j + 1] == "'":
                        j += 2
                        continue
                    break
                j += 1
            out.append((i, j + 1, True))
            i = start = j + 1
        else:
            i += 1
    if start < n:
        out.append((start, n, False))
    return out


def _params(sql: str) -> str:
    parts = []
    for a, b, literal in _outside_literals(sql):
        piece = sql[a:b].replace("%", "%%")
        parts.append(piece if literal else piece.replace("?", "%s"))
    return "".join(parts)


def _two_arg(sql: str) -> str:
    """Scalar max/min with several arguments become greatest/least; aggregates stay."""
    out, pos = [], 0
    for m in _MINMAX.finditer(sql):
        if m.start() < pos:
            continue
        depth, j, comma = 1, m.end(), False
        while j < len(sql) and depth:
            c = sql[j]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c == "," and depth == 1:
                comma = True
            j += 1
        if comma:
            out.append(sql[pos:m.start()])
            out.append("greatest(" if m.group(1).lower() == "max" else "least(")
            pos = m.end()
    out.append(sql[pos:])
    return "".join(out)


@lru_cache(maxsize=4096)
def translate(sql: str) -> str:
    m = _PRAGMA_INFO.match(sql)
    if m:
        return ("SELECT ordinal_position - 1, column_name, data_type, (is_nullable = 'NO')::int, "
                "column_default, 0 FROM information_schema.columns "
                f"WHERE table_schema = current_schema() AND table_name = '{m.group(1).lower()}' "
                "AND column_name <> 'agent_id' ORDER BY ordinal_position")
    if _PRAGMA.match(sql):
        return NOTHING
    out = sql
    if _OR_IGNORE.search(out):
        out = _OR_IGNORE.sub("INSERT INTO", out)
        ret = _RETURNING.search(out)
        body = out.rstrip().rstrip(";")
        out = (body[:ret.start()] + " ON CONFLICT DO NOTHING " + body[ret.start():]) if ret \
            else body + " ON CONFLICT DO NOTHING"
    out = _CONFLICT.sub("ON CONFLICT (agent_id, ", out)
    out = _UNIXEPOCH.sub("(extract(epoch from now()))::bigint", out)
    out = _two_arg(out)
    return _params(out)


def vector_literal(vec) -> str:
    """A vector as pgvector's text input (``[0.1,0.2,...]``), float32 precision kept."""
    return "[" + ",".join(f"{float(x):.9g}" for x in vec) + "]"
