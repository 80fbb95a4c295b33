"""``reverie import markdown PATH``: a folder of Markdown notes (an Obsidian vault, a journal)
moved into a reverie agent's memory.

Files are copied byte for byte: front matter stays, ``[[wiki links]]`` stay as text. A file whose
name starts with a date (``2026-07-01.md``, ``2026_07_01 Tuesday.md``, ``20260701-standup.md``)
becomes that day's note: ``memory/2026-07-01.md`` when its name is only the date and that note is
free, else ``memory/2026-07-01-<rest of the name, or the folder>.md``, so it is searched and
decays as a daily note. Every other note keeps its place under ``memory/imports/<name>/``
(indexed, never merged into ``MEMORY.md``, as the reference keeps imported memories). Hidden
folders (``.obsidian``, ``.trash``, ``.git``) and files that are not Markdown are left and listed.
"""

from __future__ import annotations

import os
import re
from datetime import date
from pathlib import Path

from ..errors import UserError
from .copying import Copy, Report, classify
from .target import finish_files

MARKDOWN = (".md", ".markdown")
_DATED = re.compile(r"^(\d{4})[-_.]?(\d{2})[-_.]?(\d{2})(?=$|[^0-9])[\s_\-.,]*(.*)$")


def slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.lower()).strip("-_")


def note_date(stem: str) -> tuple[str, str] | None:
    """(YYYY-MM-DD, the rest of the name) when the name starts with a real date."""
    m = _DATED.match(stem)
    if not m:
        return None
    try:
        day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    return day.isoformat(), m.group(4)


def _walk(root: Path, report: Report) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        keep = []
        for d in sorted(dirnames):
            rel = (here / d).relative_to(root).as_posix()
            if (here / d).is_symlink():
                report.leave(f"{rel}/", "symlink")
            elif d.startswith(".") or d == "node_modules":
                report.leave(f"{rel}/", "hidden or tool folder (app settings, trash, version control)")
            else:
                keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            p = here / name
            rel = p.relative_to(root).as_posix()
            if p.is_symlink():
                report.leave(rel, "symlink")
            elif name.startswith("."):
                report.leave(rel, "hidden file")
            elif not name.lower().endswith(MARKDOWN):
                report.leave(rel, "not Markdown")
            else:
                found.append(p)
    return found


def import_markdown(mem, path: Path, *, name: str | None = None, dry_run: bool = False) -> Report:
    root = path.expanduser()
    if not root.is_dir():
        raise UserError(f"{root} is not a folder of notes")
    label = slug(name or root.resolve().name) or "notes"
    report = Report("markdown", str(root), str(mem.workspace), dry_run)
    taken: set[str] = set()
    for p in _walk(root, report):
        rel = p.relative_to(root)
        stem = p.name.rsplit(".", 1)[0]
        dated = note_date(stem)
        if dated is None:
            dest = f"memory/imports/{label}/{rel.with_suffix('.md').as_posix()}"
            copy = Copy(p, dest, rel.as_posix())
            classify(copy, mem.workspace)
        else:
            copy = _dated_copy(mem, p, rel, dated, label, taken)
        taken.add(copy.dest)
        report.copies.append(copy)
    finish_files(mem, report)
    report.extra["into"] = f"memory/imports/{label}/"
    return report


def _dated_copy(mem, p: Path, rel: Path, dated: tuple[str, str], label: str, taken: set[str]) -> Copy:
    """The first free (or identical) of: the plain daily note, the slugged one, then numbered."""
    day, rest = dated
    folder = slug(rel.parent.name) if rel.parent.name else label
    plain = f"memory/{day}.md"
    slugged = f"memory/{day}-{slug(rest) or folder or label}.md"
    candidates = ([plain] if not rest.strip() else []) + [slugged] + [slugged[:-3] + f"-{n}.md" for n in range(2, 100)]
    for dest in candidates:
        if dest in taken:
            continue
        copy = Copy(p, dest, rel.as_posix())
        classify(copy, mem.workspace)
        if copy.status in ("new", "same"):
            return copy
    copy = Copy(p, slugged, rel.as_posix())
    copy.status, copy.reason = "conflict", "every name for this day's note is taken"
    return copy
