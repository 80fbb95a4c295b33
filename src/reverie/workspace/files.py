"""Opening memory files: regular files only, and never with an open that can block.

A FIFO named ``*.md`` makes a plain ``open()`` wait for a writer forever (and a device or socket
is no note either), which once hung ``get``, ``index`` and a first search, and under ``watch``
kept the sync lock held for good. So every open of a memory file here is non-blocking
(``O_NONBLOCK``: a FIFO opens at once, with no writer), and the kind of file is decided by
``fstat`` on the open descriptor, so a note swapped for a FIFO between a stat and the open is
still refused. Platforms without ``O_NONBLOCK`` (Windows) have no FIFOs in the file system.

Hard links: a note with more than one link may be the same file as one outside the workspace
(``ln /elsewhere/secret memory/x.md``). Reading and indexing refuse such files unless the owner
allows them (``memory.search.allowHardLinks``); see docs/guarantees.md.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation on os.read/os.write
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_READ_BLOCK = 1 << 20

HARD_LINK_SETTING = "memory.search.allowHardLinks"


class NotRegularFile(OSError):
    """The path names a FIFO, socket, device or folder: never read or written as a note."""

    def __init__(self, path: Path | str, kind: str):
        super().__init__(errno.EINVAL, f"not a regular file ({kind})", str(path))
        self.kind = kind


UNDECODABLE = "the name is not valid UTF-8 text; skipped (rename it)"


def undecodable(name: str) -> str | None:
    """The name with its bytes escaped (``\\xff``) when it is not valid UTF-8, else None. ``os.walk``
    and ``os.listdir`` hand such bytes over as surrogates, which no database, JSON document or
    terminal takes: a walker skips the name and reports it escaped."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return None


def kind_of(mode: int) -> str:
    """A human name for a file type (``stat.S_IFMT`` of ``mode``)."""
    for test, name in ((stat.S_ISREG, "regular file"), (stat.S_ISDIR, "folder"), (stat.S_ISFIFO, "FIFO"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISCHR, "character device"),
                       (stat.S_ISBLK, "block device"), (stat.S_ISLNK, "symlink")):
        if test(mode):
            return name
    return "special file"


def special_kind(st: os.stat_result) -> str | None:
    """None for a regular file, else what it is (for a problem line)."""
    return None if stat.S_ISREG(st.st_mode) else kind_of(st.st_mode)


def hard_link_problem(st: os.stat_result) -> str | None:
    """Why a file with other hard links is refused, or None when it has just one."""
    if st.st_nlink <= 1:
        return None
    return (f"has {st.st_nlink} hard links, so its content may live outside the workspace; "
            f"refused (set {HARD_LINK_SETTING} = true to allow)")


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, *,
                 follow_symlinks: bool = True) -> tuple[int, os.stat_result]:
    """``os.open`` that never blocks and only hands back a regular file: (fd, its fstat).

    Raises :class:`NotRegularFile` for anything else (the descriptor is closed first), and the
    usual OSError (FileNotFoundError, PermissionError, ...) when the open itself fails.
    """
    extra = _NONBLOCK | _BINARY | (0 if follow_symlinks else _NOFOLLOW)
    try:
        fd = os.open(path, flags | extra, mode)
    except OSError as exc:
        # Opening a socket fails with ENXIO, and so does a write-only open of a FIFO with no reader.
        if exc.errno == errno.ENXIO:
            raise NotRegularFile(path, "FIFO or socket") from None
        if exc.errno == errno.EISDIR:  # a folder opened for writing
            raise NotRegularFile(path, "folder") from None
        if exc.errno == errno.ELOOP and not follow_symlinks:
            raise NotRegularFile(path, "symlink") from None
        raise
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    kind = special_kind(st)
    if kind is not None:
        os.close(fd)
        raise NotRegularFile(path, kind)
    return fd, st


def read_regular(path: Path | str, *, max_bytes: int | None = None,
                 follow_symlinks: bool = True) -> tuple[bytes | None, os.stat_result]:
    """(content, fstat) of a regular file; content is None when it is larger than ``max_bytes``."""
    fd, st = open_regular(path, follow_symlinks=follow_symlinks)
    try:
        if max_bytes is not None and st.st_size > max_bytes:
            return None, st
        parts = []
        while True:
            block = os.read(fd, _READ_BLOCK)
            if not block:
                break
            parts.append(block)
        return b"".join(parts), st
    finally:
        os.close(fd)
