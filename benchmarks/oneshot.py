"""What one CLI command costs from a cold process, where the time goes, and what a warm process
(Python, MCP) pays per search instead.

    python benchmarks/perf.py --only oneshot [--runs 7] [--before-src path/to/other/checkout/src]

A small workspace (40 daily notes, mixed Chinese and English) is indexed once with the bundled
embedder; then every command runs ``--runs`` times as a fresh process and the median wall time
is reported. ``--before-src`` also measures another checkout's code with the same interpreter and
packages, alternating with this one (that is how the before/after figures in docs/benchmarks.md
were taken).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import EN_WORDS, ZH_WORDS, pct, sentence  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SECTION = "oneshot"
WARM_QUERIES = 30



def _queries(n: int, seed: int = 13) -> list[str]:
    rng = random.Random(seed)
    return [f"{rng.choice(ZH_WORDS)}{rng.choice(ZH_WORDS)}" if i % 2 else f"{rng.choice(EN_WORDS)} {rng.choice(EN_WORDS)}"
            for i in range(n)]


def _write_workspace(ws: Path, notes: int) -> None:
    rng = random.Random(17)
    (ws / "memory").mkdir(parents=True, exist_ok=True)
    for d in range(notes):
        day = f"2026-10-{1 + d % 28:02d}" if d < 28 else f"2026-11-{d - 27:02d}"
        lines = [f"# {day}", ""] + [f"- {sentence(rng)} {sentence(rng)}" for _ in range(5)]
        (ws / "memory" / f"{day}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (ws / "MEMORY.md").write_text("# Long-Term Memory\n\n- 决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。\n",
                                  encoding="utf-8")


class Cli:
    """Runs reverie commands as fresh processes, against a given source tree."""

    def __init__(self, home: Path, src: Path):
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("REVERIE_", "OMP_", "GOMP_"))}
        self.env.update({"REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC",
                         "PYTHONPATH": str(src) + os.pathsep + os.environ.get("PYTHONPATH", "")})

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-c", "from reverie.cli.main import run; run()", *args]

    def run(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(*args), env=self.env, capture_output=True, text=True, timeout=600)

    def timed(self, argv: list[str], runs: int) -> list[float]:
        out = []
        for _ in range(runs):
            t = time.perf_counter()
            p = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=600)
            out.append((time.perf_counter() - t) * 1000)
            if p.returncode != 0:
                raise RuntimeError(f"{argv[3:]} failed: {p.stderr.strip()[-300:]}")
        return out


# -- in-process phases of one `reverie search` (run as a fresh child) ---------------------------
PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
marks = {}
def lap(name):
    global t0
    t = time.perf_counter(); marks[name] = (t - t0) * 1000; t0 = t
import reverie.cli.main as cli
lap("import the CLI")
import typer
lazy = hasattr(cli, "COMMAND_MODULES")  # what run() builds: only the search command's module where it can
typer.main.get_command(cli._register("search") if lazy else cli.app)
lap("build the command tree")
from reverie import Memory
lap("import the API")
import numpy  # a search needs it; older code imported it with the API, newer code with the vectors
lap("import numpy (if the API did not)")
mem = Memory()
mem.settings
lap("read the settings")
emb = mem.embedder
lap("choose the embedder")
getattr(emb, "_engine", lambda: None)()
lap("load the engine")
mem.index.conn()
lap("open the index")
out = mem.search(sys.argv[1], sync_wait=2.0)  # as the CLI does: recall signals recorded, flushed by close
lap("search")
mem.close()
lap("close")
d = out["debug"]
marks["search: query embedding"] = d.get("embedMs", 0.0)
marks["search: ranking"] = d.get("rankMs", 0.0)
print(json.dumps(marks))
"""


