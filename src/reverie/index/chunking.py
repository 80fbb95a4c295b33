"""Markdown chunking (reference §6.2) with CJK-weighted budgets and 1-based line ranges.

Budget: ``tokens x 4`` weighted characters per chunk (a CJK code point weighs 4), ``overlap x 4``
carried into the next chunk. A heading never ends a chunk on its own: it moves to the chunk that
holds the content it introduces.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ..text.cjk import weighted_length


@dataclass(frozen=True)
class Chunk:
    start_line: int
    end_line: int
    text: str
    hash: str


@dataclass
class _Seg:
    line: int
    text: str
    cost: int

    @property
    def heading(self) -> bool:
        return self.text.lstrip().startswith("#")


def _split_line(line: str, max_chars: int, tokens: int) -> list[str]:
    if weighted_length(line) <= max_chars:
        return [line]
    pieces: list[str] = []
    for i in range(0, len(line), max_chars):
        piece = line[i:i + max_chars]
        if weighted_length(piece) <= max_chars:
            pieces.append(piece)
        else:  # CJK-heavy: re-cut so a piece stays within budget (Python strings never split pairs)
            pieces.extend(piece[j:j + tokens] for j in range(0, len(piece), tokens))
    return pieces


def _emit(segs: list[_Seg]) -> Chunk | None:
    body = list(segs)
    while body and not body[-1].text.strip():
        body.pop()
    while body and not body[0].text.strip():
        body.pop(0)
    if not body or all(s.heading or not s.text.strip() for s in body):
        return None  # headings alone say nothing; they travel with the content they introduce
    text = "\n".join(s.text for s in body)
    return Chunk(body[0].line, body[-1].line, text, hashlib.sha256(text.encode("utf-8")).hexdigest())


def chunk_markdown(content: str, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    max_chars = max(32, tokens * 4)
    overlap_chars = overlap * 4
    chunks: list[Chunk] = []
    current: list[_Seg] = []
    cost = 0

    def flush() -> int:
        """Emit what fits; return how many segments (trailing headings) moved to the next chunk."""
        nonlocal current, cost
        # The trailing run of headings (and blank lines) moves to the next chunk with its content;
        # the whole run, not only the last heading: with "# Trip" over
        # "## Hotel", moving "## Hotel" alone left "# Trip" ending a chunk, or (when nothing else
        # was before it) in no chunk at all. Bounded so a file of headings alone still advances.
        split = len(current)
        i = len(current) - 1
        block = 0
        while i >= 0 and (current[i].heading or not current[i].text.strip()):
            block += current[i].cost
            if block > max_chars // 2:
                break
            if current[i].heading:
                split = i
            i -= 1
        emit, moved = current[:split], current[split:]
        chunk = _emit(emit)
        if chunk is not None:
            chunks.append(chunk)
        carry: list[_Seg] = []
        acc = 0
        for seg in reversed(emit):
            if acc >= overlap_chars:
                break
            carry.insert(0, seg)
            acc += seg.cost
        if chunk is None:
            carry = []  # nothing was emitted: do not repeat what was never a chunk
        current = carry + moved
        cost = sum(s.cost for s in current)
        return len(moved)

    for lineno, line in enumerate(content.split("\n"), start=1):
        for piece in _split_line(line, max_chars, tokens):
            seg = _Seg(lineno, piece, weighted_length(piece) + 1)
            if current and cost + seg.cost > max_chars:
                moved = flush()
                # The carry must leave room for the new segment, but a moved heading stays even when
                # the segment is a full-budget piece of a long line: dropping it lost the heading from
                # every chunk (a heading followed by a long line was never indexed).
                while len(current) > moved and cost + seg.cost > max_chars:
                    current.pop(0)
                    cost = sum(s.cost for s in current)
            current.append(seg)
            cost += seg.cost
    if current:
        chunk = _emit(current)
        if chunk is not None and (not chunks or chunk != chunks[-1]):
            chunks.append(chunk)
    return chunks
