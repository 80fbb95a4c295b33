"""The rows transcript search reads, on either engine.

SQLite: ``transcript_fts`` (FTS5, fed text pre-segmented into CJK bigrams). PostgreSQL:
``transcript_search``, the same event's distinct index tokens (:func:`reverie.text.fts.index_tokens`)
in an array column with a GIN index. Both are written in the event's own transaction.
"""

from __future__ import annotations

from ..store import engine_of
from ..text.fts import array_tokens, segment_for_index


def add(conn, seq: int, text: str, session_id: str, role: str) -> None:
    if engine_of(conn) == "postgres":
        conn.execute("INSERT INTO transcript_search(seq, session_id, role, tokens) VALUES (?,?,?,?)",
                     (seq, session_id, role, array_tokens(text, "cjk")))
    else:
        conn.execute("INSERT INTO transcript_fts(rowid, text, session_id, role) VALUES (?,?,?,?)",
                     (seq, segment_for_index(text, "cjk"), session_id, role))


def _table(conn) -> tuple[str, str]:
    return ("transcript_search", "seq") if engine_of(conn) == "postgres" else ("transcript_fts", "rowid")


def _of_sessions(conn, session_ids) -> tuple[str, str]:
    table, key = _table(conn)
    marks = ",".join("?" * len(session_ids))
    return table, f"WHERE {key} IN (SELECT seq FROM transcript_events WHERE session_id IN ({marks}))"


def count_sessions(conn, session_ids) -> int:
    """How many search rows these sessions' events have."""
    table, where = _of_sessions(conn, session_ids)
    return conn.execute(f"SELECT count(*) FROM {table} {where}", tuple(session_ids)).fetchone()[0]


def drop_sessions(conn, session_ids: list[str]) -> int:
    """Delete the search rows of these sessions' events; returns how many there were."""
    n = count_sessions(conn, session_ids)
    table, where = _of_sessions(conn, session_ids)
    conn.execute(f"DELETE FROM {table} {where}", tuple(session_ids))
    return n


def drop(conn, seq: int) -> None:
    table, key = _table(conn)
    conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (seq,))


def clear(conn) -> None:
    conn.execute(f"DELETE FROM {_table(conn)[0]}")


def optimize(conn) -> None:
    """Merge FTS5 segments (so deleted text leaves the file); PostgreSQL has nothing to merge."""
    if engine_of(conn) != "postgres":
        conn.execute("INSERT INTO transcript_fts(transcript_fts) VALUES ('optimize')")


def count(conn) -> int:
    return conn.execute(f"SELECT count(*) FROM {_table(conn)[0]}").fetchone()[0]


def frequencies(conn, tokens: list[str]) -> dict[str, int]:
    """How many search rows hold each token (BM25's document frequency), on either engine."""
    if engine_of(conn) != "postgres":
        from ..search.keyword import document_frequencies

        return document_frequencies(conn, "transcript_fts", tokens)
    if not tokens:
        return {}
    return dict(conn.execute("SELECT t, (SELECT count(*) FROM transcript_search s WHERE s.tokens @> ARRAY[t]) "
                             "FROM unnest(?::text[]) AS t", (tokens,)).fetchall())


def matches(conn, fts_match: str, every: bool, session_ids: list[str], limit: int,
            tokens: list[str] | None = None) -> list[tuple[int, float, int]]:
    """(seq, rank, created) of the events in ``session_ids`` matching ``fts_match`` (an FTS5
    expression, ``every`` when its terms are joined by AND), best first; rank as FTS5's (lower is
    better). PostgreSQL matches ``tokens``, the index tokens the expression asks for (read out of
    it when not given), and ranks by how many of them an event holds; the score shown is computed
    from the text afterwards."""
    if engine_of(conn) != "postgres":
        import apsw

        try:
            return conn.execute(
                "SELECT f.rowid, f.rank, e.created_at FROM transcript_fts f JOIN transcript_events e "
                f"ON e.seq = f.rowid WHERE transcript_fts MATCH ? AND f.session_id IN ({','.join('?' * len(session_ids))}) "
                "ORDER BY f.rank LIMIT ?", (fts_match, *session_ids, limit)).fetchall()
        except apsw.SQLError:
            return []
    import re

    tokens = list(dict.fromkeys(tokens if tokens is not None else re.findall(r'"([^"]*)"', fts_match)))
    if not tokens:
        return []
    return conn.execute(
        "SELECT f.seq, -(SELECT count(*) FROM unnest(f.tokens) t WHERE t = ANY(?::text[]))::float8 AS rank, "
        "e.created_at FROM transcript_search f JOIN transcript_events e ON e.agent_id = f.agent_id AND e.seq = f.seq "
        f"WHERE f.tokens {'@>' if every else '&&'} ?::text[] AND f.session_id = ANY(?::text[]) "
        "ORDER BY rank, e.created_at DESC LIMIT ?", (tokens, tokens, session_ids, limit)).fetchall()
