"""The search pipeline's candidate queries when the index is on PostgreSQL (docs/team.md).

The ranking (:mod:`.pipeline`: context, merge, multipliers, rerank, MMR, selection) is the same
code on both engines; what differs is how the candidates are found, each leg one or two round
trips:

* **Keywords.** No PostgreSQL text-search configuration finds two-character Chinese words, so each
  unit keeps the tokens reverie's own keyword index makes (:func:`reverie.text.fts.array_tokens`:
  CJK bigrams and characters, porter stems) in a ``text[]`` column with a GIN index. The query is
  analysed as on SQLite (:func:`.keyword.analyse_query`: tokens weighed by their rarity, every
  token first, then the ones worth fetching), with document frequencies from per-token counts kept
  by triggers beside the units; the fetch order is FTS5's bm25 over every matching unit, and the
  score the pipeline uses is the SQLite engine's (the share of the query's information a unit holds). Under row-level
  security the GIN index is used only when the array operators are LEAKPROOF (store/postgres/schema.py).
* **Paths.** A file named by the query (exact tiers) as on SQLite; path words by their tokens.
* **Vectors.** The pipeline compares the query with windows and files. SQLite keeps every window
  in memory; here an HNSW index (``vector_cosine_ops``, one per dimension in use) returns the
  nearest windows, and the windows of the files that hold them or any other candidate are read
  with their float32 vectors: the context scores are then computed exactly as on SQLite, over the
  files that matter to this query (:func:`window_matrix`). Row-level security adds the agent's
  filter after the index scan; pgvector's iterative scan keeps reading the graph until ``k`` rows
  of this agent are found.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, TypeVar

import numpy as np

from ..index import reads
from ..store.postgres.dialect import vector_literal
from ..text.fts import bm25_to_score, query_terms, term_tokens
# exact_path_hits: the same three probes of the sources' indexed path keys on both engines
from .keyword import KeywordHit, PathHit, QueryTerms, analyse_query, exact_path_hits, idf
from .vectors import WindowMatrix, _block, _build_view, _COLUMNS

T = TypeVar("T")
K1, B = 1.2, 0.75
# The fetch order is FTS5's bm25 (its idf, k1 1.2, b 0.75, each token's count in the unit and the
# unit's length in FTS5 tokens) over every unit that matches, as on SQLite:
# * Any of the tokens: from the postings (one row per token of a unit, with its count and the
#   unit's length: store/postgres/schema.py), an index-only scan of the query's tokens and one
#   aggregate.
# * Every token: the groups of that same aggregate that matched every token (_BOTH_SQL); when a
#   token is too common to read, the GIN index intersects the tokens' units, whose postings are
#   then summed alike.
NEAREST_WINDOWS = 24  # windows the HNSW leg returns (the pipeline scores the units of its best 12)

# idf * tf * (k1 + 1) / (tf + k1 * (1 - b) + k1 * b * len / avgl), summed over the unit's tokens.
# Each term is rounded to a multiple of 2^-40 first, so that the sum is exact whatever order the
# aggregate meets a unit's postings in (a plan may meet them in any order; floating-point sums in
# different orders differ in the last bit, and units whose bm25 ties, as FTS5 computes it, would
# then be ordered by that bit instead of by their number, as FTS5 orders them).
_QUANTUM = float(2 ** 40)
_BM25 = (f"-sum(round(w.weight * p.tf * ?::float8 / (p.tf + ?::float8 + ?::float8 * p.len) * {_QUANTUM})"
         f" / {_QUANTUM})")
_ANY_SQL = f"""
SELECT p.seq, {_BM25} AS rank
FROM unnest(?::text[], ?::float8[]) AS w(tok, weight) JOIN memory_index_postings p ON p.token = w.tok
GROUP BY p.seq ORDER BY rank, p.seq LIMIT ?
"""
_ALL_SQL = f"""
SELECT p.seq, {_BM25} AS rank
FROM (SELECT seq FROM memory_index_chunks WHERE tokens @> ?::text[]) AS h
JOIN memory_index_postings p ON p.seq = h.seq JOIN unnest(?::text[], ?::float8[]) AS w(tok, weight) ON p.token = w.tok
GROUP BY p.seq ORDER BY rank, p.seq LIMIT ?
"""


# Both passes from one read when every token is worth reading (no word too common to read): the
# units holding every token are the groups of the any-word aggregate that matched them all. Ordered
# with those first, the first ``2 * limit`` groups hold both answers: the every-word pass's best
# ``limit`` and, when it has fewer than ``limit`` (``s``), the any-word pass's best ``limit`` too,
# which are among the ``s`` and the best ``2 * limit - s`` of the others. (The every-word pass on
# its own probes the postings once per token of each unit the GIN intersection returns: for a
# phrase whose bigrams are all in 32,000 of a million units, 128,000 probes; a second pass over
# one materialised aggregate cost twice the aggregate.)
_BOTH_SQL = f"""
SELECT p.seq, {_BM25} AS rank, count(*) = ? AS every
FROM unnest(?::text[], ?::float8[]) AS w(tok, weight) JOIN memory_index_postings p ON p.token = w.tok
GROUP BY p.seq ORDER BY every DESC, rank, p.seq LIMIT ?
"""


def fts5_idf(n_docs: int, df: int) -> float:
    """FTS5's bm25 idf (never below a millionth, as there). The unit count and a token's count are
    two reads: a writer committing between them can leave ``df`` above ``n_docs``."""
    ratio = (n_docs - df + 0.5) / (df + 0.5)
    v = math.log(ratio) if ratio > 0 else 0.0
    return v if v > 0 else 1e-6


def doc_stats(conn) -> tuple[int, float]:
    """The agent's units and their mean length in tokens (kept by triggers)."""
    chunks, tokens = reads.state(conn, "chunks", "tokens")
    return chunks, max(tokens / max(chunks, 1), 1.0)


