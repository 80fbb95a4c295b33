"""The newest-first order on result lists a careful reader judged: traps, where a later line must not
displace the first result, and updates, where it must lead (issue 29, item 4).

    python benchmarks/newest_pairs.py [--data newest_pairs_data.py] [--src DIR] [--pad N] [--misses] [--json out.json]

Each case of the data file (``CASES``: a question, result rows best first as (ISO date, line), the index
of the row wanted first, a kind, ``trap`` or ``update``, and a language) is given to the order as
``memory_search`` would: one daily note per row, scores falling by 0.012 a row from 0.70. The order
runs with both of its readings (the rules and the second model, when it is installed), nothing else:
no index, no embedder, so a case is judged on what the order does with the list it is given. Most
cases are two lines alone, which the order reads more strictly than a list of six (the second model
must put two lines alone as near as an update's median); ``--pad 8`` fills each list with older small
talk, as a search's results are filled.

Prints traps resisted and updates caught, by language. ``--src`` runs the order of another source
tree (a checkout of an earlier commit) for a side-by-side; ``--misses`` lists the cases judged
otherwise than the reader (leave it off for a set measured blind, so that its counts are all that is
seen). Data: ``newest_pairs_data.py``, 80 cases written blind by a fresh-eyes reviewer (no code read);
``--data newest_pairs_data_2.py``, 80 more written blind by another (no code and no earlier set read), counted
only through the twentieth round (its misses were listed on 2026-12-07, so it is read now);
``--data newest_pairs_data_3.py``, 80 more written blind on 2026-12-07 by a third (no code, no earlier set),
counted only: its misses are not read, so that it stays a clean measure of each round.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent


# small talk of days before every case's rows, to fill a list as a search fills its six results (--pad)
FILLER = {
    "en": ["user: How's it going today?", "user: Ok cool", "user: The weather is so nice today",
           "user: Need to buy milk and eggs", "assistant: Sure, I've set a reminder for 7pm.",
           "user: Made pasta for dinner, turned out great", "user: Any good podcast recommendations?",
           "user: Thanks!"],
    "zh": ["user: 今天天气不错", "user: 好的谢谢", "user: 晚上吃火锅去", "user: 提醒我明天给妈妈打电话",
           "assistant: 好的，已经帮你设置了提醒。", "user: 下了一整天雨", "user: 今天好累啊", "user: 快递终于到了"],
}


def rows_of(case: dict, pad: int = 0) -> list[dict]:
    """The case's rows as ``memory_search`` rows, best first; two rows of one day are two notes. With
    ``pad``, the list is filled to that many rows with small talk of August, older than every row."""
    rows = list(case["rows"])
    filler = FILLER["zh" if case.get("lang") == "zh" else "en"]
    rows += [(f"2026-08-{10 + i:02d}", line) for i, line in enumerate(filler[:max(0, pad - len(rows))])]
    out, seen = [], Counter()
    for i, (day, text) in enumerate(rows):
        seen[day] += 1
        path = f"memory/{day}{'' if seen[day] == 1 else f'-{seen[day]}'}.md"
        out.append({"path": path, "snippet": text, "score": round(0.70 - 0.012 * i, 4), "startLine": 7,
                    "citation": f"{path}#L7-L9", "rank": i})
    return out


def judge(cases: list[dict], prefer_newest, pad: int = 0) -> list[dict]:
    """Each case with the row the order put first and whether it is the one wanted."""
    out = []
    for case in cases:
        first = prefer_newest(rows_of(case, pad), case["question"])[0]["rank"]
        out.append({**case, "first": first, "right": first == case["want"]})
    return out


def render(judged: list[dict], data: Path, src: Path, seconds: float, pad: int = 0) -> str:
    by = Counter()
    for c in judged:
        by[(c["kind"], c["lang"], "n")] += 1
        by[(c["kind"], c["lang"], "ok")] += c["right"]
    langs = sorted({c["lang"] for c in judged})
    padded = f", each list filled to {pad} rows with small talk" if pad else ""
    lines = [f"{data.name} through the order of {src} ({len(judged)} cases{padded}, {seconds:.1f} s)", "",
             "| kind | " + " | ".join(langs) + " | all |", "|---|" + "---:|" * (len(langs) + 1)]
    for kind, label in (("trap", "traps resisted"), ("update", "updates caught")):
        cells = [f"{by[(kind, lang, 'ok')]} / {by[(kind, lang, 'n')]}" for lang in langs]
        ok = sum(by[(kind, lang, "ok")] for lang in langs)
        n = sum(by[(kind, lang, "n")] for lang in langs)
        lines.append(f"| {label} | " + " | ".join(cells) + f" | **{ok} / {n}** |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=HERE / "newest_pairs_data.py", help="a data file with CASES")
    ap.add_argument("--src", type=Path, default=HERE.parent / "src", help="the source tree whose order is run")
    ap.add_argument("--pad", type=int, default=0, help="fill each list to this many rows with older small talk "
                    "(a search returns six results: two lines alone are read more strictly)")
    ap.add_argument("--misses", action="store_true", help="list the cases judged otherwise than the reader")
    ap.add_argument("--json", type=Path, help="write every case's verdict here")
    args = ap.parse_args(argv)
    if not (args.src / "reverie" / "search" / "newest.py").is_file():
        ap.error(f"--src {args.src}: no reverie source tree there (reverie/search/newest.py)")
    try:
        cases = runpy.run_path(str(args.data))["CASES"]
    except (OSError, SyntaxError, KeyError) as e:
        ap.error(f"--data {args.data}: no CASES read ({type(e).__name__}: {e})")
    sys.path.insert(0, str(args.src.resolve()))
    from reverie.search.newest import prefer_newest

    t0 = time.perf_counter()
    judged = judge(cases, prefer_newest, args.pad)
    print(render(judged, args.data, args.src, time.perf_counter() - t0, args.pad))
    if args.misses:
        print()
        for c in judged:
            if not c["right"]:
                print(f"- {c['id']} ({c['kind']}): {c['question']} -> first {c['rows'][c['first']][1]!r}"
                      f" (wanted {c['rows'][c['want']][1]!r}; {c.get('why', '')})")
    if args.json:
        args.json.write_text(json.dumps(judged, ensure_ascii=False, indent=1), encoding="utf-8")
    return judged


if __name__ == "__main__":
    main()
