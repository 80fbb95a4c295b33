"""Search latency, this code against another checkout, interleaved on one machine.

    python benchmarks/latency_ab.py --before <checkout>/src [--size 100000] [--rounds 4] [--work DIR]
                                    [--queries perf|gathering|kinds|methods|things|facets|counsel] [--reuse]

A latency target such as "p50 at 100k within 10 % of the previous version" cannot be read off two
runs of ``perf.py`` taken an hour apart: on a shared 2-core machine the same code moved 62 → 90 ms
between such runs. So this builds the same generated workspace (``perf.py``'s: daily notes over two
years plus MEMORY.md, Chinese and English, vectors from its instant benchmark embedder) once for
each version, each indexed by its own code, and then times them in turns: a fresh process of the
previous version, one of this, again, ``--rounds`` times. Each process warms up on 5 queries and
times ``perf.py``'s 100 queries once (which version goes first alternates by round), hybrid and keyword-only (query embedding excluded: the
benchmark embedder answers at once). The figures are the medians over the rounds of each round's
p50 and p95, with every round shown and the machine's load at the start and the end.

``--queries gathering`` times 30 Chinese questions that gather many notes' answers instead ("我一共
订了几次酒店？", "我上个月的会议怎么样？": a count, a range of days), the ones that ask the keyword index
for their characters too (search/loose.py); ``--queries kinds`` 20 counting questions in English and
Chinese that name a kind ("How many different doctors did I see?"), which ask the index for its
members too (text/kinds.py); ``--queries methods`` 20 Chinese questions asking for a method
("你推荐过我什么酒店的方法？"), which ask the index for the endings of named methods (search/keyword.py,
``expand_methods``); ``--queries things`` 20 look-ups of a thing one has one at a time ("Which bank do I
use?", "我用的什么手机？"), which with vectors ask the index for the kind's members too (text/kinds.py
``ONE_AT_A_TIME``); ``--queries facets`` 20 questions about a facet of life ("Who's my landlord?", "我平时
怎么去上班？"), which ask the index for the facet's other words too (search/keyword.py ``expand_facets``);
``--queries counsel`` 20 requests for counsel in an everyday situation ("Should I join the company hike?",
"周末去吃火锅，点菜要注意什么？"), which with vectors ask the index for the situation's concern words and
read the candidates for a stated concern (search/needs.py). ``--reuse`` keeps the homes already under ``--work``
(built by an earlier run of the same size) instead of building them again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _child(src: str, home: str, what: str) -> None:
    """In a fresh process whose ``reverie`` is ``src``'s: build the home, or time its searches."""
    sys.path.insert(0, src)
    sys.path.insert(1, str(HERE))
    import reverie

    if not Path(reverie.__file__).resolve().is_relative_to(Path(src).resolve()):
        raise SystemExit(f"reverie was imported from {reverie.__file__}, not from {src}")
    import perf  # registers the benchmark embedder; its own path entry comes after ours

    Memory = reverie.Memory
    root = Path(home)
    if what == "build":
        shutil.rmtree(root, ignore_errors=True)
        perf.generate(root / "workspace", int(os.environ["REVERIE_AB_SIZE"]))
        for provider, step in (("none", "sync"), ("bench", "rebuild")):
            mem = Memory(home=root, env={}, overrides=[f'memory.search.provider="{provider}"', 'timezone="UTC"'])
            getattr(mem, step)()
            mem.close()
        return
    which = os.environ.get("REVERIE_AB_QUERIES")
    qs = QUERY_SETS[which or "perf"](perf)
    now = datetime(2026, 11, 30, tzinfo=timezone.utc)
    out = {}
    for label, provider in (("hybrid", "bench"), ("keyword-only", "none")):
        mem = Memory(home=root, env={}, overrides=[f'memory.search.provider="{provider}"', 'timezone="UTC"'])
        for q in qs[:5]:
            mem.search(q, now=now, record_signals=False)
        ms = [perf.timed(mem.search, q, now=now, record_signals=False) for q in qs]
        out[label] = [statistics.median(ms), perf.pct(ms, 95)]
        mem.close()
    print(json.dumps(out))


def gathering(perf) -> list[str]:
    """30 Chinese questions that gather many notes' answers, over the generated workspace's words."""
    words = perf.ZH_WORDS
    return [f"我一共订了几次{w}？" for w in words[:15]] + [f"我上个月的{w}怎么样？" for w in words[15:30]]


