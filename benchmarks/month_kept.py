"""The month's updated facts asked again of homes ``month_life.py --keep`` kept, with the code of one or
more source trees: the same memories for every code, so a change of the newest-first order is measured
alone (a month run again varies a little with the machine's load: what Dreaming promotes depends on
which searches found the index up to date).

    python benchmarks/month_kept.py HOME:DATA [HOME:DATA ...] [--src DIR ...] [--misses]

Each ``HOME:DATA`` is a kept home and the data file its month ran with (``-`` for the built-in updates).
Each ``--src`` (default: this checkout's ``src``) is a source tree searched in a child process of its
own, on a copy of each home (a search may write its index). Prints, per tree, the updates whose first
result holds the newest value (``month_life.py``'s own count), each home and in all, and how many first
results hold neither the newest nor the old value and were put first by the newest-first order (another
result is marked as updated by them: a line lifted over the answer, the order's own error; a story told twice
that a data file does not declare twins counts too). ``--misses`` lists the questions whose first result does
not hold the newest value (leave it off for a set not yet read).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _child(home: Path, data: str) -> dict:
    """In the child: the month's update questions asked of ``home`` (a copy), as month_life asks them."""
    from reverie import Memory  # (first: month_life puts this checkout's src first on the path)

    sys.path.insert(0, str(HERE))
    import month_life

    if data != "-":
        month_life.UPDATES[:] = month_life.more_updates(Path(data))
    os.environ["REVERIE_HOME"] = str(home)
    os.environ.setdefault("REVERIE_TIMEZONE", "UTC")
    mem = Memory(overrides=['memory.search.provider="auto"', 'memory.search.rerank.provider="none"'])
    end = month_life.START + timedelta(days=31, hours=12)
    out = []
    for j, update in enumerate(month_life.UPDATES):
        res = mem.search(update[4], now=end, record_signals=False)["results"]
        first = (res[0].get("snippet") or "") if res else ""
        newest = any(w in first for w in month_life.newest_words(j))
        # (a first result holding neither value that the order put there: another result marked as updated by it)
        lifted = bool(res) and not newest and update[6] not in first and any(
            (r.get("supersededBy") or "").split("#")[0] == (res[0].get("citation") or "").split("#")[0]
            for r in res[1:])
        out.append((update[4], newest, first[:100], lifted))
    mem.close()
    import reverie

    return {"rows": out, "source": str(Path(reverie.__file__).resolve().parent.parent)}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("homes", nargs="+", help="HOME:DATA, a kept home and its month's data file (- for the built-in)")
    ap.add_argument("--src", type=Path, action="append", help="a source tree to search with (repeatable)")
    ap.add_argument("--misses", action="store_true", help="list the questions whose first result is not the newest")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)  # (HOME DATA: run in a child, print JSON)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_child(Path(args.child[0]), args.child[1])))
        return {}
    pairs = []
    for spec in args.homes:
        home, sep, data = spec.partition(":")
        if not sep or not (Path(home) / "reverie.toml").is_file():
            ap.error(f"{spec}: not a kept home and its data file: give HOME:DATA, HOME a home month_life.py "
                     "--keep kept (it holds reverie.toml), DATA its data file or -")
        if data != "-" and not Path(data).is_file():
            ap.error(f"{spec}: no data file {data}")
        pairs.append((Path(home), data if data == "-" else str(Path(data).resolve())))
    trees = args.src or [HERE.parent / "src"]
    totals: dict[str, dict[str, int]] = {}
    for tree in trees:
        if not (tree / "reverie" / "search" / "newest.py").is_file():
            ap.error(f"--src {tree}: no reverie source tree there")
        env = {**os.environ, "PYTHONPATH": str(tree.resolve())}
        counts = totals.setdefault(str(tree), {})
        lifted: dict[str, int] = {}
        for home, data in pairs:
            with tempfile.TemporaryDirectory(prefix="reverie-kept-") as tmp:
                copy = Path(tmp) / "home"
                shutil.copytree(home, copy)
                done = subprocess.run([sys.executable, __file__, "x:-", "--child", str(copy), data], env=env,
                                      capture_output=True, text=True)
            if done.returncode:
                last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
                sys.exit(f"{tree} on {home}: {last}")
            answer = json.loads(done.stdout.strip().splitlines()[-1])
            if Path(answer["source"]) != tree.resolve():  # (the tree asked for, not another on the path)
                sys.exit(f"{tree}: the child searched with {answer['source']}")
            rows = answer["rows"]
            ok = sum(1 for _, right, _, _ in rows if right)
            counts[home.name] = ok
            lifted[home.name] = sum(1 for *_, wrong in rows if wrong)
            print(f"{tree}  {home.name}: {ok} of {len(rows)}")
            print(f"    lifted first by the order, holding neither value: {lifted[home.name]}")
            if args.misses:
                for q, right, first, _ in rows:
                    if not right:
                        print(f"    - {q} -> {first!r}")
        print(f"{tree}  all: {sum(counts.values())}")
        print(f"{tree}  all lifted first by the order, holding neither value: {sum(lifted.values())}")
    return totals


if __name__ == "__main__":
    main()
