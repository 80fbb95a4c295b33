"""The search pipeline (reference §7, on units): legs -> context -> merge -> multipliers -> rerank -> MMR ->
selection (the rerank only when one is configured).

Search scores *units* (entries: a list item, a line of a conversation, a curated entry; see
:mod:`reverie.index.chunking`) and judges each with its context: the window of the file around it
and the file as a whole. Each leg gives a unit its own score and its context's::

    vector  = ½ · cos(unit) + ½ · (0.7 · cos(window) + 0.3 · cos(file))      (calibrated cosines)
    keyword = ½ · kw(unit)  + ½ · (0.7 · kw(window)  + 0.3 · kw(file))      (kw: search.keyword)
    content = 0.7 · vector + 0.3 · keyword     (keyword-only: keyword; vector-only: vector)

A counting question ("how many times…", "一共…几次") weighs a unit's own score 0.8 rather than ½
and scores the units of more windows (:mod:`.counting`).

A result is one unit: its snippet is the unit's text, with the lines it shows, and its citation is
the window around it. Everything here is a pure function of the index connection, the query
vector and the clock (and of a reranker's answer, when one is configured: :mod:`.rerank`), so
tests and benchmarks pass ``now`` explicitly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import apsw

from . import (context, counting, current, days_asked, floor, loose, needs, newest, reading, rerank, taste, timeq,
               vouched)
from ..store.engine import engine_of
from ..text.kinds import ONE_AT_A_TIME, with_heads_named
from ..text.topics import topics_of
from .candidates import Candidate, VectorQuery
from .keyword import analyse_query, expand_across, expand_facets, expand_kinds, expand_measures, expand_methods, \
    has_content, is_conversational, keyword_leg, memory_doc_count, members_query, memory_index_version, path_leg, \
    recent_turn
from .mmr import mmr_order
from .rescore import (DECAY_FLOOR, PROJECT_LIFT, boost_gate, decay_multiplier, gated, importance_multiplier,
                      note_date, project_multiplier, status_multiplier)
from .rerank import Reranking
from .results import Passage, passages, reading_cost, repeats_last, result_row, widen

if TYPE_CHECKING:  # numpy comes with a vector search (query_vector, the context's vector side)
    from collections.abc import Callable

    import numpy as np

__all__ = ["Candidate", "Passage", "SearchParams", "VectorQuery", "candidate_window", "query_vector", "result_row",
           "run"]

VECTOR_WEIGHT = 0.7
TEXT_WEIGHT = 0.3
KEYWORD_FETCH = 2  # keyword hits fetched per place in the candidate window
KINDS_LIMIT = 50  # units naming a member of a kind a counting question (or one about now) names (text/kinds.py) ...
KIND_JUDGED = 64  # a count of a kind: candidates read for whether they name it (search/counting.py)
KINDS_BEST_UNITS = 20_000  # ... the best by bm25 up to this many units in the index, the newest beyond
WINDOW_FLOOR = 48
MMR_POOL = 48
FTS_TABLE = "memory_index_chunks_fts"


@dataclass
class SearchParams:
    query: str
    max_results: int
    min_score: float
    window: int
    tokenizer: str
    now: datetime
    projects: list[str] | None = None
    score_floor: float = 0.0
    half_life_days: float = 30.0  # 0 turns decay off
    decay_floor: float = DECAY_FLOOR
    explain: bool = False
    legs: str = "hybrid"  # "hybrid", or "vector" to rank by the vector leg alone (benchmarks)
    rerank: Reranking | None = None  # a reranker for the wide pool before MMR (search.rerank)
    when: timeq.TimeRange | None = None  # the dates the query names (set by run)
    advice: bool = False  # the query asks for a recommendation (set by run)
    needs: frozenset = frozenset()  # the situations a request for counsel names (search/needs.py; set by run)
    counting: bool = False  # the query asks how many / how much in total (set by run)
    now_state: bool = False  # the query asks what something is now (set by run)
    mine: bool = False  # the query counts the owner's own doings (set by run)
    money: bool = False  # the query adds up money spent (set by run)
    # a count of a kind: whether a text names the kind or one of its members (set by run)
    names_kind: Callable[[str], bool] | None = None
    loose: bool = False  # the query's characters were asked for too (search/loose.py; set by run)
    days: int = 0  # keyword-only: the notes of the days asked read (search/days_asked.py; set by run)
    taste_topics: frozenset = frozenset()  # keyword-only: the topics an advice question names (search/taste.py)
    vector_floor: float | None = None  # the relevance floor (search/floor.py); None or 0: off
    keyword_floor: float | None = None
    max_tokens: int | None = None  # a reading budget: results while their snippets fit (reading.py)
    count_asked: bool = True  # with a budget: whether max_results was asked for (else it is the budget's)


def query_vector(embedder, query: str) -> np.ndarray:
    """The query's embedding. A dialogue or long message is embedded as two views, its most recent
    turn and the whole (its last 2,000 characters: the model reads 512 tokens from the start), and
    searched with their normalised mean: the turn says what is asked now, the whole what about."""
    if not is_conversational(query):
        return embedder.embed_query(query)
    import numpy as np  # the embedder has loaded it

    recent = recent_turn(query)
    whole = query[-2000:]
    vecs = [np.asarray(embedder.embed_query(v), dtype=np.float32) for v in dict.fromkeys((recent, whole)) if v.strip()]
    m = np.mean(vecs, axis=0)
    norm = float(np.linalg.norm(m))
    return m / norm if norm > 0 else m


def candidate_window(configured_max: int, requested_max: int) -> int:
    """Fixed by the configuration, so asking for 1 or 20 results reads the same candidates;
    only a request beyond the window widens it."""
    window = max(WINDOW_FLOOR, configured_max * 4)
    if requested_max * 2 > window:
        window = min(1000, requested_max * 2)
    return window


def _one_of(conn, column: str, values: list, kind: str) -> tuple[str, list]:
    """``column`` is one of ``values``: one array parameter on PostgreSQL (a list of hundreds of
    parameters cost the planner there), a list of parameters on SQLite."""
    if engine_of(conn) == "postgres":
        return f"{column} = ANY(?::{kind}[])", [values]
    return f"{column} IN ({','.join('?' * len(values))})", values


_JOINS = ("LEFT JOIN memory_index_sources s ON s.path = c.path AND s.source = c.source "
          "LEFT JOIN memory_index_chunk_recall_metadata m ON m.chunk_id = c.id "
          "LEFT JOIN memory_index_chunk_provenance p ON p.chunk_id = c.id ")
# PostgreSQL: one index probe per candidate (a LATERAL with LIMIT is never flattened into a join);
# the planner hashed all of the agent's sources instead, a scan that grows with the workspace
_PG_JOINS = ("LEFT JOIN LATERAL (SELECT mtime FROM memory_index_sources s "
             "WHERE s.path = c.path AND s.source = c.source LIMIT 1) s ON true "
             "LEFT JOIN LATERAL (SELECT importance, triggers, project_key, status FROM memory_index_chunk_recall_metadata m "
             "WHERE m.chunk_id = c.id LIMIT 1) m ON true "
             "LEFT JOIN LATERAL (SELECT origin_class, session_kind FROM memory_index_chunk_provenance p "
             "WHERE p.chunk_id = c.id LIMIT 1) p ON true ")


def _load(conn: apsw.Connection, cands: dict[int, Candidate], with_vectors: bool) -> None:
    seqs = list(cands)
    emb = "c.embedding" if with_vectors else "NULL"
    joins = _PG_JOINS if engine_of(conn) == "postgres" else _JOINS
    for i in range(0, len(seqs), 500):
        where, params = _one_of(conn, "c.seq", seqs[i:i + 500], "bigint")
        rows = conn.execute(
            f"SELECT c.seq, c.path, c.source, c.start_line, c.end_line, c.text, c.context, s.mtime, "
            f"m.importance, m.triggers, m.project_key, m.status, p.origin_class, p.session_kind, {emb} "
            f"FROM memory_index_chunks c {joins}WHERE {where}", params)
        for row in rows:
            c = cands[row[0]]
            (c.path, c.source, c.start_line, c.end_line, c.text, c.context, c.mtime, c.importance, c.triggers,
             c.project_key, c.status, c.origin_class, c.session_kind, c.embedding) = row[1:]


def _note_heads(conn: apsw.Connection, paths: list[str], units: int, text: bool = False) -> dict[str, list[tuple]]:
    """Each path's first ``units`` units in order, as (seq,) or (seq, text), in one statement per
    500 paths (a round trip per path cost 10 ms on PostgreSQL)."""
    out: dict[str, list[tuple]] = {}
    paths = list(dict.fromkeys(paths))
    cols = "seq, text" if text else "seq"
    for i in range(0, len(paths), 500):
        where, params = _one_of(conn, "path", paths[i:i + 500], "text")
        for path, *row in conn.execute(
                f"SELECT path, {cols} FROM (SELECT path, {cols}, row_number() OVER (PARTITION BY path "
                f"ORDER BY start_line, seq) AS r FROM memory_index_chunks WHERE {where}) AS f WHERE r <= ? "
                f"ORDER BY path, r", (*params, units)):
            out.setdefault(path, []).append(tuple(row))
    return out


def _first_chunks(conn: apsw.Connection, paths: list[str]) -> dict[str, int]:
    """Each path's first unit."""
    return {path: rows[0][0] for path, rows in _note_heads(conn, paths, 1).items()}


