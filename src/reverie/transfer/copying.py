"""Copying files into a workspace without ever overwriting one, and the report of what happened.

Each planned copy ends as one of: ``new`` (written), ``same`` (the destination already holds
these bytes), ``starter`` (the destination was the untouched ``MEMORY.md`` that ``reverie init``
lays out, replaced by compare-and-set) or ``conflict`` (the destination holds something else:
left alone and reported). A file is written to a hidden temporary name beside its destination and
hard-linked into place, so a destination that appears meanwhile is never clobbered and a crash
leaves at most a hidden temporary file. Source files are only read.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import WriteConflict
from ..workspace import MEMORY_HEADER, apply_replace, plan_replace

MAX_LISTED = 200  # entries per list in a report; the rest are counted


@dataclass
class Copy:
    source: Path
    dest: str  # workspace-relative POSIX path
    label: str  # how the source is shown (relative to what was imported)
    status: str = "planned"
    reason: str = ""


@dataclass
class Report:
    """What an import took, what it left and why; JSON for ``--json``."""

    kind: str
    source: str
    destination: str
    dry_run: bool
    copies: list[Copy] = field(default_factory=list)
    left: list[dict] = field(default_factory=list)  # {"path", "reason"}
    extra: dict = field(default_factory=dict)  # sessions, intents, automations, notes

    def leave(self, path: str, reason: str) -> None:
        self.left.append({"path": path, "reason": reason})

    def as_dict(self) -> dict:
        def listed(items: list) -> dict:
            return {"count": len(items), "items": items[:MAX_LISTED]}

        by = {s: [{"from": c.label, "to": c.dest, **({"reason": c.reason} if c.reason else {})}
                  for c in self.copies if c.status == s] for s in ("new", "starter", "same", "conflict", "planned")}
        return {"kind": self.kind, "source": self.source, "destination": self.destination, "dryRun": self.dry_run,
                "taken": listed(by["new"] + by["starter"] + by["planned"]), "alreadyThere": listed(by["same"]),
                "conflicts": listed(by["conflict"]), "left": listed(self.left), **self.extra}


def _is_starter(path: Path) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return path.name == "MEMORY.md" and data.strip() in (b"", MEMORY_HEADER.strip().encode())


def classify(copy: Copy, workspace: Path) -> None:
    """Decide what copying would do, touching nothing."""
    target = workspace / copy.dest
    if target.is_symlink() or (target.exists() and not target.is_file()):
        copy.status, copy.reason = "conflict", "the destination exists and is not a plain file"
        return
    if not target.exists():
        copy.status = "new"
        return
    try:
        same = target.stat().st_size == copy.source.stat().st_size and target.read_bytes() == copy.source.read_bytes()
    except OSError as exc:
        copy.status, copy.reason = "conflict", f"cannot compare: {exc.strerror or exc}"
        return
    if same:
        copy.status = "same"
    elif _is_starter(target):
        copy.status = "starter"
    else:
        copy.status, copy.reason = "conflict", "the destination exists with other content; not overwritten"


def _write_new(source: Path, target: Path) -> bool:
    """Copy ``source`` to ``target`` unless ``target`` exists; True when written."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.parent / f".{target.name}.import-{os.getpid()}.tmp"
    shutil.copy2(source, tmp)  # bytes and modification time (provenance reads it)
    try:
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        try:
            os.link(tmp, target)  # fails if the target exists: never a clobber
        except FileExistsError:
            return False
        except OSError:  # no hard links on this filesystem
            try:
                with open(target, "xb") as out, open(tmp, "rb") as src:
                    shutil.copyfileobj(src, out)
                shutil.copystat(tmp, target)
            except FileExistsError:
                return False
        return True
    finally:
        tmp.unlink(missing_ok=True)


def apply(copies: list[Copy], workspace: Path) -> None:
    """Carry out the classified copies (``new`` and ``starter``); a race turns one into a conflict."""
    for c in copies:
        target = workspace / c.dest
        if c.status == "new":
            if not _write_new(c.source, target):
                c.status, c.reason = "conflict", "the destination appeared during the import; not overwritten"
        elif c.status == "starter":
            try:
                text = c.source.read_bytes().decode("utf-8")
                apply_replace(plan_replace(target), text)
                st = c.source.stat()
                os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # as for new files: provenance reads it
            except (UnicodeDecodeError, WriteConflict) as exc:
                c.status, c.reason = "conflict", f"the starter MEMORY.md was not replaced: {exc}"


def unique_dest(dest: str, taken: set[str]) -> str:
    """``dest`` or, when another source already maps there, ``name-2.md``, ``name-3.md``..."""
    if dest not in taken:
        return dest
    folder, slash, name = dest.rpartition("/")
    stem, dot, ext = name.rpartition(".") if "." in name else (name, "", "")
    n = 2
    while f"{folder}{slash}{stem}-{n}{dot}{ext}" in taken:
        n += 1
    return f"{folder}{slash}{stem}-{n}{dot}{ext}"
