"""The search index's candidate queries on PostgreSQL: keyword top-k and vector top-k, each one
SQL round trip, over one agent's units.

Keywords: no PostgreSQL text-search configuration finds two-character Chinese words, so each unit
keeps the tokens reverie's own keyword index makes (:func:`reverie.text.fts.array_tokens`: CJK
bigrams and characters, porter stems) in a ``text[]`` column with a GIN index. The query is
analysed as on SQLite (:func:`reverie.search.keyword.analyse_query`: tokens weighed by their
rarity, every token first, then the ones worth fetching), with document frequencies from per-token
counts kept beside the units in the writer's transaction; ranking is BM25 over the tokens, and the
score is the SQLite pipeline's (the share of the query's information a unit holds). Under
row-level security the GIN index is used only when the array operators are LEAKPROOF (schema.py).

Vectors: ``vector`` columns of any dimension; an HNSW index (``vector_cosine_ops``) per dimension
in use, on the expression ``embedding::vector(N)`` restricted to ``dims = N``. Row-level security
adds the agent's filter after the index scan: pgvector's iterative scan keeps reading the graph
until ``k`` rows of this agent are found.

The index's sync and pipeline do not read these tables yet (docs/team.md, "Not yet"): the
benchmark (``benchmarks/perf_postgres.py``) and the tests fill them directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...text.fts import array_tokens

K1, B = 1.2, 0.75
EF_SEARCH = 200  # HNSW candidates per scan (pgvector's default 40 gave recall@10 0.90 on the benchmark)


@dataclass
class Unit:
    path: str
    start_line: int
    end_line: int
    text: str
    embedding: list[float] | None = None
    source: str = "memory"


@dataclass
class Candidate:
    seq: int
    score: float
    rank: float = 0.0  # keyword: FTS5-like rank (lower is better); vector: cosine distance
    strict: bool = False


def vector_literal(vec) -> str:
    return "[" + ",".join(f"{float(x):.7g}" for x in vec) + "]"


def ensure_dims(conn, dims: int) -> None:
    """The HNSW index for vectors of ``dims`` dimensions (384, the bundled model's, comes with the
    schema). Needs the tables' owner: a plain connection (``pool.raw_connect``) of the owner."""
    dims = int(dims)
    conn.execute(f"CREATE INDEX IF NOT EXISTS memory_index_units_hnsw_{dims} ON memory_index_units USING hnsw "
                 f"((embedding::vector({dims})) vector_cosine_ops) WHERE dims = {dims}")


def write_units(conn, units: list[Unit], *, returning: bool = True) -> list[int]:
    """Add units (in the caller's transaction, if any); returns their seqs (none when not
    ``returning``: one pipelined batch instead of a round trip per unit)."""
    rows, tokens, every = [], 0, []
    for u in units:
        toks = array_tokens(u.text, "cjk")
        tokens += len(toks)
        every += toks
        rows.append((u.path, u.source, u.start_line, u.end_line, u.text, toks,
                     len(u.embedding) if u.embedding is not None else None,
                     vector_literal(u.embedding) if u.embedding is not None else None))
    sql = ("INSERT INTO memory_index_units(path, source, start_line, end_line, text, tokens, dims, embedding) "
           "VALUES (?,?,?,?,?,?::text[],?,?::vector)")
    seqs: list[int] = []
    if returning:
        seqs = [conn.execute(sql + " RETURNING seq", row).fetchone()[0] for row in rows]
    elif rows:
        conn.executemany(sql, rows)
    conn.execute("INSERT INTO memory_index_stats(units, tokens) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE "
                 "SET units = memory_index_stats.units + excluded.units, "
                 "tokens = memory_index_stats.tokens + excluded.tokens", (len(units), tokens))
    if every:
        conn.execute("INSERT INTO memory_index_tokens(token, df) SELECT t, count(*) FROM unnest(?::text[]) AS t "
                     "GROUP BY t ON CONFLICT (agent_id, token) DO UPDATE SET df = memory_index_tokens.df + excluded.df",
                     (every,))
    return seqs


# BM25 over distinct tokens (tf = 1): a unit's rank is minus the sum of its matched tokens'
# weights (the query analysis's: idf, doubled for a dialogue's last turn) times one length factor.
# At most ``cap`` matching units are ranked per pass (a word in half the notes would otherwise cost
# a scan of half the table for hits that rank low); the text is not read here.
SCAN_CAP = 2000
COMMON_CAP_PER_K = 4  # a pass on common tokens alone ranks a few units per wanted hit
RARE_SHARE = 0.05  # a token in more of the agent's units than this is "common"

_KEYWORD_SQL = """
WITH w AS MATERIALIZED (SELECT * FROM unnest(?::text[], ?::float8[]) AS w(tok, weight))
SELECT u.seq, -(SELECT sum(w.weight) FROM w WHERE u.tokens @> ARRAY[w.tok]) * ? / (1 + ? * cardinality(u.tokens)) AS rank
FROM (SELECT seq, tokens FROM memory_index_units WHERE {where} LIMIT {cap}) u ORDER BY rank, u.seq LIMIT ?
"""


def unit_count(conn) -> tuple[int, float]:
    """The agent's units and their mean length in tokens."""
    row = conn.execute("SELECT units, tokens FROM memory_index_stats").fetchone() or (0, 0)
    return row[0], max(row[1] / max(row[0], 1), 1.0)


def token_frequencies(conn, tokens: list[str]) -> dict[str, int]:
    """How many of the agent's units hold each token (kept beside the units by ``write_units``)."""
    out = dict.fromkeys(tokens, 0)
    out.update(dict(conn.execute("SELECT token, df FROM memory_index_tokens WHERE token = ANY(?::text[])",
                                 (list(tokens),)).fetchall()))
    return out