def _event_date(conn: apsw.Connection, pg: bool, event: str, tokenizer: str):
    """(the date, the path) of the daily note whose unit best matches ``event`` by keyword (the
    first of the five best hits that sits in a dated note), or (None, None)."""
    if pg:
        from . import postgres as engine

        hits = engine.keyword_leg(conn, engine.analyse(conn, event, tokenizer), 5)
    else:
        version = memory_index_version(conn)
        qt = analyse_query(conn, event, tokenizer, FTS_TABLE, memory_doc_count(conn, version), version)
        hits = keyword_leg(conn, qt, 5)
    if not hits:
        return None, None
    where, args = _one_of(conn, "seq", [h.seq for h in hits], "bigint")
    paths = dict(conn.execute(f"SELECT seq, path FROM memory_index_chunks WHERE {where}", args))
    for h in hits:
        d = note_date(paths.get(h.seq, ""))
        if d is not None:
            return d, paths[h.seq]
    return None, None


def _words_leg(conn: apsw.Connection, pg: bool, tokenizer: str, words: str, limit: int) -> list:
    """Units holding any of ``words``, by keyword: the stated tastes ("I love…", "我喜欢…") of an
    advice question, the statements of change ("joined", "换成") of a question about now, the concerns
    ("allergic", "过敏") of a situation a request for counsel names."""
    if pg:
        from . import postgres as engine

        a = engine.analyse(conn, words, tokenizer)
        a.terms.strict = None  # any of the words
        return engine.keyword_leg(conn, a, limit)
    version = memory_index_version(conn)
    qt = analyse_query(conn, words, tokenizer, FTS_TABLE, memory_doc_count(conn, version), version)
    qt.strict = None  # any of the words
    return keyword_leg(conn, qt, limit)


