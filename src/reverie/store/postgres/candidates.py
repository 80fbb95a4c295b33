"""The search index's candidate queries on PostgreSQL: keyword top-k and vector top-k, each one
SQL round trip, over one agent's units.

Keywords: no PostgreSQL text-search configuration finds two-character Chinese words, so each unit
keeps the tokens reverie's own keyword index makes (:func:`reverie.text.fts.array_tokens`: CJK
bigrams and characters, porter stems) in a ``text[]`` column with a GIN index, agent first. The
query rules are the SQLite engine's (:func:`reverie.text.fts.build_query`): the strict query (every
term; a CJK word as its bigrams, checked as a phrase on the text) first, the relaxed one (any
token) to fill the window. Ranking is BM25 over those tokens (each token's document frequency and the agent's totals kept
beside the units, in the writer's transaction; a unit's length is its token count), and
the score shown is the SQLite engine's: half BM25 turned into [0,1] as FTS5's rank is, half the
share of the query's words the unit holds (:func:`reverie.search.keyword.query_coverage`).

Vectors: ``vector`` columns of any dimension; an HNSW index (``vector_cosine_ops``) per dimension
in use, on the expression ``embedding::vector(N)`` restricted to ``dims = N``. Row-level security
adds the agent's filter after the index scan: pgvector's iterative scan keeps reading the graph
until ``k`` rows of this agent are found.

The index's sync and pipeline do not read these tables yet (docs/team.md, "Not yet"): the
benchmark (``benchmarks/perf_postgres.py``) and the tests fill them directly.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...text.cjk import has_cjk
from ...text.fts import array_tokens, bm25_to_score, build_query, term_tokens

K1, B = 1.2, 0.75
EF_SEARCH = 80  # HNSW candidates per scan: recall@10 >= 0.98 of exact on the benchmark's vectors


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


def _term_groups(terms: list[str]) -> list[list[str]]:
    return [g for g in (term_tokens(t, "cjk") for t in terms) if g]


# BM25 over distinct tokens (tf = 1): a unit's score is the sum of its matched tokens' idf times
# one length factor. The idf comes from the token counts kept beside the units; at most SCAN_CAP
# matching units are scored per pass (a word in half the notes would otherwise cost a scan of half
# the table for hits that all score low), the text of the top k only is read.
SCAN_CAP = 2000
RARE_SHARE = 0.05  # a token in more of the agent's units than this is "common": searched last

_KEYWORD_SQL = """
WITH w AS MATERIALIZED (SELECT * FROM unnest(?::text[], ?::float8[]) AS w(tok, idf)),
top AS MATERIALIZED (
  SELECT u.seq, (SELECT sum(w.idf) FROM w WHERE u.tokens @> ARRAY[w.tok]) * ? / (1 + ? * cardinality(u.tokens)) AS score
  FROM (SELECT seq, tokens FROM memory_index_units WHERE {where} LIMIT {cap}) u ORDER BY score DESC, u.seq LIMIT ?)
SELECT top.seq, u.text, -top.score FROM top JOIN memory_index_units u ON u.seq = top.seq
ORDER BY top.score DESC, top.seq
"""


def _weights(conn, tokens: list[str]) -> tuple[dict[str, float], dict[str, int], float, float]:
    """idf and document frequency of each token, the agent's unit count and mean unit length."""
    import math

    row = conn.execute("SELECT units, tokens FROM memory_index_stats").fetchone() or (0, 0)
    n = max(row[0], 1)
    avgl = max(row[1] / n, 1.0)
    df = dict.fromkeys(tokens, 0)
    df.update({t: d for t, d in conn.execute("SELECT token, df FROM memory_index_tokens WHERE token = ANY(?::text[])",
                                             (tokens,))})
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    return idf, df, float(n), avgl


def keyword_top(conn, query: str, k: int) -> list[Candidate]:
    """The best ``k`` units for the query's words, strict matches first (see the module text)."""
    from ...search.keyword import query_coverage

    q = build_query(query, "cjk")
    groups = _term_groups(q.terms)
    if not groups:
        return []
    every = list(dict.fromkeys(t for g in groups for t in g))
    idf, df, n, avgl = _weights(conn, every)
    if not any(df.values()):
        return []  # no unit holds any of the words
    phrases = [t.lower() for t in q.terms if has_cjk(t) and len(t) > 2]  # bigrams in their order
    rare = [t for t in every if 0 < df[t] <= RARE_SHARE * n]
    common = [t for t in every if df[t] > RARE_SHARE * n]
    passes: list[tuple[bool, str, list]] = []
    if all(df[t] for t in every):
        where, params = "tokens @> ?::text[]", [every]
        for p in phrases:
            where += " AND lower(text) LIKE ?"
            params.append("%" + p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        passes.append((True, where, params))
    if len(every) > 1:
        passes += [(False, "tokens && ?::text[]", [toks]) for toks in (rare, common) if toks]
    # (k1 + 1) / (1 + k1 * (1 - b + b * len / avgl)) = a / (1 + c * len) with these two numbers
    a, c = (K1 + 1) / (1 + K1 * (1 - B)), K1 * B / avgl / (1 + K1 * (1 - B))
    weights = [idf[t] for t in every]
    out: dict[int, Candidate] = {}
    for strict, where, params in passes:
        if len(out) >= k:
            break
        sql = _KEYWORD_SQL.format(where=where, cap=SCAN_CAP)
        for seq, text, rank in conn.execute(sql, (every, weights, a, c, *params, k)):
            if seq not in out:
                score = 0.5 * bm25_to_score(rank) + 0.5 * query_coverage(text, q.terms)
                out[seq] = Candidate(seq, score, rank, strict)
    return sorted(out.values(), key=lambda c: (-c.score, c.rank, c.seq))[:k]


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