def kinds() -> list[str]:
    """20 counting questions, English and Chinese, that name a kind (text/kinds.py) whose head
    words the generated workspace holds: they ask the index for the kind's members too."""
    return ["How many times did I go running?", "How many trips did I take in total?",
            "How many restaurants did I try?", "How many different doctors did I see?",
            "How much did I spend on the hotel in total?", "How many flights did I book in total?",
            "How many classes did I take?", "How much money did I spend on travel in total?",
            "How many concerts did I go to?", "How many books did I read?",
            "我一共去了几次旅行？", "我一共去过几家餐厅？", "我一共看了几个医生？", "我一共跑了几次步？",
            "我在健身上一共花了多少钱？", "我一共上了几节课程？", "我一共买了几盆植物？", "我一共看了几场电影？",
            "我一共去了几次博物馆？", "我在旅游上一共花了多少钱？"]


def things() -> list[str]:
    """20 look-ups, English and Chinese, of a thing one has one at a time (text/kinds.py
    ``ONE_AT_A_TIME``): with vectors they ask the index for the kind's members too."""
    return ["What car do I drive?", "Which bank do I use?", "What phone do I have?", "Who's our internet provider?",
            "Which carrier is my phone plan with?", "Which streaming service do we pay for?",
            "What are my dietary restrictions?", "Which pharmacy do I use?", "Who's my boss?", "Who do I report to?",
            "我开的是什么车？", "我的工资卡是哪个银行？", "我用的什么手机？", "我家宽带是哪家的？", "我用的是哪家运营商？",
            "我开的是哪个视频会员？", "我的饮食有什么忌口？", "我一般去哪家药店？", "我的领导是谁？", "我现在的组长是谁？"]


def facets() -> list[str]:
    """20 questions, English and Chinese, asking what holds of a facet of life (text/facets.py): they
    ask the index for the facet's other words too, in both languages."""
    return ["Who's my landlord?", "How much is my rent?", "Who do I report to?", "Who's my dentist?",
            "What do I usually have for breakfast?", "How do I get to work?", "What's my daily calorie target?",
            "Who does our taxes now?", "Where do I volunteer?", "What time do I usually go to bed?",
            "我每个月房租多少？", "我平时怎么去上班？", "我的牙医是谁？", "我现在的领导是谁？", "我一般几点睡觉？",
            "我早饭一般吃什么？", "我现在一个月工资多少？", "我在哪家药店拿药？", "我现在多重？", "我每天喝几杯咖啡？"]


def counsel() -> list[str]:
    """20 requests for counsel, English and Chinese, naming an everyday situation (text/concerns.py):
    with vectors they ask the index for the situation's concern words, one query per situation."""
    return ["Should I sign up for the company hike?", "Any tips for the flight to Tokyo?",
            "What should I bring to the dinner with clients?", "Is it OK to take the night train?",
            "Should I buy a new laptop this month?", "My mum is coming to stay, what should I prepare?",
            "Should I accept the job offer?", "Which gym should I join?", "Can I bring the dog on the trip?",
            "What do I need for the visa?", "周末去吃火锅，点菜要注意什么？", "下个月出差一周，家里要安排什么？",
            "公司组织爬山，我要不要去？", "想换个房子租，你觉得要注意什么？", "朋友约我去潜水，适合我吗？",
            "年底想去日本玩，需要准备什么？", "领导约我周三晚上开会，我该怎么回复？", "想网购一台冰箱，送货要注意什么？",
            "孩子下周开家长会，我需要准备什么吗？", "春节回老家，路上要注意些什么？"]


def methods(perf) -> list[str]:
    """20 Chinese questions asking for a method (方法 / 办法) about the generated workspace's words: they
    ask the index for the named methods' endings too (search/keyword.py, ``expand_methods``)."""
    words = perf.ZH_WORDS
    return [f"你推荐过我什么{w}的方法？" for w in words[:10]] + [f"有什么办法处理{w}？" for w in words[10:20]]


# each query set: its section of docs/benchmarks.md (marker, title), how many queries, what they are
_LATER = "Search latency against the previous version"
SECTIONS = {
    "perf": ("latency-ab", _LATER, 100, "queries"),
    "gathering": ("latency-ab-gathering", f"{_LATER}: questions that gather", 30, "gathering Chinese questions"),
    "things": ("latency-ab-things", f"{_LATER}: look-ups of a thing one has one at a time", 20,
               "look-ups of a thing one has one at a time"),
    "facets": ("latency-ab-facets", f"{_LATER}: questions about a facet of life", 20,
               "questions about a facet of life"),
    "methods": ("latency-ab-methods", f"{_LATER}: questions asking for a method", 20,
                "Chinese questions asking for a method"),
    "kinds": ("latency-ab-kinds", f"{_LATER}: counting questions naming a kind", 20,
              "counting questions naming a kind"),
    "counsel": ("latency-ab-counsel", f"{_LATER}: requests for counsel in a situation", 20,
                "requests for counsel in a situation"),
}