def _members_leg(conn: apsw.Connection, pg: bool, members: list, n_docs: int, tokenizer: str) -> list:
    """Units naming any of ``members`` (of the kinds a question names: text/kinds.py), at most
    :data:`KINDS_LIMIT`: the best by bm25, or in an index of more than :data:`KINDS_BEST_UNITS`
    units (SQLite) the newest, as ranking scores every unit holding one (see keyword_leg)."""
    qt = members_query(members, n_docs, tokenizer)
    if pg:
        from . import postgres as engine

        hits = engine.keyword_leg(conn, engine.analysed(conn, qt), KINDS_LIMIT)
    else:
        hits = keyword_leg(conn, qt, KINDS_LIMIT, newest=n_docs > KINDS_BEST_UNITS)
    # (a hit holds a member, not every word of the question: explain's allTerms is the question's)
    return [replace(h, strict=False) for h in hits]


def _dated_notes(conn: apsw.Connection, when: timeq.TimeRange, limit: int) -> list[str]:
    """The daily notes dated inside ``when``, latest first, at most ``limit``. The months of the
    range narrow the statement (over the files, one row each); the date in the name decides, as
    for the time lift (nested notes, ``…-session-2.md`` included)."""
    months, d = [], when.start.replace(day=1)
    while d <= when.end and len(months) < 24:
        months.append(f"%{d:%Y-%m}-%")
        d = (d + timedelta(days=32)).replace(day=1)
    where = " OR ".join("path LIKE ?" for _ in months)
    paths = [r[0] for r in conn.execute(
        f"SELECT path FROM memory_index_sources WHERE source = 'memory' AND ({where})", months)]
    return sorted((p for p in paths if when.holds(note_date(p))), reverse=True)[:limit]


def _dated_firsts(conn: apsw.Connection, when: timeq.TimeRange) -> list[int]:
    """PostgreSQL: the first unit of each daily note dated inside ``when`` (at most
    :data:`timeq.LEG_NOTES`), so that the window matrix the server hands over holds those notes'
    windows for the time leg to choose from."""
    return list(_first_chunks(conn, _dated_notes(conn, when, timeq.LEG_NOTES)).values())


def _days_asked(conn: apsw.Connection, when: timeq.TimeRange, cands: dict[int, Candidate]) -> int:
    """Keyword-only, a range of a few days or few notes: the first unit of each note dated inside
    ``when`` joins the candidates, marked (search/days_asked.py); returns how many notes (0: none
    joined)."""
    paths = _dated_notes(conn, when, days_asked.MAX_NOTES + 1)
    if not days_asked.few(when, len(paths)):
        return 0
    for units in _note_heads(conn, paths, days_asked.HEAD_UNITS, text=True).values():
        seq = days_asked.first_said(units)
        cands.setdefault(seq, Candidate(seq)).dated = True
    return len(paths)


