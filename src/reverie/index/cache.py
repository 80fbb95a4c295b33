"""The embedding cache: vectors keyed by (provider, model, provider key, chunk hash).

Lives in the agent database, so it survives index rebuilds: a forced rebuild re-embeds nothing
that was embedded before. Least recently used rows beyond 50,000 are pruned.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import apsw

from ..store import transaction

if TYPE_CHECKING:  # numpy loads when vectors do (status and get never need it), the providers when chosen
    import numpy as np

    from ..embeddings import Embedder

MAX_ENTRIES = 50_000
LOOKUP_BATCH = 400


def lookup(conn: apsw.Connection, emb: Embedder, hashes: list[str]) -> dict[str, np.ndarray]:
    import numpy as np

    found: dict[str, np.ndarray] = {}
    unique = list(dict.fromkeys(hashes))
    for i in range(0, len(unique), LOOKUP_BATCH):
        part = unique[i:i + LOOKUP_BATCH]
        marks = ",".join("?" * len(part))
        rows = conn.execute(
            f"SELECT hash, embedding FROM memory_embedding_cache WHERE provider=? AND model=? "
            f"AND provider_key=? AND hash IN ({marks})",
            (emb.provider, emb.model, emb.provider_key, *part),
        )
        for h, blob in rows:
            found[h] = np.frombuffer(blob, dtype=np.float32)
    if found:  # touch for LRU, in one statement per batch
        now = int(time.time())
        keys = list(found)
        with transaction(conn):
            for i in range(0, len(keys), LOOKUP_BATCH):
                part = keys[i:i + LOOKUP_BATCH]
                marks = ",".join("?" * len(part))
                conn.execute(
                    f"UPDATE memory_embedding_cache SET updated_at=? WHERE provider=? AND model=? "
                    f"AND provider_key=? AND hash IN ({marks})",
                    (now, emb.provider, emb.model, emb.provider_key, *part),
                )
    return found


def store(conn: apsw.Connection, emb: Embedder, vectors: dict[str, np.ndarray]) -> None:
    if not vectors:
        return
    import numpy as np

    now = int(time.time())
    with transaction(conn):
        conn.executemany(
            "INSERT INTO memory_embedding_cache(provider, model, provider_key, hash, embedding, dims, updated_at) "
            "VALUES (?,?,?,?,?,?,?) ON CONFLICT(provider, model, provider_key, hash) DO UPDATE SET "
            "embedding=excluded.embedding, dims=excluded.dims, updated_at=excluded.updated_at",
            [(emb.provider, emb.model, emb.provider_key, h, np.asarray(v, dtype=np.float32).tobytes(),
              int(v.shape[0]), now) for h, v in vectors.items()],
        )


def prune(conn: apsw.Connection, max_entries: int = MAX_ENTRIES) -> int:
    # updated_at has one-second resolution; rowid breaks ties so the oldest inserts go first
    count = conn.execute("SELECT count(*) FROM memory_embedding_cache").fetchone()[0]
    excess = count - max_entries
    if excess <= 0:
        return 0
    with transaction(conn):
        conn.execute(
            "DELETE FROM memory_embedding_cache WHERE rowid IN "
            "(SELECT rowid FROM memory_embedding_cache ORDER BY updated_at ASC, rowid ASC LIMIT ?)", (excess,))
    return excess


def count(conn: apsw.Connection) -> int:
    return conn.execute("SELECT count(*) FROM memory_embedding_cache").fetchone()[0]
