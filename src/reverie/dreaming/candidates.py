"""The deep phase's candidates (reference §16.5 steps 1-3): ranked, filtered, rehydrated.

1. Every short-term entry is ranked (:mod:`.ranking`) against the deep thresholds.
2. Filter: already promoted, Dreaming's own text (:mod:`.guard`), and anything
   :meth:`reverie.trust.Trust.may_promote` refuses (untrusted or system origin, cron / heartbeat /
   sub-agent sessions, non-interactive transcripts, copies of injected context) -- the origin is
   looked up in the files' recorded provenance, never taken from the store. Then the limit.
3. Rehydrate from the live file: the entry must still be there with the same words (a moved entry is
   found by its claim hash, the nearest one when there are several); its annotations (project,
   supersede key) and the sessions that wrote it are read from the file now.
4. What it says is made a fact (:mod:`.facttext`): role prefixes and transcript framing go; model
   talk, questions and chit-chat are never candidates.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from ..search.signals import claim_hash
from ..trust import Candidate, Trust
from ..trust.secrets import holds_secret
from ..workspace.annotations import parse_annotations
from ..workspace.entries import Entry, split_entries
from ..workspace.files import read_regular
from .facttext import fact_text
from .guard import contaminated
from .memoryfile import supersede_key_in
from .ranking import Ranked, Thresholds, rank
from .state import StoreView


@dataclass
class Chosen:
    ranked: Ranked
    path: str
    start: int
    end: int
    snippet: str  # the writer's words, now, as a fact (:func:`.facttext.fact_text`: no framing)
    project: str | None
    supersedes: str | None
    sessions: list[str]
    origin: str
    file_hash: str

    @property
    def key(self) -> str:
        return self.ranked.key


@dataclass
class Selection:
    ranked: list[Ranked]
    chosen: list[Chosen] = field(default_factory=list)
    skipped: list[dict] = field(default_factory=list)  # {key, snippet, reason}

    def skip(self, r: Ranked, reason: str) -> None:
        # a secret is reported without its text (docs/trust.md, Secrets)
        snippet = "[withheld: sensitive]" if holds_secret(r.entry.snippet) else r.entry.snippet[:160]
        self.skipped.append({"key": r.key, "snippet": snippet, "score": round(r.score, 4),
                             "reason": reason})


def trust_candidate(e, path: str, start: int, end: int, text: str) -> Candidate:
    prov = e.provenance or {}
    if prov.get("source") == "sessions":
        sessions = prov.get("sessionIds") or []
        return Candidate(text, f"sessions/{sessions[0] if sessions else 'unknown'}", start, end,
                         origin=prov.get("origin") or "untrusted", kind=prov.get("kind") or "unknown",
                         source="sessions", session_id=sessions[0] if sessions else None)
    return Candidate(text, path, start, end)


def _entries(workspace: Path, path: str) -> tuple[list[Entry], str] | None:
    p = workspace / path
    try:
        raw, _ = read_regular(p)
    except (OSError, ValueError):
        return None
    text = raw.decode("utf-8", errors="replace")
    if path.startswith("memory/.dreams/"):  # a session corpus: one entry per line
        entries = [Entry(n, n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    else:
        entries = split_entries(text)
    return entries, hashlib.sha256(raw).hexdigest()


def _corpus_snippet(line: str) -> str:
    return line.split("] ", 1)[1].strip() if line.startswith("[") and "] " in line else line.strip()


def rehydrate(workspace: Path, r: Ranked) -> tuple[Entry, str, str] | None:
    """(entry as it is now, its snippet, file hash), or None when the words are gone."""
    got = _entries(workspace, r.entry.path)
    if got is None:
        return None
    entries, digest = got
    corpus = r.entry.path.startswith("memory/.dreams/")
    want = r.entry.claim_hash or claim_hash(r.entry.snippet)
    matches = []
    for e in entries:
        snippet = _corpus_snippet(e.text) if corpus else e.snippet
        if claim_hash(snippet[:800]) == want:
            matches.append((abs(e.start - r.entry.start_line), e, snippet))
    if not matches:
        return None
    _, e, snippet = min(matches, key=lambda m: (m[0], m[1].start))
    return e, snippet, digest


def select(workspace: Path, trust: Trust, view: StoreView, now_s: int, deep, *,
           weights: dict | None = None) -> Selection:
    th = Thresholds.from_settings(deep)
    ranked = rank(list(view.entries.values()), view.phases, now_s, th, weights or deep.weights.model_dump())
    sel = Selection(ranked)
    for r in ranked:
        if len(sel.chosen) >= deep.limit:
            break
        if r.entry.promoted_at is not None:
            continue  # reported by explain, not a skip
        if not r.passed:
            continue
        if contaminated(r.entry.snippet):
            sel.skip(r, "Dreaming's own text or machinery, never memory")
            continue
        got = rehydrate(workspace, r)
        if got is None:
            sel.skip(r, "no longer in the file (removed or reworded)")
            continue
        e, snippet, digest = got
        text = fact_text(snippet, r.entry.path.startswith("memory/.dreams/"))
        if text is None:
            sel.skip(r, "not a fact: model talk, a question, chit-chat or transcript framing")
            continue
        decision = trust.may_promote(trust_candidate(r.entry, r.entry.path, e.start, e.end, snippet))
        if not decision.allowed:
            sel.skip(r, f"refused by trust: {decision.reason}")
            continue
        ann = parse_annotations(e.text)
        prov = r.entry.provenance or {}
        if prov.get("source") == "sessions":
            sessions = list(prov.get("sessionIds") or [])
        else:
            sessions = sorted(trust.origin_of(r.entry.path, e.start, e.end).sessions)
        sel.chosen.append(Chosen(r, r.entry.path, e.start, e.end, text,
                                 ann.projects[0] if ann.projects else None, supersede_key_in(e.text),
                                 sessions, decision.origin, digest))
    return sel