def phases_once(cli: Cli, query: str) -> dict[str, float]:
    p = subprocess.run([sys.executable, "-c", PHASES, query], env=cli.env, capture_output=True, text=True,
                       timeout=600, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


# -- warm processes -----------------------------------------------------------------------------
WARM = r"""
import json, statistics, sys, time
from reverie import Memory
queries = json.loads(sys.argv[1])
mem = Memory()
for q in queries[:3]:
    mem.search(q)
ms, embed = [], []
for q in queries[3:]:
    t = time.perf_counter()
    out = mem.search(q)  # as an agent's program calls it: recall signals recorded
    ms.append((time.perf_counter() - t) * 1000)
    embed.append(out["debug"].get("embedMs", 0.0))
mem.close()
print(json.dumps({"search_ms": ms, "embed_ms": embed}))
"""


def warm_python(cli: Cli, queries: list[str]) -> dict:
    p = subprocess.run([sys.executable, "-c", WARM, json.dumps(queries)], env=cli.env, capture_output=True,
                       text=True, timeout=600, check=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def warm_mcp(cli: Cli, queries: list[str]) -> list[float]:
    from reverie.mcp.client import Client
    from reverie.mcp.client import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=cli.argv("mcp")[1:], env=cli.env)

    async def go() -> list[float]:
        async with Client(params) as c:
            for q in queries[:3]:
                await c.call_tool("memory_search", {"query": q})
            out = []
            for q in queries[3:]:
                t = time.perf_counter()
                await c.call_tool("memory_search", {"query": q})
                out.append((time.perf_counter() - t) * 1000)
            return out

    return asyncio.run(go())


# -- the whole measurement ----------------------------------------------------------------------
def run(sources: list[tuple[str, Path]] | None = None, runs: int = 7, work: Path | None = None, notes: int = 40,
        warm: int = WARM_QUERIES) -> list[tuple[str, dict]]:
    """Measure each (label, source tree) pair; runs alternate between the sources, so that a burst
    of someone else's work on a shared machine lands on all of them alike."""
    sources = sources or [("this code", ROOT / "src")]
    scratch = Path(work or tempfile.mkdtemp(prefix="reverie-oneshot-"))
    try:
        return _run([(label, Path(src).resolve()) for label, src in sources], runs, scratch, notes, warm)
    finally:
        if work is None:
            shutil.rmtree(scratch, ignore_errors=True)


COMMANDS = ("python -c pass", "import the CLI", "reverie --help", "reverie status", "reverie search QUERY")


def _run(sources: list[tuple[str, Path]], runs: int, scratch: Path, notes: int, warm: int) -> list[tuple[str, dict]]:
    clis, results = [], []
    for i, (label, src) in enumerate(sources):
        home = scratch / f"home{i}"
        _write_workspace(home / "workspace", notes)
        cli = Cli(home, src)
        p = cli.run("index")
        if p.returncode != 0:
            raise RuntimeError(f"index failed ({label}): {p.stderr.strip()[-300:]}")
        clis.append(cli)
        results.append((label, {"src": str(src), "runs": runs, "notes": notes, "loadavg": [os.getloadavg()[0]],
                                **{name: [] for name in COMMANDS}}))
    queries = _queries(runs + warm + 3)
    phase_samples: list[dict[str, list[float]]] = [{} for _ in sources]
    for i in range(runs):
        print(f"oneshot: round {i + 1}/{runs} ...", file=sys.stderr, flush=True)
        for cli, (label, res), samples in zip(clis, results, phase_samples):
            argv = {"python -c pass": [sys.executable, "-c", "pass"],
                    "import the CLI": [sys.executable, "-c", "import reverie.cli.main"],
                    "reverie --help": cli.argv("--help"), "reverie status": cli.argv("status"),
                    "reverie search QUERY": cli.argv("search", queries[i])}
            for name in COMMANDS:
                res[name] += cli.timed(argv[name], 1)
            for k, v in phases_once(cli, queries[i]).items():
                samples.setdefault(k, []).append(v)
    print("oneshot: warm Python and MCP ...", file=sys.stderr, flush=True)
    for cli, (label, res), samples in zip(clis, results, phase_samples):
        res["phases"] = {k: statistics.median(v) for k, v in samples.items()}
        res["warm"] = warm_python(cli, queries[runs:])
        try:
            res["mcp"] = warm_mcp(cli, queries[runs:])
        except Exception as exc:  # the MCP client is optional for this benchmark
            res["mcp"] = f"unavailable: {type(exc).__name__}: {exc}"
        res["loadavg"].append(os.getloadavg()[0])
    return results


def render(results: list[tuple[str, dict]], elapsed: float, cmd: str) -> str:
    """``results``: (label, run) pairs, e.g. [("before", ...), ("after", ...)], shown side by side."""
    labels = [label for label, _ in results]
    runs = results[0][1]["runs"]
    L = [f"Command: `{cmd}` — run took {elapsed:.0f} s. Median wall time of {runs} fresh processes each "
         f"(the workspace: {results[0][1]['notes']} daily notes, indexed with the bundled embedder). Load average (1 min) during "
         "each run: " + "; ".join(f"{label} {min(r['loadavg']):.2f} – {max(r['loadavg']):.2f}" for label, r in results)
         + ".", ""]
    L.append("| one-shot command | " + " | ".join(f"{label} ms" for label in labels) + " |")
    L.append("|---|" + "---:|" * len(labels))
    for name in COMMANDS:
        L.append(f"| `{name}` | " + " | ".join(f"{statistics.median(r[name]):.0f}" for _, r in results) + " |")
    L.append("")
    L.append("Where one `reverie search` spends its time, in the process (median; the interpreter's own start "
             "is the `python -c pass` row above):")
    L.append("")
    L.append("| phase | " + " | ".join(f"{label} ms" for label in labels) + " |")
    L.append("|---|" + "---:|" * len(labels))
    names = list(dict.fromkeys(k for _, r in results for k in r["phases"]))
    for name in names:
        L.append(f"| {name} | " + " | ".join(f"{r['phases'].get(name, float('nan')):.1f}" for _, r in results) + " |")
    L.append("")
    L.append("A warm process pays only the search (median / p95 per query, query embedding included):")
    L.append("")
    L.append("| warm process | " + " | ".join(f"{label} ms" for label in labels) + " |")
    L.append("|---|" + "---:|" * len(labels))
    L.append("| Python loop, `Memory.search` | " + " | ".join(
        f"{statistics.median(r['warm']['search_ms']):.1f} / {pct(r['warm']['search_ms'], 95):.1f}" for _, r in results) + " |")
    L.append("| of which query embedding | " + " | ".join(
        f"{statistics.median(r['warm']['embed_ms']):.1f} / {pct(r['warm']['embed_ms'], 95):.1f}" for _, r in results) + " |")
    L.append("| MCP `memory_search` over stdio (client's view) | " + " | ".join(
        r["mcp"] if isinstance(r["mcp"], str) else f"{statistics.median(r['mcp']):.1f} / {pct(r['mcp'], 95):.1f}"
        for _, r in results) + " |")
    return "\n".join(L)
