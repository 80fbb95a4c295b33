"""Changing one key of the settings file without disturbing the rest of it.

``reverie init --workspace X`` records the workspace as ``agents.<id>.workspace`` so the next
command finds it without the flag. The file is edited with tomlkit, which keeps the user's
comments, order and formatting; it is written to a temporary file and renamed into place, so a
crash leaves either the old file or the new one, never half of one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .config import read_config_file
from .errors import ConfigError


def set_agent_workspace(config_file: Path, agent: str, workspace: Path) -> str | None:
    """Write ``agents.<agent>.workspace = "<workspace>"``; returns the previous value (None when
    there was none). An unchanged value writes nothing."""
    import tomlkit

    read_config_file(config_file)  # the same checks as loading: a folder or a device is refused
    text = config_file.read_text(encoding="utf-8") if config_file.exists() else ""
    try:
        doc = tomlkit.parse(text)
    except Exception as exc:  # tomlkit's own parse errors
        raise ConfigError(f"cannot read {config_file}: {exc}") from None
    agents = doc.get("agents")
    if agents is None:
        agents = tomlkit.table(is_super_table=True)
        doc["agents"] = agents
    elif not isinstance(agents, dict):
        raise ConfigError(f"cannot record the workspace: 'agents' in {config_file} is not a table")
    entry = agents.get(agent)
    if entry is None:
        entry = tomlkit.table()
        agents[agent] = entry
    elif not isinstance(entry, dict):
        raise ConfigError(f"cannot record the workspace: 'agents.{agent}' in {config_file} is not a table")
    previous = entry.get("workspace")
    previous = str(previous) if previous is not None else None
    value = str(workspace)
    if previous == value:
        return previous
    entry["workspace"] = value
    _write_atomically(config_file, tomlkit.dumps(doc))
    return previous


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
