"""Long personal histories and cross-language memory: a benchmark of the shape of issue 30, on
data generated here (deterministic, English and Chinese; sentences in ``long_history_data.py``).

    python benchmarks/long_history.py [--histories 12] [--before <checkout>/src]

**Long histories.** Each history is about 50 sessions of a user with an assistant, one daily note
per session (``memory/YYYY-MM-DD.md``, one line per turn), and 12-13 questions asked two days
after the last session: multi-session aggregates ("how many… / in total…", evidence in 2-6
sessions), temporal ("last week", "上个月", "in March", "the week before my trip to …": the same
kind of event happens in 5-7 sessions, the question says which), knowledge updates (both
sessions), single-session facts (said by the user, or by the assistant) and preferences
("recommend me…" from a taste stated once). Measure: every evidence session among the first 5
distinct notes of ``memory_search``'s results (max_results 20), and any of them; for knowledge
updates also whether the note of the later statement comes first.

**Cross-language.** 52 facts, each a note in English and in Chinese; two pools of 52 notes (fact i
in English in one pool, in Chinese in the other), so every fact is asked across languages twice
(104 pairs) and in its own language twice: the right note in the first 3, and first.

Systems: reverie keyword-only and hybrid (the bundled embedder), BM25 over whole sessions (bm25s),
and with ``--before`` the same two reverie rows from another source tree, in the same run.
Vectors are memoised under ``--work`` (the filler repeats across histories), so a second run only
embeds queries it has not seen.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import re
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import long_history_data as D  # noqa: E402

TYPES = ("multi-session", "temporal", "knowledge-update", "single-session-user", "single-session-assistant",
         "preference")
ROLE = {"en": ("User: ", "Assistant: "), "zh": ("用户：", "助手：")}


# ---------------------------------------------------------------------------------------------
# generation
@dataclass
class History:
    name: str
    lang: str
    files: dict[str, str]
    questions: list[dict]
    now: datetime
    sessions: list[str] = field(default_factory=list)  # paths, in date order


def _line(lang: str, text: str) -> str:
    user, assistant = ROLE[lang]
    return assistant + text[2:] if text.startswith("A:") else user + text


#: topics of talk per ordinary day: short sessions (a dozen lines), or long ones (``--long-sessions``:
#: about 35 lines, the best-matching sessions then hold many passages about a question's topic)
TOPICS = {"short": (1, 2, 2), "long": (5, 6, 7)}


def chatty_turns(lang: str, body: list[str], rng: random.Random) -> list[str]:
    """Turns as people and models write them: a user's message holds two to four things said in one go,
    an evidence line among them, and every reply goes on with three to five other pieces of advice
    (from any topic: the generic words every long reply holds)."""
    advice = [t[2:] for topic in D.FILLER[lang] for t in topic if t.startswith("A:")]
    join = " " if lang == "en" else ""
    more = " A few more ideas: " if lang == "en" else "另外还有几点建议："
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i].startswith("A:"):
            extra = rng.sample([a for a in advice if a != body[i][2:]], rng.randint(3, 5))
            out.append(body[i] + more + join.join(f"{k}) {a}" for k, a in enumerate(extra, 1)))
            i += 1
            continue
        said: list[str] = []
        want = rng.randint(2, 4)
        while i < len(body) and not body[i].startswith("A:") and len(said) < want:
            said.append(body[i])
            i += 1
        out.append(join.join(said))
    return out


def build_history(lang: str, seed: int, sessions: str = "short", chatty: bool = False) -> History:
    rng = random.Random(f"{lang}-{seed}" + ("" if sessions == "short" else f"-{sessions}"))
    day = datetime(2026, 1, 5, tzinfo=timezone.utc) + timedelta(days=rng.randrange(40))
    dates = []
    for _ in range(50):
        dates.append(day)
        day += timedelta(days=rng.choice((1, 2, 2, 3, 3, 4)))
    now = (dates[-1] + timedelta(days=2)).replace(hour=12)
    lines: list[list[str]] = []
    for _ in dates:  # ordinary days: one or two topics, most of their lines
        topics = rng.sample(D.FILLER[lang], min(len(D.FILLER[lang]), rng.choice(TOPICS[sessions])))
        body = [t for topic in topics for t in topic if rng.random() < 0.85]
        lines.append(body)
    questions: list[dict] = []
    n = len(dates)

    def plant(i: int, text: str) -> None:
        lines[i].insert(rng.randrange(len(lines[i]) + 1), text)

    for theme in rng.sample(D.AGGREGATE[lang], 3):
        k = rng.randint(2, 5)  # (six could never all be among five notes)
        where = rng.sample(range(n), k)
        for i, text in zip(where, rng.sample(theme["lines"], k)):
            plant(i, text)
        for text in theme["near"]:
            plant(rng.randrange(n), text)
        questions.append({"type": "multi-session", "q": theme["q"], "ev": sorted(set(where))})

    modes = rng.sample(["last_week", "last_month", "month", "before_trip"], 3)
    cities = rng.sample(D.CITIES[lang], 2)
    for kind, mode in zip(rng.sample(D.EVENTS[lang], 3), modes):
        if mode == "last_week":
            monday = (now - timedelta(days=now.weekday() + 7)).date()
            inside = lambda d, m=monday: m <= d.date() <= m + timedelta(days=6)  # noqa: E731
            q = kind["q"]["last_week"]
        elif mode == "last_month":
            first = now.replace(day=1) - timedelta(days=1)
            inside = lambda d, f=first: (d.year, d.month) == (f.year, f.month)  # noqa: E731
            q = kind["q"]["last_month"]
        elif mode == "month":
            months = sorted({(d.year, d.month) for d in dates[:-15]})[:-1]
            y, m = rng.choice(months)
            inside = lambda d, y=y, m=m: (d.year, d.month) == (y, m)  # noqa: E731
            q = kind["q"]["month"].format(month=D.MONTHS[lang][m - 1])
        else:
            trip = rng.randrange(12, n - 3)
            plant(trip, D.TRIP[lang].format(city=cities[0]))
            other = rng.choice([i for i in range(n) if abs(i - trip) > 8])
            plant(other, D.TRIP[lang].format(city=cities[1]))
            t = dates[trip]
            inside = lambda d, t=t: t - timedelta(days=7) <= d < t  # noqa: E731
            q = kind["q"]["before_trip"].format(city=cities[0])
        target = rng.choice([i for i in range(n) if inside(dates[i])])
        outside = [i for i in range(n) if not inside(dates[i]) and (mode != "before_trip" or i != trip)]
        xs = rng.sample(kind["xs"], len(kind["xs"]))
        plant(target, kind["line"].format(x=xs[0]))
        for i, x in zip(rng.sample(outside, rng.randint(4, 6)), xs[1:]):
            plant(i, kind["line"].format(x=x))
        ev = [target] + ([trip] if mode == "before_trip" else [])
        questions.append({"type": "temporal", "q": q, "ev": sorted(ev), "mode": mode})

    for upd in rng.sample(D.UPDATES[lang], 2):
        a, b = rng.sample(upd["vals"], 2)
        i = rng.randrange(0, n - 20)
        j = rng.randrange(i + 8, n)
        plant(i, upd["first"].format(a=a))
        plant(j, upd["second"].format(a=a, b=b))
        questions.append({"type": "knowledge-update", "q": upd["q"], "ev": [i, j]})
    for q, text in rng.sample(D.SINGLE_USER[lang], 2):
        i = rng.randrange(n)
        plant(i, text)
        questions.append({"type": "single-session-user", "q": q, "ev": [i]})
    q, user, said = rng.choice(D.SINGLE_ASSISTANT[lang])
    i = rng.randrange(n)
    lines[i].extend([user, said])
    questions.append({"type": "single-session-assistant", "q": q, "ev": [i]})
    for q, text in rng.sample(D.PREFS[lang], 2):
        i = rng.randrange(n)
        plant(i, text)
        questions.append({"type": "preference", "q": q, "ev": [i]})

    if chatty:  # (its own generator: the history and its questions stay the same)
        talk = random.Random(f"{lang}-{seed}-chatty")
        lines = [chatty_turns(lang, body, talk) for body in lines]
    files: dict[str, str] = {}
    paths: list[str] = []
    for d, body in zip(dates, lines):
        path = f"memory/{d:%Y-%m-%d}.md"
        paths.append(path)
        files[path] = "\n".join(_line(lang, t) for t in body) + "\n"
    for q in questions:
        q["ev"] = [paths[i] for i in q["ev"]]
    return History(f"{lang}-{seed}", lang, files, questions, now, paths)


def crosslang_pools() -> list[tuple[dict[str, str], list[dict]]]:
    """Two pools of the 52 facts, the languages swapped; each question's answer is one note."""
    pools = []
    for flip in (0, 1):
        files, questions = {}, []
        for i, (en, zh, q_en, q_zh) in enumerate(D.FACTS):
            note_lang = "en" if (i + flip) % 2 == 0 else "zh"
            path = f"memory/facts/fact-{i:02d}.md"
            files[path] = f"- {en if note_lang == 'en' else zh}\n"
            cross, same = (q_zh, q_en) if note_lang == "en" else (q_en, q_zh)
            questions.append({"q": cross, "path": path, "cross": True, "note": note_lang})
            questions.append({"q": same, "path": path, "cross": False, "note": note_lang})
        pools.append((files, questions))
    return pools


