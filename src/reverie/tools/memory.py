"""memory_search, memory_get, memory_append.

Untrusted content stays searchable but is always framed as untrusted: a hit or a window of lines
that came from outside carries ``"untrusted": true`` and its text is wrapped in
``<untrusted-content>`` (docs/trust.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..search.citation import parse_citation
from ..trust.framing import frame_lines, frame_search
from ..workspace.annotations import neutralise_annotations
from ..workspace.read import DEFAULT_LINES, DEFAULT_MAX_CHARS, read_window, resolve_memory_path
from ..workspace.textclean import clean_text
from .base import Tool, ToolError

if TYPE_CHECKING:  # pragma: no cover
    from ..api import Memory

SEARCH_DESCRIPTION = (
    "Mandatory recall step: search long-term memory (MEMORY.md, USER.md and the daily notes in "
    "memory/*.md) before answering anything about prior work, decisions, dates, people, preferences "
    "or todos. Returns the most relevant snippets with path, line range, score and a citation; then "
    "use memory_get to read only the lines you need. Works in any language (Chinese included). If the "
    "result says disabled/unavailable, tell the user memory search is not working. Empty results "
    "with a note mean memory holds nothing about it: say you checked memory and have no record of it.")
GET_DESCRIPTION = (
    "Read lines of a memory file (MEMORY.md, USER.md, memory/YYYY-MM-DD.md or a configured extra "
    "path), usually the citation a memory_search result printed (path#Lstart-Lend reads those lines). Returns at most `lines` "
    "lines (default 120) and 12,000 characters; when more remains, the text ends with a notice and "
    "`nextFrom` gives the line to continue from. A missing file returns status not_found.")
APPEND_DESCRIPTION = (
    "Remember something: append a note to today's daily memory file memory/YYYY-MM-DD.md. "
    "Append-only; it never changes or removes what is already there. Use it when the user asks you "
    "to remember something, or for a decision, fact or todo worth finding later. Write one "
    "self-contained note (who, what, when, why).")

SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "what to look for, in any language", "maxLength": 4096},
        "maxResults": {"type": "integer", "minimum": 1, "maximum": 100,
                       "description": "how many results (default 6)"},
        "maxTokens": {"type": "integer", "minimum": 50, "maximum": 20000,
                      "description": "instead of a count, the results that fit in about this many tokens "
                      "of snippets, in ranked order (with maxResults, whichever comes first)"},
        "minScore": {"type": "number", "minimum": 0, "maximum": 1,
                     "description": "relevance threshold in [0,1] (default 0.35)"},
        "corpus": {"type": "string", "enum": ["memory"], "description": "what to search: memory files"},
        "projects": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 300}, "maxItems": 4,
                     "description": "active project keys, e.g. github.com/acme/app: their entries rank higher, "
                     "other projects' lower (default: the session's active projects)"},
    },
    "required": ["query"],
    "additionalProperties": False,
}
GET_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "workspace-relative memory path, e.g. memory/2026-07-01.md, "
                 "or a citation from memory_search, e.g. memory/2026-07-01.md#L5-L9 (reads those lines)"},
        "from": {"type": "integer", "minimum": 1, "description": "first line to read (1-based, default 1)"},
        "lines": {"type": "integer", "minimum": 1, "description": f"how many lines (default {DEFAULT_LINES})"},
        "corpus": {"type": "string", "enum": ["memory"]},
    },
    "required": ["path"],
    "additionalProperties": False,
}
APPEND_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "description": "the note to remember", "maxLength": 20_000},
    },
    "required": ["text"],
    "additionalProperties": False,
}


def memory_get(mem: "Memory", path: str, from_line: int | None = None, lines: int | None = None,
               max_chars: int = DEFAULT_MAX_CHARS) -> dict:
    """Read a window of a memory file. ``path`` may be a citation as search printed it
    (``memory/2026-07-01.md#L5-L9``): its range gives ``from`` and ``lines`` unless they are given."""
    cited = parse_citation(path) if isinstance(path, str) else None
    if cited is not None:
        path, start, end = cited
        if from_line is None:
            from_line = start
            if lines is None:
                lines = end - start + 1
    from_line = 1 if from_line is None else from_line
    search = mem.settings.search
    absolute, display = resolve_memory_path(mem.workspace, path, search.extra_paths)
    out = read_window(absolute, display, from_line, DEFAULT_LINES if lines is None else lines, max_chars,
                      allow_hard_links=search.allow_hard_links)
    shown = out.get("lines")
    trust = getattr(mem, "trust", None)
    if not shown or trust is None:
        return out
    last = from_line + shown - 1
    origins = trust.origins(str(absolute))  # read once: every line's origin as recorded
    bad: list[tuple[int, int]] = []
    for n in range(from_line, last + 1):
        if origins.lines(n, n).origin == "untrusted":
            bad[-1:] = [(bad[-1][0], n)] if bad and bad[-1][1] == n - 1 else bad[-1:] + [(n, n)]
    return frame_lines(out, origins.lines(from_line, last).origin, bad)


def memory_tools(mem: "Memory", clock=None) -> list[Tool]:
    """``clock``: the time an append is dated and a search runs at (its decay, "last week"): the wall
    clock without one; a replayed conversation's own."""
    def search(args: dict) -> dict:
        switch = getattr(mem, "switch", None)
        if switch is not None and not switch.state().search_enabled:
            return {"results": [], "disabled": True, "error": "memory search is disabled (memory.search.enabled = "
                    "false)", "warning": "Memory search is switched off in the settings.",
                    "action": "Set memory.search.enabled = true to search memory."}
        projects = args.get("projects")
        if projects is None:
            scope = getattr(mem, "projects", None)  # the folder's project (reverie mcp in a repository)
            projects = scope.keys if scope is not None else None
        return frame_search(mem.search(args["query"], args.get("maxResults"), args.get("minScore"),
                                       projects=projects or None, max_tokens=args.get("maxTokens"),
                                       now=clock() if clock is not None else None))

    def get(args: dict) -> dict:
        return memory_get(mem, args["path"], args.get("from"), args.get("lines"))

    def append(args: dict) -> dict:
        cleaned = clean_text(args["text"])  # a NUL from an agent once hid a whole day from search
        text = cleaned.text
        if not text.strip():
            raise ToolError("memory_append: text is empty" + (f" ({cleaned.summary()})" if cleaned.removed else ""))
        # an agent's note is not the owner's: it may not set importance or supersede entries
        try:
            path = mem.remember(neutralise_annotations(text), now=clock() if clock is not None else None)
        except OSError as exc:  # a read-only or full disk: the model must not answer "noted"
            raise ToolError(f"memory_append: nothing was saved: {exc.strerror or exc}"
                            + (f" ({exc.filename})" if exc.filename else "")) from None
        out = {"status": "appended", "path": path.relative_to(mem.workspace).as_posix(), "chars": len(text.strip())}
        if cleaned.removed:
            out["cleaned"] = cleaned.summary()
        return out

    return [
        Tool("memory_search", SEARCH_DESCRIPTION, SEARCH_SCHEMA, search, title="Search memory"),
        Tool("memory_get", GET_DESCRIPTION, GET_SCHEMA, get, title="Read a memory file"),
        Tool("memory_append", APPEND_DESCRIPTION, APPEND_SCHEMA, append, read_only=False, destructive=False,
             idempotent=False, title="Append to today's note"),
    ]
