"""Table files in memory search: each file is described in Markdown (its tables, columns, row
counts and a few sample rows) and that description is indexed as a source of kind ``table``, so
``memory_search("API endpoints needing auth")`` finds ``tables/api.sqlite`` and the agent knows to
ask it with ``table_query``.

The description is generated when the index reads the file (nothing is written to the workspace)
and is re-read whenever the table file changes (its size or modification time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..workspace.textclean import clean_text
from .store import SUFFIX, TABLES_DIR, TableError, TableStore, link_problem

SAMPLE_ROWS = 5
SAMPLE_CHARS = 80

Rendered = tuple[str | None, bytes | None, str | None]  # (text, raw bytes, problem)


def _cell(v) -> str:
    if isinstance(v, dict) and "blob" in v:
        return f"<{v['blob']} byte BLOB>"
    # control characters (a terminal escape, a NUL) never reach the index or a snippet
    text = " ".join(clean_text(str(v)).text.split()) if v is not None else "NULL"
    return text if len(text) <= SAMPLE_CHARS else text[:SAMPLE_CHARS - 1] + "…"


def describe(info: dict) -> str:
    """Markdown for one table file from :meth:`TableStore.schema` (with ``sample``)."""
    file, tables = info["file"], info["tables"]
    kinds = [t for t in tables if t["kind"] == "table"]
    lines = [f"# Table file: {file}", "",
             f"Structured data in `{info['path']}` ({len(kinds)} table{'s' if len(kinds) != 1 else ''}). "
             f"Query it with SQL through the table_query tool, file \"{file}\".", ""]
    for t in tables:
        label = "view" if t["kind"] == "view" else "table"
        rows = f"{t['rows']:,} rows" if t["rows"] is not None else "too many rows to count quickly"
        lines += [f"## {label} {t['name']} ({rows})", ""]
        cols = ", ".join(f"{c['name']} {c['type']}".strip() for c in t["columns"])
        lines += [f"Columns: {cols}", ""]
        sample = t.get("sample") or []
        if sample:
            lines.append("Sample rows:")
            names = [c["name"] for c in t["columns"]]
            for row in sample:
                lines.append("- " + "; ".join(f"{n}: {_cell(v)}" for n, v in zip(names, row)))
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def render(store: TableStore, name: str) -> Rendered:
    try:
        text = describe(store.schema(name, sample=SAMPLE_ROWS))
    except TableError as exc:
        return None, None, f"table file not described: {exc}"
    return text, text.encode("utf-8"), None


def table_sources(workspace: Path) -> tuple[list[tuple[str, Path, Callable[[], Rendered]]], dict[str, str]]:
    """For discovery: (path as stored, absolute path, renderer) of each table file, and the
    problems (symlinks are skipped: a table file cannot point elsewhere)."""
    store = TableStore(workspace)
    problems: dict[str, str] = {}
    if store.dir.is_symlink():
        return [], {TABLES_DIR: "symlinked folder skipped"}
    if store.dir.is_dir():
        for p in store.dir.iterdir():
            if p.name.endswith(SUFFIX) and p.is_symlink():
                problems[f"{TABLES_DIR}/{p.name}"] = "symlink skipped"
    sources = []
    for name in store.names():
        path = store.path_of(name)
        why = link_problem(path)
        if why:
            problems[f"{TABLES_DIR}/{path.name}"] = why
            continue
        sources.append((f"{TABLES_DIR}/{path.name}", path, lambda n=name: render(store, n)))
    return sources, problems
