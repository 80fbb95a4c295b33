"""The Python API: open one agent's memory, write, index, search, get, inspect.

The CLI and the MCP server are thin shells over :class:`Memory`::

    from reverie import Memory
    mem = Memory(home="~/.reverie", agent="main")
    mem.remember("Booked the lake-view room in Hangzhou")
    mem.sync()
    print(mem.status())
"""

from __future__ import annotations

import os
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import Settings, load_settings
from .errors import UserError
from .paths import Places

if TYPE_CHECKING:  # the rest is imported where it is used: `reverie get` never opens the index
    from .embeddings import Embedder, ProviderState
    from .index.manager import MemoryIndex
    from .index.sync import Progress, SyncReport

# How long a write through reverie waits for the index to take its note (it never waits longer:
# a busy index gets the note from the next sync, and searches say so meanwhile).
OWN_WRITE_WAIT_SECONDS = 0.75
MAX_QUERY_CHARS = 4096  # as the memory_search tool's schema says

CONFIG_TEMPLATE = """# reverie settings. Every key is optional; shown here with its default.
# Environment variables (REVERIE_EMBEDDING_PROVIDER, ...) override this file; --set KEY=VALUE overrides both.

# timezone = "Asia/Shanghai"        # daily notes are dated in this zone (host zone when unset)

[memory.search]
# provider = "auto"                 # auto (bundled local model, else keyword-only) | local | openai | none
#                                   # | gemini | voyage | mistral | cohere | ollama | a plugin (reverie plugins)
# model = "multilingual-e5-small"
# extraPaths = []                   # more folders or files to index: ["notes", {path = "docs", pattern = "**/*.md"}]
# allowHardLinks = false            # read and index files with more than one hard link (may live outside)

[memory.search.query]
# maxResults = 6
# minScore = 0.35

[memory.search.store.fts]
# tokenizer = "cjk"                 # cjk (default: finds Chinese words) | unicode61 | trigram

[memory.search.remote]
# baseUrl = "http://localhost:11434/v1"   # any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio)
# apiKey = ""

[memory.search.rerank]
# provider = "none"                 # none | cohere | jina | voyage | http (any /rerank server) | a plugin
# baseUrl = ""                      # required for http, e.g. "http://localhost:8080"
# poolSize = 40                     # the best candidates it judges, before MMR
# timeoutMs = 1000                  # past this deadline the search answers without rerank
# weight = 0.5                      # its share of relevance; decay and other penalties still apply

[memory.intents]
# deadlineSeconds = 15              # standing-intent matching gives up (injecting nothing) after this long
"""


