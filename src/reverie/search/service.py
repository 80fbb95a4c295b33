"""Search as the tools and the CLI call it: preflight, freshness, the legs, fail-closed errors.

* An empty query returns at once and never touches the embedder.
* A search never waits for indexing. On a workspace that was never fully indexed it starts the
  index in the background, waits at most 0.3 s for the keyword rows, and answers from
  what is indexed so far with ``stale`` and an ``indexing`` block (files and vectors done of
  total). A dirty index (files changed since they were indexed) is re-synced in the background
  (only the changed files) and the answer says ``stale``. A zero-hit query triggers nothing.
* While chunks wait for their vector, the vector leg is left out (keyword-only, and the answer
  says why) rather than ranking embedded chunks above the rest; a handful in a big index (at most
  16, at most 1 %) is tolerated.
* A damaged index is replaced and rebuilt from the files in the background; the answer says so.
* An explicitly configured remote provider that fails answers ``unavailable`` with the reason and
  an action, never keyword results dressed up as semantic ones.
* A configured reranker (``memory.search.rerank``) that fails or misses its deadline leaves the
  answer as it would be without one (fail open): ``debug.rerank`` says why, and the first failure
  is logged as a warning.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from ..config import SearchSettings
from ..errors import EmbeddingError, UserError
from ..index import embed_turns, generations, progress, reads
from ..index.identity import read_meta
from ..index.manager import DAMAGED, DirtyState, IndexUnavailable, MemoryIndex
from ..index.schema import fts_tokenizer_of
from ..index.sync import FILE_GROUP
from . import floor, language, pipeline, reading

if TYPE_CHECKING:
    from ..embeddings import Embedder, ProviderState
    from .vectors import VectorMatrix

DIRTY_CHECK_SECONDS = 1.0
FIRST_SEARCH_WAIT = 0.3   # a first search waits this long at most for the keyword rows
FIRST_CHECK_WAIT = 0.1    # ... and this long for a dirty check of unknown cost
# Chunks without a vector that hybrid ranking tolerates (notes just written by another process,
# at most 1 % of the index): a chunk without one would rank below every chunk with one.
VECTOR_GAP = 16
VECTOR_RETRY_SECONDS = 60.0
# A catch-up that found the index held by another writer tries again this much later (that writer
# is usually the start-up or post-Dreaming sync, done in a second or two); one that found this
# process's own background run at work waits for it this long at most, once per VECTOR_BUSY_SECONDS
# (it embeds the very chunks the search would).
VECTOR_BUSY_SECONDS = 5.0
CATCH_UP_WAIT = 1.0
SYNC_ACTION = "Run: reverie index"
NO_MEMORY = "Nothing in memory matches this: no memory of it."
log = logging.getLogger("reverie.search")


def unavailable(error: str, quota: bool, provider: str, model: str | None) -> dict:
    if quota:
        warning = "Memory search is unavailable because the embedding provider quota is exhausted."
        action = "Top up or switch embedding provider, then retry memory_search."
    else:
        warning = "Memory search is unavailable due to an embedding/provider error."
        action = "Check embedding provider configuration and retry memory_search."
    return {"results": [], "disabled": True, "unavailable": True, "error": error, "warning": warning,
            "action": action, "provider": provider, "model": model, "mode": "unavailable"}


class SearchService:
    def __init__(self, index: MemoryIndex, settings: SearchSettings, embedder: Embedder | None,
                 state: ProviderState):
        self.index = index
        self.settings = settings
        self.embedder = embedder
        self.state = state
        self._vectors: VectorMatrix | None = None
        self._vectors_lock = threading.Lock()
        self._dirty: DirtyState | None = None
        self._dirty_at = 0.0       # when the last check started (monotonic)
        self._dirty_cost = 0.0
        self._dirty_thread: threading.Thread | None = None
        self._vectors_requested = 0.0
        self._catch_up_failed = -1e9  # monotonic time of a catch-up that embedded nothing (search once more later)
        self._catch_up_busy = -1e9  # ... of one that found the index busy (another writer, or a run of ours)
        self._generation: str | None = None  # the generation the current search reads
        self.last_generation: str | None = None  # ... and the one the last search read
        self._reranking: tuple | None = None  # (Reranking | None, RerankState), made at the first search
        self._rerank_failing = False  # a failure was warned about; warn again only after a success

    @property
    def vectors(self) -> VectorMatrix:
        """The windows' vectors in memory (:mod:`.vectors`), made by the first vector search: a
        keyword-only search never imports numpy."""
        with self._vectors_lock:
            if self._vectors is None:
                from .vectors import VectorMatrix

                self._vectors = VectorMatrix()
            return self._vectors

    # -- background sync ----------------------------------------------------------------------
    def start(self) -> None:
        """Warm up: a background sync (a session start, a server start)."""
        self.index.sync_in_background(full=True)

    def wait_for_sync(self, timeout: float) -> bool:
        return self.index.background.wait(timeout)

    def _dirty_state(self, *, blocking: bool = False) -> DirtyState | None:
        """The last known dirty state. A check stats every memory file, which costs real time in
        a big workspace: it runs at most once a second and never more often than 50x its own
        cost (2 % of a process's time: about every 15 s at 20,000 notes, where `reverie watch` is
        the way to index edits at once), and in a background thread once it costs more than 50 ms
        (or before its cost is known), so a search never pays for it unless the caller must know now."""
        clean_since = self.index.clean_since
        if self._dirty is not None and clean_since >= self._dirty_at:
            self._dirty = DirtyState(False)  # a sync that began after the last check covered it
        now = time.monotonic()
        if self._dirty is not None and now - self._dirty_at <= max(DIRTY_CHECK_SECONDS, 50 * self._dirty_cost):
            if not blocking:
                return self._dirty
        if blocking or (0 < self._dirty_cost <= 0.05):
            self._check_dirty()
            return self._dirty
        if self._dirty_thread is None or not self._dirty_thread.is_alive():
            self._dirty_at = now  # one background check at a time
            self._dirty_thread = threading.Thread(target=self._check_dirty, name="reverie-dirty", daemon=True)
            self._dirty_thread.start()
            if self._dirty is None:
                self._dirty_thread.join(FIRST_CHECK_WAIT)
        return self._dirty

    def _check_dirty(self) -> None:
        started = time.monotonic()
        t = time.perf_counter()
        try:
            self._dirty = self.index.dirty_state()
        except Exception:
            pass  # a failed check keeps the last answer; status reports index problems
        self._dirty_cost = time.perf_counter() - t
        self._dirty_at = started

    def _preflight(self, sync_wait: float) -> DirtyState | None:
        """Start whatever background work the index needs; wait only as the caller allows."""
        idx = self.index
        conn = idx.conn()
        meta = read_meta(conn, progress.KEY) or {}
        never = read_meta(conn, "last_sync") is None
        deadline = time.monotonic() + max(FIRST_SEARCH_WAIT if never else 0.0, sync_wait)
        asked = False  # whether this search started index work or waited for it
        if never or meta.get("state") == "running":
            asked = True
            # never fully indexed, or a run was cut short: (re)start it; the keyword rows come first
            if not progress.running(idx.index_dir):
                idx.sync_in_background(full=True)
            bg = idx.background
            while never and bg.running() and not bg.files_ready.wait(0.05) and time.monotonic() < deadline:
                pass
        dirty = self._dirty_state(blocking=sync_wait > 0)
        if dirty is not None and dirty.dirty:
            asked = True
            if len(dirty.paths) > FILE_GROUP or dirty.removed or not dirty.paths:
                # many files (a tracked run shows its progress), or removals (out of scope, or gone)
                idx.sync_in_background(full=True)
            else:
                idx.sync_in_background(paths=dirty.paths)
        if idx.pending_writes:
            asked = True
            idx.sync_in_background(paths=sorted(idx.pending_writes))
        if sync_wait > 0 and idx.background.running():
            idx.background.wait(max(0.0, deadline - time.monotonic()))
            dirty = self._dirty_state(blocking=True)
        if asked or idx.background.running():
            reads.forget()  # the index may have changed (or be changing) since it was read: read it again
        return dirty

    def _catch_up(self, missing: int) -> bool:
        """A few chunks lack their vector (notes a hook wrote in a process that answered and exited
        without loading the model): embed them now, with the local model this search loads for
        its query anyway, so that they rank with the rest instead of the search going
        keyword-only. True when it did."""
        emb = self.embedder
        now = time.monotonic()
        if (missing > VECTOR_GAP or emb is None or emb.remote or not self.settings.store.vector.enabled
                or now - self._catch_up_failed < VECTOR_RETRY_SECONDS or now - self._catch_up_busy < VECTOR_BUSY_SECONDS):
            return False
        if self.index.background.running():  # our own run is likely embedding them: wait, briefly
            self._catch_up_busy = now  # (once: the searches beside this one do not wait too)
            if not self.index.background.wait(CATCH_UP_WAIT):
                return False
            self._catch_up_busy = -1e9
            reads.forget()  # then embed whatever that run left (it may have been another file's)
        try:
            done = self.index.fill_vectors_now()
        except Exception as exc:  # the search goes on as before: the background fills them later
            log.debug("catching up on %d vectors failed: %s", missing, exc)
            return False
        if done is None:  # another writer holds the index (and is likely filling them)
            self._catch_up_busy = time.monotonic()
            return False
        if done.embedding_error:
            self._catch_up_failed = time.monotonic()
            return False
        reads.forget()  # the counters changed under this search's read of them
        return True

    def _want_vectors(self, missing: int) -> None:
        """Chunks lack vectors and nobody is computing them: fill them in the background (retried
        at most once a minute after a provider failure)."""
        now = time.monotonic()
        last = self.index.background.last_report
        failed = last is not None and last.embedding_error
        if missing and not self.index.background.running() and (
                not failed or now - self._vectors_requested > VECTOR_RETRY_SECONDS):
            self._vectors_requested = now
            self.index.sync_in_background(vectors=True)

    # -- rerank -------------------------------------------------------------------------------
    def reranking(self):
        """(the :class:`pipeline.Reranking` to use or None, its :class:`RerankState`); resolved
        once. An unknown provider name is a ConfigError, as for the embedder."""
        if self._reranking is None:
            from .. import rerank

            cfg = self.settings.rerank
            rr, state = rerank.resolve(cfg)
            self._reranking = (None if rr is None else pipeline.Reranking(
                rr, pool_size=cfg.pool_size, weight=cfg.weight, seconds=cfg.timeout_ms / 1000), state)
        return self._reranking

    def _rerank_debug(self, info: dict | None, state) -> dict | None:
        """``debug.rerank``; a failure is also logged once (one warning until the reranker works
        again), since every search answers as if it were not configured meanwhile."""
        if info is None:
            if state.requested == "none":
                return None
            info = {"provider": state.requested, "applied": False, "pool": 0,
                    "reason": f"{state.reason}: {state.error}"}  # the provider failed to start
        if info.get("applied"):
            self._rerank_failing = False
        elif info.get("reason") and (info.get("pool") or state.error):
            if not self._rerank_failing:
                log.warning("memory search ran without rerank: %s", info["reason"])
            self._rerank_failing = True
        return info

    # -- the search ---------------------------------------------------------------------------
    def search(self, query: str, max_results: int | None = None, min_score: float | None = None, *,
               now: datetime | None = None, projects: list[str] | None = None, explain: bool = False,
               sync_wait: float = 0.0, max_tokens: int | None = None) -> dict:
        t0 = time.perf_counter()
        q = (query or "").strip()
        if max_results is not None and (not isinstance(max_results, int) or max_results < 1):
            raise UserError("maxResults must be a whole number of at least 1")
        if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int)
                                       or not 1 <= max_tokens <= reading.MAX_TOKENS):
            raise UserError(f"maxTokens must be a whole number between 1 and {reading.MAX_TOKENS}")
        if min_score is not None and not (0.0 <= float(min_score) <= 1.0):
            raise UserError("minScore must be a number between 0 and 1")
        base = {"provider": self.state.provider, "model": self.state.model, "fallback": self.settings.fallback,
                "citations": "auto"}
        if not q:
            return {"results": [], **base, "mode": "empty-query",
                    "debug": {"backend": "sqlite", "searchMs": 0.0, "hits": 0}}
        try:
            with reads.once(self.index.conn()):  # the index's small tables: one read per search
                return self._search(q, max_results, min_score, now, projects, explain, sync_wait, base, t0,
                                    max_tokens)
        except IndexUnavailable as exc:
            return self._no_index(str(exc), base)
        except DAMAGED as exc:
            if self._vectors is not None:
                self._vectors.forget()  # its connection reads the damaged file
            why = f"The search index was damaged ({exc}); it has been reset and is being rebuilt from the files."
            try:
                if generations.current_name(self.index.index_dir) == self._generation:
                    self.index.repair(f"{self._generation}: {exc}")
                self.index.sync_in_background(full=True)
            except IndexUnavailable as busy:
                why = str(busy)
            return self._no_index(why, base)

    def _no_index(self, why: str, base: dict) -> dict:
        return {"results": [], **base, "mode": "unavailable-index", "stale": True,
                "warning": f"{why} Results are missing until it is done.",
                "action": "Search again shortly, or run: reverie index --force",
                "debug": {"backend": "sqlite", "hits": 0}}

    def _search(self, q, max_results, min_score, now, projects, explain, sync_wait, base, t0, max_tokens) -> dict:
        n = max_results or self.settings.query.max_results
        if max_tokens:  # a reading budget: rank as many as it could hold, keep those that fit
            n = reading.results_wanted(max_tokens, self.settings.query.max_results, max_results)
        threshold = self.settings.query.min_score if min_score is None else float(min_score)
        dirty = self._preflight(sync_wait)
        # one connection and one generation for the whole search, even if a rebuild publishes now
        conn, generation = self.index.snapshot()
        self._generation = generation
        check = self.index.identity_check(conn)
        stored = self.index.stored_identity(conn) or {}
        debug: dict = {"backend": "postgres" if self.index.pg else "sqlite", "configuredMode": "hybrid" if self.embedder else "keyword-only"}
        if self.embedder is None and self.state.error:  # say why search is keyword-only (§7.8)
            debug["embeddingBootstrap"] = f"{self.state.reason}: {self.state.error}"
        emb = self.embedder
        index_vectors = emb is not None and check.vectors_ok and stored.get("provider") != "none"
        chunks, with_vectors = progress.counts(conn)
        missing = chunks - with_vectors if index_vectors else 0
        if missing and self._catch_up(missing):
            chunks, with_vectors = progress.counts(conn)
            if chunks - with_vectors >= missing:  # nothing came of it: not again for a while
                self._catch_up_failed = time.monotonic()
            missing = chunks - with_vectors
        if missing:
            self._want_vectors(missing)
        vector_hits = None
        embed_ms = 0.0
        window = pipeline.candidate_window(self.settings.query.max_results, n)
        if emb is not None and self.settings.store.vector.enabled:
            if not check.vectors_ok or stored.get("provider") == "none":
                debug["vectorSkipped"] = ("index identity does not match the provider: "
                                          + "; ".join(check.reasons)) if not check.vectors_ok else \
                    "the index holds no vectors yet (built keyword-only); run: reverie index --force"
            elif missing > min(VECTOR_GAP, chunks // 100):
                debug["vectorSkipped"] = (f"vectors are still being computed ({with_vectors:,} of {chunks:,} "
                                          f"chunks); keyword-only until they are")
            elif not with_vectors:  # an empty index: nothing to compare a query vector with (no model load)
                debug["vectorSkipped"] = "the index holds no vectors yet"
            else:
                te = time.perf_counter()
                qv = None
                try:
                    with embed_turns.query_turn(emb) as free:
                        if free:
                            qv, late = _query_vector_in_budget(emb, q)
                            if late:
                                debug["vectorSkipped"] = late
                        else:  # never wait seconds for a background batch: keyword-only this once
                            debug["vectorSkipped"] = "the embedder is busy indexing; keyword-only for this search"
                except EmbeddingError as exc:
                    if emb.remote and self.state.requested not in ("auto",):
                        return unavailable(str(exc), exc.quota, self.state.provider, self.state.model)
                    debug["embeddingBootstrap"] = f"query embedding failed, keyword-only: {exc}"
                embed_ms = (time.perf_counter() - te) * 1000
                if qv is not None and np_any(qv) and self.index.pg:
                    # the query without the language it is written in (a measured axis of the model);
                    # the pipeline asks the engine (search/postgres.py)
                    qv, offset = language.neutral(emb.model, qv)
                    vector_hits = pipeline.VectorQuery(None, qv, offset)
                elif qv is not None and np_any(qv):
                    snap = self.vectors.serve(conn, generation, int(qv.shape[0]))
                    conn, self._generation = snap.conn, snap.generation  # the previous one while the new loads
                    # ... when the memory holds notes in another language than the query's
                    files = snap.view.files if not snap.view.empty else None
                    qv, offset = language.neutral(emb.model, qv, files)
                    vector_hits = pipeline.VectorQuery(snap.view, qv, offset)
        elif emb is None and stored.get("provider") not in (None, "none"):
            # Keyword-only (provider "none", or one that failed to start) over an index holding
            # another provider's vectors: say why they go unused instead of dropping them silently.
            debug["vectorSkipped"] = f"{self.state.reason}; the index holds {stored['provider']} vectors"
        reranking, rerank_state = self.reranking()
        floored = self.settings.query.no_memory_floor and threshold > 0
        tokenizer = fts_tokenizer_of(conn) or stored.get("ftsTokenizer", "cjk")
        params = pipeline.SearchParams(
            query=q, max_results=n, min_score=threshold, window=window, tokenizer=tokenizer,
            now=now or datetime.now(timezone.utc), projects=projects,
            score_floor=emb.score_floor if emb is not None else 0.0, explain=explain,
            half_life_days=(self.settings.temporal_decay.half_life_days
                            if self.settings.temporal_decay.enabled else 0.0),
            decay_floor=self.settings.temporal_decay.floor, rerank=reranking,
            # the relevance floor when turned on; minScore 0 asks for everything, ranked: no floor then
            vector_floor=_vector_floor(self.settings.query.relevance_floor, emb) if floored else None,
            keyword_floor=None if not floored else (
                floor.KEYWORD_FLOOR if self.settings.query.keyword_floor is None
                else self.settings.query.keyword_floor),
            max_tokens=max_tokens, count_asked=max_results is not None)
        out = pipeline.run(conn, params, vector_hits)
        results = [pipeline.result_row(c, explain) for c in out["chosen"]]
        debug.update({
            "effectiveMode": "hybrid" if vector_hits is not None else "keyword-only",
            "selection": out["mode"], "candidates": out["candidates"], "window": window,
            "relevance": out["relevance"],
            "legs": out["legs"], "hits": len(results), "embedMs": round(embed_ms, 2),
            "rankMs": out["ms"]["total"], "searchMs": round((time.perf_counter() - t0) * 1000, 2),
        })
        rerank_debug = self._rerank_debug(out["rerank"], rerank_state)
        if rerank_debug is not None:
            debug["rerank"] = rerank_debug
        self.last_generation = self._generation  # (kept off the answer: every token of it costs)
        answer = {"results": results, **base, "mode": debug["effectiveMode"], "debug": debug}
        if out["budget"] is not None:
            answer["budget"] = out["budget"]
        answer.update(self._freshness(conn, check, dirty, index_vectors))
        if not results:  # "no memory of this", said plainly (not weak hits an agent must second-guess)
            answer["note"] = NO_MEMORY + (" (the index is behind the files: see warning)" if answer.get("stale") else "")
        return answer

    def _freshness(self, conn, check, dirty: DirtyState | None, index_vectors: bool) -> dict:
        """``stale``, ``warning``, ``action`` and ``indexing`` whenever the index is known to be
        behind the files: never an answer from an index known to be behind without saying so."""
        if check.status == "mismatched":
            return {"stale": True, "warning": f"Memory index is stale: {'; '.join(check.reasons)}. "
                    "Search results may be incomplete.", "action": "Run: reverie index --force"}
        failed = self._failure()
        if failed is not None:
            return failed
        info = progress.describe(conn, self.index.index_dir, vectors_used=index_vectors,
                                 starting=self.index.background.running())
        out: dict = {}
        if info is not None:
            out["indexing"] = info
            last = read_meta(conn, "last_sync") or {}
            if info["state"] == "pending" and last.get("embedding_error"):
                warning = (f"{info['vectors']['total'] - info['vectors']['done']:,} chunks have no vector yet "
                           f"(embedding failed: {last['embedding_error']}); they are found by keyword only.")
            else:
                warning = f"Memory is still being indexed ({progress.summary(info)}); results may be incomplete."
            out.update(stale=True, warning=warning,
                       action="Indexing continues in the background; to finish it now: reverie index")
        elif (dirty is not None and dirty.dirty) or self.index.pending_writes:
            out.update(stale=True, warning="Memory index is dirty. Search results may be incomplete.",
                       action=SYNC_ACTION)
        return out

    def _failure(self) -> dict | None:
        """The last background sync failed: say so (a damaged database by name, with its repair),
        instead of answering from an index that silently stopped following the files."""
        bg = self.index.background
        if bg.last_error is None:
            return None
        from ..repair import REPAIR_HINT, diagnose  # (rare path: keep the search's imports light)

        damaged = diagnose(bg.last_exception, [self.index.places]) if bg.last_exception is not None else None
        why = str(damaged).replace(f"; {REPAIR_HINT}", "") if damaged is not None else f"indexing failed: {bg.last_error}"
        return {"stale": True, "warning": f"Memory could not be brought up to date: {why}. "
                "Search results may be incomplete.",
                "action": REPAIR_HINT if damaged is not None else SYNC_ACTION}


def _vector_floor(configured: float | None, emb) -> float | None:
    """The vector side of the relevance floor: the setting, else the embedder's calibrated value
    (None for an embedder never measured: not floored on that side)."""
    if configured is not None:
        return configured
    return getattr(emb, "relevance_floor", None) if emb is not None else None


def np_any(v) -> bool:
    try:
        return bool(abs(v).sum() > 0)
    except Exception:
        return False


def _query_vector_in_budget(emb, q: str):
    """(the query vector, None), or (None, why) when a caller's time budget
    (:func:`reverie.budget.embed_budget`) ran out first: the search then goes keyword-only."""
    from .. import budget

    seconds = budget.embed_seconds()
    if seconds is None:
        return pipeline.query_vector(emb, q), None
    finished, value, error = budget.run_bounded(lambda: pipeline.query_vector(emb, q), seconds,
                                                name="reverie-query-embedding")
    if error is not None:
        raise error
    if finished:
        return value, None
    why = (f"the embedder did not answer within {seconds * 1000:.0f} ms (loading, or a busy machine); "
           "keyword-only for this search")
    budget.note(f"a memory search went keyword-only: {why.split(';')[0]}")
    return None, why
