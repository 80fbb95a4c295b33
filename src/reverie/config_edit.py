"""Changing one key of the settings file without disturbing the rest of it.

``reverie init --workspace X`` records the workspace as ``agents.<id>.workspace`` so the next
command finds it without the flag. The file is edited with tomlkit, which keeps the user's
comments, order and formatting, and written the way reverie rewrites any file a person edits
(compare-and-set, atomic rename, mode kept, symlinks written through: :func:`reverie.workspace.apply_replace`).
"""

from __future__ import annotations

from pathlib import Path

from .config import read_config_file
from .errors import ConfigError


def set_agent_workspace(config_file: Path, agent: str, workspace: Path) -> str | None:
    """Write ``agents.<agent>.workspace = "<workspace>"``; returns the previous value (None when
    there was none). An unchanged value writes nothing."""
    import tomlkit

    from .workspace import apply_replace, plan_replace

    read_config_file(config_file)  # the same checks as loading: a folder or a device is refused
    plan = plan_replace(config_file)
    try:
        doc = tomlkit.parse(plan.text)
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
    if previous == str(workspace):
        return previous
    entry["workspace"] = str(workspace)
    apply_replace(plan, tomlkit.dumps(doc))
    return previous
