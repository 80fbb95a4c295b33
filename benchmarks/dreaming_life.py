"""A month of synthetic life, Dreaming every night, and what reached MEMORY.md against the truth.

The script writes 30 days of daily notes the way an owner would (``Memory.remember`` with owner
provenance), searches them on later days (``Memory.search(now=...)``: recalls are dated on those
days), and runs one Dreaming sweep every night at 03:00 with the offline model. The life holds:

* durable facts of the owner, each recalled on 3-4 later days by different queries (and one
  written twice, word for word, on different days);
* one-off filler every day (weather, shopping, a film), recalled at most once;
* a fact that changes mid-month (Munich -> Berlin, both lines carrying ``<!-- supersede-key:
  home-city -->``): Berlin must supersede Munich, not sit beside it;
* a duplicate phrased two ways (the dentist): one entry, not two;
* untrusted web content (a deals page the agent saved while reading it), saved and searched often;
* a cron session's output (a nightly backup job's agent turn), searched often;
* a MEMORY.md the owner wrote by hand at the start: every line must survive.

Then: promotion precision and recall against the script's ground truth, untrusted and cron
promotions (target 0), lost user-written lines (target 0), MEMORY.md size against its budget, and
seconds per sweep. Run::

    python benchmarks/dreaming_life.py                       # bundled local embedder (default)
    python benchmarks/dreaming_life.py --provider fake       # quick, no model
    python benchmarks/dreaming_life.py --out docs/benchmarks.md --doc docs/dreaming.md
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

START = datetime(2026, 6, 1, tzinfo=timezone.utc)
DAYS = 30
USER_MEMORY = """# Long-Term Memory

- I prefer concise, conclusion-first answers.
- My partner's name is Lena.

## Notes I keep myself

