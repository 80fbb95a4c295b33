"""Shared pieces of the tests that lay out a workspace: a Memory made ready, a note written as an
outside editor would (no provenance recorded: it reads as an outside edit), a small memory on the
real bundled embedder indexed once for a module."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def filler_days(mem, lines: list[str], days: int = 48) -> None:
    """``days`` daily notes of two ordinary lines each (``lines`` in a fixed mix), each note its own
    window: the crowd a fact must stand out of."""
    for i in range(days):
        write(mem, f"memory/2026-03-{1 + i % 28:02d}-{i}.md",
              f"- {lines[i % len(lines)]} ({i})\n- {lines[(i * 7 + 3) % len(lines)]}\n")


def result_paths(mem, query: str, now, **kw) -> list[str]:
    """The paths of the first ten results for ``query`` asked at ``now`` (minScore 0, no signals)."""
    out = mem.search(query, 10, 0.0, now=now, record_signals=False, **kw)
    return [r["path"] for r in out["results"]]


def hybrid_results(mem, query: str, now, **kw) -> list[dict]:
    """The first ten results for ``query`` asked at ``now`` (minScore 0, no signals), checking that
    the search ran hybrid (the embedder answered)."""
    out = mem.search(query, 10, 0.0, now=now, record_signals=False, **kw)
    assert out["mode"] == "hybrid", out.get("debug")
    return out["results"]


def first_unmarked(mem, query: str, now, holds: str) -> list[dict]:
    """The hybrid results of ``query``, asserting the first holds ``holds`` and is marked superseded by
    nothing (an earlier answer that keeps its place)."""
    res = hybrid_results(mem, query, now)
    assert holds in res[0]["snippet"], [r["snippet"] for r in res]
    assert not res[0].get("supersededBy"), res[0]
    return res


def local_memory(home: Path, notes: dict[str, str], *overrides: str) -> Memory:
    """A Memory in ``home`` on the real bundled embedder with ``notes`` ({path: text}) written and
    indexed (a module-scoped fixture builds it once; the caller closes it)."""
    m = Memory(home=home, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="local"', *overrides])
    m.init()
    for rel, text in notes.items():
        write(m, rel, text)
    m.sync()
    return m


def local_memory_fixture(name: str, notes: dict[str, str]):
    """A module-scoped fixture: :func:`local_memory` with ``notes`` in a temporary home named
    ``name``, built once for the module and closed after it (``mem = local_memory_fixture(...)``)."""
    @pytest.fixture(scope="module")
    def mem(tmp_path_factory):
        m = local_memory(tmp_path_factory.mktemp(name), notes)
        yield m
        m.close()

    return mem