def run(conn: apsw.Connection, params: SearchParams, vectors: VectorQuery | None) -> dict:
    """Rank the index for ``params``; ``vectors`` is None when the vector leg is off."""
    t0 = time.perf_counter()
    cands: dict[int, Candidate] = {}
    pg = engine_of(conn) == "postgres"
    use_vectors = vectors is not None and (pg or not vectors.matrix.empty)
    use_kw = params.legs != "vector"
    # "last week", "上个月": the notes dated then are lifted, and the words leave the keyword query
    # (a dialogue: only its most recent turn says when, and its words stay as they are)
    chatty = is_conversational(params.query)
    said = recent_turn(params.query) if chatty else params.query
    params.when = timeq.resolve(said, params.now)
    anchor = timeq.anchored(said) if params.when is None else None
    if anchor is not None:  # "the week before my trip to Kyoto": the date of the note that best says the event
        day, event_path = _event_date(conn, pg, anchor.event, params.tokenizer)
        params.when = anchor.around(day, event_path) if day is not None else None
    params.advice = taste.asks_for_advice(said)
    # "点菜的时候我需要特别交代厨房什么吗？" after "想去吃泰国菜": the concerns of a meal (search/needs.py); the
    # situation may be in an earlier turn, the request for counsel is in the last
    params.needs = needs.situations(said, params.query) if use_vectors and use_kw else frozenset()
    params.counting = counting.asks_to_count(said)  # passing mentions in many notes (search/counting.py)
    params.now_state = current.asks_now(said)  # a statement of change answers it (search/current.py)
    # "Which bank do I use?", "What car do I drive?": a thing one has one at a time, named by a make or
    # a provider ("Moved all my accounts to Redwood Credit Union"; text/kinds.py ONE_AT_A_TIME). With
    # vectors only: they judge which line naming a bank answers; keyword-only, "Finally cancelled the
    # old Chase credit card" would rank as high as the line that moved the accounts
    holds = not params.counting and current.asks_what_holds(said)  # (read once: the kinds and the facets ask)
    one_kind = use_vectors and holds and newest.asks_of_a_kind(said)
    # a count of the owner's own doings: the assistant's lines and other people's are no instance
    instances = counting.counts_instances(said)  # each saying counted: none updates another (below)
    params.mine = params.counting and instances and counting.asks_mine(said)
    params.money = params.counting and counting.sums_money(said)
    kw_query = params.query
    if params.when is not None and not chatty and has_content(params.when.text, params.tokenizer):
        kw_query = params.when.text
    if params.counting:  # "how many times": the count's frame, not a word to find
        kw_query = counting.without_frame(kw_query)
    takes_kinds = use_kw and (params.counting or params.now_state or one_kind)
    if takes_kinds:  # "开的是什么车": the kind of cars (text/kinds.py)
        kw_query = with_heads_named(kw_query)
    if pg:  # the same legs from that engine's queries (search/postgres.py)
        from . import postgres as engine

        analysis = engine.analyse(conn, kw_query, params.tokenizer)
        qt = analysis.terms
        if use_vectors:  # the nearest windows, found by the server while the other legs are read
            near = engine.nearest_ahead(conn, vectors.query, qt.n_docs,
                                        2 * counting.COARSE_WINDOWS if params.counting else engine.NEAREST_WINDOWS)
        kw_hits = engine.keyword_leg(conn, analysis, params.window * KEYWORD_FETCH) if use_kw else []
        p_hits = engine.path_leg(conn, params.query, params.tokenizer, params.window) if use_kw else []
    else:
        version = memory_index_version(conn)
        qt = analyse_query(conn, kw_query, params.tokenizer, FTS_TABLE, memory_doc_count(conn, version), version)
        kw_hits = keyword_leg(conn, qt, params.window * KEYWORD_FETCH) if use_kw else []
        p_hits = path_leg(conn, params.query, params.tokenizer, params.window) if use_kw else []
    for hit in kw_hits:
        cands.setdefault(hit.seq, Candidate(hit.seq)).kw = hit
    # the taste leg (search/taste.py): with vectors, they judge the tastes found; without them, the
    # topics the request names do, and only tastes on those topics stay
    topics = topics_of(said) if params.advice and use_kw and not use_vectors else frozenset()
    tastes_alone: set[int] = set()  # keyword-only: the tastes only this leg found
    if params.advice and use_kw and (use_vectors or topics):
        for hit in _words_leg(conn, pg, params.tokenizer, taste.TASTE_WORDS, taste.LEG_LIMIT):
            if not use_vectors and hit.seq not in cands:
                tastes_alone.add(hit.seq)
            cands.setdefault(hit.seq, Candidate(hit.seq))
    if params.needs:  # the needs leg: the owner's concerns for the situations named (their vectors judge them)
        for words, limit in needs.legs(params.needs):
            for hit in _words_leg(conn, pg, params.tokenizer, words, limit):
                cands.setdefault(hit.seq, Candidate(hit.seq))
    if params.when is not None and use_vectors and pg:  # the notes dated then, for the time leg below
        for seq in _dated_firsts(conn, params.when):
            cands.setdefault(seq, Candidate(seq))
    if params.now_state and use_vectors and use_kw:  # the change leg (search/current.py)
        for hit in _words_leg(conn, pg, params.tokenizer, current.CHANGE_WORDS, current.LEG_LIMIT):
            cands.setdefault(hit.seq, Candidate(hit.seq))
    # a count, or a question about now, names a kind whose members the notes name ("doctors":
    # "dermatologist"; "car": "Corolla"; text/kinds.py), and a question gathering what many notes say
    # (a count, a range of days) asks in Chinese for its characters too (search/loose.py); a lookup
    # is left to its words and the vectors
    question = params.when.text if params.when is not None else said  # (a range was read from ``said``)
    gathers = params.counting or params.when is not None
    # (a look-up of a thing one has one at a time takes only those kinds)
    only = None if params.counting or params.now_state else ONE_AT_A_TIME
    members = expand_kinds(qt, said, params.tokenizer, only) if takes_kinds else []
    kind_named = bool(members)  # (a measure alone, 几本, says little of what is counted: "读完那本传记")
    if use_kw and params.counting:  # "几盆植物": "一小盆罗勒" is one
        members += expand_measures(qt, counting.measure_words(kw_query), params.tokenizer)
    if use_kw:  # "哪种方法": "…二十法" is one
        members += expand_methods(qt, said, params.tokenizer)
    if use_kw and holds:  # "landlord": 房东 (text/facets.py)
        members += expand_facets(qt, said, params.tokenizer)
    # keyword-only: an everyday thing the question names, named in the other language ("牙医" for "Who's my
    # dentist?": text/bilingual.py); found so, a note is no member of a kind (search/current.py reads that).
    # Not with vectors: they link the languages already (the cross-language set: 0.94 in the first three),
    # and the keyword credit put a Chinese 咖啡 line above the English answer to a question about coffee
    across = expand_across(qt, said, params.tokenizer) if use_kw and not use_vectors else []
    # the units naming a member or a thing across languages are keyword hits: the query's mask reads them
    for named, of_kind in ((members, True), (across, False)):
        for hit in _members_leg(conn, pg, named, qt.n_docs, params.tokenizer) if named else ():
            c = cands.setdefault(hit.seq, Candidate(hit.seq))
            c.member = c.member or of_kind
            if c.kw is None:
                c.kw = hit
            tastes_alone.discard(hit.seq)
    wanted = loose.terms(question) if use_kw and gathers else frozenset()  # (a range: always gathers)
    loose_words = loose.leg_words(wanted) if qt.n_docs <= loose.MAX_UNITS else ""
    found: set[int] = set()  # the units the loose leg found,
    alone: set[int] = set()  # ... and those the legs before it did not (they go again if they hold none)
    if loose_words:
        for hit in _words_leg(conn, pg, params.tokenizer, loose_words, loose.LEG_LIMIT):
            found.add(hit.seq)
            tastes_alone.discard(hit.seq)
            if hit.seq not in cands:
                alone.add(hit.seq)
                cands[hit.seq] = Candidate(hit.seq)
    dated_notes = 0  # keyword-only, a few days asked: each note's first unit (search/days_asked.py)
    if params.when is not None and not use_vectors and use_kw:
        dated_notes = _days_asked(conn, params.when, cands)
    firsts = _first_chunks(conn, [h.path for h in p_hits])
    for h in p_hits:
        seq = firsts.get(h.path)
        if seq is None:
            continue
        c = cands.setdefault(seq, Candidate(seq))
        c.path_score, c.specificity = h.score, h.specificity
    wcos = fcos = None
    if use_vectors and pg:  # the windows this query needs, with their files' (see postgres.window_matrix)
        vectors = VectorQuery(engine.window_matrix(conn, vectors.query, list(cands), near()), vectors.query,
                              vectors.offset)
        use_vectors = not vectors.matrix.empty
    own_weight = _own_weight(params, use_vectors)
    if use_vectors:
        wcos, fcos = context.coarse(vectors, cands,
                                    counting.COARSE_WINDOWS if params.counting else context.COARSE_WINDOWS)
        if params.when is not None:  # the time leg: the best windows of the notes dated then
            context.windows_dated(vectors, wcos, cands, params.when.start.toordinal(), params.when.end.toordinal(),
                                  timeq.LEG_WINDOWS)
    t_legs = time.perf_counter()
    _load(conn, cands, use_vectors)
    for c in list(cands.values()):
        if not c.path:  # vanished between legs (a concurrent sync): drop it
            del cands[c.seq]
    pool = list(cands.values())
    params.loose, params.days, params.taste_topics = bool(loose_words), dated_notes, topics
    if loose_words or dated_notes:  # what the question's terms loosely hold; of what those legs brought, only that
        pool = days_asked.keep(pool, wanted, found, alone, params.when)
    if topics:  # keyword-only: the tastes on a topic the request names
        pool = taste.keep_topical(pool, topics, tastes_alone)
    if params.counting and use_vectors:  # the units of many windows: only the nearest go on
        pool = context.nearest_units(pool, vectors, counting.UNITS_KEPT)
    if use_vectors:
        windows = context.windows_from_matrix(vectors.matrix, pool)
    else:
        windows = context.windows_of_files(conn, pool)
    context.score_context(pool, windows, qt, params.tokenizer, vectors if use_vectors else None, wcos, fcos,
             params.score_floor, use_kw, own_weight)
    if params.counting and kind_named:  # a count of a kind is made of the lines naming it (counting.py):
        params.names_kind = lambda text: qt.names_kind(text, params.tokenizer)
        # (read where it can matter, the kind's words against a text costing a few µs: the
        # KIND_JUDGED best so far, the question's characters lifting, and every one within reach of
        # them once they take x0.8; further down, a line stays as it is)
        def so_far(c: Candidate) -> float:
            kw = max(c.keyword, vouched.floor_of(c)) if use_kw else 0.0
            return VECTOR_WEIGHT * (c.vector or 0.0) + TEXT_WEIGHT * kw if use_vectors else kw

        judged = kind_judged(pool, so_far, params)
        for c in pool:
            c.names_kind = (bool(c.specificity) or params.names_kind(c.index_text)) if id(c) in judged else None
    if loose_words or dated_notes or topics:
        vouched.lift(pool)
    for c in pool:
        kw = c.text_score  # the keyword leg, or a partial path match where the text did not match
        if use_vectors and use_kw:
            c.content = VECTOR_WEIGHT * (c.vector or 0.0) + TEXT_WEIGHT * kw
        elif use_vectors:
            c.content = c.vector or 0.0
        else:
            c.content = kw
    if params.money:  # a sum of money is made of the lines naming an amount (search/counting.py)
        for c in pool:
            c.names_amount = bool(c.specificity) or counting.names_amount(c.text)
    _rescore(pool, params, use_vectors, use_kw, judge=True)
    reranked = None
    if params.rerank is not None:  # the one place a reranker is asked: on the wide pool, before MMR
        reranked = rerank.apply(pool, params.query, params.rerank)
        if reranked["applied"]:
            _rescore(pool, params, use_vectors, use_kw, judge=False)
    if params.explain and (qt.alts or qt.across):  # which member of a kind held a head word ("doctor":
        # "dermatologist"), or which word of the other language ("瑜伽": "yoga")
        for c in pool:
            if c.trace.get("keyword"):
                c.trace["keyword"]["members"] = qt.held_by_members(c.text, params.tokenizer)
    # order: exact path tiers first (3, 2, 1), then everything else; MMR within each group
    ordered: list[Candidate] = []
    groups = [[c for c in pool if c.specificity == t] for t in (3, 2, 1)]
    groups.append([c for c in pool if not c.specificity])
    for group in groups:
        group.sort(key=lambda c: (-c.score, c.path, c.start_line, c.end_line, c.seq))
        head, rest = group[:MMR_POOL], group[MMR_POOL:]
        order, penalties = mmr_order([c.score for c in head], [c.text for c in head])
        for pos, (i, pen) in enumerate(zip(order, penalties)):
            if params.explain:
                head[i].trace["mmr"] = {"before": i + 1, "after": pos + 1, "penalty": round(pen, 4)}
        ordered.extend(head[i] for i in order)
        ordered.extend(rest)
    # selection: minScore judged before decay; keyword-backed hits fill in when too few qualify;
    # when even the best candidate is no evidence of a memory about the query, nothing (floor.py)
    n = params.max_results
    evidence = floor.judge(pool, params.vector_floor, params.keyword_floor, use_vectors, use_kw, qt.n_docs)
    strict = [c for c in ordered if c.eligible and (evidence.passed or c.specificity)]
    lexical = [c for c in ordered if (c.kw is not None or c.dated or c.loose) and not c.eligible] if evidence.passed else []
    # a line said again goes last; for a count, each time the owner said it may be one of the
    # instances counted, so only the assistant's repeats do (its stock advice is never one)
    strict, lexical = repeats_last(strict, params.counting), repeats_last(lexical, params.counting)
    mode = "strict" if evidence.passed else "no-memory"
    above = passages(strict)
    if len(above) < n:
        if not strict and lexical:
            mode = "lexical-fallback"
        elif lexical:
            mode = "strict+lexical"
    below = passages(lexical) if mode != "strict" else []
    cut_by_budget = False  # whether the budget, not the count or the matches, ended the list
    if params.max_tokens:  # a reading budget: as many results as fit in it (widened among those)
        matched = len(above) + len(below)
        fit = reading.fitting((reading_cost(p) for p in above + below), params.max_tokens)[0]
        # (a count derived from the budget is the budget's: what it left out, the budget did)
        cut_by_budget = fit < min(n, matched) or (not params.count_asked and matched > min(n, fit))
        n = min(n, fit)
    # merged over the whole list before the cut, so asking for 1 or 20 gives the same leader; a
    # later note that updates an earlier one goes just above it, the earlier marked superseded
    # (widened among the results above minScore only: a keyword-only fallback never takes their place)
    ranked = widen(above, n) + below
    if instances:  # five swims are five swims: none is the newest value of another
        merged, superseded = ranked, {}
    else:
        def when(p: Passage):
            return newest.dated(p.lead.path, min(u.start_line for u in p.units), p.text)

        if params.now_state:  # what the answer replaced, wherever it ranked
            ranked = newest.bring_history(ranked, when, lambda p: p.text)
        merged, superseded = newest.order(ranked, when, lambda p: p.text, lambda p: p.citation, said,
                                          history=params.now_state, score=lambda p: p.lead.score,
                                          ratios=(newest.ANSWER_RATIO, newest.CLOSE_RATIO) if use_vectors
                                          else newest.KEYWORD_RATIOS,
                                          vector=(lambda p: p.lead.embedding) if use_vectors else None)
        if below:  # (the lexical fill, there only when too few matched, never goes above a match: asking for 1
            # or 20 gives the same leader; a match it updates is still marked)
            fill = {id(p) for p in below}
            merged = [p for p in merged if id(p) not in fill] + [p for p in merged if id(p) in fill]
    for p in merged:
        p.superseded_by = superseded.get(id(p))
    chosen = merged[:n]
    budget = None
    if params.max_tokens:  # widening and the newest-first order may have put a longer passage inside
        kept, used = reading.fitting((reading_cost(p) for p in chosen), params.max_tokens)
        cut_by_budget = cut_by_budget or kept < len(chosen)
        chosen = chosen[:kept]
        budget = {"maxTokens": params.max_tokens, "tokens": used, "more": cut_by_budget}
    t_end = time.perf_counter()
    return {
        "chosen": chosen,
        "mode": mode,
        "candidates": len(pool),
        "legs": {"vector": None if not use_vectors else int(len(wcos)), "keyword": len(kw_hits),
                 "path": len(p_hits)},
        "ms": {"legs": round((t_legs - t0) * 1000, 2), "total": round((t_end - t0) * 1000, 2)},
        "rerank": reranked,
        "relevance": evidence.debug(),
        "budget": budget,
    }


