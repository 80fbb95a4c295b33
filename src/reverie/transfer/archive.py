"""``reverie export DEST`` and ``reverie import reverie DEST``: a complete, re-importable copy of
one agent, as plain files.

    DEST/
      manifest.json            format, version, agent, time, and every workspace file with its SHA-256
      workspace/...            the workspace as it is: notes, MEMORY.md, USER.md, tables/*.sqlite, ...
      sessions/<id>.jsonl      one transcript each: a {"type": "session", ...} line, then every event
      intents.jsonl            standing intents with their fire records
      automations.jsonl        this agent's scheduled jobs with their state
      provenance.json          who wrote each line of the dated notes (owner, agent, untrusted, system):
                               an import restores it, so no line comes back more trusted (or less)

The search index and the embedding cache are derived and left out (``reverie index`` rebuilds
them). The export is written to a hidden folder beside DEST and renamed into place at the end,
so an interrupted export leaves no half archive under DEST's name. Import checks every file
against the manifest, never overwrites a file, and skips sessions, intents and jobs whose id is
already there, so importing twice changes nothing the second time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

import apsw

from ..errors import UserError
from ..workspace.files import UNDECODABLE, undecodable
from .copying import Copy, Report
from .target import finish_files, restore_sessions

FORMAT = "reverie-export"
VERSION = 1
SKIP_DIRS = (".git",)
_EVENT_FIELDS = ("id", "type", "sessionId", "sessionKey", "position", "timestamp")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _copy_table(src: Path, dst: Path) -> None:
    """A table file through SQLite's backup API: a consistent copy even while it is written to."""
    from ..tables.guard import open_table_file

    source, _ = open_table_file(src, write=False)
    try:
        target = apsw.Connection(str(dst))
        try:
            with target.backup("main", source, "main") as b:
                b.step()
        finally:
            target.close()
    finally:
        source.close()
    shutil.copystat(src, dst)


def _write_jsonl(path: Path, rows) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":"), default=str) + "\n")
            n += 1
    return n


def _export_workspace(workspace: Path, out: Path, left: list[dict]) -> list[dict]:
    files: list[dict] = []
    if not workspace.is_dir():
        return files
    for dirpath, dirnames, filenames in os.walk(workspace):
        here = Path(dirpath)
        for d in sorted(dirnames):
            if undecodable(d) is not None:  # a manifest cannot name it: left, and said so (issue 31)
                left.append({"path": undecodable((here / d).relative_to(workspace).as_posix()) + "/",
                             "reason": UNDECODABLE})
                continue
            if d in SKIP_DIRS or (here / d).is_symlink():
                left.append({"path": (here / d).relative_to(workspace).as_posix() + "/",
                             "reason": "symlink" if (here / d).is_symlink() else "version control data"})
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not (here / d).is_symlink()
                             and undecodable(d) is None)
        for name in sorted(filenames):
            p = here / name
            rel = p.relative_to(workspace).as_posix()
            if undecodable(name) is not None:
                left.append({"path": undecodable(rel), "reason": UNDECODABLE})
                continue
            if name.startswith(".reverie-") and name.endswith(".lock"):
                continue  # reverie's own lock files: machinery of this machine, not memory
            if p.is_symlink() or not p.is_file():
                left.append({"path": rel, "reason": "symlink" if p.is_symlink() else "not a regular file"})
                continue
            dst = out / "workspace" / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            if rel.startswith("tables/") and name.endswith(".sqlite"):
                try:
                    _copy_table(p, dst)
                except apsw.Error:
                    shutil.copy2(p, dst)  # not a database after all: its bytes, as they are
            else:
                shutil.copy2(p, dst)
            files.append({"path": rel, "sha256": _sha256(dst), "bytes": dst.stat().st_size})
    return files


def _line_classes(mem, files: list[dict]) -> dict:
    from ..trust.store import tracked

    out = {}
    for f in files:
        if tracked(f["path"]):
            out[f["path"]] = {"sha256": f["sha256"], "runs": mem.trust.line_classes(f["path"])}
    return out


