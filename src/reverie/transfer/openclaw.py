"""``reverie import openclaw PATH``: an OpenClaw agent's memory moved into a reverie agent.

PATH is OpenClaw's state folder (``~/.openclaw``: ``workspace[-<agent>]/`` and
``agents/<agent>/sessions/``) or a workspace folder itself. Taken, byte for byte: ``MEMORY.md``,
``USER.md``, ``DREAMS.md``, the workspace files reverie injects (``AGENTS.md``, ``SOUL.md``,
``IDENTITY.md``, ``HEARTBEAT.md``), every Markdown file under ``memory/`` (daily notes, slugged
ones such as ``memory/2026-07-01-hotel.md``, nested folders, ``memory/imports/``), and the JSONL
transcripts as ended sessions with their ids and keys. Everything else is left and listed with
the reason. The source is only read.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from ..errors import UserError
from . import openclaw_sessions as oc
from .copying import Copy, Report
from .target import finish_files, restore_sessions

TAKE_ROOT = ("MEMORY.md", "USER.md", "DREAMS.md", "AGENTS.md", "SOUL.md", "IDENTITY.md", "HEARTBEAT.md")
LEAVE_ROOT = {
    "BOOTSTRAP.md": "first-run ritual; OpenClaw removes it once the agent is set up",
    "BOOT.md": "gateway start-up checklist, not memory",
    "TOOLS.md": "retired in OpenClaw (its tools section lives in AGENTS.md)",
}
SKIP_DIRS = {".git": "version control data", "node_modules": "installed packages"}


def locate(path: Path, agent: str, sessions: Path | None) -> tuple[Path, Path | None, list[str]]:
    """(workspace, sessions folder or None, notes) for an OpenClaw state folder or workspace."""
    path = path.expanduser()
    if not path.is_dir():
        raise UserError(f"{path} is not a folder (give OpenClaw's state folder, e.g. ~/.openclaw, or a workspace)")
    notes: list[str] = []
    if (path / "agents").is_dir() or (path / "openclaw.json").exists():
        workspace = path / ("workspace" if agent == "main" else f"workspace-{agent}")
        state = path
        if not workspace.is_dir():
            raise UserError(f"no workspace for agent {agent!r} in {path} (looked for {workspace.name}/); "
                            "give the workspace folder itself")
    else:
        workspace, state = path, path.parent
    if sessions is None:
        guess = state / "agents" / agent / "sessions"
        if guess.is_dir():
            sessions = guess
        else:
            notes.append(f"no transcripts found (looked in {guess}); give --sessions DIR to take them")
    elif not sessions.expanduser().is_dir():
        raise UserError(f"--sessions {sessions} is not a folder")
    return workspace, sessions.expanduser() if sessions else None, notes


def _count_files(folder: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(folder))


def plan_workspace(workspace: Path, report: Report) -> list[Copy]:
    copies: list[Copy] = []
    memory_md = "MEMORY.md" if (workspace / "MEMORY.md").is_file() else "memory.md"
    for entry in sorted(workspace.iterdir(), key=lambda p: p.name):
        name = entry.name
        if entry.is_symlink():
            report.leave(name, "symlink (its target is outside what was asked for)")
        elif entry.is_file() and (name in TAKE_ROOT or name == memory_md):
            copies.append(Copy(entry, "MEMORY.md" if name == memory_md else name, name))
        elif entry.is_file() and name.lower() == "memory.md":
            report.leave(name, "MEMORY.md is there too and takes precedence (as in OpenClaw)")
        elif entry.is_file():
            report.leave(name, LEAVE_ROOT.get(name, "not a memory file"))
        elif name == "memory":
            copies += _plan_memory(entry, report)
        else:
            reason = SKIP_DIRS.get(name, "not memory")
            report.leave(f"{name}/", f"{reason} ({_count_files(entry):,} files)")
    return copies


def _plan_memory(folder: Path, report: Report) -> list[Copy]:
    out: list[Copy] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        for d in sorted(dirnames):
            rel = (here / d).relative_to(folder.parent).as_posix()
            if d.startswith(".") or (here / d).is_symlink():
                why = "symlink" if (here / d).is_symlink() else "hidden folder (OpenClaw's own state)"
                report.leave(f"{rel}/", f"{why} ({_count_files(here / d):,} files)")
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and not (here / d).is_symlink())
        for name in sorted(filenames):
            p = here / name
            rel = p.relative_to(folder.parent).as_posix()
            if p.is_symlink():
                report.leave(rel, "symlink")
            elif name.startswith("."):
                report.leave(rel, "hidden file")
            elif not name.lower().endswith(".md"):
                report.leave(rel, "not Markdown")
            else:
                out.append(Copy(p, rel, rel))
    return out


def import_openclaw(mem, path: Path, *, agent: str = "main", sessions: Path | None = None,
                    dry_run: bool = False) -> Report:
    workspace, sessions_dir, notes = locate(path, agent, sessions)
    report = Report("openclaw", str(path), str(mem.workspace), dry_run)
    report.copies = plan_workspace(workspace, report)
    finish_files(mem, report)
    parsed = []
    if sessions_dir is not None:
        keys = oc.session_keys(sessions_dir)
        for p in sorted(sessions_dir.iterdir(), key=lambda p: p.name):
            rel = f"sessions/{p.name}"
            if ".jsonl.deleted" in p.name:
                report.leave(rel, "deleted in OpenClaw")
            elif p.name == "sessions.json":
                continue  # read above: session keys
            elif p.is_file() and not p.is_symlink() and (p.name.endswith(".jsonl") or ".jsonl.reset." in p.name):
                s = oc.parse(p)
                parsed.append((oc.session_row(s, oc.reverie_key(keys.get(s.session_id), mem.places.agent)),
                               s.events, rel, s))
            else:
                report.leave(rel, "not a transcript")
    left: Counter = Counter()
    for *_, s in parsed:
        left.update(s.left)
        if s.bad_lines:
            left["lines that are not JSON"] += s.bad_lines
    report.extra["sessions"] = restore_sessions(mem, [(row, events, rel) for row, events, rel, _ in parsed], dry_run)
    report.extra["sessions"]["left"] = dict(left)
    report.extra["sessionsFrom"] = str(sessions_dir) if sessions_dir else None
    report.extra["notes"] = notes
    return report
