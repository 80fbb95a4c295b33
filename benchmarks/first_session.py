"""A first MCP session on a freshly written folder of notes, as a new user meets it.

    python benchmarks/first_session.py [--notes 2000] [--provider local] [--doc docs/benchmarks.md]

Writes ``--notes`` short notes (mixed Chinese and English, one chunk each) into a new home, starts
``reverie mcp`` over stdio with the official client, and from the first second calls
``memory_search`` every ``--every`` seconds until indexing is done, plus one ``memory_append``
followed at once by a search for it. Reports every tool call's latency (the slowest one is the
figure to watch: a call must never block on indexing), when the keyword rows and the vectors were
complete, and what the answers said meanwhile (``stale``, ``indexing``, mode).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import write_notes  # noqa: E402
from perf import pct  # noqa: E402
from report import update_section  # noqa: E402


async def session(home: Path, provider: str, every: float, limit: float) -> dict:
    from reverie.mcp.client import Client
    from reverie.mcp.client import StdioServerParameters

    env = {"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC", "PATH": os.environ["PATH"],
           "PYTHONPATH": str(ROOT / "src")}
    params = StdioServerParameters(command=sys.executable, env=env,
                                   args=["-c", "from reverie.cli.main import run; run()", "mcp",
                                         "--set", f'memory.search.provider="{provider}"'])
    calls: list[dict] = []
    t_start = time.perf_counter()

    async def call(c, name: str, args: dict) -> dict:
        t = time.perf_counter()
        res = await c.call_tool(name, args)
        ms = (time.perf_counter() - t) * 1000
        out = json.loads(res.content[0].text) if not res.is_error else {"error": res.content[0].text}
        calls.append({"at_s": round(time.perf_counter() - t_start, 2), "tool": name, "ms": round(ms, 1),
                      "stale": bool(out.get("stale")), "mode": out.get("mode"), "indexing": out.get("indexing"),
                      "hits": len(out.get("results", []))})
        return out

    rng = random.Random(5)
    words = ["heron", "budget", "杭州", "train", "湖景房", "deadline", "coffee", "合同"]
    async with Client(params) as c:
        t_ready = time.perf_counter() - t_start
        appended_found = None
        keyword_done_s = vectors_done_s = None
        while time.perf_counter() - t_start < limit:
            out = await call(c, "memory_search", {"query": f"{rng.choice(words)} {rng.choice(words)}"})
            info = out.get("indexing")
            if keyword_done_s is None and (info is None or info.get("phase") == "vectors"):
                keyword_done_s = calls[-1]["at_s"]
            if info is None and not out.get("stale"):
                vectors_done_s = calls[-1]["at_s"]
                break
            if appended_found is None and len(calls) >= 3:
                await call(c, "memory_append", {"text": "The spare key is under the blue flowerpot."})
                found = await call(c, "memory_search", {"query": "spare key blue flowerpot"})
                appended_found = any("flowerpot" in r["snippet"] for r in found.get("results", []))
            await asyncio.sleep(every)
    lat = [x["ms"] for x in calls]
    return {"server_ready_s": round(t_ready, 2), "calls": calls, "max_ms": max(lat), "p50_ms": pct(lat, 50),
            "p95_ms": pct(lat, 95), "keyword_complete_s": keyword_done_s, "vectors_complete_s": vectors_done_s,
            "append_found_by_next_search": appended_found}


def render(r: dict, meta: dict) -> str:
    first = r["calls"][0]
    info = first.get("indexing") or {}
    prog = ""
    if info:
        prog = (f" (said: {info.get('state')}, files {info.get('files', {}).get('done', '-')}/"
                f"{info.get('files', {}).get('total', '-')}, vectors {info.get('vectors', {}).get('done', '-')}/"
                f"{info.get('vectors', {}).get('total', '-')})")
    return "\n".join([
        f"Command: `{meta['command']}` — {meta['notes']:,} notes never indexed, provider `{meta['provider']}`, "
        f"{meta['cpus']} cores; load average {meta['load_before']} before, {meta['load_after']} after; {meta['date']}.",
        "",
        "| figure | value |", "|---|---:|",
        f"| tool calls made | {len(r['calls'])} |",
        f"| slowest tool call | {r['max_ms']:.0f} ms |",
        f"| tool call p50 / p95 | {r['p50_ms']:.0f} / {r['p95_ms']:.0f} ms |",
        f"| first search, at {first['at_s']} s | {first['ms']:.0f} ms, {first['hits']} results, mode {first['mode']}{prog} |",
        f"| keyword rows of every note searchable after | {r['keyword_complete_s']} s |",
        f"| vectors complete (answers hybrid, not stale) after | {r['vectors_complete_s']} s |",
        f"| a note appended mid-indexing found by the next search | {r['append_found_by_next_search']} |",
    ])


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=2000)
    ap.add_argument("--provider", default="local")
    ap.add_argument("--every", type=float, default=2.0, help="seconds between searches")
    ap.add_argument("--limit", type=float, default=1800.0, help="give up after this many seconds")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    ap.add_argument("--doc", type=Path, default=None)
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="reverie-first-"))
    home = work / "home"
    write_notes(home / "workspace", args.notes)
    meta = {"command": "python benchmarks/first_session.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "notes": args.notes, "provider": args.provider, "cpus": os.cpu_count(),
            "load_before": round(os.getloadavg()[0], 2),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}
    try:
        r = asyncio.run(session(home, args.provider, args.every, args.limit))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    meta["load_after"] = round(os.getloadavg()[0], 2)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"first-session-{args.notes}-{int(time.time())}.json"
    path.write_text(json.dumps({"meta": meta, **r}, indent=2, ensure_ascii=False), encoding="utf-8")
    table = render(r, meta)
    print(table)
    print(f"report: {path}", file=sys.stderr)
    if args.doc:
        update_section(args.doc, "first-session", "A first MCP session on a folder never indexed", table)
    return r


if __name__ == "__main__":
    main()