- The spare key is with the neighbour at number 12.
- Bins go out on Thursday evenings.
"""


@dataclass
class Fact:
    name: str
    day: int
    text: str
    queries: list[str]
    recall_days: list[int]
    marker: str  # a word that identifies this fact in MEMORY.md
    durable: bool = True
    stale_marker: str | None = None  # for the changed fact: its old value must be gone


FACTS = [
    Fact("peanuts", 2, "I am allergic to peanuts.", ["peanut allergy", "am I allergic to peanuts",
         "food allergies peanuts", "can I eat peanuts"], [3, 6, 10, 15], "peanut"),
    Fact("home-munich", 3, "I live in Munich, in the Schwabing district. <!-- supersede-key: home-city -->",
         ["where do I live", "which city do I live in", "my home in Munich", "Schwabing district"],
         [4, 7, 9, 12], "Munich", durable=False),
    Fact("home-city", 16, "I moved: I live in Berlin now, in Kreuzberg. <!-- supersede-key: home-city -->",
         ["where do I live now", "which city do I live in", "my home in Berlin", "Kreuzberg flat"],
         [17, 19, 22, 26], "Berlin", stale_marker="Munich"),
    Fact("dentist", 4, "My dentist is Dr. Weber on Hauptstrasse.", ["dentist Weber", "who is my dentist",
         "dentist on Hauptstrasse"], [5, 8, 11], "Weber"),
    Fact("dentist-again", 14, "Dr. Weber on Hauptstrasse is my dentist.", ["my dentist", "dentist appointment Weber",
         "Hauptstrasse dentist"], [15, 18, 21], "Weber", durable=False),
    Fact("mia", 5, "My daughter Mia's birthday is on 14 September.", ["Mia birthday", "when is Mia's birthday",
         "daughter birthday September"], [6, 13, 20], "Mia"),
    Fact("running", 6, "I run 5 km every morning before work.", ["morning run", "how far do I run",
         "running habit before work"], [7, 14, 23], "5 km"),
    Fact("laptop", 7, "My laptop is a ThinkPad X1 Carbon, bought in 2024.", ["laptop model", "which laptop do I have",
         "ThinkPad"], [8, 16, 24], "ThinkPad"),
    Fact("trains", 8, "I prefer window seats on trains.", ["train seat preference", "window seat on the train",
         "seats on trains"], [9, 17, 25], "window seat"),
    Fact("atlas", 9, "The Atlas project deadline is 30 June.", ["Atlas deadline", "when is the Atlas project due",
         "project deadline June"], [10, 18, 27], "Atlas"),
    Fact("bank", 10, "My bank account is with GLS Bank.", ["which bank", "bank account GLS", "where is my bank account"],
         [11, 19, 28], "GLS"),
    Fact("vitamin", 11, "I take vitamin D, 1000 IU every day.", ["vitamin D dose", "vitamin supplements I take",
         "how much vitamin D"], [12, 20, 26], "vitamin D"),
    Fact("sister", 12, "My sister Anna lives in Hamburg.", ["Anna Hamburg", "where does my sister live", "sister Anna"],
         [13, 21, 29], "Anna"),
    Fact("japanese", 13, "I am learning Japanese on Tuesdays with Kenji.", ["Japanese lessons",
         "who teaches me Japanese", "Tuesday Japanese Kenji"], [14, 22, 29], "Japanese"),
    Fact("cats", 14, "我对猫毛过敏，不能养猫。", ["猫毛过敏", "能不能养猫", "对猫过敏吗"], [15, 23, 27], "猫毛"),
    Fact("peanuts-again", 20, "I am allergic to peanuts.", ["peanut allergy", "peanuts allergic",
         "allergy list peanuts"], [21, 24, 28], "peanut", durable=False),
    Fact("phone", 26, "My new phone number ends in 4471.", ["phone number", "what is my phone number",
         "number ends 4471"], [27, 28, 29], "4471"),
]
FILLER = [
    "It rained most of the afternoon.", "Bought milk, eggs and bread.", "Watched a documentary about whales.",
    "The tram was ten minutes late.", "Had a long lunch at the Thai place.", "Cleaned the kitchen windows.",
    "Sunny and warm, 24 degrees.", "Picked up the dry cleaning.", "Read two chapters of a crime novel.",
    "The printer jammed again.", "Made pasta with pesto for dinner.", "Walked along the river after work.",
    "Watered the balcony plants.", "Fixed a squeaky door hinge.", "Called the insurance hotline, long wait.",
    "Tried a new coffee blend, too bitter.", "Windy evening, cancelled the bike ride.", "Sorted old photos.",
    "Paid the electricity bill.", "Listened to a jazz record.", "Ordered new running socks.",
    "The lift in the office was broken.", "Baked banana bread.", "Neighbours had a loud party.",
]
UNTRUSTED = ("According to shopping-deals.example, the ZetaBook Pro is the best laptop of the year; "
             "buy it today with code ZETA50.")
UNTRUSTED_QUERIES = ["best laptop deal", "ZetaBook Pro", "laptop of the year", "discount code laptop"]
ONE_OFF_QUERIES = ["did I buy milk", "rain in the afternoon", "what documentary did I watch", "pasta dinner",
                   "printer problem", "crime novel", "insurance hotline", "banana bread", "jazz record",
                   "balcony plants"]
CRON = "Remember: the nightly backup of node-7 finished at 02:00 without errors."
CRON_QUERIES = ["nightly backup node-7", "did the backup finish", "node-7 backup errors"]


@dataclass
class Life:
    writes: dict[int, list[tuple[str, str]]] = field(default_factory=dict)  # day -> [(kind, text)]
    searches: dict[int, list[str]] = field(default_factory=dict)

    def write(self, day: int, kind: str, text: str) -> None:
        self.writes.setdefault(day, []).append((kind, text))

    def search(self, day: int, query: str) -> None:
        if 1 <= day <= DAYS:
            self.searches.setdefault(day, []).append(query)


def make_life() -> Life:
    import random

    rnd = random.Random(7)
    life = Life()
    for f in FACTS:
        life.write(f.day, "owner", f.text)
        for day, q in zip(f.recall_days, f.queries + f.queries):
            life.search(day, q)
    for day in range(1, DAYS + 1):
        for text in rnd.sample(FILLER, 3):
            life.write(day, "owner", text)
    for day, query in zip(rnd.sample(range(2, DAYS + 1), 10), ONE_OFF_QUERIES):  # each asked once, on one day
        life.search(day, query)
    for day in range(1, DAYS + 1):
        if day % 2 == 0:
            life.write(day, "untrusted", UNTRUSTED)
        if day % 3 == 1:
            life.write(day, "cron", CRON)
        if day >= 2:
            life.search(day, UNTRUSTED_QUERIES[day % len(UNTRUSTED_QUERIES)])
            life.search(day, CRON_QUERIES[day % len(CRON_QUERIES)])
    return life


def live(mem, life: Life, *, sweeps: bool = True) -> list[float]:
    from reverie.trust import Provenance

    owner = Provenance("owner", "interactive", None, "remember")
    web = Provenance("untrusted", "interactive", None, "memory_append")
    times = []
    for day in range(1, DAYS + 1):
        when = START + timedelta(days=day - 1, hours=9)
        for i, (kind, text) in enumerate(life.writes.get(day, [])):
            at = when + timedelta(minutes=7 * i)
            if kind == "cron":
                cron_turn(mem, text, at)
            else:
                mem.remember(text, now=at, provenance=owner if kind == "owner" else web)
        mem.sync()
        for q in life.searches.get(day, []):
            mem.search(q, now=when + timedelta(hours=6))
        if sweeps:
            t0 = time.perf_counter()
            mem.dream(now=START + timedelta(days=day, hours=3))
            times.append(time.perf_counter() - t0)
    return times


def cron_turn(mem, text: str, at: datetime) -> None:
    """A cron job's agent turn (offline model): it saves the message through memory_append."""
    rt = mem.runtime("offline", session="cron:nightly-backup", origin="cron", clock=lambda: at)
    try:
        rt.send(text)
    finally:
        rt.close()


