"""The fuzz and fault suite, at full size: what reverie guarantees under hostile input and crashes,
measured so anyone can rerun it.

    python benchmarks/fuzz_faults.py                      # everything, figures into docs/guarantees.md
    python benchmarks/fuzz_faults.py --only paths,writers --no-doc

Four parts (each in :mod:`faultlab`):

* **paths**: >= 10,000 generated paths through the ``memory_get`` tool of the Python API, a sample
  through ``reverie get`` (one real process each) and a sample over the MCP server on real stdio;
  counts escapes (anything served that is not a memory file of the workspace) and internal errors.
* **kills**: >= 100 ``kill -9`` trials spread over every write path, each checked for lost
  acknowledged writes, database integrity (``reverie doctor --repair`` finds nothing to repair)
  and a next command that works without manual repair.
* **writers**: 8 processes appending at once; every entry present once, whole, and indexed.
* **badinput**: the bad-input table, each row with the exit code it must give and its one line.

Nothing here is timed against a target; durations are reported with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for p in (ROOT / "src", ROOT / "benchmarks"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from faultlab import badinput, kills, paths, writers  # noqa: E402
from faultlab.common import table  # noqa: E402
from report import update_section  # noqa: E402

PARTS = ["paths", "kills", "writers", "badinput"]
DOC = ROOT / "docs" / "guarantees.md"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def run_paths(work: Path, n: int, cli_n: int, mcp_n: int, seed: int) -> dict:
    arena = paths.build_arena(work / "arena")
    generated = paths.generate(arena, n, seed)
    tallies = [paths.fuzz_python(arena, generated), paths.fuzz_mcp(arena, paths.sample(generated, mcp_n, seed)),
               paths.fuzz_cli(arena, paths.sample(generated, cli_n, seed + 1))]
    return {"generated": len(generated), "surfaces": [t.as_dict() for t in tallies],
            "escapes": sum(len(t.escapes) for t in tallies), "internalErrors": sum(len(t.internal) for t in tallies)}


def run_kills(work: Path, n: int, seed: int, verbose: bool) -> dict:
    def show(t: kills.Trial) -> None:
        if verbose:
            bad = "" if not (t.lost or t.problems) else f"  LOST {t.lost[:2]} PROBLEMS {t.problems[:2]}"
            print(f"  kill trial {t.n:3d} {t.kind:14s} {t.how:38s} acked {len(t.acks):4d}{bad}", flush=True)

    trials = kills.run_trials(n, work / "kills", seed, progress=show)
    per: dict[str, dict] = {}
    for t in trials:
        row = per.setdefault(t.kind, Counter())
        row["trials"] += 1
        row["killed"] += t.killed
        row["acked"] += len(t.acks)
        row["lost"] += len(t.lost)
        row["problems"] += len(t.problems)
        row["atPoint"] += t.how.startswith("kill@")
    return {"trials": len(trials), "killed": sum(t.killed for t in trials),
            "acknowledged": sum(len(t.acks) for t in trials), "lost": sum(len(t.lost) for t in trials),
            "problems": sum(len(t.problems) for t in trials), "perPath": {k: dict(v) for k, v in per.items()},
            "failures": [t.as_dict() for t in trials if t.lost or t.problems][:10]}


def run_badinput(work: Path, workers: int) -> dict:
    results = badinput.run_table(work / "badinput", workers)
    return {"rows": results, "failures": sum(not r["ok"] for r in results)}


def render(res: dict) -> str:
    out = [f"Measured {res['date']} on {res['machine']}, load average {res['load']} (1, 5, 15 min) at the start"
           f" and {res['loadEnd']} at the end; {res['seconds']:.0f} s in all. Rerun: "
           "`python benchmarks/fuzz_faults.py` (add `--no-doc` to leave this page alone); the same checks at "
           "a small size run with the tests (`tests/test_fuzz_paths.py`, `tests/test_faults_*.py`).", ""]
    if "paths" in res:
        p = res["paths"]
        out += [f"**Path fuzzing**: {p['generated']:,} generated paths (traversal, percent and overlong encodings, "
                "absolute paths, `~` forms, symlinks in and out, a hard link, a FIFO, NUL and control characters, "
                "lone surrogates, unicode normalisation and look-alikes, long names and long paths, Windows "
                "separators and drive letters, URLs, `path#L5-L9` citation forms), against a workspace whose "
                "forbidden files all hold a canary. **Escapes: "
                f"{p['escapes']}. Internal errors: {p['internalErrors']}.**", "",
                table(["surface", "paths", "served", "not found", "refused (one line)", "escapes", "internal errors"],
                      [[s["surface"], f"{s['paths']:,}" + (f" (+{s['skipped']} not expressible)" if s["skipped"] else ""),
                        s["served"], s["notFound"], s["refused"], s["escapes"], s["internalErrors"]]
                       for s in p["surfaces"]]), ""]
    if "kills" in res:
        k = res["kills"]
        out += [f"**kill -9 trials**: {k['trials']} trials ({k['killed']} killed mid-run), "
                f"{k['acknowledged']:,} writes acknowledged before the kills. **Lost acknowledged writes: "
                f"{k['lost']}. Other problems (torn entries, failed integrity checks, a database doctor had to "
                f"repair, a next command that failed): {k['problems']}.**", "",
                table(["write path", "trials", "at an exact kill point", "acknowledged writes", "lost", "problems"],
                      [[kills.LABELS.get(kind, kind), v["trials"], v.get("atPoint", 0), v["acked"], v["lost"],
                        v["problems"]]
                       for kind, v in k["perPath"].items()]), ""]
    if "writers" in res:
        w = res["writers"]
        out += [f"**Concurrent writers**: {w['writers']} processes × {w['perWriter']} three-line entries "
                f"(remember and memory_append in turn) in {w['seconds']} s: {w['present']:,} of {w['entries']:,} "
                f"present, {w['missing']} missing, {w['duplicated']} twice, {w['interleaved']} interleaved, "
                f"{w['notIndexed']} not in the index after the next sync, day headers written twice: "
                f"{w['headersTwice']}.", ""]
    if "badinput" in res:
        b = res["badinput"]
        out += [f"**The bad-input table**: {len(b['rows'])} kinds of bad input, each run as a real process on a "
                f"fresh home; {len(b['rows']) - b['failures']} give the exit code and the one line they must "
                "(exit 1: exactly one line on stderr starting `reverie: error:`, no traceback, the notes "
                "unchanged; exit 0 where reverie repairs or skips by itself).", "",
                "(`<home>` is the small home each row runs on, `<scratch>` a folder beside it.)", "",
                table(["bad input", "command", "must exit", "exits", "says"],
                      [[r["what"], "`" + r["command"].replace("{scratch}", "<scratch>").replace("{home}", "<home>") + "`",
                        r["expected"], r["got"], r["says"]] for r in b["rows"]]), ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(PARTS), help=f"comma-separated parts: {', '.join(PARTS)}")
    ap.add_argument("--paths", type=int, default=10_000, help="generated paths through the Python tool")
    ap.add_argument("--cli-paths", type=int, default=200, help="of them, through `reverie get` (a process each)")
    ap.add_argument("--mcp-paths", type=int, default=2_000, help="of them, over the MCP server on stdio")
    ap.add_argument("--kill-trials", type=int, default=120, help="kill -9 trials, spread over every write path")
    ap.add_argument("--writers", type=int, default=8)
    ap.add_argument("--per-writer", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2, help="processes at once for the table and `reverie get`")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--doc", type=Path, default=DOC, help="the page whose marked section gets the figures")
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the full results here")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder (failed trials are kept anyway)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(parts) - set(PARTS)
    if unknown:
        ap.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    work = Path(tempfile.mkdtemp(prefix="reverie-fuzz-"))
    res: dict = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, "
                            f"Python {platform.python_version()}", "load": _load()}
    started = time.monotonic()
    say = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))
    try:
        if "paths" in parts:
            say(f"paths: {args.paths:,} generated ...")
            res["paths"] = run_paths(work, args.paths, args.cli_paths, args.mcp_paths, args.seed)
        if "kills" in parts:
            say(f"kills: {args.kill_trials} trials ...")
            res["kills"] = run_kills(work, args.kill_trials, args.seed + 10, not args.quiet)
        if "writers" in parts:
            say(f"writers: {args.writers} x {args.per_writer} ...")
            res["writers"] = writers.run_writers(work, args.writers, args.per_writer)
        if "badinput" in parts:
            say("bad-input table ...")
            res["badinput"] = run_badinput(work, args.workers)
    finally:
        res["seconds"] = time.monotonic() - started
        res["loadEnd"] = _load()
        failed = _failed(res)
        if not args.keep and not failed:
            shutil.rmtree(work, ignore_errors=True)
        elif failed:
            say(f"scratch kept for inspection: {work}")
    body = render(res)
    say("\n" + body)
    if args.json:
        args.json.write_text(json.dumps(res, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    if not args.no_doc:
        update_section(args.doc, "fuzz_faults", "Measured: the fuzz and fault suite", body)
    res["failed"] = failed
    return res


def _failed(res: dict) -> bool:
    p, k, w, b = (res.get(x, {}) for x in PARTS)
    return bool(p.get("escapes") or p.get("internalErrors") or k.get("lost") or k.get("problems")
                or w.get("missing") or w.get("duplicated") or w.get("interleaved") or w.get("notIndexed")
                or w.get("errors") or b.get("failures"))


if __name__ == "__main__":
    sys.exit(1 if main()["failed"] else 0)