# each query set by its --queries name: what builds it from perf.py
QUERY_SETS = {
    "perf": lambda perf: perf.query_set(random.Random(11)), "gathering": gathering, "kinds": lambda perf: kinds(),
    "methods": methods, "things": lambda perf: things(), "facets": lambda perf: facets(),
    "counsel": lambda perf: counsel(),
}


def _run(src: Path, home: Path, what: str, size: int, queries: str = "perf") -> dict | None:
    env = {**os.environ, "REVERIE_AB_SIZE": str(size), "PYTHONDONTWRITEBYTECODE": "1", "REVERIE_AB_QUERIES": queries}
    done = subprocess.run([sys.executable, __file__, "--child", str(src), str(home), what], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{what} with {src} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]) if what == "time" else None


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:5])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True, help="the previous version's src/ (another checkout)")
    ap.add_argument("--size", type=int, default=100_000, help="units in the generated workspace")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--work", type=Path, default=None, help="keep the two homes here (default: a temporary folder)")
    ap.add_argument("--no-report", action="store_true", help="do not rewrite docs/benchmarks.md")
    ap.add_argument("--queries", choices=tuple(SECTIONS), default="perf",
                    help="perf.py's 100 queries, 30 Chinese questions that count or say when, 20 counting "
                         "questions naming a kind, 20 Chinese questions asking for a method, or 20 look-ups of a "
                         "thing one has one at a time, 20 questions about a facet of life, or 20 requests for "
                         "counsel in an everyday situation")
    ap.add_argument("--reuse", action="store_true", help="keep the homes already under --work")
    args = ap.parse_args()
    if args.reuse and args.work is None:
        ap.error("--reuse needs --work (the folder holding the homes of an earlier run)")
    if not (args.before / "reverie" / "__init__.py").exists():
        ap.error(f"{args.before} holds no reverie package (give a checkout's src/)")
    versions = {"before": args.before.resolve(), "now": (ROOT / "src").resolve()}
    work = args.work or Path(tempfile.mkdtemp(prefix="reverie-latency-ab-"))
    t0, load0 = time.perf_counter(), os.getloadavg()
    try:
        for name, src in versions.items():
            if args.reuse and (work / name / "workspace").is_dir():
                print(f"reusing {work / name} for {name}", file=sys.stderr, flush=True)
                continue
            print(f"building {args.size:,} units for {name} ...", file=sys.stderr, flush=True)
            _run(src, work / name, "build", args.size)
        rounds: dict[str, list[dict]] = {name: [] for name in versions}
        for r in range(args.rounds):
            order = list(versions.items())
            for name, src in (order if r % 2 == 0 else order[::-1]):  # who goes first alternates
                rounds[name].append(_run(src, work / name, "time", args.size, args.queries))
                print(f"round {r + 1} {name}: {rounds[name][-1]}", file=sys.stderr, flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    load1, took = os.getloadavg(), time.perf_counter() - t0
    n_queries, what = SECTIONS[args.queries][2:]
    flag = "" if args.queries == "perf" else f" --queries {args.queries}"
    lines = [f"Command: `python benchmarks/latency_ab.py --before <checkout>/src --size {args.size} --rounds "
             f"{args.rounds}{flag}` — {args.size:,} units, {args.rounds} rounds of {n_queries} "
             f"{what} per version in turns; "
             f"run {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, took {took:.0f} s; load average "
             f"{load0[0]:.1f} at the start, {load1[0]:.1f} at the end ({os.cpu_count()} cores).", "",
             "| mode | before: p50 / p95 (ms) | now: p50 / p95 (ms) | p50 now / before | every round's p50, before → now |",
             "|---|---:|---:|---:|---|"]
    for mode in ("hybrid", "keyword-only"):
        med = {name: [statistics.median(x[mode][i] for x in rounds[name]) for i in (0, 1)] for name in versions}
        each = ", ".join(f"{b[mode][0]:.1f} → {n[mode][0]:.1f}" for b, n in zip(rounds["before"], rounds["now"]))
        lines.append(f"| {mode} | {med['before'][0]:.1f} / {med['before'][1]:.1f} | {med['now'][0]:.1f} / "
                     f"{med['now'][1]:.1f} | {med['now'][0] / med['before'][0]:.2f} | {each} |")
    body = "\n".join(lines)
    print(body)
    if not args.no_report:
        from report import update_section

        marker, title = SECTIONS[args.queries][:2]
        update_section(ROOT / "docs" / "benchmarks.md", marker, title, body)

if __name__ == "__main__":
    main()
