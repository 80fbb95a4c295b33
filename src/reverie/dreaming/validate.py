"""The consolidation validator (reference §16.7, addendum row 4): a model's plan is checked in code,
rule by rule; the first failure rejects the whole sweep's plan (Dreaming then appends instead).

A plan answers one project group: ``{"operations": [{"candidateKey", "action", "resultEntry",
"priorEntries"}], "memory"?: "..."}``. The rules, in the order they are checked:

1. the answer is one JSON object, with no NUL anywhere;
2. exactly one operation per candidate: as many operations as candidates, each naming a candidate
   of this group once;
3. ``action`` is ``added``, ``merged`` or ``superseded``;
4. ``resultEntry`` is exactly the entry the code built for the candidate (the model never writes
   memory text; this also holds the snippet to its length cap);
5. ``added`` names no prior entry and its entry is not in the memory already;
6. ``merged`` and ``superseded`` name at least one prior entry; each is an entry line that exists
   in the current memory, was written by Dreaming (it has a promotion marker: a line a person wrote
   is never removed), has no continuation lines, and is removed no more often than it occurs;
7. every prior entry belongs to the candidate's project group (no cross-project merge);
8. ``merged`` prior entries state the same fact as the candidate (:func:`reverie.text.facts.same_fact`:
   ``[10mg]`` is not ``[100mg]``);
9. ``superseded`` needs the candidate's supersede key, and when entries of that lineage exist, the
   prior entries are exactly those;
10. entries removed / entries before <= ``maxPriorEntryLossFraction`` (one entry may always be
    replaced: a memory of three entries could otherwise never merge a duplicate);
11. when the model returns ``memory``, its entries are exactly the old ones minus the removed plus
    the results (no unexplained additions, no silent deletions), and every result appears in it;
12. the memory the code builds from the operations fits the budget.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from ..text.facts import same_fact
from .memoryfile import (continued, entry_lines, entry_project, generated, generated_entries, is_entry_line,
                         lineage_entries)

ACTIONS = ("added", "merged", "superseded")


class PlanRejected(Exception):
    """A consolidation plan failed a rule; ``rule`` is its number in the module text."""

    def __init__(self, rule: int, message: str):
        super().__init__(message)
        self.rule = rule


@dataclass
class ConsolidationCandidate:
    alias: str  # what the model sees ("c1"); real keys never reach it
    key: str  # the short-term key
    entry_key: str  # the MEMORY.md marker key
    text: str  # the candidate's fact, as shown (display snippet)
    result_entry: str  # the bullet the code builds
    source_ref: str
    provenance: str
    project: str | None
    supersedes: str | None

    def as_prompt(self) -> dict:
        return {"candidateKey": self.alias, "text": self.text, "resultEntry": self.result_entry,
                "sourceRef": self.source_ref, "provenance": self.provenance, "projectKey": self.project,
                "supersedesKey": self.supersedes}


@dataclass
class Operation:
    candidate: ConsolidationCandidate
    action: str
    prior: list[str] = field(default_factory=list)


def parse_answer(raw: str) -> dict:
    text = (raw or "").strip()
    if text.startswith("```"):  # a fence around the JSON is tolerated; prose is not
        text = text.strip("`")
        text = text[text.find("{"):] if "{" in text else text
        text = text[:text.rfind("}") + 1] if "}" in text else text
    try:
        doc = json.loads(text)
    except ValueError:
        raise PlanRejected(1, "the answer is not one JSON object") from None
    if not isinstance(doc, dict):
        raise PlanRejected(1, "the answer is not one JSON object")
    if "\x00" in text or "\\u0000" in text.lower():
        raise PlanRejected(1, "the answer holds a NUL character")
    return doc


def validate_group(doc: dict, current: str, candidates: list[ConsolidationCandidate], project: str | None,
                   ) -> list[Operation]:
    """Rules 2-9 for one group's answer; returns its operations."""
    ops_raw = doc.get("operations")
    if not isinstance(ops_raw, list) or len(ops_raw) != len(candidates):
        got = len(ops_raw) if isinstance(ops_raw, list) else "no"
        raise PlanRejected(2, f"{got} operations for {len(candidates)} candidates: exactly one each")
    by_alias = {c.alias: c for c in candidates}
    seen: set[str] = set()
    lines = current.split("\n")
    present = Counter(ln.rstrip() for ln in lines if is_entry_line(ln))
    lineage = lineage_entries(current)
    ops: list[Operation] = []
    for raw in ops_raw:
        if not isinstance(raw, dict):
            raise PlanRejected(2, "an operation is not a JSON object")
        alias = raw.get("candidateKey")
        if alias not in by_alias or alias in seen:
            raise PlanRejected(2, f"operation for {alias!r}: not a candidate of this group, or named twice")
        seen.add(alias)
        c = by_alias[alias]
        action = raw.get("action")
        if action not in ACTIONS:
            raise PlanRejected(3, f"{alias}: action {action!r} is not added, merged or superseded")
        if raw.get("resultEntry") != c.result_entry:
            raise PlanRejected(4, f"{alias}: resultEntry is not the candidate's entry verbatim")
        prior = raw.get("priorEntries") or []
        if not isinstance(prior, list) or not all(isinstance(p, str) for p in prior):
            raise PlanRejected(6, f"{alias}: priorEntries is not a list of entry lines")
        prior = [p.rstrip() for p in prior]
        if action == "added":
            if prior:
                raise PlanRejected(5, f"{alias}: an added entry replaces no prior entry")
            if present.get(c.result_entry.rstrip(), 0):
                raise PlanRejected(5, f"{alias}: added, but the entry is already in MEMORY.md")
        else:
            if not prior:
                raise PlanRejected(6, f"{alias}: {action} names no prior entry")
            for p in prior:
                if not present.get(p, 0):
                    raise PlanRejected(6, f"{alias}: prior entry not found in MEMORY.md: {p[:80]!r}")
                ours = [i for i, ln in enumerate(lines) if ln.rstrip() == p and generated(lines, i)]
                if not ours:
                    raise PlanRejected(6, f"{alias}: prior entry was written by a person, not by Dreaming: {p[:80]!r}")
                if continued(lines, ours[0]):
                    raise PlanRejected(6, f"{alias}: prior entry has continuation lines: {p[:80]!r}")
                if entry_project(p) != project:
                    raise PlanRejected(7, f"{alias}: prior entry belongs to another project group: {p[:80]!r}")
            if action == "merged":
                for p in prior:
                    if not same_fact(p, c.text):
                        raise PlanRejected(8, f"{alias}: merged with an entry that states another fact: {p[:80]!r}")
            else:
                if not c.supersedes:
                    raise PlanRejected(9, f"{alias}: superseded, but the candidate has no supersede key")
                chain = lineage.get(c.supersedes)
                if chain and Counter(chain) != Counter(prior):
                    raise PlanRejected(9, f"{alias}: superseded entries are not exactly the "
                                          f"'{c.supersedes}' lineage")
        ops.append(Operation(c, action, prior))
    return ops


