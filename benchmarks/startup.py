"""Start-up: how fast an agent host reaches reverie, cold and through `reverie serve`.

Each figure is the wall time of a fresh `reverie` process (the console script a host runs), from
its start to its answer, 20 times, on a quiet machine and under load (one busy-looping process per
core beside it, as embed_load does):

* `reverie mcp` (stdio): process start -> `initialize` answered (what Claude Code waits 5 s for);
* `reverie serve` running: MCP over HTTP, `initialize` + `notifications/initialized` + `tools/list`
  on a new session (a host connecting);
* `reverie --version`, `reverie remember TEXT` with no server (cold) and through the server;
* `reverie search` keyword-only, cold and through the server; hybrid through the server (embedder
  warm);
* `reverie serve`: SIGTERM -> process gone.

    python benchmarks/startup.py [--runs 20] [--notes 200] [--no-load] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from embed_load import Load, _cpus  # noqa: E402
from perf import pct, sentence  # noqa: E402
from report import update_section  # noqa: E402

REVERIE = str(Path(sys.executable).with_name("reverie"))
QUERIES = ["hotel by the lake", "杭州 酒店", "budget decision", "parrot name", "周末 计划"]
TARGETS = {  # (quiet p50, quiet p95, loaded p95) in ms, from the issue; None: no target
    "mcp stdio: start -> initialize answered": (150, 300, 1000),
    "serve: MCP HTTP initialize + tools/list": (20, 50, 200),
    "--version (cold)": (150, 250, 1000),
    "remember TEXT (cold)": (150, 250, 1000),
    "remember TEXT (through serve)": (None, None, None),
    "search keyword-only (cold)": (300, None, None),
    "search keyword-only (through serve)": (60, None, None),
    "search hybrid (through serve, embedder warm)": (60, None, 300),
    "serve: SIGTERM -> exited": (2000, None, None),
    "hook SessionStart (cold, in-process)": (300, None, None),
    "hook UserPromptSubmit, trigger lane (cold, in-process)": (300, None, None),
    "hook SessionStart (through serve)": (50, 150, None),
    "hook UserPromptSubmit, trigger lane (through serve)": (50, 150, None),
}


def _env(home: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", **extra)
    return env


def _timed_run(args: list[str], env: dict) -> float:
    t = time.perf_counter()
    r = subprocess.run([REVERIE, *args], env=env, capture_output=True, text=True, timeout=120)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        raise SystemExit(f"reverie {' '.join(args)} failed: {r.stderr.strip()}")
    return ms


def _hook(event: str, env: dict, i: int) -> float:
    payload = {"session_id": f"bench-{event}-{i}", "cwd": "/", "hook_event_name": event, "source": "startup",
               "prompt": "Should I book the hotel by the lake again?"}
    t = time.perf_counter()
    r = subprocess.run([REVERIE, "hook", "claude-code", event], env=env, input=json.dumps(payload),
                       capture_output=True, text=True, timeout=120)
    ms = (time.perf_counter() - t) * 1000
    if r.returncode != 0:
        raise SystemExit(f"reverie hook claude-code {event} failed: {r.stderr.strip()}")
    return ms


def _mcp_initialize(env: dict) -> float:
    t = time.perf_counter()
    p = subprocess.Popen([REVERIE, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}}).encode()
                  + b"\n")
    p.stdin.flush()
    buf = b""
    while b"\n" not in buf:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        if not ready:
            p.kill()
            raise SystemExit("reverie mcp did not answer initialize within 60 s")
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            raise SystemExit("reverie mcp exited before answering")
        buf += chunk
    ms = (time.perf_counter() - t) * 1000
    assert json.loads(buf.split(b"\n")[0])["result"]["serverInfo"]["name"] == "reverie"
    p.stdin.close()
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    return ms


def _http_connect(info: dict) -> float:
    headers = {"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json",
               "Accept": "application/json, text/event-stream"}
    t = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)

    def post(message: dict, sid: str | None = None):
        h = dict(headers, **({"Mcp-Session-Id": sid} if sid else {}))
        conn.request("POST", "/mcp", body=json.dumps(message), headers=h)
        r = conn.getresponse()
        return r, r.read()

    r, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
                                                                             "capabilities": {}}})
    sid = r.getheader("mcp-session-id")
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    r, body = post({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, sid)
    ms = (time.perf_counter() - t) * 1000
    assert "memory_search" in body.decode()
    conn.close()
    return ms


class Server:
    def __init__(self, env: dict):
        self.proc = subprocess.Popen([REVERIE, "serve", "--port", "0", "--no-scheduler"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        state = Path(env["REVERIE_HOME"]) / "run" / "serve.json"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                self.info = json.loads(state.read_text())
                if self.info.get("pid") == self.proc.pid:
                    return
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise SystemExit("reverie serve did not start")

    def stop(self) -> float:
        t = time.perf_counter()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)
        return (time.perf_counter() - t) * 1000


def build_home(home: Path, notes: int) -> None:
    import random

    rng = random.Random(7)
    mem_dir = home / "workspace" / "memory"
    env = _env(home)
    subprocess.run([REVERIE, "init"], env=env, check=True, capture_output=True)
    mem_dir.mkdir(parents=True, exist_ok=True)
    for i in range(notes):
        day = f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}"
        with open(mem_dir / f"{day}.md", "a", encoding="utf-8") as f:
            f.write(f"- {sentence(rng)}\n")
    (home / "workspace" / "memory" / "2026-11-30.md").open("a", encoding="utf-8").write(
        "- We booked the hotel by the lake in Hangzhou; the parrot is named Captain Flint.\n"
        "- 周末在杭州西湖边订了酒店，预算有限。\n")
    with (home / "workspace" / "MEMORY.md").open("a", encoding="utf-8") as f:  # what trigger recall finds
        f.write("- Always book the hotel by the lake with a late checkout. <!-- trigger: hotel by the lake -->\n")
    subprocess.run([REVERIE, "index"], env=env, check=True, capture_output=True)


def measure(home: Path, runs: int) -> dict:
    env = _env(home)
    cold = _env(home, REVERIE_SERVE="off")
    kw = ["--set", 'memory.search.provider="none"']
    out: dict[str, list[float]] = {k: [] for k in TARGETS}
    for i in range(runs):
        out["mcp stdio: start -> initialize answered"].append(_mcp_initialize(env))
        out["--version (cold)"].append(_timed_run(["--version"], cold))
        out["remember TEXT (cold)"].append(_timed_run(["remember", f"cold note number {i}"], cold))
        out["search keyword-only (cold)"].append(_timed_run(["search", QUERIES[i % len(QUERIES)], *kw], cold))
        out["hook SessionStart (cold, in-process)"].append(_hook("SessionStart", cold, i))
        out["hook UserPromptSubmit, trigger lane (cold, in-process)"].append(_hook("UserPromptSubmit", cold, i))
    server = Server(env)
    try:
        _http_connect(server.info)  # the first client opens the agent: a start-up cost, not a connect
        _timed_run(["search", QUERIES[0]], env)  # the embedder loads on the first hybrid search
        for i in range(runs):
            out["serve: MCP HTTP initialize + tools/list"].append(_http_connect(server.info))
            out["remember TEXT (through serve)"].append(_timed_run(["remember", f"served note number {i}"], env))
            out["search keyword-only (through serve)"].append(
                _timed_run(["search", QUERIES[i % len(QUERIES)], *kw], env))
            out["search hybrid (through serve, embedder warm)"].append(
                _timed_run(["search", QUERIES[i % len(QUERIES)]], env))
            out["hook SessionStart (through serve)"].append(_hook("SessionStart", env, 1000 + i))
            out["hook UserPromptSubmit, trigger lane (through serve)"].append(_hook("UserPromptSubmit", env, 1000 + i))
    finally:
        out["serve: SIGTERM -> exited"].append(server.stop())
    for _ in range(min(4, runs) - 1):
        out["serve: SIGTERM -> exited"].append(Server(env).stop())
    return out


def summarise(samples: dict[str, list[float]]) -> dict:
    return {k: {"n": len(v), "p50": statistics.median(v), "p95": pct(v, 95)} for k, v in samples.items() if v}


def render(rows: dict, cmd: str, elapsed: float, loads: dict) -> str:
    L = [f"Command: `{cmd}` — run took {elapsed:.0f} s. Each figure: a fresh `reverie` process (the console "
         "script), wall time from its start to its answer; medians and p95 of the runs. Under load: "
         f"{_cpus()} busy-looping processes beside it. Load average (1 min) at the start / end of each condition: "
         + ", ".join(f"{c} {a:.2f} / {b:.2f}" for c, (a, b) in loads.items()) + ".", "",
         "| what | quiet p50 / p95 ms | under load p50 / p95 ms | target (quiet p50 / p95; load p95) |",
         "|---|---:|---:|---|"]
    for name, (t50, t95, tload) in TARGETS.items():
        q = rows.get("quiet", {}).get(name)
        lo = rows.get("load", {}).get(name)
        target = " / ".join(f"≤ {t}" for t in (t50, t95) if t is not None) or "—"
        if tload is not None:
            target += f"; ≤ {tload}"
        fmt = (lambda r: f"{r['p50']:.0f} / {r['p95']:.0f}" if r else "—")
        L.append(f"| {name} | {fmt(q)} | {fmt(lo)} | {target} |")
    return "\n".join(L)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--no-load", action="store_true", help="the quiet condition only")
    ap.add_argument("--out", type=Path, help="docs/benchmarks.md: write the figures into its section")
    ap.add_argument("--json", type=Path, help="write the raw samples here")
    args = ap.parse_args(argv)
    started = time.perf_counter()
    rows, raw, loads = {}, {}, {}
    with tempfile.TemporaryDirectory(prefix="reverie-startup-") as tmp:
        home = Path(tmp) / "home"
        print(f"building a home of {args.notes} notes (indexed with the bundled embedder)...", file=sys.stderr)
        build_home(home, args.notes)
        conditions = [("quiet", None)] + ([] if args.no_load else [("load", _cpus())])
        for name, busy in conditions:
            before = os.getloadavg()[0]
            if busy:
                with Load(busy):
                    raw[name] = measure(home, args.runs)
            else:
                raw[name] = measure(home, args.runs)
            loads[name] = (before, os.getloadavg()[0])
            rows[name] = summarise(raw[name])
            print(f"{name} done", file=sys.stderr)
    cmd = "python benchmarks/startup.py " + " ".join(argv if argv is not None else sys.argv[1:])
    body = render(rows, cmd.strip(), time.perf_counter() - started, loads)
    print(body)
    if args.out:
        update_section(args.out, "startup", "Start-up and the warm server", body)
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "raw": raw, "loads": loads}, indent=2))
    return rows


if __name__ == "__main__":
    main()
