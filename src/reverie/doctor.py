"""``reverie doctor``: write -> index -> search in a temporary home, each leg proved and reported.

It uses the caller's settings (provider, tokenizer, remote endpoint), so a broken configuration
shows up here, but never touches the caller's workspace or database.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from .api import Memory

PROBE_ZH = "没有订湖景房，因为超出预算。"
PROBE_EN = "Rejected the lake-view room because it was over budget."


def run_doctor(configured: Memory) -> dict:
    legs: list[dict] = []
    tmp = Path(tempfile.mkdtemp(prefix="reverie-doctor-"))

    def leg(name: str, ok: bool, detail: str, **extra) -> None:
        legs.append({"name": name, "ok": ok, "detail": detail, **extra})

    # The temporary home keeps its database in a SQLite file whatever the engine: on a shared
    # PostgreSQL it would carry the configured agent's key and write into that agent's rows.
    settings = configured.settings.model_copy(deep=True)
    settings.memory.store.backend = "sqlite"
    try:
        mem = Memory(home=tmp, settings=settings, env={})
        try:
            mem.init()
            path = mem.remember(PROBE_ZH)
            mem.remember(PROBE_EN)
            leg("files", path.exists(), f"appended two notes to {path.name} in a temporary workspace")
            state = mem.provider_state
            t0 = time.perf_counter()
            mem.sync()  # remember indexed its notes already; a sync must find them all in place
            chunks = mem.index.chunk_count()
            leg("index", chunks > 0, f"{chunks} chunks indexed, sync in {(time.perf_counter() - t0) * 1000:.0f} ms")
            kw = mem.search("湖景房", min_score=0.0, record_signals=False)
            hit = bool(kw["results"]) and "湖景房" in kw["results"][0]["snippet"]
            leg("keyword (FTS, Chinese)", hit, "'湖景房' found its note" if hit else "'湖景房' did not find its note",
                action=None if hit else "run reverie status and check the fts section")
            if mem.embedder is None:
                leg("embedding provider", False, f"none in use: {state.reason}" + (f" ({state.error})" if state.error else ""),
                    skipped=state.requested in ("none", "auto") and not state.error,
                    action="set memory.search.provider (local is bundled) or REVERIE_EMBEDDING_PROVIDER")
            else:
                try:
                    mem.embedder.embed_query("probe")
                    leg("embedding provider", True, f"{state.provider}/{state.model} answered ({state.reason})")
                except Exception as exc:
                    leg("embedding provider", False, f"{state.provider} failed: {exc}",
                        action="check memory.search.remote.* or the provider's service")
                vec = mem.search("price too high", min_score=0.0, record_signals=False)
                ok = vec.get("mode") == "hybrid" and bool(vec["results"])
                leg("vector search", ok, f"mode {vec.get('mode')}, {len(vec.get('results', []))} results"
                    + (f": {vec.get('error')}" if vec.get("unavailable") else ""),
                    action=None if ok else "run reverie status --deep")
        finally:
            mem.close()
    except Exception as exc:  # a doctor reports, it does not crash
        leg("doctor", False, f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if configured.agent_store.engine != "sqlite":  # the shared database: reachable, with what it needs
        h = configured.agent_store.health()
        leg("database", bool(h["ok"] and h.get("pgvector") and not h.get("pending_migrations")),
            f"{h['engine']} {h['where']}: " + (f"PostgreSQL {h['server']}, pgvector {h.get('pgvector') or 'MISSING'}"
                                               + (f", pending migrations {h['pending_migrations']}"
                                                  if h.get("pending_migrations") else "")
                                               if h["ok"] else f"unreachable: {h.get('error')}"),
            action=None if h["ok"] else "run reverie db status")
    if configured.agent_store.engine == "sqlite":  # this agent's own files: pages and migration ledger
        from .repair import REPAIR_HINT, databases, problem_of

        for what, path, migrations in databases(configured.places):
            problem = problem_of(path, migrations) if path.exists() else None
            leg(what, problem is None, f"{path}: " + (problem or ("healthy" if path.exists() else "not created yet")),
                action=REPAIR_HINT if problem else None)
    if configured.workspace.is_dir():  # what a session of yours starts with, and what is cut there
        from .recall.report import doctor_leg

        legs.append(doctor_leg(configured))
    return {"ok": all(l["ok"] or l.get("skipped") for l in legs), "legs": legs,
            "settings": {"provider": configured.settings.search.provider,
                         "tokenizer": configured.settings.search.store.fts.tokenizer}}
