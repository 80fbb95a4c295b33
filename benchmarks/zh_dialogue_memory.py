"""Chinese dialogue memory: a conversation whose answer needs a memory phrased far from it.

    python benchmarks/zh_dialogue_memory.py [--data FILE] [--out docs/benchmarks.md] [--no-report]

The shape of issue 30's held-out set, on data written for reverie (``zh_dialogue_data.py``): 40
conversations of three turns (user, assistant, user) in Chinese, each needing one memory that shares
few or no words with it ("点菜的时候我需要特别交代厨房什么吗？" needs "用户对花生严重过敏"), in a
memory of 60 notes (one memory each; the other 20 answer nothing). Each conversation is searched
twice: as its last message, and as the whole dialogue (``用户：… / 助手：…`` lines, what a host's
Active Memory pass or a hook hands reverie). Measure: the right note first (R@1) and among the first
5 distinct notes (R@5).

Systems: reverie keyword-only and hybrid (the bundled embedder), and BM25 over the notes (bm25s).

``--data FILE`` runs another set of the same shape (its ``CASES`` and ``OTHERS``, 40 conversations
and 30 notes that answer none): ``zh_dialogue_fresh_data.py``, ``_2``, ``_3`` and ``_4`` were written
apart from the code, to check that what helps here is no fit to this set's 40 conversations (how apart:
docs/search.md, "Needs"). A run of another set prints only (``--no-report`` implied).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "src"))

import zh_dialogue_data as D  # noqa: E402
from long_history import SessionBM25, distinct, write_workspace  # noqa: E402

ROLES = ("用户：", "助手：")


def notes() -> tuple[dict[str, str], list[str]]:
    """The memory: one dated note per memory; the paths of the cases' notes, in case order."""
    files: dict[str, str] = {}
    memories = [m for m, _ in D.CASES] + list(D.OTHERS)
    paths = []
    for i, text in enumerate(memories):
        path = f"memory/2026-{1 + i // 28:02d}-{1 + i % 28:02d}.md"
        files[path] = f"- {text}\n"
        paths.append(path)
    return files, paths[:len(D.CASES)]


def queries() -> list[tuple[str, str, int]]:
    """(mode, query text, the case) for every case, its last message and its whole dialogue."""
    out = []
    for i, (_, turns) in enumerate(D.CASES):
        out.append(("last message", turns[-1], i))
        out.append(("whole dialogue", "\n".join(ROLES[k % 2] + t for k, t in enumerate(turns)), i))
    return out


def run(work: Path) -> tuple[dict, dict]:
    from reverie import Memory

    files, targets = notes()
    home = work / "home"
    write_workspace(home / "workspace", files)
    systems = {
        "reverie hybrid": Memory(home=home, env={}, overrides=['timezone="UTC"', 'memory.search.provider="local"']),
        "reverie keyword-only": Memory(home=home / "kw", env={}, workspace=home / "workspace",
                                       overrides=['timezone="UTC"', 'memory.search.provider="none"']),
    }
    for mem in systems.values():
        mem.rebuild()
    bm25 = SessionBM25(files)
    ranked: dict[str, list[tuple[str, list[str], int]]] = {name: [] for name in [*systems, "BM25 over the notes"]}
    ms: dict[str, list[float]] = {name: [] for name in systems}
    for mode, text, case in queries():
        for name, mem in systems.items():
            t0 = time.perf_counter()
            res = mem.search(text, 10, 0.0, record_signals=False)
            ms[name].append((time.perf_counter() - t0) * 1000)
            ranked[name].append((mode, distinct([r["path"] for r in res["results"]]), case))
        ranked["BM25 over the notes"].append((mode, bm25.rank(text)[:10], case))
    for mem in systems.values():
        mem.close()
    scores: dict[str, dict[str, tuple[float, float]]] = {}
    for name, rows in ranked.items():
        per: dict[str, list[tuple[float, float]]] = {}
        for mode, found, case in rows:
            hit = (float(found[:1] == [targets[case]]), float(targets[case] in found[:5]))
            per.setdefault(mode, []).append(hit)
            per.setdefault("all", []).append(hit)
        scores[name] = {k: (sum(h[0] for h in v) / len(v), sum(h[1] for h in v) / len(v)) for k, v in per.items()}
    return scores, ms


def render(scores: dict, ms: dict, elapsed: float, load: tuple) -> str:
    names = list(scores)
    out = [f"Command: `python benchmarks/zh_dialogue_memory.py` — {len(D.CASES)} conversations, a memory of "
           f"{len(D.CASES) + len(D.OTHERS)} notes, each conversation asked as its last message and as the whole "
           f"dialogue; run took {elapsed:.0f} s; load average {load[0]:.1f} at the start, {load[1]:.1f} at the end "
           "(2 shared cores).", "",
           "The right note first / among the first 5 distinct notes (R@1 / R@5):", "",
           "| query | n | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for mode in ("all", "last message", "whole dialogue"):
        n = len(D.CASES) * (2 if mode == "all" else 1)
        cells = [f"{scores[s][mode][0]:.3f} / {scores[s][mode][1]:.3f}" for s in names]
        out.append(f"| {mode} | {n} | " + " | ".join(cells) + " |")
    out += ["", "Search latency (ms, median): " + "; ".join(
        f"{k} {sorted(v)[len(v) // 2]:.1f}" for k, v in ms.items()) + "."]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    ap.add_argument("--no-report", action="store_true", help="print only")
    ap.add_argument("--data", type=Path, help="another data file of this shape (CASES, OTHERS); prints only")
    args = ap.parse_args(argv)
    if args.data:
        import runpy

        data = runpy.run_path(str(args.data))
        D.CASES[:], D.OTHERS[:] = data["CASES"], data["OTHERS"]
        args.no_report = True
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        scores, ms = run(Path(tmp))
    report = render(scores, ms, time.perf_counter() - t0, (load0, os.getloadavg()[0]))
    print(report)
    if not args.no_report:
        from report import update_section

        update_section(args.out, "zh-dialogue", "Chinese dialogue memory", report)


if __name__ == "__main__":
    main()
