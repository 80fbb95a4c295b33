"""An honest "no memory": do questions nothing in memory answers get no result, while answerable
ones are still found? (issue 29, item 6; data in ``no_memory_data.py``, written for it.)

    python benchmarks/no_memory.py [--work DIR] [--no-report] [--features out.json] [--data FILE]

A memory of 220 notes on everyday personal topics (half English, half Chinese), five to a daily
note over 44 days: 80 of them answer a question (worded otherwise than the note), 140 are filler.
80 unanswerable questions (40 per language): unrelated topics ("quantum chromodynamics lecture
notes") and plausible personal facts that were never written down (a PIN, a door code, a hotel).
A quarter of each set is held out: written after the floor was calibrated on the rest.

``--data FILE`` runs another set of this shape (its ``FACTS_EN``, ``FACTS_ZH``, ``FILLER_EN``,
``FILLER_ZH``, ``UNANSWERABLE_EN`` and ``UNANSWERABLE_ZH``), every question of it counted as held out:
``no_memory_fresh_data.py`` was written blind, by a helper who saw neither this set nor the code, after
the floor was final, to measure how its bar carries to questions it was not calibrated on (about half
of its unanswerable questions ask for what the memory holds of a neighbouring thing: a code of
another door). A run of another set prints only (``--no-report`` implied).

Measured with the bundled local embedder (hybrid) and keyword-only, before (the relevance floor
off, the default) and after (``noMemoryFloor = true``, its calibrated bars), in one run:

* **no result**: share of unanswerable questions whose ``memory_search`` answer is empty;
* **found**: share of answerable questions whose note is among the results (default maxResults 6),
  and whose note is the first result.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(HERE))

import no_memory_data as D  # noqa: E402
from report import update_section  # noqa: E402

from reverie import Memory  # noqa: E402

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
FIRST_DAY = date(2026, 10, 1)
PER_NOTE = 5


def load_data(path: Path) -> SimpleNamespace:
    """Another set of this shape, all of it held out (its questions in the held-out lists)."""
    import runpy

    data = runpy.run_path(str(path))
    return SimpleNamespace(
        FACTS_EN=[], FACTS_ZH=[], UNANSWERABLE_EN=[], UNANSWERABLE_ZH=[],
        FILLER_EN=list(data["FILLER_EN"]), FILLER_ZH=list(data["FILLER_ZH"]),
        HELDOUT_FACTS_EN=list(data["FACTS_EN"]), HELDOUT_FACTS_ZH=list(data["FACTS_ZH"]),
        HELDOUT_UNANSWERABLE_EN=list(data["UNANSWERABLE_EN"]), HELDOUT_UNANSWERABLE_ZH=list(data["UNANSWERABLE_ZH"]))


def build(data=D) -> tuple[dict[str, str], list[dict], list[dict]]:
    """(files, answerable questions with their (path, line), unanswerable questions) of a data set
    (``no_memory_data`` or :func:`load_data`'s)."""
    D = data  # noqa: N806 (the data module's names, as the rest of the benchmark reads them)
    facts = D.FACTS_EN + D.FACTS_ZH + D.HELDOUT_FACTS_EN + D.HELDOUT_FACTS_ZH
    langs = ["en"] * len(D.FACTS_EN) + ["zh"] * len(D.FACTS_ZH) + ["en"] * len(D.HELDOUT_FACTS_EN) + \
        ["zh"] * len(D.HELDOUT_FACTS_ZH)
    held = len(D.FACTS_EN) + len(D.FACTS_ZH)  # facts from here on are held out
    notes = [(t, i, langs[i]) for i, (t, _) in enumerate(facts)] + \
            [(t, None, "en") for t in D.FILLER_EN] + [(t, None, "zh") for t in D.FILLER_ZH]
    random.Random(29).shuffle(notes)
    files: dict[str, str] = {}
    where: dict[int, tuple[str, int]] = {}
    for n in range(0, len(notes), PER_NOTE):
        day = FIRST_DAY + timedelta(days=n // PER_NOTE)
        path = f"memory/{day.isoformat()}.md"
        lines = [f"# {day.isoformat()}", ""]
        for text, fact, _ in notes[n:n + PER_NOTE]:
            lines.append(f"- {text}")
            if fact is not None:
                where[fact] = (path, len(lines))
        files[path] = "\n".join(lines) + "\n"
    answerable = [{"q": q, "lang": langs[i], "path": where[i][0], "line": where[i][1], "held": i >= held}
                  for i, (_, q) in enumerate(facts)]
    unanswerable = [{"q": q, "lang": "en", "held": False} for q in D.UNANSWERABLE_EN] + \
                   [{"q": q, "lang": "zh", "held": False} for q in D.UNANSWERABLE_ZH] + \
                   [{"q": q, "lang": "en", "held": True} for q in D.HELDOUT_UNANSWERABLE_EN] + \
                   [{"q": q, "lang": "zh", "held": True} for q in D.HELDOUT_UNANSWERABLE_ZH]
    return files, answerable, unanswerable


def open_memory(home: Path, files: dict[str, str], provider: str) -> Memory:
    m = Memory(home=home, env={"REVERIE_TIMEZONE": "UTC", "HOME": str(home)},
               overrides=[f'memory.search.provider="{provider}"'])
    m.init()
    for rel, text in files.items():
        p = m.workspace / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")
    m.sync()
    return m


def holds(hit: dict, path: str, line: int) -> bool:
    s, e = hit.get("snippetStartLine"), hit.get("snippetEndLine")
    return hit["path"] == path and s is not None and s <= line <= e


def top_features(out: dict) -> dict | None:
    if not out["results"]:
        return None
    ex = out["results"][0].get("explain") or {}
    vec, kw = ex.get("vector") or {}, ex.get("keyword") or {}
    return {"cos": vec.get("cosine"), "vec": vec.get("calibrated"), "cov": kw.get("coverage"),
            "kw": kw.get("score"), "content": (ex.get("merge") or {}).get("content"), "pre": ex.get("preDecay"),
            "floor": out.get("debug", {}).get("relevance")}


def measure(m: Memory, answerable: list[dict], unanswerable: list[dict], floor: bool,
            features: list | None = None, label: str = "") -> dict:
    """Each question's outcome, the floor on (its calibrated defaults) or off."""
    q = m.settings.search.query
    saved = q.no_memory_floor
    q.no_memory_floor = floor
    try:
        t = time.perf_counter()
        ms, rows = [], []
        for a in answerable:
            t1 = time.perf_counter()
            out = m.search(a["q"], now=NOW, explain=features is not None, record_signals=False)
            ms.append((time.perf_counter() - t1) * 1000)
            hits = out["results"]
            row = {"set": "answerable", "lang": a["lang"], "held": a["held"],
                   "found": any(holds(h, a["path"], a["line"]) for h in hits),
                   "first": bool(hits) and holds(hits[0], a["path"], a["line"]), "n": len(hits)}
            rows.append(row)
            if features is not None:
                features.append({**row, "mode": label, "q": a["q"], **(top_features(out) or {}),
                                 "floor": out.get("debug", {}).get("relevance")})
        for u in unanswerable:
            t1 = time.perf_counter()
            out = m.search(u["q"], now=NOW, explain=features is not None, record_signals=False)
            ms.append((time.perf_counter() - t1) * 1000)
            row = {"set": "unanswerable", "lang": u["lang"], "held": u["held"], "n": len(out["results"]),
                   "note": out.get("note")}
            rows.append(row)
            if features is not None:
                features.append({**row, "mode": label, "q": u["q"], **(top_features(out) or {}),
                                 "floor": out.get("debug", {}).get("relevance")})
        return {"rows": rows, "ms_median": statistics.median(ms), "seconds": time.perf_counter() - t}
    finally:
        q.no_memory_floor = saved


def summary(rows: list[dict]) -> dict:
    a = [r for r in rows if r["set"] == "answerable"]
    u = [r for r in rows if r["set"] == "unanswerable"]
    return {"found": sum(r["found"] for r in a) / len(a), "first": sum(r["first"] for r in a) / len(a),
            "empty": sum(r["n"] == 0 for r in u) / len(u), "hits_unanswerable": statistics.mean(r["n"] for r in u),
            "na": len(a), "nu": len(u)}


def locomo(path: Path, work: Path, limit: int) -> list[str]:
    """LoCoMo questions (all answerable) asked as an agent asks them (default maxResults and
    minScore), the floor off and on: how many get no result, and what the agent reads."""
    import locomo_retrieval as L
    from reverie.embeddings.local import LocalE5

    convs = [L.build_conversation(s) for s in json.loads(path.read_text(encoding="utf-8"))[:limit]]
    qcache = L.QueryCache(LocalE5())
    stats = {(mode, when): {"n": 0, "empty": 0, 500: 0, 1000: 0} for mode in ("hybrid", "keyword-only")
             for when in ("before", "after")}
    for conv in convs:
        home = work / "homes" / conv.sample_id
        L.write_workspace(home / "workspace", conv)
        common = ['timezone="UTC"', "memory.search.chunking.tokens=400", "memory.search.chunking.overlap=80"]
        mems = {"hybrid": Memory(home=home, env={}, embedder=qcache,
                                 overrides=['memory.search.provider="local"', *common]),
                "keyword-only": Memory(home=home, env={}, overrides=['memory.search.provider="none"', *common])}
        try:
            mems["hybrid"].sync()
            for mode, m in mems.items():
                q = m.settings.search.query
                for when in ("before", "after"):
                    q.no_memory_floor = when == "after"
                    st = stats[(mode, when)]
                    for qa in conv.questions:
                        out = m.search(qa["question"], now=conv.now, record_signals=False)
                        hits = L.reverie_hits(out)
                        st["n"] += 1
                        st["empty"] += not hits
                        for budget in (500, 1000):
                            st[budget] += bool(L.visible_ids(conv, hits, budget) & set(qa["evidence"]))
        finally:
            for m in mems.values():
                m.close()
    lines = ["", f"LoCoMo ({limit} conversations, {stats[('hybrid', 'before')]['n']} questions, all answerable), "
             "asked as an agent asks (default maxResults 6 and minScore; the LoCoMo benchmark itself asks with "
             "minScore 0, where the floor is off):", "",
             "| mode | | no result | read@500 | read@1000 (of 6 results) |", "|---|---|---:|---:|---:|"]
    for (mode, when), st in stats.items():
        n = st["n"] or 1
        lines.append(f"| {mode} | {when} | {pct(st['empty'] / n)} | {st[500] / n:.3f} | {st[1000] / n:.3f} |")
    return lines


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--work", type=Path, default=None, help="keep the two homes here (default: a temporary folder)")
    ap.add_argument("--no-report", action="store_true", help="do not rewrite docs/benchmarks.md")
    ap.add_argument("--features", type=Path, default=None, help="write each query's best-result evidence here (JSON)")
    ap.add_argument("--locomo", type=Path, default=None,
                    help="also ask LoCoMo's questions (locomo10.json) with the floor off and on")
    ap.add_argument("--locomo-conversations", type=int, default=2)
    ap.add_argument("--locomo-work", type=Path, default=ROOT / "benchmarks" / "out" / "locomo",
                    help="LoCoMo homes (shared with benchmarks/locomo_retrieval.py)")
    ap.add_argument("--data", type=Path, default=None,
                    help="another data file of this shape, all of it held out (no_memory_fresh_data.py); prints only")
    args = ap.parse_args()
    if args.data:
        args.no_report = True
    t0 = time.perf_counter()
    load0 = os.getloadavg()
    files, answerable, unanswerable = build(load_data(args.data) if args.data else D)
    work = args.work or Path(tempfile.mkdtemp(prefix="reverie-no-memory-"))
    features: list | None = [] if args.features else None
    results = {}
    for label, provider in (("hybrid", "local"), ("keyword-only", "none")):
        m = open_memory(work / label, files, provider)
        try:
            mode = m.search("warm up", now=NOW, record_signals=False)["mode"]
            assert mode == label, (label, mode)
            results[label] = {"before": measure(m, answerable, unanswerable, False, features, label + "/before"),
                              "after": measure(m, answerable, unanswerable, True, None)}
        finally:
            m.close()
    extra = locomo(args.locomo, args.locomo_work, args.locomo_conversations) if args.locomo else []
    load1 = os.getloadavg()
    took = time.perf_counter() - t0
    if args.features:
        args.features.write_text(json.dumps(features, ensure_ascii=False, indent=1), encoding="utf-8")
    n_notes = sum(text.count("\n- ") for text in files.values())
    held = (f"all of them held out: `{args.data.name}`, written blind after the floor was final" if args.data else
            f"of them {sum(a['held'] for a in answerable)} and {sum(u['held'] for u in unanswerable)} held out: "
            "written after the floor was calibrated on the others")
    lines = [
        f"{n_notes} notes (half English, half Chinese, {PER_NOTE} to a daily note), {len(answerable)} answerable and "
        f"{len(unanswerable)} unanswerable questions (half in each language; {held}), default maxResults 6. "
        f"Before: the floor off "
        f"(the default); after: `noMemoryFloor = true` with its calibrated bars. Run "
        f"{datetime.now(timezone.utc):%Y-%m-%d}, {took:.0f} s, load average {load0[0]:.1f} → {load1[0]:.1f} "
        f"on {os.cpu_count()} cores.",
        "",
        "| mode | questions | | unanswerable: no result | answerable: found (in the results) | answerable: first "
        "| results for an unanswerable question (mean) | median ms |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    splits = (("calibration", lambda r: not r["held"]), ("held out", lambda r: r["held"]), ("all", lambda r: True))
    for label, r in results.items():
        for split, keep in splits:
            rows = r["before"]["rows"]
            if not any(keep(row) for row in rows) or (split == "all" and all(x["held"] for x in rows)):
                continue  # (another set: all of it held out, one row each)
            for when in ("before", "after"):
                x = summary([row for row in r[when]["rows"] if keep(row)])
                lines.append(f"| {label} | {split} ({x['na']} + {x['nu']}) | {when} | {pct(x['empty'])} | "
                             f"{pct(x['found'])} | {pct(x['first'])} | {x['hits_unanswerable']:.1f} | "
                             f"{r[when]['ms_median']:.0f} |")
    by = []
    for label, r in results.items():
        for lang in ("en", "zh"):
            x = summary([row for row in r["after"]["rows"] if row["lang"] == lang])
            by.append(f"{label} {lang}: no result {pct(x['empty'])}, found {pct(x['found'])}")
    lines += ["", "By language (all questions, after): " + "; ".join(by) + "."] + extra
    body = "\n".join(lines)
    print(body)
    if not args.no_report:
        update_section(ROOT / "docs" / "benchmarks.md", "no-memory", "An honest \"no memory\"", body)


if __name__ == "__main__":
    main()