def _restore_line_classes(mem, path: Path, report: Report) -> None:
    """The dated notes the import wrote get the classes their export carried; an export without
    them (made before reverie carried provenance) brings its dated notes in as untrusted."""
    from ..trust.store import tracked

    try:
        classes = json.loads((path / "provenance.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        classes = None
    written = [c for c in report.copies if c.status == "new" and tracked(c.dest)]
    unknown = 0
    for c in written:
        entry = (classes or {}).get(c.dest) if isinstance(classes, dict) else None
        runs = entry.get("runs") if isinstance(entry, dict) and entry.get("sha256") == _sha256(c.source) else None
        unknown += runs is None
        mem.trust.restore_line_classes(c.dest, runs)
    if unknown:
        report.extra["provenance"] = {"untrusted": unknown, "note": f"{unknown} dated note(s) came without their "
                                      "writers' classes (an older export): imported as untrusted"}


def export_agent(mem, dest: Path) -> dict:
    """Write the archive; returns the manifest (with ``left``: what was not exported, and why)."""
    from ..sessions import TranscriptStore

    dest = dest.expanduser().absolute()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise UserError(f"{dest} exists and is not an empty folder; export into a new one")
    if not mem.workspace.exists() and not mem.agent_store.exists():
        raise UserError(f"agent {mem.places.agent!r} has nothing to export (no workspace at {mem.workspace})")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.partial-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        left: list[dict] = []
        files = _export_workspace(mem.workspace, tmp, left)
        (tmp / "sessions").mkdir()
        sessions = events = 0
        if mem.agent_store.exists():
            store = TranscriptStore(mem.agent_store)
            try:
                for row in store.sessions():
                    docs = [ev.data for ev in store.events(row.session_id)]
                    _write_jsonl(tmp / "sessions" / f"{row.session_id}.jsonl",
                                 [{"type": "session", **asdict(row)}, *docs])
                    sessions += 1
                    events += len(docs)
            finally:
                store.close()
        intents = _write_jsonl(tmp / "intents.jsonl", mem.intents.dump() if mem.agent_store.exists() else [])
        scheduler = mem.scheduler()
        try:
            jobs = scheduler.list(mem.places.agent) if (mem.places.home / "state" / "reverie.sqlite").exists() else []
        finally:
            scheduler.close()
        automations = _write_jsonl(tmp / "automations.jsonl", jobs)
        # who wrote each line of the dated notes: an import restores it (never raising or lowering it)
        classes = _line_classes(mem, files)
        (tmp / "provenance.json").write_text(json.dumps(classes, ensure_ascii=False), encoding="utf-8")
        manifest = {"format": FORMAT, "version": VERSION, "agent": mem.places.agent,
                    "exportedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "reverie": _version(),
                    "counts": {"files": len(files), "sessions": sessions, "events": events, "intents": intents,
                               "automations": automations},
                    "workspace": files, "left": left}
        (tmp / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1), encoding="utf-8")
        if dest.exists():
            dest.rmdir()  # an empty folder named by the user
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {**manifest, "path": str(dest)}


def _version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("reverie")
    except metadata.PackageNotFoundError:
        return None


def read_manifest(path: Path) -> dict:
    try:
        manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path} is not a reverie export (no manifest.json; make one with reverie export)") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read {path / 'manifest.json'}: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise UserError(f"{path / 'manifest.json'} is not a reverie export manifest")
    if manifest.get("version") != VERSION:
        raise UserError(f"export format version {manifest.get('version')} is not supported (this reverie reads {VERSION})")
    return manifest


def _read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except ValueError:
                raise UserError(f"{path}: line {n} is not JSON; the export is damaged") from None
    return out


def _rekey(key: str, old: str, new: str) -> str:
    return f"agent:{new}:{key[len(f'agent:{old}:'):]}" if key.startswith(f"agent:{old}:") else key


def import_archive(mem, path: Path, *, dry_run: bool = False) -> Report:
    path = path.expanduser()
    manifest = read_manifest(path)
    old_agent, agent = manifest.get("agent") or "main", mem.places.agent
    report = Report("reverie", str(path), str(mem.workspace), dry_run)
    listed = set()
    for entry in manifest.get("workspace") or []:
        rel = str(entry.get("path") or "")
        src = path / "workspace" / rel
        listed.add(rel)
        if not rel or rel.startswith("/") or ".." in Path(rel).parts:
            report.leave(rel, "unsafe path in the manifest")
        elif not src.is_file() or src.is_symlink():
            report.leave(rel, "listed in the manifest but missing from the export")
        elif _sha256(src) != entry.get("sha256"):
            report.leave(rel, "damaged: its SHA-256 differs from the manifest")
        else:
            report.copies.append(Copy(src, rel, rel))
    if (path / "workspace").is_dir():
        for p in sorted((path / "workspace").rglob("*")):
            rel = p.relative_to(path / "workspace").as_posix()
            if p.is_file() and rel not in listed:
                report.leave(rel, "not in the manifest")
    finish_files(mem, report)
    if not report.dry_run:
        _restore_line_classes(mem, path, report)
    sessions = []
    for p in sorted((path / "sessions").glob("*.jsonl")) if (path / "sessions").is_dir() else []:
        lines = _read_jsonl(p)
        if not lines or lines[0].get("type") != "session":
            report.leave(f"sessions/{p.name}", "no session line first")
            continue
        row = {k: v for k, v in lines[0].items() if k != "type"}
        row["session_key"] = _rekey(str(row.get("session_key") or ""), old_agent, agent)
        events = [(d["type"], {k: v for k, v in d.items() if k not in _EVENT_FIELDS}, _ms(d.get("timestamp")),
                   d.get("id")) for d in lines[1:]]
        sessions.append((row, events, f"sessions/{p.name}"))
    report.extra["sessions"] = restore_sessions(mem, sessions, dry_run)
    intents = _read_jsonl(path / "intents.jsonl")
    jobs = _read_jsonl(path / "automations.jsonl")
    if dry_run:
        report.extra["intents"] = {"planned": len(intents)}
        report.extra["automations"] = {"planned": len(jobs)}
        return report
    added, skipped = mem.intents.restore(intents) if intents else ([], [])
    report.extra["intents"] = {"imported": len(added), "alreadyThere": skipped}
    scheduler = mem.scheduler()
    try:
        added, skipped = scheduler.restore(jobs, agent) if jobs else ([], [])
    finally:
        scheduler.close()
    report.extra["automations"] = {"imported": len(added), "alreadyThere": skipped}
    return report


def _ms(ts) -> int | None:
    from .openclaw_sessions import ms

    return ms(ts)