def _own_weight(params: SearchParams, use_vectors: bool) -> float:
    """A unit's own share of its score against its context's: a counting question's, ranked with
    vectors, is larger (keyword-only it keeps the usual: the window's words are all that bridges a
    short mention, "swam", to the question)."""
    return counting.OWN_WEIGHT if params.counting and use_vectors else context.OWN_WEIGHT


def kind_judged(pool: list[Candidate], so_far, params: SearchParams) -> set[int]:
    """The candidates (by ``id``) whose text is read for the kind a count names: the KIND_JUDGED best
    by their score so far (``so_far(c)``) and every one within reach of them, that is, every one a
    later lift could still carry past the KIND_JUDGED-th once that one takes x0.8 (a date in the
    question's range x1.25, an entry's importance, an active project). Further down a line stays
    as it is: it cannot rise above a line read and kept."""
    lift = (timeq.TIME_BOOST if params.when is not None else 1.0) * (PROJECT_LIFT if params.projects else 1.0) * \
        max([importance_multiplier(c.importance) for c in pool] + [1.0])
    scored = sorted(((so_far(c), id(c)) for c in pool), reverse=True)
    reach = scored[KIND_JUDGED - 1][0] * counting.NO_KIND / lift if len(scored) > KIND_JUDGED else -1.0
    return {i for score, i in scored if score >= reach}


