"""Per-turn overhead of trigger recall (lane 1) with many trigger phrases.

    python benchmarks/trigger_recall.py [--phrases 10000] [--turns 1000] [--out docs/recall.md]

Builds a workspace in a temporary folder whose ``MEMORY.md`` holds curated entries carrying N
trigger phrases in all (seeded: half English, some multi-word, half Chinese; one to three phrases
per entry), indexes it keyword-only (the lane never embeds), and times the lane as a chat turn runs
it, ``RecallLanes.trigger_lane``: the index snapshot, the phrase match, the lexical score of the
shortlisted entries, the trust gate and the recall mark written to the transcript when something
matched. Messages are a realistic mix of English and Chinese in which most turns trigger nothing
and some mention a phrase; every turn starts with nothing injected yet, so a match is injected
every time it occurs (the worst case for the once-per-session rule). The first turn, which builds
the phrase index of the index revision, is reported apart.

Figures are printed and written as the "Benchmark" section of ``--out`` (the part between the
markers is replaced on each run), with the load average of the machine, which is shared.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from reverie import Memory  # noqa: E402
from reverie.models.scripted import ScriptedModel  # noqa: E402

SEED = 20260702
BEGIN = "<!-- benchmark:trigger_recall:begin -->"
END = "<!-- benchmark:trigger_recall:end -->"
HANZI = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面"
         "而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好"
         "应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道")
LATIN = ["project", "budget", "invoice", "flight", "hotel", "ticket", "meeting", "report", "contract", "server",
         "deploy", "release", "doctor", "dentist", "visa", "passport", "lease", "rent", "insurance", "tax"]
FILLER_EN = ("I think we should look at this again before the end of the week because the numbers do not add up "
             "and nobody has checked the second page of the draft yet so please send me the latest version").split()
FILLER_ZH = "我觉得我们应该在周末之前再看一下因为数字对不上而且还没有人检查草稿的第二页请把最新版本发给我"


def _cjk(rng: random.Random) -> str:
    return "".join(rng.choice(HANZI) for _ in range(rng.choice([2, 3, 4])))


def _latin(rng: random.Random) -> str:
    return f"{rng.choice(LATIN)}{rng.randrange(100000)}"


def _phrase(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return " ".join(_latin(rng) for _ in range(rng.choice([1, 1, 2])))
    return _cjk(rng)


def build(workspace: Path, phrases: int, rng: random.Random) -> list[str]:
    made: list[str] = []
    lines = ["# Long-Term Memory", ""]
    n = 0
    while len(made) < phrases:
        mine = [_phrase(rng) for _ in range(min(rng.choice([1, 2, 3]), phrases - len(made)))]
        made += mine
        n += 1
        lines.append(f"- Entry {n}: remember the details about {mine[0]} and what was agreed. "
                     f"<!-- trigger: {'; '.join(mine)} -->")
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return made


def messages(made: list[str], turns: int, rng: random.Random) -> list[str]:
    out = []
    for _ in range(turns):
        zh = rng.random() < 0.4
        if zh:
            start = rng.randrange(len(FILLER_ZH) - 20)
            text = FILLER_ZH[start:start + rng.randrange(8, 20)]
        else:
            text = " ".join(rng.choice(FILLER_EN) for _ in range(rng.randrange(6, 18)))
        if rng.random() < 0.2:  # a turn that mentions a phrase
            p = rng.choice(made)
            text = f"{text}，{p}" if zh else f"{text} {p}"
        out.append(text)
    return out


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def run(phrases: int, turns: int) -> dict:
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory(prefix="reverie-trigger-bench-") as tmp:
        home = Path(tmp)
        mem = Memory(home=home, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"'])
        mem.init()
        made = build(mem.workspace, phrases, rng)
        t0 = time.perf_counter()
        mem.sync()
        index_s = time.perf_counter() - t0
        rt = mem.runtime(ScriptedModel(script={}))
        lanes = rt.recall_lanes
        msgs = messages(made, turns, rng)
        rt.session  # the session exists before the first timed turn
        t0 = time.perf_counter()
        lanes.trigger_lane("warm up: builds the phrase index of this index revision")
        first_ms = (time.perf_counter() - t0) * 1000
        times, hit_times, injected = [], [], 0
        for text in msgs:
            lanes._seen.clear()  # nothing injected yet: every match is injected (worst case)
            t = time.perf_counter()
            lanes.trigger_lane(text)
            ms = (time.perf_counter() - t) * 1000
            times.append(ms)
            if lanes.strong_hit:
                injected += 1
                hit_times.append(ms)
        rt.close()
        mem.close()
    return {"phrases": phrases, "turns": turns, "injectedTurns": injected, "indexSeconds": round(index_s, 2),
            "firstTurnMs": round(first_ms, 2), "median_ms": round(statistics.median(times), 3),
            "p95_ms": round(percentile(times, 0.95), 3), "max_ms": round(max(times), 3),
            "hit_median_ms": round(statistics.median(hit_times), 3) if hit_times else None,
            "hit_p95_ms": round(percentile(hit_times, 0.95), 3) if hit_times else None,
            "load": [round(x, 2) for x in os.getloadavg()], "python": platform.python_version(),
            "cpus": os.cpu_count()}


def section(r: dict) -> str:
    return "\n".join([
        BEGIN,
        f"Trigger recall per turn with {r['phrases']:,} trigger phrases, {r['turns']:,} turns "
        f"({r['injectedTurns']} of them injected an entry): **median {r['median_ms']} ms, p95 {r['p95_ms']} ms**, "
        f"max {r['max_ms']} ms; turns that injected: median {r['hit_median_ms']} ms, p95 {r['hit_p95_ms']} ms "
        f"(they write the recall mark). The first turn after an index change builds the phrase index: "
        f"{r['firstTurnMs']} ms. Load average at the end {', '.join(map(str, r['load']))} on {r['cpus']} cores "
        f"(a shared machine), Python {r['python']}. Command: `python benchmarks/trigger_recall.py "
        f"--phrases {r['phrases']} --turns {r['turns']}`.",
        END])


def write_section(out: Path, text: str) -> None:
    doc = out.read_text(encoding="utf-8") if out.exists() else ""
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip() + "\n\n" + text + "\n"
    out.write_text(doc, encoding="utf-8")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--phrases", type=int, default=10_000)
    ap.add_argument("--turns", type=int, default=1_000)
    ap.add_argument("--out", type=Path, default=None, help="a Markdown file whose benchmark section is replaced")
    a = ap.parse_args(argv)
    r = run(a.phrases, a.turns)
    print(section(r).split("\n")[1])
    if a.out:
        write_section(a.out, section(r))
    return r


if __name__ == "__main__":
    main()
