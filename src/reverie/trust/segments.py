"""Daily-note provenance records (reference §6.5), as pure functions over bytes.

A record describes one daily file (``memory/YYYY-MM-DD.md``, or a session note
``memory/YYYY-MM-DD-<slug>.md``) as ordered, contiguous byte-offset segments; each segment has a
content hash, an origin class, a session kind, the session that wrote it and a hash per line.

* :func:`append` adds a segment for bytes reverie appends, with the writer's provenance.
* :func:`reconcile` brings a record up to date with the file as it is now. Lines that still match
  (by hash, in order: a line-level diff, so two separate edits do not taint what lies between them)
  keep their segment; every added or changed line becomes ``untrusted`` (an outside edit); removed
  lines disappear. A file rewritten from scratch therefore becomes untrusted as a whole.
* A record that does not verify (segments that are not contiguous, line hashes that do not add up)
  falls back to the record's least trusted class for the whole file.

The per-line hashes are what make "an outside edit downgrades exactly the changed lines" possible
without keeping a copy of the file.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

from .classes import least_trusted, weakest_kind

MAX_DIFF_LINES = 20_000  # beyond this, match only the common prefix and suffix (the reference's rebase)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def line_hash(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()[:16]


def split_lines(data: bytes) -> list[bytes]:
    """Lines with their ``\\n`` kept; the last one may lack it. Empty data has no lines."""
    out = data.split(b"\n")
    lines = [x + b"\n" for x in out[:-1]]
    if out[-1]:
        lines.append(out[-1])
    return lines


@dataclass(frozen=True)
class Writer:
    """The provenance of a run of lines."""

    origin: str
    kind: str = "unknown"
    session_id: str | None = None
    writer: str = "api"
    observed_at: int = 0  # epoch ms


@dataclass
class Segment:
    start: int
    end: int
    hash: str
    who: Writer
    line_hashes: list[str]


@dataclass
class Record:
    path: str
    content_hash: str
    size: int
    segments: list[Segment] = field(default_factory=list)
    floor: str | None = None  # sticky least-trusted class for the whole file (flush quarantine)

    def verifies(self) -> bool:
        pos = 0
        for s in self.segments:
            if s.start != pos or s.end < s.start or not s.line_hashes:
                return False
            pos = s.end
        return pos == self.size

    def least_trusted(self) -> str:
        return least_trusted(self.floor, *(s.who.origin for s in self.segments))

    def lines(self) -> list[tuple[str, Writer]]:
        return [(h, s.who) for s in self.segments for h in s.line_hashes]


def _build(path: str, data: bytes, per_line: list[Writer], floor: str | None) -> Record:
    lines = split_lines(data)
    assert len(lines) == len(per_line)
    segments: list[Segment] = []
    pos = 0
    for line, who in zip(lines, per_line):
        end = pos + len(line)
        if segments and segments[-1].who is who:
            seg = segments[-1]
            seg.end = end
            seg.line_hashes.append(line_hash(line))
        else:
            segments.append(Segment(pos, end, "", who, [line_hash(line)]))
        pos = end
    for seg in segments:
        seg.hash = sha256(data[seg.start:seg.end])
    return Record(path, sha256(data), len(data), segments, floor)


def create(path: str, data: bytes, who: Writer) -> Record:
    """A record for a file seen for the first time: every line from ``who``."""
    return _build(path, data, [who] * len(split_lines(data)), None)


def create_lines(path: str, data: bytes, per_line: list[Writer]) -> Record:
    """A record for a file reverie writes whole whose lines have different writers (a session
    note: the owner's messages, the agent's, scaffolding)."""
    return _build(path, data, per_line, None)


def reconcile(record: Record, data: bytes, outside: Writer) -> tuple[Record, bool]:
    """``record`` brought up to date with ``data`` (the file now); True when it changed.

    Unchanged lines keep their writer; added or changed lines get ``outside``.
    """
    if record.content_hash == sha256(data) and record.size == len(data) and record.verifies():
        return record, False
    if not record.verifies():
        # The record cannot be trusted line by line: the whole file gets its least trusted class.
        fallback = Writer(record.least_trusted(), "unknown", None, "fallback", outside.observed_at)
        return _build(record.path, data, [fallback] * len(split_lines(data)), record.floor), True
    old = record.lines()
    old_hashes = [h for h, _ in old]
    new_lines = split_lines(data)
    new_hashes = [line_hash(x) for x in new_lines]
    per_line: list[Writer] = [outside] * len(new_lines)
    if len(old_hashes) > MAX_DIFF_LINES or len(new_hashes) > MAX_DIFF_LINES:
        p = 0
        while p < min(len(old_hashes), len(new_hashes)) and old_hashes[p] == new_hashes[p]:
            p += 1
        s = 0
        while (s < min(len(old_hashes), len(new_hashes)) - p
               and old_hashes[-1 - s] == new_hashes[-1 - s]):
            s += 1
        blocks = [(0, 0, p), (len(old_hashes) - s, len(new_hashes) - s, s)]
    else:
        import difflib  # an edited file only: a plain append never compares

        blocks = difflib.SequenceMatcher(None, old_hashes, new_hashes, autojunk=False).get_matching_blocks()
    for a, b, n in blocks:
        for k in range(n):
            per_line[b + k] = old[a + k][1]
    return _build(record.path, data, per_line, record.floor), True


def append(record: Record, data: bytes, old_size: int, who: Writer, *, sticky: bool = False) -> Record:
    """The record after reverie appended ``data[old_size:]`` to a file whose first ``old_size``
    bytes ``record`` describes (already reconciled). A newline reverie adds to end an unterminated
    last line stays with that line. With ``sticky`` (the flush), an untrusted or system writer
    lowers the whole file's floor."""
    old = record.lines()
    new_lines = split_lines(data)
    per_line: list[Writer] = []
    pos = 0
    for i, line in enumerate(new_lines):
        per_line.append(old[i][1] if pos < old_size and i < len(old) else who)
        pos += len(line)
    floor = record.floor
    if sticky and who.origin in ("untrusted", "system"):
        floor = least_trusted(floor, who.origin)
    return _build(record.path, data, per_line, floor)


