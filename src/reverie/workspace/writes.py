"""Safe writes to workspace files. Every feature writes through here.

* Daily notes are append-only: bytes already in the file are never rewritten. Appends to one
  folder's notes take a cross-process lock (:mod:`reverie.locks`, on a hidden ``.reverie-append.lock``
  beside the notes, so it works on Windows too) and are never interleaved. Text is cleaned of
  NUL and other control characters first (:mod:`.textclean`); a FIFO or other non-regular file
  in a note's place is refused, never opened in a way that blocks.
* A curated file is replaced by compare-and-set: the content hash is captured when the change is
  planned and checked again right before the atomic rename; temp file + fsync + rename; the file
  mode is kept; a symlink is written through to its target; the previous content is kept as a
  preimage; a file that is not valid UTF-8 is refused, never rewritten.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ContextManager

from ..errors import UserError, WriteConflict
from .files import NotRegularFile, open_regular, read_regular
from .textclean import clean_text

PREIMAGES_KEPT = 8
# The most one write to a daily note may add. A note is a few lines; a document belongs in a file of
# its own. (The indexer leaves an entry over this out of the index, and the rest of the file in.)
MAX_ENTRY_BYTES = 1024 * 1024
AppendGuard = Callable[[Path, int, bytes], ContextManager]
APPEND_LOCK = ".reverie-append.lock"  # dot-named: discovery and watch never take it for a note

if TYPE_CHECKING:  # pragma: no cover
    from ..locks import FileLock


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def daily_note_path(workspace: Path, when: datetime) -> Path:
    return workspace / "memory" / f"{when.strftime('%Y-%m-%d')}.md"


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def append_lock(folder: Path) -> "FileLock":
    """The lock every append to a note in ``folder`` holds (one per folder: appends are tiny).

    A separate lock file rather than a lock on the note itself: on Windows a lock on a file's
    bytes also stops other processes reading them, and the indexer reads notes while we append.
    The lock file is kept, never unlinked: unlinking a lock file on release lets two writers
    each hold a lock on a different inode.
    """
    from ..locks import FileLock

    return FileLock(folder / APPEND_LOCK)


def append_text(path: Path, text: str, *, header: str = "", guard: AppendGuard | None = None) -> int:
    """Append ``text`` to ``path`` (created if missing), on a line of its own. Returns bytes written.

    Uses O_APPEND under an exclusive lock, so concurrent writers interleave whole entries and
    nothing already in the file is touched. ``header`` is written first only if the file is empty.
    Control characters other than tab and newline are removed first (see :func:`clean_text`).
    ``guard(path, offset, data)``, when given, is entered under the lock around the write (the
    trust layer records the appended segment's provenance there; an error inside aborts both).
    """
    text = clean_text(text).text
    if not text:
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with append_lock(Path(os.path.realpath(path)).parent):
        try:
            # Read-write so the last byte can be checked through the same descriptor (a second
            # open by name could meet a different file); O_APPEND still sends every write to the end.
            fd, st = open_regular(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        except NotRegularFile as exc:
            raise UserError(f"{path} is a {exc.kind}, not a regular file; nothing written") from None
        try:
            size = st.st_size
            prefix = b""
            if size:
                os.lseek(fd, size - 1, os.SEEK_SET)
                if os.read(fd, 1) != b"\n":
                    prefix = b"\n"
            # The header is decided here, under the lock: deciding it before (path.exists()) let two
            # writers racing on a new daily note both write it.
            data = prefix + ((header if not size else "") + text).encode("utf-8")
            if not data.endswith(b"\n"):
                data += b"\n"
            with guard(path, size, data) if guard is not None else contextlib.nullcontext():
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            return written
        finally:
            os.close(fd)


def format_bullet(text: str, when: datetime) -> str:
    """A timestamped bullet; continuation lines are indented so they stay with their entry."""
    lines = [ln.rstrip() for ln in text.strip().splitlines()]
    lines = [ln for ln in lines] or [""]
    first = f"- {when.strftime('%H:%M')} {lines[0]}".rstrip()
    rest = [f"  {ln}" if ln else "" for ln in lines[1:]]
    return "\n".join([first, *rest])


def check_entry_size(size: int, *, read_all: bool = True) -> None:
    """Refuse an entry over :data:`MAX_ENTRY_BYTES` before anything is written (``read_all``
    off: ``size`` is only what was read of a longer stream)."""
    if size > MAX_ENTRY_BYTES:
        how = f"{size:,} bytes" if read_all else f"over {MAX_ENTRY_BYTES:,} bytes"
        raise UserError(f"the note is too long ({how}; at most {MAX_ENTRY_BYTES:,} per note): nothing was "
                        "remembered; keep a long document as a file of its own under memory/")


def append_daily(workspace: Path, text: str, *, now: datetime | None = None,
                 tz: tzinfo | None = None, bullet: bool = True, guard: AppendGuard | None = None) -> Path:
    """Append an entry to today's note ``memory/YYYY-MM-DD.md`` (today in ``tz``).

    Control characters are removed first (:func:`clean_text`); callers that must tell the writer
    what was removed clean the text themselves before calling."""
    text = clean_text(text or "").text
    if not text.strip():
        raise UserError("nothing to remember: the text is empty")
    check_entry_size(len(text.encode("utf-8")))
    when = (now or datetime.now(tz)).astimezone(tz) if tz else (now or datetime.now().astimezone())
    path = daily_note_path(workspace, when)
    body = format_bullet(text, when) if bullet else text.rstrip("\n")
    append_text(path, body, header=f"# {when.strftime('%Y-%m-%d')}\n\n", guard=guard)
    return path


@dataclass(frozen=True)
class ReplacePlan:
    """A planned rewrite: which file, its real target, and the content it was planned against."""

    path: Path
    target: Path
    expected_hash: str
    text: str
    mode: int | None


def plan_replace(path: Path) -> ReplacePlan:
    """Read a file (through a symlink) and capture its hash for a later compare-and-set."""
    target = Path(os.path.realpath(path))
    try:
        data, st = read_regular(target)
        mode = stat.S_IMODE(st.st_mode)
    except FileNotFoundError:
        data, mode = b"", None
    except NotRegularFile as exc:
        raise UserError(f"{path} is a {exc.kind}, not a regular file; reverie never rewrites it") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"{path} is not valid UTF-8; reverie never rewrites it") from None
    return ReplacePlan(path=path, target=target, expected_hash=sha256_bytes(data), text=text, mode=mode)


def _current_hash(target: Path) -> str:
    try:
        return sha256_bytes(read_regular(target)[0] or b"")
    except NotRegularFile as exc:  # never equal to a planned hash: a FIFO now is a change
        return f"not a regular file: {exc.kind}"
    except FileNotFoundError:
        return sha256_bytes(b"")


def _keep_preimage(plan: ReplacePlan, preimage_dir: Path) -> Path | None:
    if not plan.text:
        return None
    preimage_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S%f")
    dest = preimage_dir / f"{plan.target.name}.{stamp}"
    tmp = preimage_dir / f".{dest.name}.tmp"  # whole or absent: a kill never leaves half a preimage
    with open(tmp, "wb") as fh:
        fh.write(plan.text.encode("utf-8"))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, dest)
    olds = sorted(preimage_dir.glob(f"{plan.target.name}.*"))
    for old in olds[:-PREIMAGES_KEPT]:
        old.unlink(missing_ok=True)
    return dest


# Errors of a folder that refuses a new file or a rename (not of the data): the only ones after
# which a caller may ask for the in-place fallback.
_BLOCKED = {errno.EACCES, errno.EPERM, errno.EEXIST, errno.EROFS}


class ReplaceBlocked(OSError):
    """The folder refused the atomic replace (permissions, read-only mount)."""


def apply_replace(plan: ReplacePlan, new_text: str, *, preimage_dir: Path | None = None,
                  in_place_fallback: bool = False) -> Path | None:
    """Replace the planned file with ``new_text`` if it still holds what was planned.

    Raises :class:`WriteConflict` when the file changed since :func:`plan_replace` (checked before
    writing and again just before the rename). Returns the preimage path, if one was kept.

    When the folder refuses the temp file or the rename (a permission error), the write fails with
    :class:`ReplaceBlocked`, unless ``in_place_fallback``: then the file is rewritten in place
    (checked once more, written, truncated, synced), and its original bytes are put back if that
    fails. Only appends may ask for it; a rewrite that removes text must be atomic.
    """
    from .. import faults

    if _current_hash(plan.target) != plan.expected_hash:
        raise WriteConflict(f"{plan.path} changed since the rewrite was planned; nothing written")
    folder = plan.target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        import tempfile  # a curated file's replacement only: ~8 ms of every cold append otherwise

        fd, tmp_name = tempfile.mkstemp(prefix=f".{plan.target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        if exc.errno not in _BLOCKED:
            raise
        return _blocked(plan, new_text, preimage_dir, in_place_fallback, exc)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(new_text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, plan.mode if plan.mode is not None else 0o644)
        faults.point("replace:temp-written")
        preimage = _keep_preimage(plan, preimage_dir) if preimage_dir else None
        faults.point("replace:before-rename")
        if _current_hash(plan.target) != plan.expected_hash:  # the last look before the rename
            raise WriteConflict(f"{plan.path} changed while the rewrite was being written; nothing written")
        try:
            os.replace(tmp, plan.target)
        except OSError as exc:
            if exc.errno not in _BLOCKED:
                raise
            return _blocked(plan, new_text, None, in_place_fallback, exc) or preimage
        faults.point("replace:renamed")
        _fsync_dir(folder)
        return preimage
    finally:
        if tmp.exists():
            tmp.unlink()


def _blocked(plan: ReplacePlan, new_text: str, preimage_dir: Path | None, in_place: bool,
             exc: OSError) -> Path | None:
    if not in_place:
        raise ReplaceBlocked(exc.errno, f"{plan.path}: the folder blocked the atomic replace ({exc.strerror})")
    preimage = _keep_preimage(plan, preimage_dir) if preimage_dir else None
    original = plan.text.encode("utf-8")
    fd, _ = open_regular(plan.target, os.O_RDWR)
    try:
        data = b""
        while chunk := os.read(fd, 1 << 20):
            data += chunk
        if sha256_bytes(data) != plan.expected_hash:
            raise WriteConflict(f"{plan.path} changed while the rewrite was being written; nothing written")
        try:
            _overwrite(fd, new_text.encode("utf-8"))
        except BaseException:
            _overwrite(fd, original)  # put the original bytes back
            raise
    finally:
        os.close(fd)
    return preimage


def _overwrite(fd: int, data: bytes) -> None:
    os.lseek(fd, 0, os.SEEK_SET)
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], written)
    os.ftruncate(fd, len(data))
    os.fsync(fd)