# ---------------------------------------------------------------------------------------------
# systems
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+")
_STOP = set("a an the i me my we our you your is are was were be been do did does have has had to of in on at "
            "for with and or so it this that what which who where when how many much there".split())


def bm25_tokens(text: str) -> list[str]:
    out = []
    for w in _WORD.findall(text.lower()):
        if w[0] < "\u3400":
            if w not in _STOP:
                out.append(w)
        else:
            out.extend(w[i:i + 2] for i in range(max(1, len(w) - 1)))
    return out


class SessionBM25:
    def __init__(self, files: dict[str, str]):
        import bm25s

        self.paths = list(files)
        self.model = bm25s.BM25()
        self.model.index([bm25_tokens(files[p]) or ["_"] for p in self.paths], show_progress=False)

    def rank(self, query: str) -> list[str]:
        toks = [t for t in bm25_tokens(query) if t in self.model.vocab_dict] or ["_"]
        scores = self.model.get_scores(toks)
        order = sorted(range(len(self.paths)), key=lambda i: -scores[i])
        return [self.paths[i] for i in order]


def memo_embedder(path: Path):
    """The bundled embedder with its vectors memoised on disk, by text (documents and queries apart)."""
    from reverie.embeddings.base import Embedder
    from reverie.embeddings.local import LocalE5

    class Memo(Embedder):
        def __init__(self):
            self.inner = LocalE5()
            self.provider, self.model, self.dims = self.inner.provider, self.inner.model, self.inner.dims
            self.remote, self.score_floor = self.inner.remote, self.inner.score_floor
            self.key_options = self.inner.key_options
            self.memo = pickle.loads(path.read_bytes()) if path.exists() else {}
            self.added = 0

        def _embed_batch(self, texts, *, query):
            import numpy as np

            todo = [t for t in dict.fromkeys(texts) if (query, t) not in self.memo]
            if todo:
                for t, v in zip(todo, self.inner._embed_batch(todo, query=query)):
                    self.memo[(query, t)] = np.asarray(v, dtype=np.float32)
                self.added += len(todo)
            return np.stack([self.memo[(query, t)] for t in texts])

        def save(self):
            if self.added:
                path.write_bytes(pickle.dumps(self.memo))

    return Memo()


