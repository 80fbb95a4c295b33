"""The keyword and path legs over the index's FTS5 tables.

Text score contract, in [0,1]: the average of (a) FTS5's bm25 rank turned into a score as the
reference does, ``-r/(1-r)``, and (b) the share of the query's content words the chunk contains.
Why both: FTS5's IDF collapses to ~0 when a workspace holds only a few notes, which would score
every keyword hit near 0 and make a small workspace look empty; coverage keeps a chunk that has
every query word at >= 0.5 whatever the corpus size.
"""

from __future__ import annotations

from dataclasses import dataclass

import apsw

from ..text.cjk import has_cjk
from ..text.fts import build_query, bm25_to_score, escape_like, segment_for_index

# Words that carry no meaning in a query; they do not count against coverage (and FTS5's own
# operator words are among them, so a query of FTS5 syntax is judged on its plain words).
STOP_WORDS = frozenset(
    "a an and are as at be but by for from has have i in is it me my not of on or our so that the "
    "their them they this to was we were what when where which who why will with you your near "
    "的 了 是 在 和 也 就 都 而 及 与 吗 呢 吧 啊 我 你 他 她 它 们 这 那 什么 为什么 怎么 哪 "
    "の は が を に で と も です ます 이 가 은 는 을 를 에 의".split())


@dataclass
class KeywordHit:
    seq: int
    score: float
    bm25: float
    coverage: float
    strict: bool  # matched every term (the strict query), not only some


def query_coverage(text: str, terms: list[str], tokenizer: str = "cjk") -> float:
    """The share of the query's content words (stop words aside) that ``text`` contains."""
    content = [t for t in terms if t not in STOP_WORDS] or terms
    if not content:
        return 0.0
    hay = text.lower()
    hits = 0.0
    for term in content:
        if term in hay:
            hits += 1
        elif has_cjk(term) and len(term) > 2:
            # an unspaced run such as 西湖酒店 is several words: credit the share of its bigrams
            grams = [term[i:i + 2] for i in range(len(term) - 1)]
            hits += sum(g in hay for g in grams) / len(grams)
        elif tokenizer == "cjk" and term.isascii():
            # porter stemming matched a different inflection: count it when the stems agree
            stem = term[:max(3, len(term) - 3)]
            hits += stem in hay
    return hits / len(content)


def keyword_leg(conn: apsw.Connection, query: str, tokenizer: str, window: int) -> list[KeywordHit]:
    q = build_query(query, tokenizer)
    if q.empty:
        return []
    hits: dict[int, KeywordHit] = {}

    def run(match: str | None, strict: bool) -> None:
        where, params = [], []
        if match:
            where.append("memory_index_chunks_fts MATCH ?")
            params.append(match)
        for term in q.like:  # trigram cannot match 1-2 characters: substring filter instead
            where.append("c.text LIKE ? ESCAPE '\\'")
            params.append(f"%{escape_like(term)}%")
        if match and not q.like:
            # rank and limit inside FTS5 first (its ORDER BY rank fast path), then fetch only the
            # window's texts: joining first would read the text of every matching chunk
            sql = ("SELECT t.rowid, t.rank, c.text FROM (SELECT rowid, rank FROM memory_index_chunks_fts "
                   "WHERE memory_index_chunks_fts MATCH ? ORDER BY rank LIMIT ?) t "
                   "JOIN memory_index_chunks c ON c.seq = t.rowid ORDER BY t.rank")
            rows = conn.execute(sql, (match, window))
        else:
            rank = "bm25(memory_index_chunks_fts)" if match else "0.0"
            sql = (f"SELECT f.rowid, {rank}, c.text FROM memory_index_chunks_fts f "
                   f"JOIN memory_index_chunks c ON c.seq = f.rowid WHERE {' AND '.join(where)} "
                   f"ORDER BY {rank} LIMIT ?")
            rows = conn.execute(sql, (*params, window))
        for seq, r, text in rows:
            if seq in hits:
                continue
            cov = query_coverage(text, q.terms, tokenizer)
            score = 0.5 * bm25_to_score(r) + 0.5 * cov if match else cov
            hits[seq] = KeywordHit(seq, score, r, cov, strict)

    run(q.strict, True)
    if len(hits) < window and q.relaxed:
        run(q.relaxed, False)
    return sorted(hits.values(), key=lambda h: (-h.score, h.bm25, h.seq))


@dataclass
class PathHit:
    source_id: int
    path: str
    score: float
    specificity: int  # 3 full path, 2 file name, 1 stem, 0 partial


def path_leg(conn: apsw.Connection, query: str, tokenizer: str, window: int) -> list[PathHit]:
    raw = query.strip().lower()
    out: dict[int, PathHit] = {}
    if raw and not any(ch.isspace() for ch in raw):  # a file is named by one word, never a sentence
        name_like = "%/" + escape_like(raw)
        rows = conn.execute(
            "SELECT id, path FROM memory_index_sources WHERE lower(path) = ? OR lower(path) LIKE ? ESCAPE '\\' "
            "OR lower(path) LIKE ? ESCAPE '\\' OR lower(path) LIKE ? ESCAPE '\\' OR lower(path) LIKE ? ESCAPE '\\'",
            (raw, name_like, name_like + ".%", escape_like(raw), escape_like(raw) + ".%"))
        for sid, path in rows:
            p = path.lower()
            name = p.rsplit("/", 1)[-1]
            stem = name.rsplit(".", 1)[0]
            spec = 3 if raw == p else 2 if raw == name else 1 if raw == stem else 0
            if spec:
                out[sid] = PathHit(sid, path, 1.0, spec)
    q = build_query(query, tokenizer)
    if q.strict and not q.like:
        try:
            rows = conn.execute(
                "SELECT f.rowid, bm25(memory_index_paths_fts), s.path FROM memory_index_paths_fts f "
                "JOIN memory_index_sources s ON s.id = f.rowid WHERE memory_index_paths_fts MATCH ? "
                "ORDER BY bm25(memory_index_paths_fts) LIMIT ?", (q.strict, window)).fetchall()
        except apsw.SQLError:
            rows = []
        for sid, r, path in rows:
            if sid not in out:
                out[sid] = PathHit(sid, path, 0.5 * bm25_to_score(r) + 0.5, 0)
    return sorted(out.values(), key=lambda h: (-h.specificity, -h.score, h.path))


__all__ = ["keyword_leg", "path_leg", "KeywordHit", "PathHit", "segment_for_index"]