def token_frequencies(conn, tokens: list[str]) -> dict[str, int]:
    """How many of the agent's units hold each token."""
    out = dict.fromkeys(tokens, 0)
    if tokens:
        out.update(dict(conn.execute("SELECT token, df FROM memory_index_tokens WHERE token = ANY(?::text[])",
                                     (list(tokens),)).fetchall()))
    return out


@dataclass
class Analysis:
    """The analysed query with what it read of the index (passed on: each is a round trip)."""

    terms: QueryTerms
    df: dict[str, int]
    avg_len: float


def analyse(conn, query: str, tokenizer: str) -> Analysis:
    """The query analysis of the SQLite engine, its document frequencies read from this engine's counts."""
    n, avgl = doc_stats(conn)
    seen: dict[str, int] = {}

    def frequencies(tokens):
        seen.update(token_frequencies(conn, tokens))
        return seen

    qt = analyse_query(conn, query, tokenizer, "memory_index_chunks", n, frequencies=frequencies)
    return Analysis(qt, seen, avgl)


def analysed(conn, qt: QueryTerms) -> Analysis:
    """``qt`` (its tokens already chosen, e.g. keyword.members_query) with this engine's counts."""
    n, avgl = doc_stats(conn)
    qt.n_docs = n
    return Analysis(qt, token_frequencies(conn, qt.tokens), avgl)


def keyword_leg(conn, a: Analysis, limit: int) -> list[KeywordHit]:
    """Units matching the analysed query, best bm25 first: every token first (short queries),
    then any of the tokens worth fetching, as :func:`.keyword.keyword_leg` does on FTS5."""
    qt = a.terms
    if not qt.tokens:
        return []
    bm25 = (K1 + 1, K1 * (1 - B), K1 * B / a.avg_len)
    weight = {t: fts5_idf(qt.n_docs, a.df.get(t, 0)) for t in qt.tokens}  # FTS5: a sum over the phrases
    tokens, fetch = list(qt.tokens), list(qt.fetch)
    passes = []  # (strict, the pass's rows as (seq, bm25) when asked)
    if qt.strict and set(fetch) == set(tokens):
        rows = conn.execute(_BOTH_SQL, (*bm25, len(tokens), tokens, [weight[t] for t in tokens], 2 * limit)).fetchall()
        every = [(seq, rank) for seq, rank, e in rows if e][:limit]
        passes = [(True, lambda: every),
                  (False, lambda: sorted(((seq, rank) for seq, rank, _ in rows), key=lambda r: (r[1], r[0]))[:limit])]
    else:
        if qt.strict:
            passes.append((True, lambda: conn.execute(_ALL_SQL, (*bm25, tokens, tokens, [weight[t] for t in tokens],
                                                                 limit)).fetchall()))
        if fetch:
            passes.append((not qt.strict and len(tokens) <= 1,
                           lambda: conn.execute(_ANY_SQL, (*bm25, fetch, [weight[t] for t in fetch], limit)).fetchall()))
    hits: dict[int, KeywordHit] = {}
    for strict, read in passes:
        if len(hits) >= limit:
            break
        for seq, rank in read():
            if seq not in hits:
                hits[seq] = KeywordHit(seq, rank, len(hits) + 1, strict)
    return list(hits.values())


