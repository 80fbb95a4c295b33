"""Lane 1: trigger recall (reference §9). Zero model calls, on every eligible user turn.

Candidates are the curated entries of the index (``MEMORY.md``, ``USER.md``: one unit per entry,
each with only its own annotations) that carry ``<!-- trigger: ... -->`` phrases. The lexical half
of the score is the keyword score memory search gives that entry for the message (IDF-weighted
share of the message's words the entry holds, :mod:`reverie.search.keyword`): a lexical-only
search over the candidates. An entry that has no trigger is never a candidate, so a search hit
without one adds nothing; computing the lexical score for the shortlisted entries only is what
keeps a turn under 2 ms with 10,000 phrases (``benchmarks/trigger_recall.py``).

An entry is eligible when it is curated, not ``superseded``, recorded as ``owner``/``agent``
content, and every project it is annotated for is active (fail closed). Matches at or above the
threshold (0.65) are sorted by score, then path and line; at most 3 are injected, 1,800 characters
in all, each entry at most once per session unless its text changed. Daily notes and transcripts
never trigger.

The phrase index (word -> entries) is built once per index revision, so a turn costs a tokenisation
of the message and a few dictionary lookups; SQLite is read only when some phrase matched.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass, field

from ..index.chunking import CURATED_FILES
from ..text.cjk import is_cjk_char
from ..trust import TRUSTED, RecallItem
from ..workspace.annotations import strip_annotations
from .projects import ProjectScope, split_keys
from .triggers import Words, match_score, phrase_score, phrase_words, split_phrases, words_of

FTS_TABLE = "memory_index_chunks_fts"
_BULLET_RE = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")


@dataclass
class Entry:
    path: str
    start_line: int
    end_line: int
    text: str  # without annotation comments
    phrases: list[tuple[str, tuple[str, ...]]]  # (phrase, its words)
    projects: list[str]
    origin: str | None
    digest: str

    @property
    def key(self) -> tuple[str, str]:
        """Once per session unless it changed: the entry's file and its text."""
        return self.path, self.digest


def entry_key(path: str | None, text: str) -> tuple[str, str]:
    """The once-per-session key of an entry (also rebuilt from a recorded recall mark)."""
    return str(path), hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Match:
    entry: Entry
    score: float
    phrase: str
    phrase_score: float
    retrieval: float

    def item(self, text: str | None = None) -> RecallItem:
        return RecallItem(text if text is not None else self.entry.text, self.entry.path, self.entry.start_line,
                          self.entry.end_line, self.entry.origin,
                          why=f"trigger {self.phrase!r}: phrase {self.phrase_score:.2f}, keyword "
                              f"{self.retrieval:.2f} -> {self.score:.2f}")


@dataclass
class PhraseIndex:
    entries: list[Entry] = field(default_factory=list)
    by_word: dict[str, set[int]] = field(default_factory=dict)  # spaced-script word -> entries
    by_bigram: dict[str, set[int]] = field(default_factory=dict)  # first two CJK characters -> entries
    phrases: int = 0

    def add(self, e: Entry) -> None:
        i = len(self.entries)
        self.entries.append(e)
        for _, words in e.phrases:
            self.phrases += 1
            for w in words:
                if is_cjk_char(w[0]):
                    self.by_bigram.setdefault(w[:2], set()).add(i)
                else:
                    self.by_word.setdefault(w, set()).add(i)

    def candidates(self, msg: Words) -> set[int]:
        out: set[int] = set()
        for w in msg.plain:
            out |= self.by_word.get(w, set())
        for run in msg.cjk:
            for j in range(len(run) - 1):
                out |= self.by_bigram.get(run[j:j + 2], set())
        return out


_CACHE: dict[tuple, PhraseIndex] = {}
_CACHE_LOCK = threading.Lock()