def analyse(conn, query: str):
    """The query analysis of the SQLite engine (:func:`reverie.search.keyword.analyse_query`), its
    document frequencies read from this engine's token counts."""
    from ...search.keyword import analyse_query

    n, _ = unit_count(conn)
    return analyse_query(conn, query, "cjk", "memory_index_units", n,
                         frequencies=lambda toks: token_frequencies(conn, toks))


def _tokens_of(expr: str | None) -> list[str]:
    import re

    return list(dict.fromkeys(re.findall(r'"([^"]*)"', expr or "")))


def keyword_leg(conn, qt, limit: int):
    """Units matching the analysed query, best BM25 first: every token first (short queries),
    then any of the tokens worth fetching, as :func:`reverie.search.keyword.keyword_leg` does on
    FTS5; returns the same :class:`~reverie.search.keyword.KeywordHit` list."""
    from ...search.keyword import KeywordHit

    if qt.empty:
        return []
    _, avgl = unit_count(conn)
    # (k1 + 1) / (1 + k1 * (1 - b + b * len / avgl)) = a / (1 + c * len) with these two numbers
    a, c = (K1 + 1) / (1 + K1 * (1 - B)), K1 * B / avgl / (1 + K1 * (1 - B))
    weights = [float(x) for x in qt.weights]
    df = token_frequencies(conn, qt.tokens)
    rare = any(0 < df[t] <= RARE_SHARE * max(qt.n_docs, 1) for t in qt.tokens)
    passes = []
    if qt.strict:
        passes.append((True, "tokens @> ?::text[]", _tokens_of(qt.strict), SCAN_CAP if rare else COMMON_CAP_PER_K * limit))
    fetch = _tokens_of(qt.match)
    if fetch:
        fetch_rare = any(df.get(t, 0) <= RARE_SHARE * max(qt.n_docs, 1) for t in fetch)
        passes.append((not qt.strict and len(qt.tokens) <= 1, "tokens && ?::text[]", fetch,
                       SCAN_CAP if fetch_rare else COMMON_CAP_PER_K * limit))
    hits: dict[int, KeywordHit] = {}
    for strict, where, toks, cap in passes:
        if len(hits) >= limit:
            break
        for seq, rank in conn.execute(_KEYWORD_SQL.format(where=where, cap=cap),
                                      (qt.tokens, weights, a, c, toks, limit)):
            if seq not in hits:
                hits[seq] = KeywordHit(seq, rank, len(hits) + 1, strict)
    return list(hits.values())


def keyword_top(conn, query: str, k: int) -> list[Candidate]:
    """The best ``k`` units for ``query`` with their score as the SQLite engine's pipeline gives it
    (the share of the query's information a unit holds), strict matches first."""
    qt = analyse(conn, query)
    hits = keyword_leg(conn, qt, k)
    if not hits:
        return []
    texts = dict(conn.execute("SELECT seq, text FROM memory_index_units WHERE seq = ANY(?::bigint[])",
                              ([h.seq for h in hits],)).fetchall())
    out = [Candidate(h.seq, qt.coverage(qt.mask(texts[h.seq], "cjk")), h.bm25, h.strict) for h in hits]
    return sorted(out, key=lambda c: (not c.strict, -c.score, c.rank, c.seq))


def vector_top(conn, qvec, k: int, *, mode: str = "auto", ef_search: int = EF_SEARCH) -> list[Candidate]:
    """The ``k`` nearest units by cosine. ``mode``: ``auto`` lets the planner choose (an agent with
    few units is scanned exactly through its agent index, a large one through HNSW), ``index``
    makes it use HNSW, ``exact`` a full scan (the benchmark's ground truth)."""
    dims = len(qvec)
    lit = vector_literal(qvec)
    sql = (f"SELECT seq, embedding::vector({dims}) <=> ?::vector({dims}) AS d FROM memory_index_units "
           f"WHERE dims = {dims} ORDER BY embedding::vector({dims}) <=> ?::vector({dims}) LIMIT ?")
    if mode == "auto" and ef_search == EF_SEARCH:
        # one round trip: the pooled connections carry ef_search and the iterative scan (pool.py)
        rows = conn.execute(sql, (lit, lit, k)).fetchall()
    else:
        from ..connection import transaction

        with transaction(conn, immediate=False):  # SET LOCAL lasts for this one query
            if mode == "exact":
                conn.execute("SET LOCAL enable_indexscan = off")
            elif mode == "index":
                conn.execute("SET LOCAL enable_seqscan = off")
                conn.execute("SET LOCAL enable_bitmapscan = off")
                conn.execute("SET LOCAL enable_sort = off")
            conn.execute(f"SET LOCAL hnsw.ef_search = {int(ef_search)}")
            rows = conn.execute(sql, (lit, lit, k)).fetchall()
    # relaxed order: the index may hand rows back slightly out of order
    return sorted((Candidate(seq, 1.0 - d, d) for seq, d in rows), key=lambda c: (c.rank, c.seq))


def vector_plan(conn, dims: int, mode: str = "auto") -> str:
    """Which path the planner takes for a vector query (``EXPLAIN``), as ``vector_top`` runs it."""
    from ..connection import transaction

    lit = vector_literal([0.0] * (dims - 1) + [1.0])
    with transaction(conn, immediate=False):
        if mode == "index":
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                conn.execute(f"SET LOCAL {setting} = off")
        elif mode == "exact":
            conn.execute("SET LOCAL enable_indexscan = off")
        return "\n".join(r[0] for r in conn.execute(
            f"EXPLAIN SELECT seq FROM memory_index_units WHERE dims = {dims} "
            f"ORDER BY embedding::vector({dims}) <=> ?::vector({dims}) LIMIT 10", (lit,)))
