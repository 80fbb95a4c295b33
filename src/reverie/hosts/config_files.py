"""Writing a host's own configuration file (``~/.claude/settings.json``, Codex's ``config.toml``)
the way ``reverie install`` does: whole or not at all, keeping the file's permissions."""

from __future__ import annotations

import os
from pathlib import Path


def write_config(path: Path, text: str | None) -> None:
    """``path`` holds ``text`` afterwards (None: the file is removed). Written to a temporary file
    beside it and renamed over it, so a host starting meanwhile reads the old file or the new one,
    never half; a new file is private (0600: it may hold a token), an existing one keeps its mode."""
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.reverie-{os.getpid()}.tmp")
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