def path_leg(conn, query: str, tokenizer: str, window: int) -> list[PathHit]:
    """Files the query names (as on SQLite), then files whose path words hold every query word,
    best BM25 first."""
    out = {h.source_id: h for h in exact_path_hits(conn, query)}
    words = query_terms(query)
    need = list(dict.fromkeys(t for w in words for t in term_tokens(w, tokenizer)))
    if need and len(need) <= 32:
        rows = conn.execute("SELECT id, path, cardinality(tokens) FROM memory_index_sources "
                            "WHERE tokens @> ?::text[] ORDER BY id LIMIT ?", (need, window)).fetchall()
        if rows:
            n, total = conn.execute("SELECT count(*), coalesce(sum(cardinality(tokens)), 0) "
                                    "FROM memory_index_sources").fetchone()
            avgl = max(float(total) / max(int(n), 1), 1.0)
            df = dict(conn.execute("SELECT t, count(*) FROM unnest(?::text[]) AS t, memory_index_sources s "
                                   "WHERE s.tokens @> ARRAY[t] GROUP BY t", (need,)).fetchall())
            for sid, path, length in rows:
                if sid in out:
                    continue
                norm = K1 * (1 - B + B * (length or 1) / avgl)
                rank = -sum(idf(int(n), int(df.get(t, 0))) * (K1 + 1) / (1 + norm) for t in need)
                out[sid] = PathHit(sid, path, 0.5 * bm25_to_score(rank) + 0.5, 0)
    return sorted(out.values(), key=lambda h: (-h.specificity, -h.score, h.path))


# HNSW candidates per scan (``hnsw.ef_search``): 200 is the pooled connections' setting (recall@10
# 0.996 at 100,000 windows); at a million it fell to 0.972 and 400 gave 0.990 (docs/benchmarks.md),
# so an index past LARGE_INDEX_WINDOWS windows (estimated from its units) scans with 400.
EF_SEARCH_LARGE = 400
LARGE_INDEX_WINDOWS = 300_000
UNITS_PER_WINDOW = 5  # (measured 5.5 on the scale workspace: the estimate errs towards the larger scan)


def ef_search_for(units: int) -> int | None:
    """The ``hnsw.ef_search`` for an index of ``units`` units; None: the connection's own (200)."""
    return EF_SEARCH_LARGE if units / UNITS_PER_WINDOW > LARGE_INDEX_WINDOWS else None


def _nearest_sql(dims: int) -> str:
    return (f"SELECT seq, path, source FROM memory_index_windows WHERE dims = {dims} "
            f"ORDER BY vec::vector({dims}) <=> ?::vector({dims}) LIMIT ?")


def _wide_scan(conn, ef_search: int | None, run):
    """``run()`` with ``hnsw.ef_search`` widened for its one statement (SET LOCAL: a transaction)."""
    if ef_search is None:
        return run()
    from ..store import transaction

    with transaction(conn, immediate=False):
        conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
        return run()


def nearest_windows(conn, query: np.ndarray, k: int = NEAREST_WINDOWS, *,
                    ef_search: int | None = None) -> list[tuple[int, str, str]]:
    """The ``k`` windows nearest the query by cosine, as (seq, path, source): HNSW for a large
    index (the planner scans a small one exactly); ``ef_search`` widens the scan for this query."""
    dims = int(query.shape[0])
    sql, params = _nearest_sql(dims), (vector_literal(query), k)
    return _wide_scan(conn, ef_search, lambda: [tuple(r) for r in conn.execute(sql, params).fetchall()])


_AHEAD: ThreadPoolExecutor | None = None
_AHEAD_LOCK = threading.Lock()
AHEAD_WORKERS = 8  # scans under way at once in one process; more wait their turn


