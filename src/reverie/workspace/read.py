"""Reading memory files for ``memory_get``: only memory paths, never outside the workspace.

Allowed: ``MEMORY.md``, ``USER.md``, ``DREAMS.md`` and ``memory/**/*.md`` inside the workspace,
Markdown under a configured extra folder (matching its glob), or an explicitly listed extra file.
Refused with a clear error: ``..`` escapes, absolute paths elsewhere, symlinks anywhere on the
way, non-Markdown files, anything but a regular file (a FIFO is never opened in a way that
blocks), and files with more than one hard link unless ``memory.search.allowHardLinks`` is on.
A missing file is ``not_found``, not an error. NUL bytes and invalid UTF-8 are shown as U+FFFD
with a ``warning``, so one bad segment never hides the rest of a note.
"""

from __future__ import annotations

from pathlib import Path

from ..config import ExtraPath
from ..errors import UserError
from .files import NotRegularFile, hard_link_problem, read_regular
from .globs import glob_match
from .textclean import decode_note

DEFAULT_LINES = 120
DEFAULT_MAX_CHARS = 12_000
_ROOT_FILES = {"MEMORY.md", "memory.md", "USER.md", "DREAMS.md"}
MORE_NOTICE = "[More content available. Use from={n} to continue.]"
CUT_NOTICE = ("[More content available. Requested excerpt exceeded the default maxChars budget. "
              "If you need the full raw line, use read on the source file.]")


class PathRefused(UserError):
    pass


PATH_MAX = 4096  # bytes, with the terminating NUL: longer paths fail every system call (ENAMETOOLONG)
SHOWN_MAX = 160  # characters of a path a refusal shows; a longer one is cut in the middle


def shown(path: str) -> str:
    """A path as a refusal names it: as it is, or quoted with escapes when it holds a newline or
    another character that does not print (a refusal is one line, and hides nothing); a very long
    one keeps its start and its end, and says how long it was."""
    text = path if path.isprintable() else repr(path)
    if len(text) <= SHOWN_MAX:
        return text
    return f"{text[:100]}…{text[-40:]} ({len(path.encode('utf-8', 'surrogateescape')):,} bytes)"


def _quoted(raw: str) -> str:
    """``raw`` in quotes, as ``repr`` gives it, cut like :func:`shown` when very long."""
    return repr(raw) if len(raw) <= SHOWN_MAX else repr(raw[:100]) + f"…{repr(raw[-40:])} ({len(raw):,} characters)"


def _no_symlinks(root: Path, target: Path) -> None:
    rel = target.relative_to(root)
    cur = root
    for part in rel.parts:
        cur = cur / part
        if cur.is_symlink():
            raise PathRefused(f"path refused: {shown(rel.as_posix())} goes through a symlink ({shown(cur.name)})")


def _refuse_unusable(raw: str) -> None:
    """Names no file system can hold, refused before any system call fails on them."""
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise PathRefused("path refused: the path is not valid Unicode text (it holds a lone surrogate)") from None
    if any(len(part.encode("utf-8")) > 255 for part in raw.replace("\\", "/").split("/")):
        raise PathRefused("path refused: a name in the path is longer than 255 bytes")