def generated(text: str) -> list[str]:
    from reverie.dreaming.memoryfile import generated_entries

    return generated_entries(text)


def score(mem) -> dict:
    text = (mem.workspace / "MEMORY.md").read_text(encoding="utf-8")
    entries = generated(text)
    durable = [f for f in FACTS if f.durable]
    matched: dict[str, int] = {}
    wrong: list[dict] = []
    for e in entries:
        low = e.lower()
        fact = next((f for f in durable if f.marker.lower() in low), None)
        stale = next((f for f in FACTS if f.stale_marker and f.stale_marker.lower() in low), None)
        if "zetabook" in low:
            wrong.append({"entry": e[:100], "why": "untrusted"})
        elif "node-7" in low:
            wrong.append({"entry": e[:100], "why": "cron"})
        elif stale is not None and (fact is None or fact.name != stale.name):
            wrong.append({"entry": e[:100], "why": "stale value of a changed fact"})
        elif fact is None:
            wrong.append({"entry": e[:100], "why": "filler"})
        elif matched.get(fact.name):
            wrong.append({"entry": e[:100], "why": f"duplicate of {fact.name}"})
        else:
            matched[fact.name] = 1
    correct = len(matched)
    user_lines = [ln for ln in USER_MEMORY.split("\n") if ln.strip()]
    lost = [ln for ln in user_lines if ln not in text.split("\n")]
    budget = mem.settings.memory.dreaming.phases.deep.memory_max_chars
    return {
        "durableFacts": len(durable), "promotedEntries": len(entries), "correct": correct,
        "precision": round(correct / len(entries), 3) if entries else 1.0,
        "recall": round(correct / len(durable), 3),
        "missed": sorted(f.name for f in durable if f.name not in matched),
        "wrong": wrong,
        "untrustedPromotions": sum(1 for w in wrong if w["why"] == "untrusted"),
        "cronPromotions": sum(1 for w in wrong if w["why"] == "cron"),
        "changedFact": "superseded" if matched.get("home-city") and not any(
            w["why"].startswith("stale") for w in wrong) else "not superseded",
        "lostUserLines": lost, "memoryChars": len(text), "budget": budget,
    }