class Memory:
    """One agent's memory: its workspace files, its index and its database."""

    def __init__(self, home: str | Path | None = None, agent: str | None = None,
                 workspace: str | Path | None = None, *, settings: Settings | None = None,
                 overrides: list[str] | None = None, env: dict[str, str] | None = None,
                 embedder: Embedder | None = None):
        env = dict(os.environ if env is None else env)
        home = home or env.get("REVERIE_HOME")
        agent = agent or env.get("REVERIE_AGENT")
        first = Places.resolve(home, agent, None)
        first.check_home()  # a home that is a file is named before its settings file is looked for
        self.config_path = Path(env["REVERIE_CONFIG"]) if env.get("REVERIE_CONFIG") else first.config_file
        self.settings = settings or load_settings(self.config_path, env, overrides,
                                                  required=bool(env.get("REVERIE_CONFIG")))
        configured_ws = self.settings.agents.get(first.agent)
        workspace = workspace or env.get("REVERIE_WORKSPACE") or (configured_ws.workspace if configured_ws else None)
        self.places = Places.resolve(first.home, first.agent, workspace)
        self.places.check()
        self._embedder = embedder
        self._provider_state: ProviderState | None = None
        if embedder:
            from .embeddings.base import ProviderState

            self._provider_state = ProviderState(embedder.provider, embedder.provider, embedder.model,
                                                 "given by the caller")
        self._index: MemoryIndex | None = None
        self._one_call = False
        self._search = None
        self._signals = None
        self._resync_at = 0.0  # monotonic time of the last sync a resumed conversation asked for
        self._intents = None
        self._agent_store = None
        self._lock = threading.RLock()
        from .recall.switch import Switch

        # the active projects of callers without a session (MCP, scripts): a recall.projects.ProjectScope
        self.projects = None
        # memory.enabled, re-read from the settings file on each check (docs/recall.md)
        self.switch = Switch(self.settings, self.places.agent, None if settings is not None else self.config_path,
                             env=env, overrides=overrides)

    # -- pieces -------------------------------------------------------------------------------
    @property
    def workspace(self) -> Path:
        return self.places.workspace

    @property
    def embedder(self) -> Embedder | None:
        with self._lock:
            if self._provider_state is None:
                from .embeddings import resolve

                self._embedder, self._provider_state = resolve(self.settings.search)
            return self._embedder

    @property
    def provider_state(self) -> ProviderState:
        self.embedder
        assert self._provider_state is not None
        return self._provider_state

    @property
    def agent_store(self):
        """Where this agent's database lives (:class:`reverie.store.AgentDatabase`): its SQLite file,
        or its rows in a shared PostgreSQL (``memory.store.backend``)."""
        with self._lock:
            if self._agent_store is None:
                from .store.builtin import open_agent_store

                self._agent_store = open_agent_store(self.places, self.settings.memory.store)
            return self._agent_store

    @property
    def index(self) -> MemoryIndex:
        with self._lock:
            if self._index is None:
                from .index.manager import MemoryIndex

                # the embedder loads when first needed: a note's text is indexed without it
                cold = self._provider_state is None
                self._index = MemoryIndex(self.places, self.settings.search, None if cold else self._embedder,
                                          resolve=(lambda: self.embedder) if cold else None,
                                          agent_store=self.agent_store)
                self._index.embeds_in_background = not self._one_call
            return self._index

    def one_call(self) -> "Memory":
        """Say this process answers one call and exits (a host's hook run in-process): the index's
        background work then writes text and leaves vectors for later (see
        :attr:`reverie.index.manager.MemoryIndex.embeds_in_background`)."""
        with self._lock:
            self._one_call = True
            if self._index is not None:
                self._index.embeds_in_background = False
        return self

    def close(self) -> None:
        if self._signals is not None:
            self._signals.flush()
        if self._index is not None:  # background indexing stops between two batches
            self._index.close()
        if self._intents is not None:
            self._intents.close()

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writing ------------------------------------------------------------------------------
    def init(self) -> list[Path]:
        """Lay out the workspace and a commented settings file; never overwrites anything."""
        from .workspace import init_workspace

        self.places.check_writable_layout()
        created = init_workspace(self.workspace)
        cfg = self.places.config_file
        if not cfg.exists():
            cfg.parent.mkdir(parents=True, exist_ok=True)
            try:
                with open(cfg, "x", encoding="utf-8") as fh:
                    fh.write(CONFIG_TEMPLATE)
                created.append(cfg)
            except FileExistsError:
                pass
        return created

    def remember(self, text: str, *, now: datetime | None = None, provenance=None) -> Path:
        """Append a timestamped bullet to today's daily note (append-only).

        The appended segment is recorded with ``provenance`` (a :class:`reverie.trust.Provenance`),
        else that of the tool call in progress, else ``agent`` (see docs/trust.md)."""
        from .trust import daily_guard, resolve_writer
        from .workspace import append_daily, init_workspace

        self.places.check_writable_layout()
        if not self.workspace.exists():
            init_workspace(self.workspace)
        guard = daily_guard(self.agent_store, self.workspace, resolve_writer(provenance))
        path = append_daily(self.workspace, text, now=now, tz=self.settings.tz(), guard=guard)
        self._index_own_write(path)
        return path

    @property
    def trust(self):
        """Trust decisions over this agent's memory (:class:`reverie.trust.Trust`): origins of lines,
        ``may_inject``, ``may_promote``."""
        from .trust import Trust

        return Trust(self.agent_store, self.workspace)

    def _index_own_write(self, path: Path) -> None:
        """Index the note just written, so that the next search finds it: its text at once, its
        vector too when the embedder is loaded (else a background fill follows). When the index is
        busy elsewhere the note is marked pending and searches say ``stale`` until it is in."""
        try:
            key = path.relative_to(self.workspace).as_posix()
        except ValueError:
            return
        idx = self.index
        try:
            done = idx.sync_paths([key], in_scope=True, wait=OWN_WRITE_WAIT_SECONDS)
        except Exception:  # the note is safely written; indexing it is what a later sync retries
            done = None
        if done is None:
            idx.pending_writes.add(key)
        elif done.vectors_missing and self._search is not None:
            idx.sync_in_background(vectors=True)

    # -- indexing -----------------------------------------------------------------------------
    def sync(self, progress: Progress | None = None) -> SyncReport:
        from .index.manager import require_workspace

        require_workspace(self.places)
        report = self.index.sync(progress)
        assert report is not None
        return report

    def rebuild(self, progress: Progress | None = None) -> SyncReport:
        from .index.manager import require_workspace

        require_workspace(self.places)
        return self.index.rebuild(progress)

    def sync_in_background(self) -> None:
        """Start a sync in a background thread and return at once (a session or server start):
        searches meanwhile answer from what is indexed and say how far indexing got."""
        if self.workspace.exists():
            self.index.sync_in_background(full=True)

    RESYNC_SECONDS = 10.0

    def resync_in_background(self) -> None:
        """:meth:`sync_in_background` for a conversation that resumes, at most once every
        :data:`RESYNC_SECONDS` per open memory: a warm server (or host adapter) opens a runtime for
        every call of a conversation it follows, and a full pass over the workspace on each of them
        made every hook pay for one. Edits still reach the index within seconds (and a search
        checks for them itself)."""
        import time

        now = time.monotonic()
        if not self._resync_at or now - self._resync_at >= self.RESYNC_SECONDS:
            self._resync_at = now
            self.sync_in_background()

    # -- finding ------------------------------------------------------------------------------
    @property
    def searcher(self):
        from .search.service import SearchService

        with self._lock:
            if self._search is None:
                self._search = SearchService(self.index, self.settings.search, self.embedder, self.provider_state)
            return self._search

    def search(self, query: str, max_results: int | None = None, min_score: float | None = None, *,
               now: datetime | None = None, projects: list[str] | None = None, explain: bool = False,
               sync_wait: float = 0.0, record_signals: bool = True, max_tokens: int | None = None) -> dict[str, Any]:
        """Hybrid search over the agent's memory; returns the ``memory_search`` tool's JSON shape.

        ``now`` is the clock for temporal decay (defaults to the wall clock); ``projects`` are the
        active project keys for project affinity; ``sync_wait`` bounds how long a dirty index may
        be brought up to date before answering from what is indexed (0: never wait);
        ``max_tokens`` asks for the results that fit in that many tokens of snippets rather than a
        count (with ``max_results`` too, whichever comes first; the answer's ``budget`` says what
        was used and whether more was left out).
        """
        if not (query or "").strip():
            # answer an empty query without resolving (loading) the embedder
            return {"results": [], "provider": self.settings.search.provider, "model": self.settings.search.model,
                    "fallback": self.settings.search.fallback, "citations": "auto", "mode": "empty-query",
                    "debug": {"backend": "sqlite", "searchMs": 0.0, "hits": 0}}
        if len(query) > MAX_QUERY_CHARS:  # the memory_search tool's limit; SQLite refuses far longer patterns
            raise UserError(f"the query is longer than {MAX_QUERY_CHARS} characters ({len(query)}); "
                            "search for a shorter phrase")
        from .index.manager import require_workspace

        require_workspace(self.places)
        if self.agent_store.engine != "sqlite":  # a shared database that cannot be reached: say so, once
            self.agent_store.connect().close()
        out = self.searcher.search(query, max_results, min_score, now=now, projects=projects,
                                   explain=explain, sync_wait=sync_wait, max_tokens=max_tokens)
        if record_signals and out.get("results"):
            from .search.signals import SignalRecorder, today

            with self._lock:
                if self._signals is None:
                    self._signals = SignalRecorder(self.agent_store, self.workspace)
            # dated by the search's clock: a backfill or a benchmark can place recalls on past days
            at = int(now.timestamp()) if now is not None else None
            from .trust.writer import current_context

            self._signals.submit(query, out["results"], today(self.settings.dreaming_tz(), now), at,
                                 context=current_context())
        return out

    def get(self, path: str, from_line: int | None = None, lines: int | None = None) -> dict[str, Any]:
        """Read lines of a memory file (the ``memory_get`` tool); ``path`` may be a search citation
        (``memory/2026-07-01.md#L5-L9``)."""
        from .tools.memory import memory_get

        return memory_get(self, path, from_line, lines)

    def tools(self, context=None, clock=None):
        """The agent tools over this memory (each a JSON schema plus a handler): memory_search,
        memory_get, memory_append, then ``intent`` and ``intent_list`` for the owner, then
        table_list, table_query and table_write (structured memory).

        ``context`` is the turn's :class:`reverie.intents.TurnContext` (channel, sender,
        conversation, owner). Creating and cancelling standing intents (``intent``) are the owner's
        acts and need an authenticated owner turn; without a context (MCP, scripts) only
        ``intent_list`` (read-only) is offered. A turn of someone else gets neither.
        """
        from .recall.switch import guard_tool
        from .tools import intent_list_tool, intent_tool, memory_tools, table_tools

        tools = memory_tools(self, clock)  # (a conversation on a clock of its own dates its appends by it)
        if context is not None and context.owner:
            tools.append(intent_tool(self.intents, context))
        if context is None or context.owner:
            tools.append(intent_list_tool(self.intents))
        tools += table_tools(self.tables, context)  # table_write refuses an untrusted caller
        # memory.enabled = false: every call refuses, also for tools handed out before the switch
        return [guard_tool(t, self.switch) for t in tools]

    @property
    def tables(self):
        """This agent's table files (:class:`reverie.tables.TableStore`, ``tables/`` in the workspace)."""
        from .tables import TableStore

        return TableStore(self.workspace, self.agent_store)

    # -- acting later -------------------------------------------------------------------------
    @property
    def intents(self):
        """This agent's standing intents (:class:`reverie.intents.IntentStore`)."""
        from .intents import IntentStore

        with self._lock:
            if self._intents is None:
                self._intents = IntentStore(self.agent_store, tz=self.settings.tz(),
                                            deadline_seconds=self.settings.memory.intents.deadline_seconds)
            return self._intents

    def match_intents(self, message: str, context, *, now: datetime | None = None, dry_run: bool = False):
        """Run one user turn's standing-intent matching (no model call; firing included unless
        ``dry_run``). Returns a :class:`reverie.intents.MatchResult`; its ``block`` is the hidden
        context to prepend, empty when nothing triggered or matching failed open."""
        return self.intents.match(message, context, now=now, dry_run=dry_run)

    def scheduler(self, handlers=None):
        """The automations of this home (:class:`reverie.automation.Scheduler`, shared state database).
        Without ``handlers``, system events append to the daily note and agent turns run through
        the chat runtime (:mod:`reverie.cron_turns`)."""
        from .automation import Scheduler
        from .automation.handlers import default_handlers
        from .cron_turns import agent_turn_handler

        if handlers is None:
            from .automation.handlers import system_event
            from .dreaming.schedule import handler as dreaming_handler

            handlers = default_handlers()
            handlers.register("agentTurn", agent_turn_handler(self))
            # Dreaming's managed jobs are system events carrying a token (docs/dreaming.md)
            handlers.register("systemEvent", dreaming_handler(self, system_event))
        return Scheduler(self.places.home, self.settings, handlers=handlers)

    # -- dreaming -----------------------------------------------------------------------------
    def dream(self, phase: str | None = None, *, dry_run: bool = False, now: datetime | None = None, model=None,
              progress=None):
        """Run one Dreaming sweep (light -> REM -> deep, or one ``phase``); returns a
        :class:`reverie.dreaming.Sweep` (``.as_dict()`` is what ``reverie dream run --json`` prints).
        ``now`` places the sweep on another clock (backfills, benchmarks); ``model`` overrides
        ``memory.dreaming.model`` (a spec or a ChatModel); ``progress(stage, done, total)`` is told
        as each step starts."""
        from .dreaming import run_sweep

        if self._signals is not None:
            self._signals.flush()  # recalls of this process count tonight
        return run_sweep(self, phase=phase, dry_run=dry_run, now=now, model=model, progress=progress)

    # -- conversations ------------------------------------------------------------------------
    def runtime(self, model=None, *, session: str | None = None, **kw):
        """A conversation over this memory (:class:`reverie.runtime.Runtime`): ``model`` is a spec
        (``offline``, ``openai:gpt-4o-mini``...) or a ChatModel; ``session`` a session key (default
        main). ``rt.send("...")`` runs a turn; every event is recorded in the agent database."""
        from .runtime import Runtime

        return Runtime(self, model, session_key=session, **kw)

    # -- inspecting ---------------------------------------------------------------------------
    def status(self, deep: bool = False) -> dict[str, Any]:
        from .index import progress as index_progress
        from .index.cache import count as cache_count
        from .index.identity import read_meta
        from .index.manager import open_agent_db
        from .index.schema import fts_tokenizer_of

        idx = self.index
        store_health = self.agent_store.health()  # an unreachable shared database is reported, not raised
        if self.agent_store.engine == "sqlite":  # a damaged ledger page, or a ledger that lost rows
            from .repair import REPAIR_HINT, agent_migrations
            from .store.ledger import ledger_problem

            damage = ledger_problem(self.places.agent_db, agent_migrations(dreaming=False))
            if damage:
                store_health.update(ok=False, damaged=True, error=f"{damage}; {REPAIR_HINT}")
        if idx.pg and not store_health["ok"]:
            return self._status_unreachable(store_health)
        conn = idx.conn()
        state = self.provider_state
        check = idx.identity_check()
        stored = idx.stored_identity() or {}
        chunks_by_source = {src: n for src, n in conn.execute(
            "SELECT source, count(*) FROM memory_index_chunks GROUP BY source")}
        files = conn.execute("SELECT count(*) FROM memory_index_sources").fetchone()[0]
        # how much of the index came from outside (docs/trust.md): searchable, never injected
        by_origin = {o: n for o, n in conn.execute(
            "SELECT origin_class, count(*) FROM memory_index_chunk_provenance GROUP BY origin_class")}
        vectors, missing = conn.execute(
            "SELECT count(embedding), count(*) - count(embedding) FROM memory_index_chunks").fetchone()
        tokenizer = fts_tokenizer_of(conn) or stored.get("ftsTokenizer")
        fts_ok, fts_error = True, None
        if idx.pg:  # tokens in GIN-indexed arrays: usable by the index only with LEAKPROOF operators
            if store_health.get("keyword_index") is False:
                fts_error = "keyword queries scan the agent's rows (see docs/team.md, Keyword indexes)"
        else:
            try:
                conn.execute("SELECT count(*) FROM memory_index_chunks_fts WHERE memory_index_chunks_fts MATCH ?",
                             ('"reverie"',)).fetchone()
            except Exception as exc:  # report, never raise, from status
                fts_ok, fts_error = False, str(exc)
        last_sync = read_meta(conn, "last_sync") or {}
        dirty = idx.dirty_state()
        problems = [{"path": p, "problem": why} for p, why in conn.execute(
            "SELECT path, problem FROM memory_index_problems ORDER BY path")]
        cache_entries = None
        if store_health["ok"]:
            agent_conn = open_agent_db(self.places, self.agent_store)
            try:
                cache_entries = cache_count(agent_conn)
            finally:
                agent_conn.close()
        vector_usable = bool(self.settings.search.store.vector.enabled and self.embedder is not None
                             and check.vectors_ok and stored.get("provider") != "none"
                             and (vectors or not missing))  # vectors all missing: not ok
        warnings: list[str] = [f"{p['path']}: {p['problem']}" for p in problems]
        if state.error:
            warnings.append(f"embedding provider: {state.error}")
        if not store_health["ok"]:
            warnings.append(f"agent database {'damaged' if store_health.get('damaged') else 'unreachable'}: "
                            f"{store_health.get('error')}")
        if last_sync.get("embedding_error"):
            warnings.append(f"last sync could not embed: {last_sync['embedding_error']}")
        if check.status == "mismatched":
            warnings.append(f"index identity mismatch ({'; '.join(check.reasons)}); run: reverie index --force")
        indexing = index_progress.describe(conn, self.places.index_dir, vectors_used=bool(
            self.embedder is not None and check.vectors_ok and stored.get("provider") != "none"))
        repaired = read_meta(conn, "repaired")
        if repaired and not last_sync:
            warnings.append(f"the index was damaged ({repaired['reason']}) and has been reset; "
                            f"searches rebuild it from the files, or run: reverie index")
        from .recall.report import status_section

        recall_status, recall_warnings = status_section(self)  # what a session starts with, cuts, memory on/off
        warnings += recall_warnings
        out: dict[str, Any] = {
            "agent": self.places.agent,
            "home": str(self.places.home),
            "workspace": str(self.workspace),
            "workspace_exists": self.workspace.exists(),
            "database": self.agent_store.label,
            "store": store_health,
            "index": {"dir": "(the agent's rows in PostgreSQL)" if idx.pg else str(self.places.index_dir),
                      "engine": "postgres" if idx.pg else "sqlite", "generation": idx.generation,
                      "revision": idx.revision()},
            "provider": state.provider,
            "model": state.model or stored.get("model"),
            "provider_state": state.as_dict(),
            "identity": check.as_dict(),
            "files": files,
            "chunks": {"total": sum(chunks_by_source.values()), **chunks_by_source},
            "provenance": by_origin,
            "dirty": dirty.dirty,
            "pending": dirty.as_dict(),
            "fts": {"tokenizer": tokenizer, "ok": fts_ok, "error": fts_error},
            "vector": {"ok": vector_usable, "backend": "pgvector" if idx.pg else "numpy", "enabled": self.settings.search.store.vector.enabled,
                       "vectors": vectors or 0, "missing": missing or 0, "dims": stored.get("vectorDims") or 0},
            "cache_entries": cache_entries,
            "extra_paths": [e if isinstance(e, str) else e.model_dump() for e in self.settings.search.extra_paths],
            "last_sync": last_sync,
            "problems": problems,
            "warnings": warnings,
            **recall_status,
            "indexing": indexing,
            "action": "reverie doctor --repair" if store_health.get("damaged")
            else index_progress.next_step(check, dirty.dirty, indexing),  # one instruction, or None
        }
        from .trust.sensitive import summary as sensitive_summary

        out["sensitive"] = sensitive_summary(conn)  # lines that look like a secret: listed for the owner
        from .sidecar.problems import summary as host_problems

        out["hosts"] = host_problems(self.places.agent_dir / "sidecar")  # a hook never blocks: its failures show here
        from .rerank import status as rerank_status

        out["rerank"] = rerank_status(self.settings.search.rerank, deep=deep)  # "none" unless configured
        rerank_error = out["rerank"]["error"] or out["rerank"].get("probe", {}).get("error")
        if rerank_error:
            warnings.append(f"rerank provider: {rerank_error} (searches run without rerank meanwhile)")
        if deep:
            out["probe"] = self._probe()
        return out

    def _status_unreachable(self, store_health: dict) -> dict[str, Any]:
        """Status while the shared database (which holds the index too) cannot be reached: what is
        known without it, the database line saying why, and one warning."""
        state = self.provider_state
        why = f"agent database unreachable: {store_health.get('error')}"
        return {
            "agent": self.places.agent, "home": str(self.places.home), "workspace": str(self.workspace),
            "workspace_exists": self.workspace.exists(), "database": self.agent_store.label, "store": store_health,
            "index": {"dir": "(the agent's rows in PostgreSQL)", "engine": "postgres", "generation": None,
                      "revision": None},
            "provider": state.provider, "model": state.model, "provider_state": state.as_dict(),
            "identity": {"status": "unknown", "reason": "the database cannot be reached"},
            "files": 0, "chunks": {"total": 0}, "provenance": {}, "dirty": False, "pending": {},
            "fts": {"tokenizer": self.settings.search.store.fts.tokenizer, "ok": False, "error": why},
            "vector": {"ok": False, "backend": "pgvector", "enabled": self.settings.search.store.vector.enabled,
                       "vectors": 0, "missing": 0, "dims": 0},
            "cache_entries": None, "extra_paths": [], "last_sync": {}, "problems": [], "warnings": [why],
            "indexing": None, "action": None,
        }

    def _probe(self) -> dict[str, Any]:
        """Prove the embedding provider answers right now (status --deep)."""
        emb = self.embedder
        if emb is None:
            return {"embedding": {"ok": False, "reason": self.provider_state.reason}}
        import time

        t0 = time.perf_counter()
        try:
            vec = emb.embed_query("reverie status probe")
            out: dict[str, Any] = {"embedding": {"ok": True, "dims": int(vec.shape[0]),
                                                 "ms": round((time.perf_counter() - t0) * 1000, 1)}}
        except Exception as exc:
            out = {"embedding": {"ok": False, "error": str(exc)}}
        engine = emb.runtime()
        if engine is not None:
            out["engine"] = engine
        return out

    def generation_path(self) -> Path | None:
        from .index import generations

        return generations.current_path(self.places.index_dir)


__all__ = ["Memory", "UserError"]