def distinct(paths: list[str]) -> list[str]:
    return list(dict.fromkeys(paths))


def write_workspace(ws: Path, files: dict[str, str]) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if not p.exists() or p.read_text(encoding="utf-8") != text:
            p.write_text(text, encoding="utf-8")


def reverie_systems(home: Path, emb):
    from reverie import Memory

    hybrid = Memory(home=home, env={}, embedder=emb, overrides=['timezone="UTC"', 'memory.search.provider="local"'])
    st = hybrid.status()["identity"].get("status")
    hybrid.rebuild() if st != "valid" else hybrid.sync()
    kw = Memory(home=home, env={}, overrides=['timezone="UTC"', 'memory.search.provider="none"'])
    return {"keyword-only": kw, "hybrid": hybrid}


def run_reverie(work: Path, histories: list[History], vectors: Path, with_cross: bool = True) -> dict:
    """Per system: per question, the distinct notes of the results in order, and the latencies."""
    emb = memo_embedder(vectors)
    out: dict = {"long": defaultdict(list), "cross": defaultdict(list), "ms": defaultdict(list)}
    for h in histories:
        home = work / "homes" / h.name
        write_workspace(home / "workspace", h.files)
        systems = reverie_systems(home, emb)
        for name, mem in systems.items():
            for q in h.questions:
                t0 = time.perf_counter()
                res = mem.search(q["q"], 20, 0.0, now=h.now, record_signals=False)
                out["ms"][name].append((time.perf_counter() - t0) * 1000)
                notes = distinct([r["path"] for r in res["results"]])
                out["long"][name].append(notes)
        for m in systems.values():
            m.close()
    if with_cross:
        for k, (files, questions) in enumerate(crosslang_pools()):
            home = work / "homes" / f"cross-{k}"
            write_workspace(home / "workspace", files)
            systems = reverie_systems(home, emb)
            now = datetime(2026, 12, 1, 12, tzinfo=timezone.utc)
            for name, mem in systems.items():
                for q in questions:
                    res = mem.search(q["q"], 10, 0.0, now=now, record_signals=False)
                    out["cross"][name].append(distinct([r["path"] for r in res["results"]]))
            for m in systems.values():
                m.close()
    emb.save()
    return {k: dict(v) for k, v in out.items()}