def _rescore(pool: list[Candidate], params: SearchParams, use_vectors: bool, use_kw: bool, *, judge: bool) -> None:
    """Each candidate's score from its relevance (``content``) and the multipliers. ``judge``
    decides eligibility (minScore), which is judged once, on reverie's own relevance."""
    top = max((c.content for c in pool if not c.specificity), default=0.0)
    # the time lift is gated against the best result outside the event a range hangs on ("my trip"):
    # that note says the event's words, not what was asked about the week before it
    event = params.when.event_path if params.when is not None else None
    top_when = top if event is None else max((c.content for c in pool if not c.specificity and c.path != event),
                                             default=0.0)
    liked_ids = taste.lifted(pool) if params.advice else set()
    needed_ids = needs.lifted(pool, params.needs) if params.needs else set()
    changed_ids = current.lifted(pool, params.query) if params.now_state else set()
    for c in pool:
        base = (1.0 + max(0.0, min(1.0, c.content))) / 2 if c.specificity else c.content
        imp = importance_multiplier(c.importance)
        proj = project_multiplier(c.project_key, params.projects)
        status = status_multiplier(c.status)
        gate = 1.0 if c.specificity else boost_gate(c.content, top)
        when = 1.0
        if params.when is not None and not c.specificity and params.when.holds(note_date(c.path)):
            when = gated(timeq.TIME_BOOST, timeq.gate(c.content, top_when))  # the question said when: a wider band
        c.pre_decay = base * gated(imp * proj * status, gate) * when
        liked = 1.0
        if id(c) in liked_ids:  # "I love…" for "recommend me…": the best-matching tastes only
            liked = gated(taste.TASTE_BOOST, taste.gate(c.content, top))
            c.pre_decay *= liked
        needed = 1.0
        if id(c) in needed_ids:  # "对花生过敏" for "点菜要注意什么": the best-matching concerns only
            needed = gated(needs.NEED_BOOST, needs.gate(c.content, top))
            c.pre_decay *= needed
        changed = 1.0
        if id(c) in changed_ids:
            changed = gated(current.CHANGE_BOOST, current.gate(c.content, top))  # "I left X and joined Y"
            c.pre_decay *= changed
        # (in the order only: whether it qualifies is judged as before)
        # (which sentences name the kind is asked only of a line naming it: of another, none does)
        not_mine = params.mine and not c.specificity and counting.not_mine(
            c.text, params.names_kind if c.names_kind is not False and params.names_kind else None)
        theirs = counting.NOT_MINE if not_mine else 1.0
        if not c.names_amount:
            theirs *= counting.NO_AMOUNT
        if c.names_kind is False:
            theirs *= counting.NO_KIND
        c.decay, c.age_days = decay_multiplier(c.path, params.now, c.mtime, params.half_life_days,
                                                  params.decay_floor)
        c.score = c.pre_decay * c.decay * theirs
        if judge:
            c.eligible = bool(c.specificity) or c.pre_decay >= params.min_score
        if params.explain:
            c.trace = _trace(c, imp, proj, status, gate, params, use_vectors, use_kw, when, liked, changed, theirs,
                             not_mine, needed)


