"""The index rows that differ between the engines, written in one place for the sync.

Most of the index's SQL is one copy for both engines (the PostgreSQL connection rewrites the few
idioms that differ: :mod:`reverie.store.postgres.dialect`). What has no common form is here:

* **keyword rows**: SQLite keeps FTS5 tables beside the units and the sources (rowid = seq, id);
  PostgreSQL keeps the same tokens in a ``tokens text[]`` column of the row itself (GIN), with
  their counts and the unit's length in FTS5 tokens (what bm25 reads), made by
  :func:`reverie.text.fts.counted_tokens` from the same text;
* **window vectors**: both keep the float32 mean (``embedding``, what the pipeline scores with);
  PostgreSQL also keeps it as pgvector's ``vector`` (``vec``) for its HNSW index.
"""

from __future__ import annotations

from ..store.engine import engine_of
from ..text.fts import array_tokens, counted_tokens, segment_for_index

_CHUNK_COLUMNS = "id, path, source, start_line, end_line, hash, model, text, context, embedding, updated_at"


def on_postgres(conn) -> bool:
    return engine_of(conn) == "postgres"


VALUES_BATCH = 500  # rows per multi-row INSERT on PostgreSQL


def insert_values(conn, table: str, columns: tuple[str, ...], rows: list[tuple], casts: dict | None = None) -> None:
    """Many rows: one multi-row INSERT per :data:`VALUES_BATCH` on PostgreSQL (a round trip per
    row made indexing there twenty times slower than on SQLite), ``executemany`` on SQLite.
    ``casts``: column -> PostgreSQL type for its placeholder (``vector``, ``text[]``)."""
    if not rows:
        return
    cols = ", ".join(columns)
    if not on_postgres(conn):
        conn.executemany(f"INSERT INTO {table}({cols}) VALUES ({','.join('?' * len(columns))})", rows)
        return
    one = "(" + ",".join("?" + (f"::{casts[c]}" if casts and c in casts else "") for c in columns) + ")"
    for i in range(0, len(rows), VALUES_BATCH):
        part = rows[i:i + VALUES_BATCH]
        conn.execute(f"INSERT INTO {table}({cols}) VALUES {','.join([one] * len(part))}",
                     [v for r in part for v in r])


def insert_chunks(conn, rows: list[tuple], index_texts: list[str], tokenizer: str) -> list[int]:
    """Add units (each row in the order of ``_CHUNK_COLUMNS``) with their keyword rows; their seqs.
    On PostgreSQL the seqs are the agent's next ones, given explicitly (the writer holds the
    index's lock), so the units go in one statement."""
    if not on_postgres(conn):
        return [_insert_chunk_sqlite(conn, r, t, tokenizer) for r, t in zip(rows, index_texts)]
    if not rows:
        return []
    first = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memory_index_chunks").fetchone()[0]
    seqs = list(range(first, first + len(rows)))
    counted = [counted_tokens(t, tokenizer) for t in index_texts]
    insert_values(conn, "memory_index_chunks", ("seq", *_CHUNK_COLUMNS.split(", "), "tokens", "tfs", "length"),
                  [(s, *r, c.tokens, c.counts, c.length) for s, r, c in zip(seqs, rows, counted)],
                  {"tokens": "text[]", "tfs": "integer[]"})
    return seqs


def _insert_chunk_sqlite(conn, row: tuple, index_text: str, tokenizer: str) -> int:
    """One unit and its FTS5 row (rowid = the unit's seq, which SQLite assigns)."""
    marks = ",".join("?" * len(row))
    seq = conn.execute(f"INSERT INTO memory_index_chunks({_CHUNK_COLUMNS}) VALUES ({marks}) RETURNING seq",
                       row).fetchone()[0]
    conn.execute("INSERT INTO memory_index_chunks_fts(rowid, text) VALUES (?, ?)",
                 (seq, segment_for_index(index_text, tokenizer)))
    return seq


