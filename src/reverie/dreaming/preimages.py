"""Undoing a consolidation: the preimages the compare-and-set writer keeps of ``MEMORY.md``.

Before every rewrite Dreaming makes (and every restore), the previous content is kept in
``<agent dir>/preimages/MEMORY.md.<timestamp>`` (the newest 8). ``reverie memory preimages`` lists
them; ``reverie memory restore ID`` puts one back byte for byte, through the same compare-and-set
(so the content it replaces becomes a preimage in turn, and a restore can itself be undone).
``reverie forget`` scrubs forgotten text out of preimages too.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

from ..errors import UserError, WriteConflict
from ..workspace.writes import apply_replace, plan_replace
from .memoryfile import entry_lines, marker_keys
from .promote import memory_path


def folder(places) -> Path:
    return places.agent_dir / "preimages"


def _created(stamp: str) -> str | None:
    try:
        return datetime.strptime(stamp, "%Y%m%dT%H%M%S%f").isoformat(timespec="seconds")
    except ValueError:
        return None


def listing(places, workspace: Path) -> list[dict]:
    """Newest first: ``{id, file, createdAt, bytes, sha256, entries, promoted}``."""
    target = memory_path(workspace).resolve().name
    out = []
    d = folder(places)
    if not d.is_dir():
        return out
    for p in sorted(d.glob(f"{target}.*"), reverse=True):
        stamp = p.name[len(target) + 1:]
        data = p.read_bytes()
        text = data.decode("utf-8", errors="replace")
        out.append({"id": stamp, "file": str(p), "createdAt": _created(stamp), "bytes": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(), "entries": len(entry_lines(text)),
                    "promoted": len(marker_keys(text))})
    return out


def restore(places, workspace: Path, ident: str, *, dry_run: bool = False, expected_sha256: str | None = None) -> dict:
    """Put preimage ``ident`` (an id from :func:`listing`, or ``latest``) back into ``MEMORY.md``.
    With ``expected_sha256`` (the file's hash when the owner reviewed the restore) a file that
    changed since raises :class:`~reverie.errors.WriteConflict` and nothing is written."""
    items = listing(places, workspace)
    if not items:
        raise UserError("no preimages of MEMORY.md kept yet (one is kept before every Dreaming rewrite)")
    pick = items[0] if ident == "latest" else next((i for i in items if i["id"] == ident), None)
    if pick is None:
        raise UserError(f"no preimage {ident!r}; `reverie memory preimages` lists them "
                        f"(newest: {items[0]['id']})")
    data = Path(pick["file"]).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(f"preimage {ident} is not valid UTF-8; not restored") from None
    path = memory_path(workspace)
    plan = plan_replace(path)
    result = {"restored": pick["id"], "path": str(path), "bytes": len(data), "sha256": pick["sha256"],
              "unchanged": plan.text == text, "dryRun": dry_run}
    if dry_run or plan.text == text:
        return result
    from .sweep import promotion_lock

    with promotion_lock(places):  # never in the middle of a sweep's write
        plan = plan_replace(path)
        if expected_sha256 is not None and plan.expected_hash != expected_sha256:
            raise WriteConflict(f"{path.name} changed since the restore was reviewed; nothing written")
        kept = apply_replace(plan, text, preimage_dir=folder(places))
    result["previousKeptAs"] = kept.name[len(plan.target.name) + 1:] if kept else None
    return result
