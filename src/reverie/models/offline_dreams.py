"""Dreaming's model requests, and how the offline model answers them without a language model.

* **Consolidation** (system prompt starts with :data:`CONSOLIDATION_SYSTEM_PREFIX`; the user message
  is one JSON document: ``currentMemory``, ``priorEntries`` of the group, ``lineage`` and
  ``candidates``). The offline model answers deterministically: a candidate with a supersede key
  whose lineage has entries supersedes exactly those; else one that states the same fact as prior
  entries (:func:`reverie.text.facts.same_fact`: identical, or near-identical words with the same
  numbers) merges them; else it is added. Nothing else: it never guesses that two facts conflict.
* **Dream Diary** (:data:`DIARY_SYSTEM_PREFIX`; a JSON document of the sweep): a language model
  writes 80-180 words in the first person; the offline model writes a plain factual summary and
  says so.
* **Heartbeat review** (a runtime turn whose message starts with :data:`HEARTBEAT_PROMPT_PREFIX`,
  offering the ``memory_propose`` tool): the offline model proposes the listed entries that read as
  decisions, preferences, remember-requests or facts about the owner (the same test the flush uses).
"""

from __future__ import annotations

import json
import re

from ..text.facts import same_fact

CONSOLIDATION_SYSTEM_PREFIX = "Memory consolidation turn."
DIARY_SYSTEM_PREFIX = "Dream diary turn."
HEARTBEAT_PROMPT_PREFIX = "Heartbeat memory review."
OFFLINE_DIARY_LABEL = "(a factual summary by the offline model)"
PROPOSE_TOOL = "memory_propose"


def offline_consolidation(request: str) -> str:
    try:
        doc = json.loads(request)
    except ValueError:
        return json.dumps({"operations": []})
    prior = [p for p in doc.get("priorEntries") or [] if isinstance(p, str)]
    lineage = doc.get("lineage") or {}
    used: set[int] = set()
    ops = []
    for c in doc.get("candidates") or []:
        key = c.get("supersedesKey")
        chain = [p for p in lineage.get(key) or []] if key else []
        if chain:
            ops.append({"candidateKey": c["candidateKey"], "action": "superseded", "resultEntry": c["resultEntry"],
                        "priorEntries": chain})
            continue
        same = [i for i, p in enumerate(prior) if i not in used and same_fact(p, c.get("text") or "")]
        if same:
            used.update(same)
            ops.append({"candidateKey": c["candidateKey"], "action": "merged", "resultEntry": c["resultEntry"],
                        "priorEntries": [prior[i] for i in same]})
            continue
        ops.append({"candidateKey": c["candidateKey"], "action": "added", "resultEntry": c["resultEntry"],
                    "priorEntries": []})
    return json.dumps({"operations": ops}, ensure_ascii=False)


def offline_diary(request: str) -> str:
    try:
        doc = json.loads(request)
    except ValueError:
        doc = {}
    day = doc.get("date") or "this night"
    parts = [f"{day}: {OFFLINE_DIARY_LABEL}"]
    counts = doc.get("counts") or {}
    parts.append(f"Looked at {counts.get('entries', 0)} short-term entries, staged {counts.get('staged', 0)} "
                 f"candidates and {counts.get('truths', 0)} possible lasting truths.")
    themes = [t for t in doc.get("themes") or [] if isinstance(t, str)]
    if themes:
        parts.append("Recurring themes: " + ", ".join(themes[:5]) + ".")
    promoted = [p for p in doc.get("promotions") or [] if isinstance(p, str)]
    if promoted:
        parts.append(f"Promoted {len(promoted)} into MEMORY.md: " + "; ".join(f"“{p}”" for p in promoted[:5]) + ".")
    else:
        parts.append("Nothing was promoted into MEMORY.md.")
    return " ".join(parts)


_ENTRY_LINE = re.compile(r"^\[(\d+)\]\s+(.*)$")


def offline_heartbeat_proposals(message: str) -> list[int]:
    """The numbered entries of a heartbeat review message worth proposing (see the module text)."""
    from .offline import is_salient

    out = []
    for line in message.split("\n"):
        m = _ENTRY_LINE.match(line.strip())
        if m and is_salient(m.group(2)):
            out.append(int(m.group(1)))
    return out
