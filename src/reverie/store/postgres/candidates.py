"""The search index's candidate queries on PostgreSQL: keyword top-k and vector top-k, each one
SQL round trip, over one agent's units.

Keywords: no PostgreSQL text-search configuration finds two-character Chinese words, so each unit
keeps the tokens reverie's own keyword index makes (:func:`reverie.text.fts.array_tokens`: CJK
bigrams and characters, porter stems) in a ``text[]`` column with a GIN index, agent first. The
query rules are the SQLite engine's (:func:`reverie.text.fts.build_query`): the strict query (every
term; a CJK word as its bigrams, checked as a phrase on the text) first, the relaxed one (any
token) to fill the window. Ranking is BM25 over those tokens (document frequency per query token
from the GIN index, unit length as its token count, the agent's totals kept beside the units), and
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


def write_units(conn, units: list[Unit]) -> list[int]:
    """Add units (in the caller's transaction, if any); returns their seqs."""
    seqs: list[int] = []
    tokens = 0
    for u in units:
        toks = array_tokens(u.text, "cjk")
        tokens += len(toks)
        emb = vector_literal(u.embedding) if u.embedding is not None else None
        seqs.append(conn.execute(
            "INSERT INTO memory_index_units(path, source, start_line, end_line, text, tokens, dims, embedding) "
            "VALUES (?,?,?,?,?,?::text[],?,?::vector) RETURNING seq",
            (u.path, u.source, u.start_line, u.end_line, u.text, toks,
             len(u.embedding) if u.embedding is not None else None, emb)).fetchone()[0])
    conn.execute("INSERT INTO memory_index_stats(units, tokens) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE "
                 "SET units = memory_index_stats.units + excluded.units, "
                 "tokens = memory_index_stats.tokens + excluded.tokens", (len(units), tokens))
    return seqs


def _term_groups(terms: list[str]) -> list[list[str]]:
    return [g for g in (term_tokens(t, "cjk") for t in terms) if g]


_KEYWORD_SQL = """
WITH q AS (SELECT unnest(?::text[]) AS tok),
stats AS (SELECT greatest(units, 1)::float8 AS n, greatest(tokens::float8 / greatest(units, 1), 1) AS avgl
          FROM memory_index_stats),
df AS (SELECT tok, (SELECT count(*) FROM memory_index_units u WHERE u.tokens @> ARRAY[q.tok]) AS df FROM q),
hit AS (SELECT seq, tokens, text FROM memory_index_units WHERE {where})
SELECT h.seq, h.text,
       -sum(ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5))
            * (? + 1) / (1 + ? * (1 - ? + ? * cardinality(h.tokens) / s.avgl))) AS rank
FROM hit h CROSS JOIN stats s JOIN df ON h.tokens @> ARRAY[df.tok]
GROUP BY h.seq, h.text ORDER BY rank, h.seq LIMIT ?
"""


def keyword_top(conn, query: str, k: int) -> list[Candidate]:
    """The best ``k`` units for the query's words, strict matches first (see the module text)."""
    from ...search.keyword import query_coverage

    q = build_query(query, "cjk")
    groups = _term_groups(q.terms)
    if not groups:
        return []
    every = list(dict.fromkeys(t for g in groups for t in g))
    phrases = [t.lower() for t in q.terms if has_cjk(t) and len(t) > 2]  # bigrams in their order
    out: dict[int, Candidate] = {}
    for strict in (True, False):
        if len(out) >= k or (not strict and len(groups) == 1 and len(groups[0]) == 1):
            break
        where = "tokens @> ?::text[]" if strict else "tokens && ?::text[]"
        params: list = [every]
        if strict:
            for p in phrases:
                where += " AND lower(text) LIKE ?"
                params.append("%" + p.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%")
        rows = conn.execute(_KEYWORD_SQL.format(where=where), (every, *params, K1, K1, B, B, k))
        for seq, text, rank in rows:
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
