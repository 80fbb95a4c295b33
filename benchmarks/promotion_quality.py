"""What Dreaming writes by itself, read back: clean facts, and triggers that stay quiet.

Scripted conversations in English and Chinese (``promotion_conversations.py``: facts worded as people
type them, chit-chat, refusals and disclaimers of a model, the offline model's own replies) are run
through reverie's sidecar (:class:`reverie.sidecar.FollowedSession`) with the offline model
answering, each ended (its session note written); the facts are looked up on four later days with
different questions; then one Dreaming sweep and one heartbeat review run. Measured:

* **clean promoted entries**: every entry Dreaming wrote into ``MEMORY.md``, checked for a role
  prefix (``user:``, ``用户：``), a role marker inside, model talk (the offline model's replies,
  refusals, ``As an AI``), transcript framing (citations, numbering, wrapping quotes), a question,
  a fragment (fewer than two content words), and for belonging to a fact of the script (chit-chat
  promoted counts as unclean);
* **trigger false fires**: every trigger phrase Dreaming wrote, tried on 1,000 ordinary messages
  (``ordinary_messages.py``, 500 per language, not the sample Dreaming checks against) with the
  trigger lane's scoring and its keyword half at its maximum (an upper bound on the lane); a
  message is a false fire when any entry would be injected;
* the old rule for comparison: the first three concept tags (the reference's triggers) of the same
  entries, on the same messages.

The embedder is the fake one and the deep phase's minScore 0.5 (as the Dreaming tests): what is
measured is the text and the triggers, not the ranking (``dreaming_life.py`` measures that).

    python benchmarks/promotion_quality.py [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))

TRIGGER_RE = re.compile(r"<!--\s*trigger:\s*(.*?)\s*-->")


def problems(text: str, facts: list[str]) -> list[str]:
    """Why a promoted entry's text is not a clean fact ([] when it is)."""
    from reverie.text.boilerplate import CITATION, NUMBERING, ROLE_INSIDE, ROLE_PREFIX, model_talk, split_sentences
    from reverie.text.cjk import CJK_RUN_RE
    from reverie.text.concepts import content_words

    out = []
    if ROLE_PREFIX.match(text) or ROLE_INSIDE.search(text):
        out.append("role prefix")
    if model_talk(text) or any(model_talk(s) for s in split_sentences(text)):
        out.append("model talk")
    if CITATION.search(text) or NUMBERING.match(text) or text[:1] in "“\"「'‘":
        out.append("transcript framing")
    if text.rstrip().endswith(("?", "？")):
        out.append("question")
    if len(content_words(text)) < 2 and sum(len(m.group(0)) for m in CJK_RUN_RE.finditer(text)) < 6:
        out.append("fragment")
    if not any(f.lower() in text.lower() for f in facts):
        out.append("not a fact of the script (chit-chat?)")
    return out


def promoted_entries(memory_md: str) -> list[tuple[str, list[str]]]:
    """(text, trigger phrases) of each entry Dreaming wrote."""
    from reverie.dreaming.memoryfile import generated_entries

    out = []
    for line in generated_entries(memory_md):
        m = TRIGGER_RE.search(line)
        phrases = [p.strip() for p in m.group(1).split(",")] if m else []
        text = re.sub(r"<!--.*?-->", "", line)
        text = re.sub(r"\s+Source:\s+\S+#L\d+-L\d+", "", text)
        text = re.sub(r"\s+\[score=[^\]]*\]", "", text)
        out.append((text.strip()[2:].strip(), phrases))
    return out


def fires(phrase_lists: list[list[str]], messages: list[str], threshold: float = 0.65) -> tuple[int, list[tuple]]:
    from reverie.recall.triggers import score_message

    hits = []
    for msg in messages:
        for phrases in phrase_lists:
            if phrases and score_message(msg, "; ".join(phrases), 1.0) + 1e-9 >= threshold:
                hits.append((msg, phrases))
                break
    return len(hits), hits


