"""Search as the tools and the CLI call it: preflight, staleness, the legs, fail-closed errors.

* An empty query returns at once and never touches the embedder.
* An empty index gets one synchronous sync first; a dirty index starts a background sync and the
  search answers from the current index right away (``stale: true``), never waiting for a reindex.
* An explicitly configured remote provider that fails answers ``unavailable`` with the reason and
  an action, never keyword results dressed up as semantic ones.
"""

from __future__ import annotations

import threading
import time
from datetime import datetime, timezone

from ..config import SearchSettings
from ..embeddings import Embedder, ProviderState
from ..errors import EmbeddingError, UserError
from ..index.manager import MemoryIndex
from ..index.schema import fts_tokenizer_of
from . import pipeline
from .vectors import VectorMatrix

DIRTY_CHECK_SECONDS = 1.0


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
        self.vectors = VectorMatrix()
        self._sync_thread: threading.Thread | None = None
        self._dirty_checked = 0.0
        self._dirty_cost = 0.0
        self._dirty_thread: threading.Thread | None = None
        self._dirty = False
        self._lock = threading.Lock()

    # -- background sync ----------------------------------------------------------------------
    def _start_background_sync(self) -> None:
        with self._lock:
            if self._sync_thread is not None and self._sync_thread.is_alive():
                return

            def work() -> None:
                try:
                    self.index.sync(blocking=False)
                except Exception:
                    pass  # reported by status; a search must not fail because a sync did
                finally:
                    # the cached "dirty" answer predates this sync: without a re-check the next
                    # searches (for up to DIRTY_CHECK_SECONDS) still said stale on a fresh index
                    self._dirty_checked = 0.0

            self._sync_thread = threading.Thread(target=work, name="reverie-sync", daemon=True)
            self._sync_thread.start()

    def wait_for_sync(self, timeout: float) -> bool:
        t = self._sync_thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    def _is_dirty(self, *, blocking: bool = False) -> bool:
        # A check stats every memory file; in a big workspace that costs real time, so it is
        # repeated at most once a second and never more often than 20x its own cost, and once a
        # check has cost more than 50 ms, later ones run in the background (the search answers
        # with the last known state) unless the caller must know now.
        now = time.monotonic()
        if now - self._dirty_checked <= max(DIRTY_CHECK_SECONDS, 20 * self._dirty_cost):
            return self._dirty
        if blocking or self._dirty_cost <= 0.05 or self._dirty_checked == 0.0:
            self._check_dirty()
        elif self._dirty_thread is None or not self._dirty_thread.is_alive():
            self._dirty_checked = now  # one background check at a time
            self._dirty_thread = threading.Thread(target=self._check_dirty, name="reverie-dirty", daemon=True)
            self._dirty_thread.start()
        return self._dirty

    def _check_dirty(self) -> None:
        t = time.perf_counter()
        try:
            self._dirty = self.index.dirty_state().dirty
        except Exception:
            pass  # a failed check keeps the last answer; status reports index problems
        self._dirty_cost = time.perf_counter() - t
        self._dirty_checked = time.monotonic()

    # -- the search ---------------------------------------------------------------------------
    def search(self, query: str, max_results: int | None = None, min_score: float | None = None, *,
               now: datetime | None = None, projects: list[str] | None = None, explain: bool = False,
               sync_wait: float = 0.0) -> dict:
        t0 = time.perf_counter()
        q = (query or "").strip()
        if max_results is not None and (not isinstance(max_results, int) or max_results < 1):
            raise UserError("maxResults must be a whole number of at least 1")
        if min_score is not None and not (0.0 <= float(min_score) <= 1.0):
            raise UserError("minScore must be a number between 0 and 1")
        n = max_results or self.settings.query.max_results
        threshold = self.settings.query.min_score if min_score is None else float(min_score)
        base = {"provider": self.state.provider, "model": self.state.model, "fallback": self.settings.fallback,
                "citations": "auto"}
        if not q:
            return {"results": [], **base, "mode": "empty-query",
                    "debug": {"backend": "sqlite", "searchMs": 0.0, "hits": 0}}
        warnings: dict = {}
        if not self.index.has_chunks():
            # first search on an empty index: one synchronous sync ("search-bootstrap")
            self.index.sync()
            self._dirty_checked = time.monotonic()
            self._dirty = False
        elif self._is_dirty():
            self._start_background_sync()
            if sync_wait > 0 and self.wait_for_sync(sync_wait):
                self._dirty_checked = 0.0  # did the sync really run? (another holder, or a failure)
            if self._is_dirty(blocking=sync_wait > 0):
                warnings = {"stale": True, "warning": "Memory index is dirty. Search results may be incomplete.",
                            "action": "Run: reverie index"}
        # one connection and one generation for the whole search, even if a rebuild publishes now
        conn, generation = self.index.snapshot()
        check = self.index.identity_check(conn)
        stored = self.index.stored_identity(conn) or {}
        tokenizer = fts_tokenizer_of(conn) or stored.get("ftsTokenizer", "cjk")
        if check.status == "mismatched":
            warnings = {"stale": True, "warning": f"Memory index is stale: {'; '.join(check.reasons)}. "
                        "Search results may be incomplete.", "action": "Run: reverie index --force"}
        debug: dict = {"backend": "sqlite", "configuredMode": "hybrid" if self.embedder else "keyword-only"}
        if self.embedder is None and self.state.error:  # say why search is keyword-only (§7.8)
            debug["embeddingBootstrap"] = f"{self.state.reason}: {self.state.error}"
        vector_hits = None
        embed_ms = 0.0
        window = pipeline.candidate_window(self.settings.query.max_results, n)
        emb = self.embedder
        if emb is not None and self.settings.store.vector.enabled:
            if not check.vectors_ok or stored.get("provider") == "none":
                debug["vectorSkipped"] = ("index identity does not match the provider: "
                                          + "; ".join(check.reasons)) if not check.vectors_ok else \
                    "the index holds no vectors yet (built keyword-only); run: reverie index --force"
            else:
                te = time.perf_counter()
                try:
                    qv = pipeline.query_vector(emb, q)
                except EmbeddingError as exc:
                    if emb.remote and self.state.requested not in ("auto",):
                        return unavailable(str(exc), exc.quota, self.state.provider, self.state.model)
                    debug["embeddingBootstrap"] = f"query embedding failed, keyword-only: {exc}"
                    qv = None
                embed_ms = (time.perf_counter() - te) * 1000
                if qv is not None and np_any(qv):
                    vector_hits = pipeline.VectorQuery(self.vectors.matrix(
                        conn, generation, self.index.revision(conn), int(qv.shape[0])), qv)
        elif emb is None and stored.get("provider") not in (None, "none"):
            # Keyword-only (provider "none", or one that failed to start) over an index holding
            # another provider's vectors: say why they go unused instead of dropping them silently.
            debug["vectorSkipped"] = f"{self.state.reason}; the index holds {stored['provider']} vectors"
        params = pipeline.SearchParams(
            query=q, max_results=n, min_score=threshold, window=window, tokenizer=tokenizer,
            now=now or datetime.now(timezone.utc), projects=projects,
            score_floor=emb.score_floor if emb is not None else 0.0, explain=explain,
            half_life_days=(self.settings.temporal_decay.half_life_days
                            if self.settings.temporal_decay.enabled else 0.0),
            decay_floor=self.settings.temporal_decay.floor)
        out = pipeline.run(conn, params, vector_hits)
        results = [pipeline.result_row(c, explain) for c in out["chosen"]]
        debug.update({
            "effectiveMode": "hybrid" if vector_hits is not None else "keyword-only",
            "selection": out["mode"], "candidates": out["candidates"], "window": window,
            "legs": out["legs"], "hits": len(results), "embedMs": round(embed_ms, 2),
            "rankMs": out["ms"]["total"], "searchMs": round((time.perf_counter() - t0) * 1000, 2),
        })
        return {"results": results, **base, "mode": debug["effectiveMode"], "debug": debug, **warnings}


def np_any(v) -> bool:
    try:
        return bool(abs(v).sum() > 0)
    except Exception:
        return False
