"""Reading table rows straight from the pages of an SQLite file, for salvage only.

When the schema of a damaged database cannot be read (a truncated file whose schema pages were at
its end is the common case), SQLite refuses every statement, although most tables' pages are
intact. This reader follows the documented file format (https://www.sqlite.org/fileformat2.html)
far enough to walk a table b-tree from its root page and decode its records: page 1's schema
table gives every table's root page, and each readable leaf gives its rows. Pages past the end of
the file, pages that are not what their parent says, and loops are skipped and counted. Committed
frames of a ``-wal`` file are applied first, as SQLite would.

It reads rowid tables only (interior 0x05 and leaf 0x0D pages); indexes are rebuilt by SQLite
from the copied rows anyway.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

MAGIC = b"SQLite format 3\x00"
_WAL_MAGIC = (0x377F0682, 0x377F0683)
LEAF_TABLE, INTERIOR_TABLE = 0x0D, 0x05
LEAF_INDEX, INTERIOR_INDEX = 0x0A, 0x02


def varint(buf: bytes, pos: int) -> tuple[int, int]:
    """(value, next position) of the big-endian variable-length integer at ``pos``."""
    value = 0
    for i in range(8):
        byte = buf[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return _signed(value), pos + i + 1
    value = (value << 8) | buf[pos + 8]
    return _signed(value), pos + 9


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= (1 << 63) else v


def decode_record(payload: bytes) -> list:
    """The values of one record (header of serial types, then the bodies)."""
    header_size, pos = varint(payload, 0)
    types = []
    while pos < header_size:
        t, pos = varint(payload, pos)
        types.append(t)
    body = header_size
    out: list = []
    for t in types:
        if t == 0:
            out.append(None)
        elif 1 <= t <= 6:
            size = (1, 2, 3, 4, 6, 8)[t - 1]
            out.append(int.from_bytes(payload[body:body + size], "big", signed=True))
            body += size
        elif t == 7:
            out.append(struct.unpack(">d", payload[body:body + 8])[0])
            body += 8
        elif t in (8, 9):
            out.append(t - 8)
        elif t >= 12:
            size = (t - 12) // 2
            chunk = payload[body:body + size]
            if len(chunk) != size:
                raise ValueError("record runs past its payload")
            out.append(chunk.decode("utf-8", "replace") if t % 2 else bytes(chunk))
            body += size
        else:
            raise ValueError(f"reserved serial type {t}")
    return out


@dataclass
class WalkStats:
    pages: int = 0
    bad_pages: int = 0
    bad_cells: int = 0
    seen: set = field(default_factory=set)  # page numbers reached


class RawDatabase:
    """The pages of one database file (plus its committed WAL frames)."""

    def __init__(self, path: Path, page_size: int | None = None):
        self.data = Path(path).read_bytes()
        head = self.data[:100]
        if page_size is None and head.startswith(MAGIC):
            raw = struct.unpack(">H", head[16:18])[0]
            page_size = 65536 if raw == 1 else raw
        self.page_size = page_size or guess_page_size(self.data)
        reserved = head[20] if head.startswith(MAGIC) else 0
        self.usable = self.page_size - reserved
        self.overlay: dict[int, bytes] = {}
        self._load_wal(Path(f"{path}-wal"))
        self.header_ok = head.startswith(MAGIC)
        declared = struct.unpack(">I", head[28:32])[0] if self.header_ok else 0
        self.page_count = max(len(self.data) // self.page_size, max(self.overlay, default=0))
        # pages the header says exist but the file does not have (a truncated file)
        self.missing_pages = max(0, declared - self.page_count) if declared else 0

    def _load_wal(self, wal: Path) -> None:
        try:
            data = wal.read_bytes()
        except OSError:
            return
        if len(data) < 32 or struct.unpack(">I", data[:4])[0] not in _WAL_MAGIC:
            return
        page_size = struct.unpack(">I", data[8:12])[0]
        if page_size != self.page_size:
            return
        salts = data[16:24]
        frame, pending = 32, {}
        while frame + 24 + page_size <= len(data):
            pgno, commit = struct.unpack(">II", data[frame:frame + 8])
            if data[frame + 8:frame + 16] != salts:
                break  # frames of an older generation of the WAL
            pending[pgno] = data[frame + 24:frame + 24 + page_size]
            if commit:  # a commit frame: everything up to here is a committed transaction
                self.overlay.update(pending)
                pending = {}
            frame += 24 + page_size

    def page(self, n: int) -> bytes | None:
        if n < 1:
            return None
        if n in self.overlay:
            return self.overlay[n]
        start = (n - 1) * self.page_size
        chunk = self.data[start:start + self.page_size]
        return chunk if len(chunk) == self.page_size else None

    def rows(self, root: int, stats: WalkStats | None = None, *, any_kind: bool = False
             ) -> Iterator[tuple[int, list]]:
        """(rowid, values) of every readable row of the table b-tree at ``root``. With
        ``any_kind`` an index b-tree is walked too (to mark its pages reached; it yields nothing)."""
        stats = stats or WalkStats()
        kinds = (LEAF_TABLE, INTERIOR_TABLE) + ((LEAF_INDEX, INTERIOR_INDEX) if any_kind else ())
        todo = [root]
        while todo:
            n = todo.pop()
            if n in stats.seen:
                stats.bad_pages += 1  # a loop: a damaged child pointer
                continue
            page = self.page(n)
            base = 100 if n == 1 else 0
            if page is None or len(page) <= base + 12 or page[base] not in kinds:
                stats.bad_pages += 1
                continue
            stats.seen.add(n)
            stats.pages += 1
            kind = page[base]
            cells = self._cells(page, base)
            if kind in (INTERIOR_TABLE, INTERIOR_INDEX):
                right = struct.unpack(">I", page[base + 8:base + 12])[0]
                children = [struct.unpack(">I", page[c:c + 4])[0] for c in cells if c + 4 <= len(page)]
                todo.extend(reversed([*children, right]))  # left to right: rowid order
                continue
            if kind == LEAF_INDEX:
                continue
            for c in cells:
                try:
                    yield self._leaf_cell(page, c)
                except (ValueError, IndexError, struct.error, UnicodeError):
                    stats.bad_cells += 1

    @staticmethod
    def _cells(page: bytes, base: int) -> list[int]:
        count = struct.unpack(">H", page[base + 3:base + 5])[0]
        ptrs = base + (8 if page[base] in (LEAF_TABLE, LEAF_INDEX) else 12)
        return [struct.unpack(">H", page[ptrs + 2 * i:ptrs + 2 * i + 2])[0] for i in range(count)
                if ptrs + 2 * i + 2 <= len(page)]

    def freelist(self) -> set[int]:
        """Pages on the freelist (their content is stale), as far as it can be followed."""
        out: set[int] = set()
        if not self.header_ok:
            return out
        trunk = struct.unpack(">I", self.data[32:36])[0]
        while trunk and trunk not in out:
            page = self.page(trunk)
            if page is None:
                break
            out.add(trunk)
            nxt, count = struct.unpack(">II", page[:8])
            limit = min(count, (self.usable - 8) // 4)
            out.update(struct.unpack(">I", page[8 + 4 * i:12 + 4 * i])[0] for i in range(limit))
            trunk = nxt
        return out

    def orphan_leaves(self, reached: set[int]) -> Iterator[tuple[int, list[tuple[int, list]]]]:
        """(page number, its readable rows) for each table leaf page outside ``reached``."""
        for n in range(2, self.page_count + 1):
            if n in reached:
                continue
            page = self.page(n)
            if page is None or page[0] != LEAF_TABLE:
                continue
            rows = []
            for c in self._cells(page, 0):
                try:
                    rows.append(self._leaf_cell(page, c))
                except (ValueError, IndexError, struct.error, UnicodeError):
                    continue
            yield n, rows

    def _leaf_cell(self, page: bytes, pos: int) -> tuple[int, list]:
        size, pos = varint(page, pos)
        rowid, pos = varint(page, pos)
        if size < 0 or size > 1 << 31:
            raise ValueError("bad payload size")
        u = self.usable
        x = u - 35
        if size <= x:
            payload = page[pos:pos + size]
        else:
            m = ((u - 12) * 32 // 255) - 23
            k = m + ((size - m) % (u - 4))
            local = k if k <= x else m
            payload = bytearray(page[pos:pos + local])
            nxt = struct.unpack(">I", page[pos + local:pos + local + 4])[0]
            hops = 0
            while len(payload) < size:
                over = self.page(nxt)
                hops += 1
                if over is None or hops > 1_000_000:
                    raise ValueError("overflow chain broken")
                nxt = struct.unpack(">I", over[:4])[0]
                payload += over[4:u]
            payload = bytes(payload[:size])
        if len(payload) != size:
            raise ValueError("payload cut short")
        return rowid, decode_record(payload)


def guess_page_size(data: bytes) -> int:
    """For a file whose header is gone: the page size that the file length and the b-tree pages
    agree on (page 2 onwards must start with a page type byte, if they are b-tree pages)."""
    valid = (0x02, 0x05, 0x0A, 0x0D)
    best, score = 4096, -1.0
    for size in (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512):  # the default first: it wins ties
        pages = range(1, min(len(data) // size, 64))
        if not pages:
            continue
        # the share of would-be page starts holding a b-tree page type (a smaller size than the
        # real one also probes the middle of pages, a larger one skips real pages: both score less)
        share = sum(1 for p in pages if data[p * size] in valid) / len(pages)
        if share > score:
            best, score = size, share
    return best
