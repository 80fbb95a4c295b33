"""What went wrong on memory's side while following a host's conversation, kept where the owner
looks (``reverie status``): a hook never blocks the host's turn, so without this a failing memory
would go unnoticed until someone read the host's own log.

One JSON line per problem in ``<agent>/sidecar/problems.jsonl`` (host, step, the one-line error,
when), the newest :data:`KEEP` kept. Writing it never fails the caller.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

FILE = "problems.jsonl"
KEEP = 100
SHOWN_HOURS = 24


def note(folder: Path, host: str, step: str, error: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / FILE
        line = json.dumps({"at": int(time.time()), "host": host, "step": step, "error": error[:300]},
                          ensure_ascii=False)
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")
        if path.stat().st_size > KEEP * 600:  # now and then, keep the newest only (written whole)
            kept = path.read_text(encoding="utf-8", errors="replace").splitlines()[-KEEP:]
            tmp = path.with_name(f".{FILE}.{os.getpid()}.tmp")
            tmp.write_text("\n".join(kept) + "\n", encoding="utf-8")
            os.replace(tmp, path)
    except OSError:
        pass  # a problem we cannot record must not become the host's problem


def recent(folder: Path, hours: float = SHOWN_HOURS) -> list[dict]:
    """The problems of the last ``hours``, oldest first."""
    try:
        lines = (folder / FILE).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    since = time.time() - hours * 3600
    out = []
    for line in lines:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("at"), int) and item["at"] >= since:
            out.append(item)
    return out


def summary(folder: Path) -> dict:
    """``{"count", "last"}`` of the last day's problems, for ``reverie status``."""
    found = recent(folder)
    return {"count": len(found), "last": found[-1] if found else None}
