"""A memory file over the indexer's size limit: its entries are indexed, an oversized entry is not.

A daily note grows one entry at a time, and one enormous entry (20 MB pasted into ``remember``
before writes were capped, or appended by hand) used to take the whole file, every other entry
of the day with it, out of the index. Here the file is read as a stream of entries: an entry
starts at a line that does not begin with white space (a bullet, a heading) and runs over the
indented and blank lines after it. An entry over :data:`MAX_ENTRY_BYTES` keeps its first line,
cut short and marked, and its other lines become empty lines, so every later line keeps its
number (``reverie get PATH#L…`` still points at the right text). If what remains still passes
the file limit, the file is skipped as before: it is a large document, not a note with one big
entry. Memory stays bounded: no entry is held whole beyond the limit.
"""

from __future__ import annotations

import hashlib
import os

from ..workspace.files import open_regular
from ..workspace.writes import MAX_ENTRY_BYTES

LINE_PIECE = 64 * 1024  # bytes read at a time from one line
KEPT_PREFIX = 200       # characters of an oversized entry's first line that stay indexed


class _Reader:
    def __init__(self, limit: int):
        self.limit = limit
        self.out: list[bytes] = []
        self.size = 0           # bytes kept so far
        self.entry: list[bytes] = []  # the current entry's lines, while it is under the entry limit
        self.entry_bytes = 0
        self.entry_lines = 0
        self.entry_first = 0    # line number of the current entry's first line
        self.overflow = False   # the current entry passed the entry limit
        self.head = b""         # its first line's beginning (kept when it overflows)
        self.cut: list[tuple[int, int]] = []  # (first line, bytes) of each entry left out

    def line(self, number: int, data: bytes, starts_entry: bool) -> None:
        if starts_entry:
            self.end_entry()
            self.entry_first = number
        if not self.overflow:
            self.entry.append(data)
            if len(self.entry) == 1:
                self.head = data[:4 * KEPT_PREFIX]
        self.entry_bytes += len(data)
        self.entry_lines += 1 if data.endswith(b"\n") else 0
        if not self.overflow and self.entry_bytes > MAX_ENTRY_BYTES:
            self.overflow, self.entry = True, []

    def end_entry(self) -> None:
        if self.overflow:
            first = self.head.decode("utf-8", errors="replace").split("\n")[0][:KEPT_PREFIX].rstrip()
            marker = f"{first} … [entry of {self.entry_bytes:,} bytes not indexed: over the limit]\n"
            self.keep(marker.encode("utf-8") + b"\n" * max(0, self.entry_lines - 1))
            self.cut.append((self.entry_first, self.entry_bytes))
        else:
            self.keep(b"".join(self.entry))
        self.entry, self.entry_bytes, self.entry_lines, self.overflow, self.head = [], 0, 0, False, b""

    def keep(self, data: bytes) -> None:
        self.size += len(data)
        if self.size <= self.limit:
            self.out.append(data)


def read_oversized(path, limit: int) -> tuple[bytes | None, str, list[tuple[int, int]]]:
    """(the file's bytes with oversized entries blanked, or None when that is still over ``limit``;
    the SHA-256 of the file as it is on disk; (first line, bytes) of each entry left out)."""
    digest = hashlib.sha256()
    reader = _Reader(limit)
    fd, _ = open_regular(path, follow_symlinks=False)
    with os.fdopen(fd, "rb") as fh:
        number, at_line_start = 1, True
        while True:
            piece = fh.readline(LINE_PIECE)
            if not piece:
                break
            digest.update(piece)
            starts = at_line_start and piece[:1] not in (b" ", b"\t", b"\n", b"\r")
            reader.line(number, piece, starts)
            at_line_start = piece.endswith(b"\n")
            if at_line_start:
                number += 1
        reader.end_entry()
    if reader.size > limit:
        return None, digest.hexdigest(), reader.cut
    return b"".join(reader.out), digest.hexdigest(), reader.cut