def _trace(c: Candidate, imp: float, proj: float, status: float, gate: float, params: SearchParams,
           use_vectors: bool, use_kw: bool, when: float = 1.0, liked: float = 1.0, changed: float = 1.0,
           theirs: float = 1.0, not_mine: bool = False, needed: float = 1.0) -> dict:
    r4 = lambda x: None if x is None else round(float(x), 4)  # noqa: E731
    own = _own_weight(params, use_vectors)
    out = {
        "vector": None if c.vector_raw is None else {
            "cosine": r4(c.vector_raw), "calibrated": r4(c.vector), "floor": params.score_floor,
            "unit": r4(c.vector_parts[0]), "window": r4(c.vector_parts[1]), "file": r4(c.vector_parts[2]),
            "rank": c.vector_rank},
        "keyword": None if not c.keyword_parts or (c.kw is None and not c.keyword) else {
            "score": r4(c.keyword), "unit": r4(c.keyword_parts[0]), "window": r4(c.keyword_parts[1]),
            "file": r4(c.keyword_parts[2]), "coverage": r4(c.kw_unit),
            "bm25": r4(c.kw.bm25) if c.kw else None, "allTerms": bool(c.kw and c.kw.strict),
            "rank": c.kw.rank if c.kw else None},
        "path": None if c.path_score is None else {"score": r4(c.path_score), "exactTier": c.specificity},
        "merge": {"content": r4(c.content if c.fused is None else c.fused), "formula": (
            f"{VECTOR_WEIGHT} x vector + {TEXT_WEIGHT} x keyword" if use_vectors and use_kw
            else "vector only" if use_vectors else "keyword only"),
            "context": f"each leg: {own} x unit + {round(1 - own, 2)} x "
                       f"({context.WINDOW_SHARE} x window + {round(1 - context.WINDOW_SHARE, 2)} x file)"},
        "importance": {"value": c.importance, "multiplier": r4(imp)},
        "status": {"value": c.status, "multiplier": status},
        "project": {"key": c.project_key, "active": params.projects or [], "multiplier": proj},
        "boost": {"gate": r4(gate), "applied": r4(gated(imp * proj * status, gate))},
        "preDecay": r4(c.pre_decay),
        "eligible": c.eligible,
        "decay": {"multiplier": r4(c.decay), "ageDays": None if c.age_days is None else round(c.age_days, 2)},
        "score": r4(c.score),
    }
    if params.when is not None:  # only when the query names a time
        out["time"] = {"range": [params.when.start.isoformat(), params.when.end.isoformat()], "multiplier": r4(when)}
    if params.advice:  # only when the query asks for a recommendation
        out["taste"] = {"stated": liked != 1.0 or taste.states_taste(c.text), "multiplier": r4(liked)}
        if params.taste_topics:  # keyword-only: the topics asked about, and whether this taste is on one
            out["taste"].update(topics=sorted(params.taste_topics), onTopic=c.topical, weight=taste.TOPIC_WEIGHT)
    if params.needs:  # only when the query asks for counsel in a situation it names
        out["need"] = {"situations": sorted(params.needs), "states": sorted(needs.states(c.text, params.needs)),
                       "multiplier": r4(needed)}
    if params.mine or params.money or params.names_kind:  # only when the query counts the owner's doings,
        out["count"] = {"notMine": not_mine, "multiplier": r4(theirs)}  # adds up money or counts a kind
        if params.money:
            out["count"]["namesAmount"] = c.names_amount
        if params.names_kind and c.names_kind is not None:  # (None: not read, below the best)
            out["count"]["namesKind"] = c.names_kind
    if params.loose or params.days:  # only when the question's characters or its days were read
        out["loose"] = {"share": r4(c.loose), "dayAsked": bool(c.dated), "weight": loose.WEIGHT}
    if params.now_state:  # only when the query asks what something is now
        out["now"] = {"statesChange": current.states_change(c.text), "multiplier": r4(changed)}
    if params.rerank is not None:  # only when one is configured
        out["rerank"] = rerank.trace(c, params.rerank.weight)
    return out