def delete_chunks(conn, path: str, source: str) -> None:
    """A source's units, windows and keyword rows (its recall metadata and provenance cascade)."""
    conn.execute("DELETE FROM memory_index_windows WHERE path=? AND source=?", (path, source))
    if not on_postgres(conn):
        conn.execute("DELETE FROM memory_index_chunks_fts WHERE rowid IN "
                     "(SELECT seq FROM memory_index_chunks WHERE path=? AND source=?)", (path, source))
    conn.execute("DELETE FROM memory_index_chunks WHERE path=? AND source=?", (path, source))


def set_path_keywords(conn, source_id: int, words: str, tokenizer: str) -> None:
    """The path's keyword row (``words``: :func:`reverie.index.sync.path_words`)."""
    if on_postgres(conn):
        conn.execute("UPDATE memory_index_sources SET tokens = ? WHERE id = ?",
                     (array_tokens(words, tokenizer), source_id))
        return
    conn.execute("DELETE FROM memory_index_paths_fts WHERE rowid=?", (source_id,))
    conn.execute("INSERT INTO memory_index_paths_fts(rowid, path) VALUES (?, ?)",
                 (source_id, segment_for_index(words, tokenizer)))


def delete_path_keywords(conn, source_id: int) -> None:
    if not on_postgres(conn):  # on PostgreSQL they go with the source's row
        conn.execute("DELETE FROM memory_index_paths_fts WHERE rowid=?", (source_id,))


def _pg_vector(blob: bytes | None) -> tuple[int | None, str | None]:
    if blob is None:
        return None, None
    import numpy as np

    from ..store.postgres.dialect import vector_literal

    v = np.frombuffer(blob, dtype=np.float32)
    return int(v.shape[0]), vector_literal(v)


_WINDOW_COLUMNS = ("path", "source", "start_line", "end_line", "first_seq", "last_seq", "embedding")


def insert_windows(conn, windows: list[tuple]) -> None:
    """Add windows, each ``(path, source, start_line, end_line, first_seq, last_seq, embedding)``."""
    if not on_postgres(conn):
        insert_values(conn, "memory_index_windows", _WINDOW_COLUMNS, windows)
        return
    if not windows:
        return
    first = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM memory_index_windows").fetchone()[0]
    insert_values(conn, "memory_index_windows", ("seq", *_WINDOW_COLUMNS, "dims", "vec"),
                  [(first + i, *w, *_pg_vector(w[-1])) for i, w in enumerate(windows)], {"vec": "vector"})


def set_window_vectors(conn, vectors: list[tuple[int, bytes | None]]) -> None:
    """New mean vectors for windows, each ``(window seq, float32 bytes or None)``: one pipelined batch."""
    if on_postgres(conn):
        conn.executemany("UPDATE memory_index_windows SET embedding=?, dims=?, vec=?::vector WHERE seq=?",
                         [(blob, *_pg_vector(blob), seq) for seq, blob in vectors])
    else:
        conn.executemany("UPDATE memory_index_windows SET embedding=? WHERE seq=?",
                         [(blob, seq) for seq, blob in vectors])


# After a sync that wrote this many units, PostgreSQL's postings are vacuumed at once: the keyword
# leg reads them by index-only scans, which read the table too for every row not yet marked
# all-visible (by VACUUM). Measured at 100,000 units just indexed: the keyword query's p50 / p95
# 9.2 / 47.9 ms before, 3.4 / 10.2 ms after (autovacuum would get there within minutes; the
# schema also asks it to come after every 1 % of new postings).
SETTLE_AFTER_UNITS = 2_000


def settle(store, units_written: int) -> bool:
    """Vacuum and analyse the postings after a large write (PostgreSQL, ``store`` the agent's
    database; a role that does not own the tables leaves it to autovacuum). True when asked."""
    if getattr(store, "engine", "sqlite") != "postgres" or units_written < SETTLE_AFTER_UNITS:
        return False
    try:
        store.vacuum("memory_index_postings")
    except Exception as exc:  # the sync has committed; autovacuum will come
        import logging  # only on a failure: ~7 ms of every cold command otherwise

        logging.getLogger(__name__).warning("could not vacuum the keyword postings after indexing %d units: %s", units_written, exc)
    return True
