"""What the light and REM phases take in besides recalls (reference §16.3 steps 1-2).

**Daily notes** (``memory/YYYY-MM-DD.md`` and ``…-<slug>.md`` within the lookback): managed blocks
stripped, date headings dropped, entries that hold no fact skipped (:mod:`.facttext`: a session
note's model talk, questions, chit-chat), each entry (a bullet and its continuation, at most 4 lines, 8+
characters) becomes a short-term entry with a ``daily`` signal of score 0.62. Each entry is counted
once: the ingestion state keeps the claim hashes a note's entries had, so an entry appended later
is ingested without counting its older neighbours again (the reference re-counts a whole note
whenever it changes).

**Transcripts**: interactive sessions only (cron, heartbeat, sub-agent and unknown sessions never),
user and assistant messages, recalled memory stripped (:func:`reverie.trust.strip_recalled`),
secrets redacted, commands skipped, model talk and chit-chat skipped (:mod:`.facttext`); each
message (cut at sentence ends into pieces of 12-280
characters) becomes a line ``[<session id>#<position>] <text>`` of the session corpus
``memory/.dreams/session-corpus/YYYY-MM-DD.md`` (the message's day) and a short-term entry with a
signal of score 0.58 and the origin class the runtime recorded for it. At most 240 messages per
sweep and 80 per corpus file; messages already taken in are remembered per session (newest 4,096).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from ..search import signals as sig
from ..text.boilerplate import session_meta_lines
from ..trust.store import DAILY_RE
from ..workspace.entries import split_entries
from .facttext import fact_text
from .guard import contaminated
from .state import GROUNDED_SCORE, Deltas, StoreView

DAILY_SCORE = GROUNDED_SCORE  # 0.62, the reference's daily-ingestion score
SESSION_SCORE = 0.58
SNIPPET_MIN, SNIPPET_MAX = 8, 280
SESSION_SNIPPET_MIN = 12
MAX_MESSAGES_PER_SWEEP = 240
MAX_LINES_PER_CORPUS_FILE = 80
CORPUS_DIR = "memory/.dreams/session-corpus"
_CORPUS_LINE = re.compile(r"^\[([^\]#]+)#(\d+)(?:\.(\d+))?\]\s+(.*)$")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+")


@dataclass
class Ingested:
    daily_files: int = 0
    daily_entries: int = 0
    session_messages: int = 0
    withheld_sensitive: int = 0  # message pieces holding a secret: never in the corpus (docs/trust.md)
    corpus_lines: list[tuple[str, str]] = field(default_factory=list)  # (corpus path, line) to append

    def as_dict(self) -> dict:
        return {"dailyFiles": self.daily_files, "dailyEntries": self.daily_entries,
                "sessionMessages": self.session_messages,
                **({"withheldSensitive": self.withheld_sensitive} if self.withheld_sensitive else {})}


def note_day(path: str) -> date | None:
    m = re.match(r"^memory/(\d{4}-\d{2}-\d{2})", path)
    try:
        return date.fromisoformat(m.group(1)) if m else None
    except ValueError:
        return None


def ingest_daily(workspace: Path, view: StoreView, deltas: Deltas, today: date, lookback_days: int,
                 at: int, out: Ingested) -> None:
    folder = workspace / "memory"
    if not folder.is_dir():
        return
    for p in sorted(folder.iterdir()):
        rel = f"memory/{p.name}"
        day = note_day(rel)
        if not DAILY_RE.match(rel) or day is None or not (today - timedelta(days=lookback_days) <= day <= today):
            continue
        if p.is_symlink() or not p.is_file():
            continue
        try:
            raw = p.read_bytes()
        except OSError:
            continue
        fp = hashlib.sha256(raw).hexdigest()
        scope = f"daily:{rel}"
        _, old_fp, seen = deltas.ingestion.get(scope) or view.ingestion.get(scope) or ("daily", "", [])
        if fp == old_fp:
            continue  # unchanged since the last sweep
        out.daily_files += 1
        text = raw.decode("utf-8", errors="replace")
        seen_set = set(seen)
        meta = session_meta_lines(text.split("\n"))
        for e in split_entries(text):
            snippet = e.snippet
            if e.start in meta or len(snippet) < SNIPPET_MIN or contaminated(snippet) or fact_text(snippet) is None:
                continue  # a session note's model talk, chit-chat and questions are never staged
            claim = sig.claim_hash(snippet)
            if claim in seen_set:
                continue
            seen_set.add(claim)
            seen.append(claim)
            rec = sig.Recall(rel, e.start, e.end, snippet[:sig.SNIPPET_CHARS], DAILY_SCORE)
            add_signal(view, deltas, rec, {"daily": 1, "at": at})
            out.daily_entries += 1
        deltas.ingestion[scope] = ("daily", fp, seen)


def add_signal(view: StoreView, deltas: Deltas, rec: sig.Recall, kw: dict) -> str:
    """Queue a signal and show it in the view at once (later phases of the sweep see it)."""
    from .state import ShortTermEntry

    key = kw.get("key") or sig.signal_key(rec.path, rec.start, rec.end)
    deltas.signals.append((rec, kw))
    e = view.entries.get(key)
    if e is None:
        e = ShortTermEntry(key, rec.path, rec.start, rec.end, rec.snippet, first_recalled_at=kw.get("at", 0),
                           claim_hash=sig.claim_hash(rec.snippet))
        view.entries[key] = e
    n = kw.get("count", 0) + kw.get("daily", 0) + kw.get("grounded", 0)
    e.recall_count += kw.get("count", 0)
    e.daily_count += kw.get("daily", 0)
    e.grounded_count += kw.get("grounded", 0)
    e.total_score += rec.score * n
    e.max_score = max(e.max_score, rec.score)
    e.last_recalled_at = max(e.last_recalled_at, kw.get("at", 0))
    e.snippet = rec.snippet
    from ..text.concepts import concept_tags

    e.concept_tags = concept_tags(rec.snippet, rec.path)
    if kw.get("provenance"):
        e.provenance = kw["provenance"]
    return key


# -- transcripts ----------------------------------------------------------------------------------------
def _pieces(text: str) -> list[str]:
    """A message cut at sentence ends into pieces of at most 280 characters."""
    out: list[str] = []
    cur = ""
    for s in _SENTENCE.split(" ".join(text.split())):
        if not s:
            continue
        while len(s) > SNIPPET_MAX:
            cut = s.rfind(" ", 0, SNIPPET_MAX)
            cut = cut if cut > SNIPPET_MAX // 2 else SNIPPET_MAX
            out.append(s[:cut].strip())
            s = s[cut:].strip()
        if cur and len(cur) + 1 + len(s) > SNIPPET_MAX:
            out.append(cur)
            cur = s
        else:
            cur = f"{cur} {s}".strip()
    if cur:
        out.append(cur)
    return [p for p in out if len(p) >= SESSION_SNIPPET_MIN]


class Corpus:
    """The session corpus files of one sweep: their lines (on disk, then queued), by reference."""

    def __init__(self, workspace: Path, out: Ingested):
        self.workspace = workspace
        self.out = out
        self.files: dict[str, dict[str, int]] = {}
        self.sizes: dict[str, int] = {}

    def _load(self, rel: str) -> dict[str, int]:
        if rel not in self.files:
            lines: list[str] = []
            p = self.workspace / rel
            if p.is_file() and not p.is_symlink():
                lines = p.read_text(encoding="utf-8", errors="replace").split("\n")
                if lines and lines[-1] == "":
                    lines.pop()
            index = {}
            for n, line in enumerate(lines, 1):
                m = _CORPUS_LINE.match(line)
                if m:
                    index[f"{m.group(1)}#{m.group(2)}.{m.group(3) or 0}"] = n
            self.files[rel] = index
            self.sizes[rel] = len(lines)
        return self.files[rel]

    def full(self, rel: str) -> bool:
        self._load(rel)
        return self.sizes[rel] >= MAX_LINES_PER_CORPUS_FILE

    def line_of(self, rel: str, ref: str, text: str) -> int:
        index = self._load(rel)
        if ref not in index:  # a sweep killed after writing the line but before its signal finds it here
            self.sizes[rel] += 1
            index[ref] = self.sizes[rel]
            self.out.corpus_lines.append((rel, f"[{ref}] {text}"))
        return index[ref]


def ingest_sessions(db_path: Path, workspace: Path, view: StoreView, deltas: Deltas, now: datetime, tz,
                    lookback_days: int, at: int, out: Ingested) -> None:
    from ..sessions.search import redact_shapes as redact  # a piece still holding a secret is withheld below
    from ..sessions.store import MESSAGE_KINDS, TranscriptStore
    from ..trust import strip_recalled
    from ..trust.secrets import holds_secret
    from .state import open_readonly

    probe = open_readonly(db_path)
    if probe is None:
        return
    try:
        if not probe.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='sessions'").fetchone():
            return
    finally:
        probe.close()
    since = int((now - timedelta(days=lookback_days + 1)).timestamp() * 1000)
    store = TranscriptStore(db_path)
    budget = MAX_MESSAGES_PER_SWEEP
    corpus = Corpus(workspace, out)
    try:
        rows = [s for s in store.sessions() if s.session_kind == "interactive" and not s.forgotten_at
                and (s.last_interaction_at or s.started_at) >= since]
        for s in sorted(rows, key=lambda r: r.started_at):
            scope = f"session:{s.session_id}"
            _, _, seen = deltas.ingestion.get(scope) or view.ingestion.get(scope) or ("session", "", [])
            seen_set = set(seen)
            pool = None
            for ev in store.events(s.session_id, kinds=MESSAGE_KINDS):
                if budget <= 0:
                    break
                if ev.kind not in ("user", "assistant") or ev.event_id in seen_set:
                    continue
                text = ev.text or ""
                day = datetime.fromtimestamp(ev.created_at / 1000, timezone.utc).astimezone(tz).strftime("%Y-%m-%d")
                rel = f"{CORPUS_DIR}/{day}.md"
                if text.strip() and not text.lstrip().startswith("/") and corpus.full(rel):
                    continue  # this day's corpus is full for now; the message waits for a later sweep
                seen.append(ev.event_id)
                seen_set.add(ev.event_id)
                if not text.strip() or text.lstrip().startswith("/"):
                    continue
                if pool is None:
                    pool = store.recall_pool(s.session_id)
                clean = redact(strip_recalled(text, pool))
                budget -= 1
                out.session_messages += 1
                prov = {"source": "sessions", "sessionIds": [s.session_id], "origin": ev.origin or "untrusted",
                        "kind": s.session_kind}
                for n, piece in enumerate(_pieces(clean)):
                    if contaminated(piece) or fact_text(piece, True) is None:
                        continue  # the model's own talk (the offline model's replies, refusals), chit-chat
                    if holds_secret(piece):
                        out.withheld_sensitive += 1
                        continue
                    line_no = corpus.line_of(rel, f"{s.session_id}#{ev.position}.{n}", piece)
                    rec = sig.Recall(rel, line_no, line_no, piece, SESSION_SCORE)
                    add_signal(view, deltas, rec, {"daily": 1, "at": at, "provenance": prov})
            deltas.ingestion[scope] = ("session", "", seen)
    finally:
        store.close()