# ---------------------------------------------------------------------------------------------
# measures
def score_long(histories: list[History], ranked: list[list[str]]) -> dict:
    rows: dict[str, list] = defaultdict(list)
    qs = [(h, q) for h in histories for q in h.questions]
    for (h, q), notes in zip(qs, ranked):
        first = set(notes[:5])
        ev = set(q["ev"])
        row = (float(ev <= first), float(bool(ev & first)), len(notes))
        rows["overall"].append(row)
        rows[q["type"]].append(row)
        rows[h.lang].append(row)
        if q["type"] == "knowledge-update":  # the note of the later statement (dated paths sort by date) first
            top = float(notes[:1] == [max(q["ev"])])
            rows["newest first"].append((top, top, len(notes)))
    return {k: (len(v), mean([r[0] for r in v]), mean([r[1] for r in v]), mean([r[2] for r in v]))
            for k, v in rows.items()}


def score_cross(ranked: list[list[str]]) -> dict:
    qs = [q for _, questions in crosslang_pools() for q in questions]
    rows: dict[str, list] = defaultdict(list)
    for q, notes in zip(qs, ranked):
        hit = (float(q["path"] in notes[:1]), float(q["path"] in notes[:3]))
        key = ("cross: " if q["cross"] else "same: ") + ("zh question → en note" if q["note"] == "en" and q["cross"]
                                                        else "en question → zh note" if q["cross"]
                                                        else f"{q['note']} → {q['note']}")
        rows[key].append(hit)
        rows["cross-language (all)" if q["cross"] else "same-language (all)"].append(hit)
    return {k: (len(v), mean([r[0] for r in v]), mean([r[1] for r in v])) for k, v in rows.items()}


def mean(xs) -> float:
    xs = list(xs)
    return sum(xs) / len(xs) if xs else 0.0


def bm25_anchor(histories: list[History]) -> list[list[str]]:
    out = []
    for h in histories:
        bm = SessionBM25(h.files)
        out.extend(bm.rank(q["q"])[:20] for q in h.questions)
    return out


