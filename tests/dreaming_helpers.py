"""Shared by the Dreaming tests: a small life of notes and recalls on real files and databases."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, timezone
from pathlib import Path

from reverie import Memory
from reverie.trust import Provenance

DAY0 = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)
OWNER = Provenance("owner", "interactive", None, "remember")
WEB = Provenance("untrusted", "interactive", None, "memory_append")
CRON = Provenance("system", "cron", None, "automation")
FAKE = 'memory.search.provider="fake"'
# The fake embedder's hash vectors score every hit low (relevance ~0.3, where the bundled model gives
# ~0.6); the mechanics are tested with a minScore to match. The calibrated defaults are measured by
# benchmarks/dreaming_life.py with the real model.
LOW_BAR = "memory.dreaming.phases.deep.minScore=0.5"


def open_mem(*overrides: str) -> Memory:
    mem = Memory(overrides=[FAKE, LOW_BAR, *overrides])
    mem.init()
    return mem


def day(n: int, hours: int = 0) -> datetime:
    return DAY0 + timedelta(days=n, hours=hours)


def night(n: int) -> datetime:
    """03:00 of the day after day ``n``."""
    return (DAY0 + timedelta(days=n + 1)).replace(hour=3)


def write(mem: Memory, n: int, text: str, prov: Provenance = OWNER, minute: int = 0) -> Path:
    return mem.remember(text, now=day(n) + timedelta(minutes=minute), provenance=prov)


def recall(mem: Memory, plan: dict[int, list[str]]) -> None:
    """Search ``plan[day]`` queries on each day (recalls dated on that day)."""
    mem.sync()
    for n, queries in sorted(plan.items()):
        for q in queries:
            mem.search(q, now=day(n, 6))
    mem._signals.flush() if mem._signals else None


def durable_life(mem: Memory) -> None:
    """One durable fact recalled on 4 days by 4 queries, one filler line recalled once."""
    write(mem, 0, "I am allergic to peanuts.")
    write(mem, 0, "Bought milk and bread.", minute=5)
    recall(mem, {1: ["peanut allergy"], 2: ["allergic to peanuts"], 3: ["food allergy peanuts"],
                 4: ["can I eat peanuts"], 2.5: ["milk and bread"]})


def sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def memory_text(mem: Memory) -> str:
    return (mem.workspace / "MEMORY.md").read_text(encoding="utf-8")