def whole(record: Record, who: Writer, data: bytes) -> Record:
    """A file reverie wrote in one piece (a session note): one segment."""
    return _build(record.path, data, [who] * len(split_lines(data)), record.floor)


@dataclass
class RangeOrigin:
    origin: str
    kind: str
    observed_at: int | None  # epoch ms of the newest segment in the range
    sessions: frozenset[str]
    writers: frozenset[str]


def range_origin(record: Record, start_line: int, end_line: int) -> RangeOrigin:
    """Origin of lines ``start_line..end_line`` (1-based, inclusive): the least trusted overlapping
    segment, floored by the file's sticky class; lines past the end count as the whole file."""
    lines = record.lines()
    picked = [w for _, w in lines[max(0, start_line - 1):max(0, end_line)]]
    if not picked:
        picked = [w for _, w in lines]
    if not picked:
        return RangeOrigin(least_trusted(record.floor, "agent"), "unknown", None, frozenset(), frozenset())
    return RangeOrigin(least_trusted(record.floor, *(w.origin for w in picked)),
                       weakest_kind(*(w.kind for w in picked)),
                       max(w.observed_at for w in picked) or None,
                       frozenset(w.session_id for w in picked if w.session_id),
                       frozenset(w.writer for w in picked))


def fallback_origin(record: Record) -> RangeOrigin:
    """For text that no longer matches the record: the file's least trusted class."""
    segs = record.segments
    return RangeOrigin(record.least_trusted(), weakest_kind(*(s.who.kind for s in segs)) if segs else "unknown",
                       max((s.who.observed_at for s in segs), default=0) or None,
                       frozenset(s.who.session_id for s in segs if s.who.session_id),
                       frozenset(s.who.writer for s in segs))


def drop_sessions(record: Record, sessions: set[str]) -> list[tuple[int, int]]:
    """1-based inclusive line ranges written by ``sessions`` (what forget removes)."""
    out: list[tuple[int, int]] = []
    line = 1
    for s in record.segments:
        n = len(s.line_hashes)
        if s.who.session_id in sessions:
            if out and out[-1][1] == line - 1:
                out[-1] = (out[-1][0], line + n - 1)
            else:
                out.append((line, line + n - 1))
        line += n
    return out


def with_floor(record: Record, floor: str | None) -> Record:
    return replace(record, floor=floor)