def resolve_memory_path(workspace: Path, raw: str, extra_paths: list[str | ExtraPath] | None = None) -> tuple[Path, str]:
    """(absolute path, display path) for an allowed memory path, else raise PathRefused."""
    if not isinstance(raw, str) or not raw.strip():
        raise PathRefused("path required: give a memory file path such as MEMORY.md or memory/2026-07-01.md")
    raw = raw.strip()
    if "\x00" in raw:  # the OS cannot open it: a ValueError from open() would surface as an internal error
        raise PathRefused("path refused: the path contains a NUL character")
    _refuse_unusable(raw)
    ws = workspace.absolute()
    try:
        candidate = Path(raw).expanduser()
    except RuntimeError:  # ~someone with no such user
        raise PathRefused(f"path refused: {_quoted(raw)}: no such user for '~'") from None
    if ".." in candidate.parts:
        raise PathRefused(f"path refused: {_quoted(raw)} contains '..'")
    absolute = candidate if candidate.is_absolute() else ws / candidate
    size = len(str(absolute).encode("utf-8"))
    if size >= PATH_MAX:  # every stat would fail with ENAMETOOLONG: refuse it here, in one short line
        raise PathRefused(f"path refused: {shown(raw)} is too long ({size:,} bytes with the workspace; "
                          f"at most {PATH_MAX - 1:,})")
    # inside the workspace: only memory paths, Markdown only
    try:
        rel = absolute.relative_to(ws)
    except ValueError:
        rel = None
    if rel is not None:
        parts = rel.parts
        is_memory = (len(parts) == 1 and parts[0] in _ROOT_FILES) or (len(parts) > 1 and parts[0] == "memory")
        if is_memory:
            if not absolute.name.lower().endswith(".md"):
                raise PathRefused(f"path refused: {shown(rel.as_posix())} is not a Markdown (.md) file")
            _no_symlinks(ws, absolute)
            return absolute, rel.as_posix()
    # configured extra paths
    for entry in extra_paths or []:
        ep, pattern = (entry, None) if isinstance(entry, str) else (entry.path, entry.pattern)
        base = Path(ep).expanduser()
        base = base if base.is_absolute() else ws / base
        if absolute == base and base.is_file() and not base.is_symlink():
            return absolute, raw  # an explicitly listed extra file, whatever its extension
        try:
            sub = absolute.relative_to(base)
        except ValueError:
            continue
        if pattern:
            # the configured glob decides, as it does for indexing (it may name .txt files)
            if not glob_match(sub.as_posix(), pattern):
                continue
        elif not absolute.name.lower().endswith(".md"):
            raise PathRefused(f"path refused: {shown(raw)} is not a Markdown (.md) file")
        if base.is_symlink():
            raise PathRefused(f"path refused: extra path {shown(str(ep))} is a symlink")
        _no_symlinks(base, absolute)
        return absolute, raw
    raise PathRefused(f"path refused: {_quoted(raw)} is not a memory file (MEMORY.md, USER.md, memory/**/*.md "
                      "or a configured extra path)")


def read_window(path: Path, display: str, from_line: int = 1, lines: int = DEFAULT_LINES,
                max_chars: int = DEFAULT_MAX_CHARS, *, allow_hard_links: bool = False) -> dict:
    if not isinstance(from_line, int) or from_line < 1:
        raise UserError("from must be a whole number of at least 1")
    if not isinstance(lines, int) or lines < 1:
        raise UserError("lines must be a whole number of at least 1")
    try:
        raw, st = read_regular(path, follow_symlinks=False)
    except FileNotFoundError:
        return {"status": "not_found", "text": "", "path": display}
    except NotRegularFile as exc:
        what = "a folder" if exc.kind == "folder" else f"not a regular file ({exc.kind})"
        raise PathRefused(f"path refused: {shown(display)} is {what}") from None
    except IsADirectoryError:
        raise PathRefused(f"path refused: {shown(display)} is a folder") from None
    except OSError as exc:
        return {"path": display, "text": "", "disabled": True, "error": f"cannot read: {exc.strerror or exc}"}
    why = None if allow_hard_links else hard_link_problem(st)
    if why:
        raise PathRefused(f"path refused: {shown(display)} {why}")
    content, problem = decode_note(raw or b"")
    if content is None:
        return {"path": display, "text": "", "disabled": True, "error": problem}
    out = _window(content, display, from_line, lines, max_chars)
    if problem:
        out["warning"] = problem
    return out


def _window(content: str, display: str, from_line: int, lines: int, max_chars: int) -> dict:
    all_lines = content.split("\n")
    if content.endswith("\n"):
        all_lines.pop()  # the newline ends the last line; it does not start another
    window = all_lines[from_line - 1:from_line - 1 + lines]
    out: dict = {"path": display, "from": from_line}
    truncated_by_chars = False
    while window and len("\n".join(window)) > max_chars and len(window) > 1:
        window.pop()
        truncated_by_chars = True
    text = "\n".join(window)
    if len(window) == 1 and len(text) > max_chars:  # one enormous line: hard-cut it
        out.update(text=text[:max_chars] + "\n" + CUT_NOTICE, lines=1, truncated=True)
        if from_line + 1 <= len(all_lines):
            out["nextFrom"] = from_line + 1
        return out
    next_from = from_line + len(window)
    out["lines"] = len(window)
    if next_from <= len(all_lines) and (truncated_by_chars or len(window) == lines):
        out.update(text=text + "\n" + MORE_NOTICE.format(n=next_from), truncated=True, nextFrom=next_from)
    else:
        out["text"] = text
    return out