def _forget_ahead() -> None:
    """In a forked child: none of the parent's worker threads exist there (nor its lock's holder);
    the child starts its own (its connections too: store/postgres/pool.py)."""
    global _AHEAD, _AHEAD_LOCK
    _AHEAD, _AHEAD_LOCK = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_ahead)


def ahead(run: Callable[[], T]) -> Callable[[], T]:
    """``run()`` started on one of the process's worker threads; returns what waits for its answer
    (and raises what it raised)."""
    global _AHEAD
    with _AHEAD_LOCK:
        if _AHEAD is None:
            _AHEAD = ThreadPoolExecutor(AHEAD_WORKERS, thread_name_prefix="reverie-ahead")
        return _AHEAD.submit(run).result


def nearest_ahead(conn, query: np.ndarray, units: int = 0,
                  k: int = NEAREST_WINDOWS) -> Callable[[], list[tuple[int, str, str]]]:
    """Starts :func:`nearest_windows` on another of the pool's connections and returns what gives
    its answer. The scan needs only the query's vector, so the server walks the HNSW graph (one of
    a search's largest statements: 2-5 ms at 100,000 units) while this thread reads the keyword
    and path candidates (1.3 ms less a search there, docs/benchmarks.md). Inside a transaction it
    runs here, in the transaction's snapshot. ``units``: the index's size, for the width of the
    scan; ``k``: how many windows (twice as many as the pipeline scores the units of)."""
    run = functools.partial(nearest_windows, conn, query, k, ef_search=ef_search_for(units))
    if getattr(conn, "in_transaction", True):
        near = run()
        return lambda: near
    return ahead(run)


def _window_sql(dims: int) -> str:
    """Every window of the files the nearest windows (given) and the candidates are in. Each file's
    windows by an index probe (a LATERAL fenced by OFFSET 0 is never flattened into a join): the
    planner, misjudging how many windows the files hold, scanned all the agent's windows into a
    hash join instead (14 against 11.5 ms at 100,000 units; at a million, 132 against 19 at p95)."""
    return (f"WITH files AS (SELECT path, source FROM unnest(?::text[], ?::text[]) AS n(path, source) UNION "
            f"SELECT path, source FROM memory_index_chunks WHERE seq = ANY(?::bigint[])) "
            f"SELECT w.* FROM files f CROSS JOIN LATERAL (SELECT {_COLUMNS} FROM memory_index_windows w "
            f"WHERE w.path = f.path AND w.source = f.source AND w.embedding IS NOT NULL "
            f"AND length(w.embedding) = ? OFFSET 0) AS w ORDER BY w.seq")


def window_matrix(conn, query: np.ndarray, unit_seqs: list[int], near: list[tuple[int, str, str]]) -> WindowMatrix:
    """The windows the pipeline needs for this query, as the in-memory matrix holds them on SQLite:
    every window of each file that holds one of the ``near`` windows (:func:`nearest_ahead`) or one
    of ``unit_seqs`` (the keyword and path candidates), so that each file's vector is its whole
    mean. One statement."""
    dims = int(query.shape[0])
    rows = conn.execute(_window_sql(dims), ([w[1] for w in near], [w[2] for w in near], list(unit_seqs),
                                            dims * 4)).fetchall()
    block = _block(rows, dims)
    return _build_view([block.take()] if block is not None else [], dims)


def ensure_vector_index(conn, dims: int) -> None:
    """The HNSW index for windows of ``dims`` dimensions (384, the bundled model's, comes with the
    schema). Needs the tables' owner: a plain connection (``pool.raw_connect``) of the owner."""
    dims = int(dims)
    conn.execute(f"CREATE INDEX IF NOT EXISTS memory_index_windows_hnsw_{dims} ON memory_index_windows USING hnsw "
                 f"((vec::vector({dims})) vector_cosine_ops) WITH (m = 16, ef_construction = 128) WHERE dims = {dims}")


def vector_plan(conn, dims: int) -> str:
    """Which path the planner takes for the nearest-window query (``EXPLAIN``)."""
    lit = vector_literal([0.0] * (dims - 1) + [1.0])
    return "\n".join(r[0] for r in conn.execute(
        f"EXPLAIN SELECT seq FROM memory_index_windows WHERE dims = {dims} "
        f"ORDER BY vec::vector({dims}) <=> ?::vector({dims}) LIMIT 10", (lit,)))

