"""The bundled embedder idle and on a busy machine, before and after reverie's OpenMP settings.

    python benchmarks/perf.py --only embed-load [--out docs/benchmarks.md]

Each configuration runs in a fresh process (libgomp reads its settings once, when the engine
loads), through reverie's own ``LocalE5``:

* **before**: libgomp's defaults, as reverie ran until it set them (no wait policy, so idle
  workers spin about 300,000 times before they sleep; one thread per core). Reproduced by giving
  the child ``GOMP_SPINCOUNT=300000`` and ``OMP_NUM_THREADS=<cores>``: values a user set, which
  reverie leaves alone, equal to libgomp's defaults.
* **after**: nothing set; reverie chooses (passive wait policy, threads for the cores available).

"Under load" runs one busy-looping process per available core beside the child. The machine's
load average is reported with every row: on a shared machine "idle" is not idle.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from perf import EN_WORDS, ZH_WORDS, pct, sentence  # noqa: E402  (perf also puts src/ on the path)

SECTION = "embedload"
QUERIES = 20  # per process; each configuration runs ROUNDS processes, interleaved with the others
ROUNDS = 2  # so that a burst of someone else's work lands on every configuration, not on one
QUERY_BUDGET_S = 25.0  # a spinning engine under load can take seconds per query: stop sampling here
PASSAGES = 8
OMP_KEYS = ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT", "OMP_DYNAMIC", "OMP_PROC_BIND")
LIBGOMP_DEFAULT_SPIN = "300000"  # libgomp's spin count when no wait policy is set



def _texts(n_queries: int, n_passages: int, seed: int = 5) -> tuple[list[str], list[str]]:
    """Short queries as people type them and note-sized passages (~400 tokens), Chinese and English."""
    rng = random.Random(seed)
    queries = []
    for i in range(n_queries + 3):
        if i % 2:
            queries.append(f"为什么没订{rng.choice(ZH_WORDS)}和{rng.choice(ZH_WORDS)}")
        else:
            queries.append(f"what did we decide about the {rng.choice(EN_WORDS)} {rng.choice(EN_WORDS)}")
    passages = [" ".join(sentence(rng) for _ in range(18)) for _ in range(n_passages + 1)]
    return queries, passages


# -- the measured process -----------------------------------------------------------------------
def child(n_queries: int, n_passages: int) -> None:
    """Load the embedder the way reverie does, embed, print one JSON line."""
    from reverie.embeddings.local import LocalE5

    queries, passages = _texts(n_queries, n_passages)
    t = time.perf_counter()
    emb = LocalE5()
    e5 = emb._engine()
    load_ms = (time.perf_counter() - t) * 1000
    for q in queries[:3]:
        emb.embed_query(q)
    q_ms: list[float] = []
    start = time.perf_counter()
    for q in queries[3:]:
        t = time.perf_counter()
        emb.embed_query(q)
        q_ms.append((time.perf_counter() - t) * 1000)
        if time.perf_counter() - start > QUERY_BUDGET_S:
            break
    emb.embed_documents(passages[:1])
    tokens = sum(e5.token_count(p) for p in passages[1:])
    t = time.perf_counter()
    emb.embed_documents(passages[1:])  # one batch, as indexing sends them
    passage_s = time.perf_counter() - t
    print(json.dumps({"engine": emb.runtime(), "load_ms": load_ms, "query_ms": q_ms,
                      "passage_tokens": tokens, "passage_s": passage_s, "loadavg": os.getloadavg()}))


# -- the driver ---------------------------------------------------------------------------------
def _cpus() -> int:
    from reverie.embeddings.openmp import available_cpus

    return available_cpus()


def configurations(sweep: bool) -> list[tuple[str, dict]]:
    cpus = _cpus()
    out = [("before (libgomp defaults)", {"GOMP_SPINCOUNT": LIBGOMP_DEFAULT_SPIN, "OMP_NUM_THREADS": str(cpus)}),
           ("after (reverie's settings)", {})]
    if sweep:
        out += [(f"passive, {n} thread{'s' if n > 1 else ''}", {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": str(n)})
                for n in range(1, cpus + 1)]
    return out


class Load:
    """One busy-looping process per core, for as long as the block runs."""

    def __init__(self, n: int):
        self.n = n
        self.procs: list[subprocess.Popen] = []

    def __enter__(self) -> "Load":
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        time.sleep(1.0)  # let the scheduler see them
        return self

    def __exit__(self, *exc) -> None:
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()


def measure(extra_env: dict, queries: int, passages: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in OMP_KEYS}
    env.update(extra_env)
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(queries), str(passages)], env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(sweep: bool = False, queries: int = QUERIES, rounds: int = ROUNDS, passages: int = PASSAGES) -> dict:
    cpus = _cpus()
    rows = []
    for condition in ("idle", "under load"):
        configs = configurations(sweep)
        samples: dict[str, list[dict]] = {name: [] for name, _ in configs}
        loads: dict[str, list[float]] = {name: [] for name, _ in configs}
        for rnd in range(rounds):
            for name, extra in configs:
                print(f"embed-load: {condition}, {name}, round {rnd + 1}/{rounds} ...", file=sys.stderr, flush=True)
                loads[name].append(os.getloadavg()[0])
                if condition == "idle":
                    r = measure(extra, queries, passages)
                else:
                    with Load(cpus):
                        r = measure(extra, queries, passages)
                samples[name].append(r)
                loads[name].append(r["loadavg"][0])
        for name, extra in configs:
            q = [ms for r in samples[name] for ms in r["query_ms"]]
            tps = [r["passage_tokens"] / r["passage_s"] for r in samples[name]]
            rows.append({"condition": condition, "config": name, "env": extra, "engine": samples[name][0]["engine"],
                         "queries": len(q), "query_p50": statistics.median(q), "query_p95": pct(q, 95),
                         "query_max": max(q), "tokens_per_s": statistics.median(tps),
                         "passage_tokens": samples[name][0]["passage_tokens"],
                         "load_ms": statistics.median(r["load_ms"] for r in samples[name]),
                         "loadavg": (min(loads[name]), max(loads[name]))})
    return {"cpus": cpus, "rows": rows, "queries": queries, "rounds": rounds, "passages": passages}


def render(result: dict, elapsed: float, cmd: str) -> str:
    rows = result["rows"]
    L = [f"Command: `{cmd}` — run took {elapsed:.0f} s on {result['cpus']} available cores. "
         f"Each configuration ran in {result['rounds']} fresh processes, interleaved with the others. Query embedding: "
         f"{result['queries']} short queries (Chinese and English) per process, one at a time after 3 warm-up queries "
         f"(fewer when a process passed {QUERY_BUDGET_S:.0f} s); indexing: {result['passages']} note-sized passages "
         f"({rows[0]['passage_tokens']:,} tokens) in one batch, median of the processes. Under load: "
         f"{result['cpus']} busy-looping processes beside the embedder. Load average: the machine's 1-minute "
         "figure while the row ran (lowest – highest).", ""]
    L.append("| condition | configuration | wait policy / threads | query p50 ms | query p95 ms | query max ms | "
             "passage tokens/s | load average |")
    L.append("|---|---|---|---:|---:|---:|---:|---|")
    for r in rows:
        e = r["engine"]
        policy = e.get("waitPolicy") if e.get("waitPolicy") != "libgomp default" else f"spin {e.get('spinCount')}"
        L.append(f"| {r['condition']} | {r['config']} | {policy} / {e.get('threads')} | {r['query_p50']:.1f} | "
                 f"{r['query_p95']:.1f} | {r['query_max']:.0f} | {r['tokens_per_s']:,.0f} | "
                 f"{r['loadavg'][0]:.2f} – {r['loadavg'][1]:.2f} |")
    return "\n".join(L)


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    child(int(sys.argv[2]), int(sys.argv[3]))
