"""The owner's list of what memory holds that looks like a secret: ``reverie search --sensitive``,
the ``sensitive`` line of ``reverie status``, and the web view's search page.

Read from the index (every indexed memory file, chunk by chunk; overlapping chunks counted once),
so it costs a scan of the chunk text and never reads the files again. It lists lines, their
citation and the kinds found; the owner decides what to forget (``reverie forget --text``).
"""

from __future__ import annotations

from .secrets import find_secrets

HINT = "reverie search --sensitive"


def sensitive_lines(conn, limit: int | None = None) -> list[dict]:
    """``[{path, line, citation, kinds, text}]`` for each memory line holding what looks like a
    secret, in path and line order."""
    seen: dict[tuple[str, int], dict] = {}
    rows = conn.execute("SELECT path, start_line, text FROM memory_index_chunks WHERE source = 'memory' "
                        "ORDER BY path, start_line")
    for path, start, text in rows:
        if not find_secrets(text):
            continue
        for i, line in enumerate(text.split("\n")):
            key = (path, int(start) + i)
            if key in seen:
                continue
            found = find_secrets(line)
            if found:
                seen[key] = {"path": path, "line": key[1], "citation": f"{path}#L{key[1]}",
                             "kinds": sorted({f.kind for f in found}), "text": line.strip(), "sensitive": True}
    out = sorted(seen.values(), key=lambda r: (r["path"], r["line"]))
    return out[:limit] if limit is not None else out


def summary(conn) -> dict:
    lines = sensitive_lines(conn)
    return {"lines": len(lines), "files": len({r["path"] for r in lines}), "hint": HINT if lines else None}


__all__ = ["HINT", "sensitive_lines", "summary"]
