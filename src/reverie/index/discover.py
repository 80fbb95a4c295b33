"""Which files are memory: MEMORY.md, a root USER.md, memory/**/*.md (dot-folders and Dreaming's
reports in memory/dreaming/ skipped) and configured extra paths. Only regular files are taken,
judged by ``lstat`` (nothing is opened here): symlinks are skipped, so a symlink loop cannot trap
us, and so are FIFOs, sockets and devices named ``*.md`` (opening a FIFO would block) and, unless
the owner allows them, files with more than one hard link (they may be a file outside the
workspace). Each is reported as a problem."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..config import ExtraPath
from ..workspace.files import UNDECODABLE, hard_link_problem, kind_of
from ..workspace.files import undecodable as _undecodable
from ..workspace.globs import glob_match


@dataclass(frozen=True)
class SourceFile:
    path: str  # as stored: workspace-relative POSIX path, or absolute for extras outside it
    abspath: Path
    source: str = "memory"
    # generated text instead of the file's bytes: (text, raw, problem); table files use it
    render: Callable[[], tuple] | None = field(default=None, compare=False)


@dataclass
class Discovery:
    files: list[SourceFile] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)  # path -> why it was skipped


def _rel(workspace: Path, p: Path) -> str:
    try:
        return p.relative_to(workspace).as_posix()
    except ValueError:
        return p.as_posix()


def _refusal(p: Path, allow_hard_links: bool) -> str | None:
    """Why ``p`` is not taken as a memory file (None: take it). Missing files are None too."""
    try:
        st = os.lstat(p)
    except OSError:
        return None  # vanished since listing: the reader reports it if it matters
    if stat.S_ISLNK(st.st_mode):
        return "symlink skipped"
    if not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({kind_of(st.st_mode)}); skipped"
    if not allow_hard_links:
        why = hard_link_problem(st)
        if why:
            return f"{why}; skipped"
    return None


def _walk_markdown(root: Path, found: Discovery, workspace: Path, pattern: str | None = None,
                   allow_hard_links: bool = False, skip_top: tuple[str, ...] = ()) -> list[Path]:
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            if d.startswith(".") or d in ("node_modules", "__pycache__") or (here == root and d in skip_top):
                continue
            if _undecodable(d) is not None:  # one such name must not stop the whole index (issue 31)
                found.problems[_undecodable(_rel(workspace, here / d))] = UNDECODABLE
                continue
            if (here / d).is_symlink():
                found.problems[_rel(workspace, here / d)] = "symlinked folder skipped"
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            p = here / name
            if _undecodable(name) is not None:
                if pattern is not None or name.lower().endswith(".md"):
                    found.problems[_undecodable(_rel(workspace, p))] = UNDECODABLE
                continue
            if pattern is not None:
                if not glob_match(p.relative_to(root).as_posix(), pattern):
                    continue
            elif not name.lower().endswith(".md"):
                continue
            why = _refusal(p, allow_hard_links)
            if why:
                found.problems[_rel(workspace, p)] = why
                continue
            out.append(p)
    return out


def discover(workspace: Path, extra_paths: list[str | ExtraPath] | None = None, *,
             allow_hard_links: bool = False) -> Discovery:
    found = Discovery()
    seen: set[Path] = set()

    def add(p: Path) -> None:
        rp = p.absolute()
        if rp in seen:
            return
        seen.add(rp)
        found.files.append(SourceFile(_rel(workspace, p), p))

    memory_file = workspace / "MEMORY.md"
    if not memory_file.exists() and (workspace / "memory.md").exists():
        memory_file = workspace / "memory.md"  # only when MEMORY.md is absent: never both
    for p in (memory_file, workspace / "USER.md"):
        why = _refusal(p, allow_hard_links)
        if why:
            found.problems[_rel(workspace, p)] = why
        elif p.is_file():
            add(p)
    mem_dir = workspace / "memory"
    if mem_dir.is_symlink():
        found.problems["memory"] = "symlinked folder skipped"
    elif mem_dir.is_dir():
        # memory/dreaming/ holds Dreaming's phase reports: a review surface like DREAMS.md, not memory
        for p in _walk_markdown(mem_dir, found, workspace, allow_hard_links=allow_hard_links,
                                skip_top=("dreaming",)):
            add(p)
    for entry in extra_paths or []:
        raw, pattern = (entry, None) if isinstance(entry, str) else (entry.path, entry.pattern)
        p = Path(raw).expanduser()
        if not p.is_absolute():
            p = workspace / p
        if p.is_symlink():
            found.problems[_rel(workspace, p)] = "symlink skipped"
        elif p.is_dir():
            for f in _walk_markdown(p, found, workspace, pattern, allow_hard_links):
                add(f)
        elif p.exists():
            why = _refusal(p, allow_hard_links)
            if why:
                found.problems[_rel(workspace, p)] = why
            else:
                add(p)  # an explicitly listed file is indexed whatever its extension
        # a missing extra path is ignored (it may appear later); status lists configured extras
    from ..tables.describe import table_sources  # structured memory: each table file's description

    tables, problems = table_sources(workspace)
    found.files += [SourceFile(path, abspath, "table", render) for path, abspath, render in tables]
    found.problems.update(problems)
    return found