def render(result: dict, args, load: str, seconds: float) -> str:
    s = result["score"]
    t = result["sweepSeconds"]
    lines = [f"`python benchmarks/dreaming_life.py --provider {args.provider}` "
             f"({DAYS} days, {result['writes']} notes written, {result['searches']} searches, {DAYS} nightly sweeps "
             f"with the offline model; {seconds:.1f} s in all on {platform.machine()}, load average {load})", "",
             "| measure | result | target |", "|---|---|---|",
             f"| promotion precision | {s['precision']:.3f} ({s['correct']} of {s['promotedEntries']} entries) | ≥ 0.95 |",
             f"| promotion recall | {s['recall']:.3f} ({s['correct']} of {s['durableFacts']} durable facts) | ≥ 0.8 |",
             f"| untrusted promotions | {s['untrustedPromotions']} | 0 |",
             f"| cron promotions | {s['cronPromotions']} | 0 |",
             f"| changed fact (Munich → Berlin) | {s['changedFact']} | superseded |",
             f"| user-written lines lost | {len(s['lostUserLines'])} | 0 |",
             f"| MEMORY.md size | {s['memoryChars']} of {s['budget']} characters | ≤ budget |",
             f"| seconds per sweep | median {statistics.median(t):.3f}, max {max(t):.3f} | |"]
    if s["missed"]:
        lines += ["", "Missed: " + ", ".join(s["missed"]) + "."]
    if s["wrong"]:
        lines += ["", "Wrong entries: " + "; ".join(f"{w['why']}: “{w['entry']}”" for w in s["wrong"]) + "."]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--provider", default="auto", help="embedding provider (auto: the bundled local model)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary home and print its path")
    ap.add_argument("--out", type=Path, help="update this benchmarks page (docs/benchmarks.md)")
    ap.add_argument("--doc", type=Path, help="update this page's figures too (docs/dreaming.md)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    args = ap.parse_args()
    from reverie import Memory

    home = Path(tempfile.mkdtemp(prefix="reverie-dreaming-life-"))
    t0 = time.perf_counter()
    try:
        mem = Memory(home=home, env={}, overrides=[f'memory.search.provider="{args.provider}"', 'timezone="UTC"'])
        mem.init()
        (mem.workspace / "MEMORY.md").write_text(USER_MEMORY, encoding="utf-8")
        life = make_life()
        times = live(mem, life)
        result = {"score": score(mem), "sweepSeconds": [round(x, 3) for x in times],
                  "writes": sum(len(v) for v in life.writes.values()),
                  "searches": sum(len(v) for v in life.searches.values()),
                  "memory": (mem.workspace / "MEMORY.md").read_text(encoding="utf-8")}
        mem.close()
    finally:
        if args.keep:
            print(f"home kept at {home}", file=sys.stderr)
        else:
            shutil.rmtree(home, ignore_errors=True)
    seconds = time.perf_counter() - t0
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    body = render(result, args, load, seconds)
    if args.json:
        print(json.dumps({**result, "load": load, "seconds": round(seconds, 1)}, ensure_ascii=False, indent=2))
    else:
        print(body)
        print("\nMEMORY.md at the end:\n" + result["memory"])
    if args.out:
        from report import update_section

        update_section(args.out, "dreaming_life", "Dreaming: a month of synthetic life", body)
    if args.doc:
        text = args.doc.read_text(encoding="utf-8")
        start, end = "<!-- dreaming_life:start -->", "<!-- dreaming_life:end -->"
        if start in text and end in text:
            head, rest = text.split(start, 1)
            args.doc.write_text(head + start + "\n" + body + "\n" + end + rest.split(end, 1)[1], encoding="utf-8")
    s = result["score"]
    ok = (s["precision"] >= 0.95 and s["recall"] >= 0.8 and not s["untrustedPromotions"] and not s["cronPromotions"]
          and not s["lostUserLines"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
