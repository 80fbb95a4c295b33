"""index, status, watch."""

from __future__ import annotations

import signal
import threading
import time
from typing import Annotated

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, progress_bar, say


def _report_line(r: dict) -> str:
    parts = [f"{r['files']} files", f"{r['changed']} changed", f"{r['unchanged']} unchanged"]
    if r["removed"]:
        parts.append(f"{r['removed']} removed")
    parts += [f"{r['chunks_written']} chunks written", f"{r['embedded']} embedded", f"{r['cache_hits']} from cache"]
    line = ", ".join(parts) + f" in {r['seconds']:.2f}s"
    if r.get("vectors_missing"):
        line += f"; {r['vectors_missing']} chunks lack vectors"
    return line


def _print_status(s: dict) -> None:
    say(f"agent      {s['agent']}")
    say(f"workspace  {s['workspace']}" + ("" if s["workspace_exists"] else "  (missing: run reverie init)"))
    ps = s["provider_state"]
    say(f"provider   {s['provider']}" + (f" / {s['model']}" if s["model"] else "") + f"  ({ps['reason']})")
    ident = s["identity"]
    say(f"identity   {ident['status']}" + (f": {ident.get('reason')}" if ident.get("reason") else ""))
    say(f"index      {s['files']} files, {s['chunks']['total']} chunks, generation {s['index']['generation']}"
        + ("  DIRTY" if s["dirty"] else "  up to date"))
    if s.get("indexing"):
        from ..index.progress import summary

        say(f"indexing   {summary(s['indexing'])}")
    say(f"keyword    {s['fts']['tokenizer']} {'ok' if s['fts']['ok'] else 'BROKEN: ' + str(s['fts']['error'])}")
    v = s["vector"]
    say(f"vectors    {'ok' if v['ok'] else 'off'} ({v['vectors']} stored, {v['missing']} missing, {v['dims']}-d, "
        f"backend {v['backend']})")
    say(f"cache      {'?' if s['cache_entries'] is None else s['cache_entries']} embeddings")
    st = s.get("store") or {}
    trouble = "DAMAGED: " if st.get("damaged") else "UNREACHABLE: "
    say(f"database   {st.get('engine')} {'ok' if st.get('ok') else trouble + str(st.get('error'))}  "
        f"({st.get('where')})" + (f", PostgreSQL {st['server']}, pgvector {st.get('pgvector')}" if st.get("server") else ""))
    rr = s.get("rerank") or {}
    if rr.get("requested", "none") != "none":
        where = f" at {rr['endpoint']}" if rr.get("endpoint") else ""
        say(f"rerank     {rr['provider']}" + (f" / {rr['model']}" if rr.get("model") else "") + where
            + f"  (pool {rr['poolSize']}, deadline {rr['timeoutMs']} ms, weight {rr['weight']})"
            + (f"  probe {'ok' if rr['probe']['ok'] else 'FAILED'} {rr['probe']['ms']} ms" if "probe" in rr else ""))
    if "probe" in s:
        say(f"probe      embedding {s['probe']['embedding']}")
        if s["probe"].get("engine"):
            from ..embeddings.openmp import summary

            say(f"engine     {summary(s['probe']['engine'])}")
    sens = s.get("sensitive") or {}
    if sens.get("lines"):
        say(f"sensitive  {sens['lines']} line{'s hold' if sens['lines'] != 1 else ' holds'} what looks like a secret "
            f"(never used on their own): {sens['hint']}")
    hosts = s.get("hosts") or {}
    if hosts.get("count"):
        last = hosts["last"]
        say(f"hosts      {hosts['count']} memory failure{'s' if hosts['count'] != 1 else ''} in a host's hooks in the "
            f"last day (the turns went on without memory); last: {last['host']} {last['step']}: {last['error']}")
    for w in s["warnings"]:
        say(f"warning    {w}")
    if s.get("action"):
        say(f"next       run: {s['action']}")


def _interrupted(mem, force: bool):
    """The one line for Ctrl-C during ``index``: every batch committed before it stays (the run
    stops in the batch it was working on), and the next run starts from there."""
    from ..errors import Interrupted

    if force:  # the new generation is discarded; its vectors are in the embedding cache
        return Interrupted("interrupted; the index in use is unchanged, and `reverie index --force` "
                           "reuses the vectors embedded so far")
    kept = ""
    try:
        from ..index.progress import counts

        chunks, vectors = counts(mem.index.conn())
        kept = f" ({vectors:,} of {chunks:,} chunks have their vector)"
    except Exception:  # the message must not fail for want of a count
        pass
    return Interrupted(f"interrupted; `reverie index` resumes{kept}")


def register(app: typer.Typer) -> None:
    @app.command(help="Index the workspace incrementally (only changed files); --force rebuilds into a new "
                      "index generation and publishes it atomically (on PostgreSQL: in one transaction), "
                      "reusing cached vectors.")
    def index(ctx: typer.Context,
              force: Annotated[bool, typer.Option("--force", help="full rebuild, published atomically")] = False,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..index.background import lower_cpu_priority

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        lower_cpu_priority()  # searches elsewhere stay quick while this runs
        try:
            with progress_bar("indexing") as progress:
                report = mem.rebuild(progress) if force else mem.sync(progress)
        except KeyboardInterrupt:
            raise _interrupted(mem, force) from None
        data = {"agent": mem.places.agent, "workspace": str(mem.workspace), "forced": force,
                "provider": mem.provider_state.provider, **report.as_dict()}

        def human(d):
            say(("rebuilt: " if force else "indexed: ") + _report_line(d))
            for path, why in sorted(d["problems"].items()):
                say(f"warning: {path}: {why}")
            if d["embedding_error"]:
                say(f"warning: embedding failed, text indexed for keyword search only: {d['embedding_error']}")

        emit(o, data, human)

    @app.command(help="Show the index, the provider, identity, dirtiness and problems; --deep also probes the provider.")
    def status(ctx: typer.Context,
               deep: Annotated[bool, typer.Option("--deep", help="probe the embedding provider now")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        emit(o, mem.status(deep=deep), _print_status)

    @app.command(help="Watch the workspace and re-index after changes (1.5 s of quiet, at most 5 s after a change) "
                      "until interrupted.")
    def watch(ctx: typer.Context,
              debounce_ms: Annotated[int, typer.Option("--debounce-ms", min=50, help="quiet time before re-indexing")] = 1500,
              max_wait_ms: Annotated[int, typer.Option("--max-wait-ms", min=50,
                                                       help="re-index at the latest this long after a change")] = 5000,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..index.background import lower_cpu_priority
        from ..index.watch import sync_changed, watch_paths

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        lower_cpu_priority()
        with progress_bar("initial sync") as progress:
            first = mem.sync(progress)
        say(f"watching {mem.workspace} (Ctrl-C to stop); initial sync: {_report_line(first.as_dict())}")
        stop = threading.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())

        def changed(paths: set[str]) -> None:
            t0 = time.perf_counter()
            try:
                report = sync_changed(mem.index, mem.workspace, paths)
            except Exception as exc:  # a failed sync must not stop the watcher
                say(f"sync failed: {exc}")
                return
            data = {"event": "sync", "changed_paths": sorted(paths), **report.as_dict(),
                    "latency_ms": round((time.perf_counter() - t0) * 1000, 1)}
            if o.json:
                import json
                import sys

                sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
                sys.stdout.flush()
            else:
                say("re-indexed: " + _report_line(data))

        roots = [mem.workspace]
        watch_paths(roots, changed, debounce_ms=debounce_ms, max_wait_ms=max_wait_ms, stop=stop)
        say("stopped")
