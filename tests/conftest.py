"""Each test gets its own reverie home; no REVERIE_* variable from the outside leaks in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def reverie_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in list(os.environ):
        if name.startswith("REVERIE_") or name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    monkeypatch.setenv("REVERIE_HOME", str(home))
    monkeypatch.setenv("REVERIE_TIMEZONE", "UTC")
    return home


@pytest.fixture
def fake_memory(reverie_home: Path):
    """A Memory on the fake embedder, workspace laid out."""
    from reverie import Memory

    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    yield mem
    mem.close()
