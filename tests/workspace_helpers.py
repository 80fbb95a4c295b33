"""Shared pieces of the tests that lay out a workspace: a Memory made ready, a note written as an
outside editor would (no provenance recorded: it reads as an outside edit)."""

from __future__ import annotations

from pathlib import Path

from reverie import Memory


def open_mem(*overrides: str) -> Memory:
    mem = Memory(overrides=list(overrides))
    mem.init()
    return mem


def write(mem, rel: str, text: str) -> Path:
    path = mem.workspace / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