def check_totals(current: str, ops: list[Operation], max_loss: float) -> Counter:
    """Rules 6 (multiplicity) and 10 over every group's operations; returns the removals."""
    before = Counter(entry_lines(current))
    ours = Counter(generated_entries(current))
    removed = Counter(p for op in ops for p in op.prior)
    for line, n in removed.items():
        if n > ours.get(line, 0):
            raise PlanRejected(6, f"an entry is removed {n} times but occurs {ours.get(line, 0)}: {line[:80]!r}")
    prior_total = sum(before.values())
    lost = sum(removed.values())
    if prior_total and lost > 1 and lost / prior_total > max_loss:
        raise PlanRejected(10, f"the plan removes {lost} of {prior_total} entries "
                               f"({lost / prior_total:.0%} > maxPriorEntryLossFraction {max_loss:.0%})")
    return removed


def check_memory(current: str, ops: list[Operation], memory) -> None:
    """Rule 11 for one group whose answer returned ``memory``."""
    if memory is None:
        return
    if not isinstance(memory, str) or not memory.strip():
        raise PlanRejected(11, "the returned memory is empty")
    expected = (Counter(entry_lines(current)) - Counter(p for op in ops for p in op.prior)
                + Counter(op.candidate.result_entry for op in ops))
    got = Counter(entry_lines(memory))
    for op in ops:
        if op.candidate.result_entry not in got:
            raise PlanRejected(11, f"{op.candidate.alias}: its entry does not appear in the returned memory")
    if got != expected:
        extra, missing = got - expected, expected - got
        what = (f"an unexplained addition: {next(iter(extra))[:80]!r}" if extra
                else f"an unexplained removal: {next(iter(missing))[:80]!r}")
        raise PlanRejected(11, f"the returned memory has {what}")


def check_budget(text: str, budget: int) -> None:
    if budget > 0 and len(text) > budget:
        raise PlanRejected(12, f"the consolidated MEMORY.md would be {len(text)} characters, "
                               f"over its budget of {budget}")