# ---------------------------------------------------------------------------------------------
# report
def render(long: dict[str, dict], cross: dict[str, dict], ms: dict[str, list], n_hist: int, elapsed: float,
           load: tuple, flags: str = "") -> str:
    names = list(long)
    head = ("Command: `python benchmarks/long_history.py --histories "
            f"{n_hist}{flags}` — {n_hist} generated histories ({n_hist // 2} English, {n_hist - n_hist // 2} Chinese), "
            f"{long[names[0]]['overall'][0]} questions; run took {elapsed:.0f} s; load average "
            f"{load[0]:.1f} at the start, {load[1]:.1f} at the end (2 shared cores).")
    out = [head, "", "All evidence sessions among the first 5 distinct notes of the results (max_results 20) / "
           "any of them; the last row is the mean number of distinct notes in the 20 results.", ""]
    out.append("| question type | n | " + " | ".join(names) + " |")
    out.append("|---|---:|" + "---:|" * len(names))
    for key in ("overall", *TYPES, "en", "zh"):
        n = long[names[0]].get(key, (0,))[0]
        if not n:
            continue
        cells = [f"**{long[s][key][1]:.3f}** / {long[s][key][2]:.3f}" if key == "overall"
                 else f"{long[s][key][1]:.3f} / {long[s][key][2]:.3f}" for s in names]
        label = {"en": "English histories", "zh": "Chinese histories"}.get(key, key)
        out.append(f"| {label} | {n} | " + " | ".join(cells) + " |")
        if key == "knowledge-update" and "newest first" in long[names[0]]:
            out.append(f"| knowledge-update: the later statement's note first | {n} | "
                       + " | ".join(f"{long[s]['newest first'][1]:.3f}" for s in names) + " |")
    out.append("| distinct notes in 20 results | | " + " | ".join(f"{long[s]['overall'][3]:.1f}" for s in names) + " |")
    if cross:
        cn = list(cross)
        out += ["", "Cross-language set (52 facts × 2 pools; each fact asked across languages and in its own): "
                "right note first / in the first 3.", ""]
        out.append("| questions | n | " + " | ".join(cn) + " |")
        out.append("|---|---:|" + "---:|" * len(cn))
        for key in sorted(cross[cn[0]], key=lambda k: (not k.endswith("(all)"), k)):
            out.append(f"| {key} | {cross[cn[0]][key][0]} | "
                       + " | ".join(f"{cross[s][key][1]:.3f} / {cross[s][key][2]:.3f}" for s in cn) + " |")
    if ms:
        out += ["", "Search latency over the long histories (ms, p50 / p95): "
                + "; ".join(f"{k} {statistics.median(v):.1f} / {sorted(v)[int(0.95 * (len(v) - 1))]:.1f}"
                            for k, v in ms.items()) + "."]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--histories", type=int, default=12, help="how many histories (half English, half Chinese)")
    ap.add_argument("--work", type=Path, default=ROOT / "benchmarks" / "out" / "long_history")
    ap.add_argument("--before", type=Path, default=None, help="another source tree to measure in the same run")
    ap.add_argument("--src", type=Path, default=ROOT / "src", help=argparse.SUPPRESS)
    ap.add_argument("--vectors", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--raw", type=Path, default=None, help=argparse.SUPPRESS)  # (the --before child's answer)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "benchmarks.md")
    ap.add_argument("--no-report", action="store_true", help="print only")
    ap.add_argument("--long-sessions", action="store_true",
                    help="sessions of about 35 lines instead of a dozen")
    ap.add_argument("--chatty", action="store_true",
                    help="long turns: a user's message says two to four things, a reply goes on with more advice")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.src))
    args.vectors = args.vectors or args.work / "vectors.pkl"
    variant = "-".join(["long-sessions"] * args.long_sessions + ["chatty"] * args.chatty)
    if variant and args.raw is None:  # each variant its own homes (other notes), the same vector memo
        args.work = args.work / variant
    args.work.mkdir(parents=True, exist_ok=True)
    sessions = "long" if args.long_sessions else "short"
    histories = [build_history("en" if i % 2 == 0 else "zh", i // 2, sessions, args.chatty)
                 for i in range(args.histories)]
    flags = " --long-sessions" * args.long_sessions + " --chatty" * args.chatty
    if args.raw is not None:  # the child of --before: rank and hand the notes back
        args.raw.write_text(json.dumps(run_reverie(args.work, histories, args.vectors, not flags)),
                            encoding="utf-8")
        return {}
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    systems: dict[str, dict] = {}
    if args.before is not None:
        raw = args.work / "before.json"
        args.work.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, __file__, "--histories", str(args.histories), "--work",
                        str(args.work / "before"), "--src", str(args.before), "--raw", str(raw),
                        "--vectors", str(args.vectors)] + flags.split(),
                       check=True)
        # (its own homes: an index is built by the version that reads it; the vectors are shared)
        before = json.loads(raw.read_text(encoding="utf-8"))
        systems["before"] = before
    now_raw = run_reverie(args.work, histories, args.vectors, not flags)  # (the cross set: once)
    long = {f"reverie {k}": score_long(histories, v) for k, v in now_raw["long"].items()}
    cross = {f"reverie {k}": score_cross(v) for k, v in now_raw["cross"].items()}
    ms = {f"reverie {k}": v for k, v in now_raw["ms"].items()}
    if "before" in systems:
        b = systems["before"]
        long.update({f"before: {k}": score_long(histories, v) for k, v in b["long"].items()})
        cross.update({f"before: {k}": score_cross(v) for k, v in b["cross"].items()})
        ms.update({f"before: {k}": v for k, v in b["ms"].items()})
    long["BM25 over whole sessions"] = score_long(histories, bm25_anchor(histories))
    report = render(long, cross, ms, args.histories, time.perf_counter() - t0, (load0, os.getloadavg()[0]), flags)
    print(report)
    if not args.no_report:
        from report import update_section

        if args.chatty:
            update_section(args.out, "long-history" + "-long-sessions" * args.long_sessions + "-chatty",
                           "Long histories with long sessions and long turns" if args.long_sessions
                           else "Long histories with long turns", report)
        elif args.long_sessions:
            update_section(args.out, "long-history-long-sessions", "Long histories with long sessions", report)
        else:
            update_section(args.out, "long-history", "Long histories and cross-language memory", report)
    return {"long": long, "cross": cross}


if __name__ == "__main__":
    main()