def run(verbose: bool = False, messages: Path | None = None) -> dict:
    import ordinary_messages
    import promotion_conversations as pc

    home = tempfile.mkdtemp(prefix="reverie-pq-")
    os.environ["REVERIE_HOME"] = home
    os.environ.setdefault("REVERIE_TIMEZONE", "UTC")
    from reverie import Memory
    from reverie.dreaming.heartbeat import review
    from reverie.text.concepts import concept_tags
    from reverie.text.segment import engine_name

    t0 = time.perf_counter()
    mem = Memory(overrides=['memory.search.provider="fake"', "memory.dreaming.phases.deep.minScore=0.5",
                            "memory.dreaming.phases.deep.limit=40"])
    mem.init()
    for i, conv in enumerate(pc.ALL):
        pc.run_conversation(mem, conv, key=f"conv-{i}-{conv.name}")
    mem.sync()
    now = datetime.now(timezone.utc).replace(hour=6, minute=0, second=0, microsecond=0)
    for d in range(1, 5):
        for conv in pc.ALL:
            for q in conv.later:
                mem.search(q, now=now + timedelta(days=d))
    mem._signals.flush()
    sweep = mem.dream(now=now + timedelta(days=5)).as_dict()
    beat = review(mem, now=now + timedelta(days=5, hours=1), force=True)
    seconds = time.perf_counter() - t0
    memory_md = (mem.workspace / "MEMORY.md").read_text(encoding="utf-8") if (mem.workspace / "MEMORY.md").exists() else ""
    entries = promoted_entries(memory_md)
    facts = [f for conv in pc.ALL for f in conv.facts]
    unclean = [(t, problems(t, facts)) for t, _ in entries if problems(t, facts)]
    msgs = ordinary_messages.messages() if messages is None else other_messages(messages)
    phrase_lists = [p for _, p in entries]
    n_fire, hits = fires(phrase_lists, msgs)
    old_lists = [concept_tags(t)[:3] for t, _ in entries]
    n_old, _ = fires(old_lists, msgs)
    # the other side: the script's own later questions about a promoted fact, and whether it fires
    from reverie.recall.triggers import score_message

    asked = fired = 0
    for t, phrases in entries:
        for conv in pc.ALL:
            if any(f.lower() in t.lower() for f in conv.facts):
                for q in conv.later:
                    asked += 1
                    fired += bool(phrases) and score_message(q, "; ".join(phrases), 1.0) + 1e-9 >= 0.65
                break
    staged = [i["snippet"] for i in sweep["phases"]["light"]["items"]]
    staged_talk = [s for s in staged if problems(s, facts)]
    mem.close()
    result = {
        "conversations": len(pc.ALL), "promoted": len(entries), "clean": len(entries) - len(unclean),
        "unclean": unclean, "withTriggers": sum(1 for p in phrase_lists if p),
        "phrases": sum(len(p) for p in phrase_lists), "messages": len(msgs), "falseFires": n_fire,
        "falseFireRate": n_fire / len(msgs), "falseFireExamples": hits[:5], "oldRuleFalseFires": n_old,
        "asked": asked, "fired": fired, "staged": len(staged), "stagedUnclean": staged_talk, "heartbeat": beat.get("summary"),
        "segmenter": engine_name(), "seconds": round(seconds, 1), "entries": entries,
    }
    if verbose:
        for t, p in entries:
            print(f"  {t}  <- {', '.join(p) or '(no trigger)'}")
    return result


def other_messages(path: Path) -> list[str]:
    """The ordinary messages of a data file (``--messages``): its ``EN`` and ``ZH`` lists."""
    import runpy

    data = runpy.run_path(str(path))
    return list(data["EN"]) + list(data["ZH"])


def render(r: dict) -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    lines = [
        f"`python benchmarks/promotion_quality.py` ({r['conversations']} scripted conversations in English and "
        f"Chinese through the sidecar with the offline model, four days of lookups, one sweep and one heartbeat "
        f"review; Chinese words by {r['segmenter']}; {r['seconds']} s on {platform.machine()}, load average {load})",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| promoted entries that read as clean facts | {r['clean']} of {r['promoted']} "
        f"({100 * r['clean'] / max(1, r['promoted']):.0f} %) | 100 % |",
        f"| light-phase candidates that are model talk, chit-chat or framing | {len(r['stagedUnclean'])} of "
        f"{r['staged']} | 0 |",
        f"| trigger false fires on {r['messages']:,} ordinary messages (upper bound) | {r['falseFires']} "
        f"({100 * r['falseFireRate']:.1f} %) | ≤ 0.5 % |",
        f"| the same with the old rule (first three concept tags) | {r['oldRuleFalseFires']} "
        f"({100 * r['oldRuleFalseFires'] / max(1, r['messages']):.1f} %) | |",
        f"| the script's own later questions about a promoted fact that fire its trigger | {r['fired']} of "
        f"{r['asked']} | (search and Active Memory answer the rest) |",
        f"| entries with triggers / phrases written | {r['withTriggers']} of {r['promoted']} / {r['phrases']} | |",
        "",
        "What was written (text <- triggers):",
        "",
    ]
    lines += [f"- {t} <- `{', '.join(p) or 'no trigger'}`" for t, p in r["entries"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, help="write the figures into this Markdown file (docs/benchmarks.md)")
    ap.add_argument("--messages", type=Path, help="the ordinary messages of this data file (its EN and ZH lists) "
                    "instead of ordinary_messages.py: ordinary_fresh_data.py")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args(argv)
    r = run(args.verbose, args.messages)
    body = render(r)
    print(body)
    for text, why in r["unclean"]:
        print(f"UNCLEAN: {text!r}: {', '.join(why)}")
    for msg, phrases in r["falseFireExamples"]:
        print(f"FALSE FIRE: {msg!r} <- {phrases}")
    if args.out:
        from report import update_section

        update_section(args.out, "promotion_quality", "What Dreaming writes: clean facts and quiet triggers", body)
    return r


if __name__ == "__main__":
    main()
