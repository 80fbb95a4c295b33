"""Laying out a new workspace. Never overwrites a file that exists."""

from __future__ import annotations

from pathlib import Path

MEMORY_HEADER = "# Long-Term Memory\n"

_FILES = {
    "MEMORY.md": MEMORY_HEADER,
}


def init_workspace(workspace: Path) -> list[Path]:
    """Create the workspace folders and starter files; return what was created."""
    created: list[Path] = []
    for folder in (workspace, workspace / "memory"):
        if not folder.exists():
            folder.mkdir(parents=True)
            created.append(folder)
    for name, body in _FILES.items():
        path = workspace / name
        if path.exists() or path.is_symlink():
            continue
        try:
            with open(path, "x", encoding="utf-8") as fh:  # "x": never clobber a racing writer
                fh.write(body)
            created.append(path)
        except FileExistsError:
            pass
    return created
