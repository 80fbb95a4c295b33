"""Search latency while the index is written: readers must not wait on the writer.

    python benchmarks/load.py [--notes 20000] [--searchers 4] [--seconds 20] [--doc docs/benchmarks.md]

A seeded generator writes ``--notes`` short notes (one chunk each, mixed Chinese and English) and
indexes them with the benchmark embedder of ``perf.py`` (deterministic 384-d vectors, instantly,
so the figures measure the index and not a model). Then ``--searchers`` processes search in a loop
(each its own :class:`reverie.Memory`, as separate MCP servers or scripts would, with a short
pause between searches) through three phases:

* **alone**: nothing else runs;
* **writer + watch**: a writer process (its embedder loaded, as an agent's server has it) appends a
  note through ``Memory.remember`` every second (in today's daily note) and a watcher process
  re-indexes on change as ``reverie watch`` does;
* **writer + rebuild loop**: the writer goes on and another process rebuilds the index
  (``index --force``) again and again, publishing a new generation each time.

The watcher and the rebuilder run at the lower CPU priority ``reverie watch`` and ``reverie index``
take (when the code has it; run against older code, the benchmark measures that code as it was).

Each searcher measures after its first search and a settling pause (``--settle``, 5 s: the first
search of a process starts one-off work such as a first walk of the folders). Each phase reports
search latency p50 / p95 / p99 / max over every search of every searcher, the
searches done, errors, how many answers said ``stale``, and the 1-minute load average at the end
of the phase (the machine may be shared: read the figures with it). A JSON report goes to
``benchmarks/out/`` and, with ``--doc``, a section of docs/benchmarks.md is rewritten.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf import pct, query_set, sentence  # noqa: E402  (registers the "bench" embedder too)
from report import update_section  # noqa: E402

SETTINGS = ['memory.search.provider="bench"', 'timezone="UTC"']
PHASES = ("alone", "writer + watch", "writer + rebuild loop")


def write_notes(ws: Path, n: int, seed: int = 11) -> None:
    """``n`` notes of 2-5 bullets in 100 folders (``memory/notes/NN/note-NNNNN.md``)."""
    rng = random.Random(seed)
    for i in range(n):
        folder = ws / "memory" / "notes" / f"{i % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n".join("- " + " ".join(sentence(rng) for _ in range(rng.randint(1, 3)))
                         for _ in range(rng.randint(2, 5)))
        (folder / f"note-{i:05d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")


def _memory(home: str):
    from reverie import Memory

    return Memory(home=home, env={}, overrides=SETTINGS)


# -- roles (each in its own process) ---------------------------------------------------------------
def searcher(home: str, seed: int, pause: float, settle: float, stop, out) -> None:
    mem = _memory(home)
    qs = query_set(random.Random(seed))
    mem.search(qs[0], record_signals=False)  # warm: matrix loaded, connection open
    # a process's first search starts one-off work (a first dirty check that walks every folder:
    # in the foreground in older code, in the background now): measure the steady state after it
    stop.wait(settle)
    lat: list[float] = []
    errors = stale = 0
    i = 0
    while not stop.is_set():
        q = qs[i % len(qs)]
        i += 1
        t = time.perf_counter()
        try:
            res = mem.search(q, record_signals=False)
            stale += bool(res.get("stale"))
        except Exception:  # counted, never fatal: the figure to watch is errors = 0
            errors += 1
        lat.append((time.perf_counter() - t) * 1000)
        time.sleep(pause)
    mem.close()
    out.put({"lat": lat, "errors": errors, "stale": stale})


def writer(home: str, interval: float, stop, out) -> None:
    mem = _memory(home)
    mem.embedder  # loaded, as in an agent's running server (its note gets its vector at once)
    rng = random.Random(3)
    n = 0
    lat: list[float] = []
    while not stop.wait(interval):
        t = time.perf_counter()
        mem.remember(f"load note {n}: {sentence(rng)}")
        lat.append((time.perf_counter() - t) * 1000)
        n += 1
    mem.close()
    out.put({"writes": n, "write_ms_p50": statistics.median(lat) if lat else 0.0})


def _as_the_cli_does() -> None:
    """`reverie watch` and `reverie index` lower their CPU priority; these helpers do the same."""
    try:
        from reverie.index.background import lower_cpu_priority
    except ImportError:  # code from before the priority existed: measure it as it was
        return
    lower_cpu_priority()


def watcher(home: str, stop, out) -> None:
    from reverie.index import watch

    _as_the_cli_does()
    mem = _memory(home)
    syncs = 0

    def changed(paths) -> None:
        nonlocal syncs
        if hasattr(watch, "sync_changed"):  # what `reverie watch` does, in either version
            watch.sync_changed(mem.index, mem.workspace, paths)
        else:
            mem.sync()
        syncs += 1

    watch.watch_paths([mem.workspace], changed, stop=stop)
    mem.close()
    out.put({"syncs": syncs})


def rebuilder(home: str, stop, out) -> None:
    _as_the_cli_does()
    mem = _memory(home)
    secs: list[float] = []
    while not stop.is_set():
        t = time.perf_counter()
        mem.rebuild()
        secs.append(time.perf_counter() - t)
    mem.close()
    out.put({"rebuilds": len(secs), "rebuild_s_median": statistics.median(secs) if secs else 0.0})


# -- phases -------------------------------------------------------------------------------------------
def run_phase(name: str, home: str, args) -> dict:
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    results = ctx.Queue()
    helpers: list = []
    if name != "alone":
        helpers.append(ctx.Process(target=writer, args=(home, args.write_interval, stop, results)))
        helpers.append(ctx.Process(target=watcher if name == "writer + watch" else rebuilder,
                                   args=(home, stop, results)))
    for p in helpers:
        p.start()
    time.sleep(2.0 if helpers else 0.0)  # let the helpers load and start writing
    searchers = [ctx.Process(target=searcher, args=(home, 100 + i, args.pause, args.settle, stop, results))
                 for i in range(args.searchers)]
    for p in searchers:
        p.start()
    time.sleep(args.settle + args.seconds)
    load1 = os.getloadavg()[0]
    stop.set()
    got = [results.get(timeout=600) for _ in range(len(helpers) + len(searchers))]
    for p in helpers + searchers:
        p.join(timeout=60)
    lat = [x for g in got if "lat" in g for x in g["lat"]]
    row = {"phase": name, "searches": len(lat), "errors": sum(g.get("errors", 0) for g in got),
           "stale": sum(g.get("stale", 0) for g in got), "load1": round(load1, 2)}
    if lat:
        row.update(p50=round(pct(lat, 50), 1), p95=round(pct(lat, 95), 1), p99=round(pct(lat, 99), 1),
                   max=round(max(lat), 1))
    for g in got:
        row.update({k: v for k, v in g.items() if k not in ("lat", "errors", "stale")})
    return row


def render(rows: list[dict], meta: dict) -> str:
    lines = [f"Command: `{meta['command']}` — {meta['notes']:,} notes, {meta['searchers']} searchers "
             f"({meta['pause_ms']} ms pause between searches), {meta['seconds']} s per phase, writer every "
             f"{meta['write_interval']} s; {meta['cpus']} cores, Python {meta['python']}; "
             f"load average before the run {meta['load_before']}.", "",
             "| phase | searches | p50 ms | p95 ms | p99 ms | max ms | errors | said stale | helper work | load avg (1 min) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for r in rows:
        work = []
        if "writes" in r:
            work.append(f"{r['writes']} appends")
        if "syncs" in r:
            work.append(f"{r['syncs']} watch syncs")
        if "rebuilds" in r:
            work.append(f"{r['rebuilds']} rebuilds ({r['rebuild_s_median']:.1f} s each)")
        lines.append(f"| {r['phase']} | {r['searches']:,} | {r.get('p50', '-')} | {r.get('p95', '-')} | "
                     f"{r.get('p99', '-')} | {r.get('max', '-')} | {r['errors']} | {r['stale']} | "
                     f"{', '.join(work) or '-'} | {r['load1']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=20_000, help="how many notes (one chunk each)")
    ap.add_argument("--searchers", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    ap.add_argument("--pause", type=float, default=0.05, help="seconds each searcher waits between searches")
    ap.add_argument("--write-interval", type=float, default=1.0)
    ap.add_argument("--settle", type=float, default=5.0,
                    help="seconds each searcher waits after its first search before measuring")
    ap.add_argument("--phases", default=",".join(PHASES), help="comma-separated subset of: " + ", ".join(PHASES))
    ap.add_argument("--work", type=Path, default=None, help="folder for the generated home (default: a temp dir)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    ap.add_argument("--doc", type=Path, default=None, help="rewrite the load section of this Markdown file")
    args = ap.parse_args(argv)
    phases = [p.strip() for p in args.phases.split(",") if p.strip()]
    unknown = [p for p in phases if p not in PHASES]
    if unknown:
        ap.error(f"unknown phase(s): {unknown}")
    t0 = time.perf_counter()
    work = args.work or Path(tempfile.mkdtemp(prefix="reverie-load-"))
    home = work / "home"
    shutil.rmtree(home, ignore_errors=True)
    meta = {"command": "python benchmarks/load.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "notes": args.notes, "searchers": args.searchers, "seconds": args.seconds,
            "pause_ms": int(args.pause * 1000), "write_interval": args.write_interval,
            "cpus": os.cpu_count(), "python": platform.python_version(),
            "load_before": round(os.getloadavg()[0], 2),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    print(f"writing {args.notes:,} notes under {home} ...", file=sys.stderr)
    write_notes(home / "workspace", args.notes)
    mem = _memory(str(home))
    mem.init()
    t = time.perf_counter()
    rep = mem.sync()
    mem.close()
    meta["first_index_s"] = round(time.perf_counter() - t, 1)
    meta["chunks"] = rep.chunks_written
    print(f"indexed {rep.chunks_written:,} chunks in {meta['first_index_s']} s", file=sys.stderr)
    rows = []
    for name in phases:
        print(f"phase: {name} ({args.seconds:.0f} s) ...", file=sys.stderr)
        row = run_phase(name, str(home), args)
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    meta["seconds_total"] = round(time.perf_counter() - t0, 1)
    report = {"meta": meta, "phases": rows}
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"load-{args.notes}-{int(time.time())}.json"
    path.write_text(json.dumps(report, indent=2), encoding="utf-8")
    table = render(rows, meta)
    print(table)
    print(f"report: {path}", file=sys.stderr)
    if args.doc:
        update_section(args.doc, "load", "Search latency under writes", table)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return report


if __name__ == "__main__":
    main()