def phrase_index(conn, generation: str) -> PhraseIndex:
    """The trigger-bearing curated entries of one index revision (cached)."""
    rev = conn.execute("SELECT revision FROM memory_index_state WHERE id=1").fetchone()
    key = (conn.filename, generation, rev[0] if rev else None)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit
    idx = PhraseIndex()
    rows = conn.execute(
        "SELECT c.path, c.start_line, c.end_line, c.text, m.triggers, m.project_key, m.status, p.origin_class "
        "FROM memory_index_chunk_recall_metadata m JOIN memory_index_chunks c ON c.id = m.chunk_id "
        "LEFT JOIN memory_index_chunk_provenance p ON p.chunk_id = c.id "
        "WHERE m.triggers IS NOT NULL AND c.source = 'memory' ORDER BY c.path, c.start_line")
    for path, start, end, text, triggers, projects, status, origin in rows:
        if path not in CURATED_FILES or status == "superseded":
            continue  # daily notes and transcripts never trigger; a superseded entry is history
        phrases = [(p, phrase_words(p)) for p in split_phrases(triggers)]
        phrases = [(p, w) for p, w in phrases if w]
        if not phrases:
            continue
        clean = _BULLET_RE.sub("", strip_annotations(text), count=1)
        idx.add(Entry(path, start, end, clean, phrases, split_keys(projects), origin, entry_key(path, clean)[1]))
    with _CACHE_LOCK:
        if len(_CACHE) > 8:
            _CACHE.clear()
        _CACHE[key] = idx
    return idx


@dataclass
class TriggerResult:
    matches: list[Match]
    skipped_seen: int = 0  # matched, but already injected in this session
    skipped_project: int = 0  # matched, but annotated for an inactive project
    skipped_origin: int = 0

    @property
    def strong_hit(self) -> bool:
        return bool(self.matches)


def _lexical_scores(conn, message: str, entries: list[Entry]) -> dict[int, float]:
    """The keyword score memory search gives each entry for ``message`` (in [0, 1])."""
    from ..index.schema import fts_tokenizer_of
    from ..search.keyword import analyse_query, memory_doc_count, memory_index_version

    tokenizer = fts_tokenizer_of(conn) or "cjk"
    try:
        # the words' document counts are kept per index version: a warm server answering every
        # prompt of a conversation looks each word up once (a lookup costs about half a millisecond)
        version = memory_index_version(conn)
        qt = analyse_query(conn, message[:480], tokenizer, FTS_TABLE, memory_doc_count(conn, version), version)
    except Exception:  # text retrieval failing still allows phrase-only matching (§9)
        return {}
    if qt.empty:
        return {}
    # the entry's words, not its annotation comments (the trigger phrase would count twice)
    return {id(e): qt.coverage(qt.mask(e.text, tokenizer)) for e in entries}


def match(conn, generation: str, message: str, scope: ProjectScope, *, seen: set | None = None,
          threshold: float = 0.65, limit: int = 3) -> TriggerResult:
    idx = phrase_index(conn, generation)
    msg = words_of(message)
    best: list[tuple[Entry, float, str]] = []
    # an entry can reach the threshold only if 0.8 × phrase + 0.2 × 1 >= threshold
    floor = (threshold - 0.2) / 0.8
    for i in idx.candidates(msg):
        e = idx.entries[i]
        top, which = 0.0, ""
        for phrase, words in e.phrases:
            s = phrase_score(words, msg)
            if s > top:
                top, which = s, phrase
        if top > 0 and top + 1e-9 >= floor:
            best.append((e, top, which))
    out = TriggerResult([])
    if not best:
        return out
    lexical = _lexical_scores(conn, message, [e for e, _, _ in best])
    for e, top, phrase in best:
        r = lexical.get(id(e), 0.0)
        score = round(match_score(top, r), 4)
        if score + 1e-9 < threshold:
            continue
        if not scope.allows(e.projects):
            out.skipped_project += 1
            continue
        if e.origin is not None and e.origin not in TRUSTED:
            out.skipped_origin += 1
            continue
        if seen is not None and e.key in seen:
            out.skipped_seen += 1
            continue
        out.matches.append(Match(e, score, phrase, top, round(r, 4)))
    out.matches.sort(key=lambda m: (-m.score, m.entry.path, m.entry.start_line))
    del out.matches[limit:]
    return out


def items_within(matches: list[Match], max_chars: int) -> list[RecallItem]:
    """One item per match, their lines (as the recall block shows them) within ``max_chars``."""
    items: list[RecallItem] = []
    left = max_chars
    for m in matches:
        prefix = len(f"- [{m.entry.path}#L{m.entry.start_line}-L{m.entry.end_line}] ") + 1
        room = left - prefix
        if room < 24:
            break
        text = m.entry.text if len(m.entry.text) <= room else m.entry.text[:room - 1].rstrip() + "…"
        items.append(m.item(text))
        left -= prefix + len(text)
    return items
