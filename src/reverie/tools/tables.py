"""table_list, table_query, table_write: structured memory in SQLite table files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tables import DEFAULT_ROWS, MAX_ROWS
from ..trust.classes import least_trusted
from ..trust.writer import current_writer
from .base import Tool, ToolError

if TYPE_CHECKING:  # pragma: no cover
    from ..tables import TableStore

LIST_DESCRIPTION = (
    "List the SQL table files (tables/<file>.sqlite): tables, columns, row counts; with `file`, sample rows. "
    "Tables hold dense structured data (endpoints, accounts, records); a memory_search hit in tables/ points here.")
QUERY_DESCRIPTION = (
    "One read-only SQLite statement (SELECT, WITH, PRAGMA table_info) on a table file. At most maxRows rows "
    f"(default {DEFAULT_ROWS}), about 64 KB, 2 s; `truncated` means more rows: narrow or page with LIMIT/OFFSET. "
    "Values go in params (? placeholders).")
WRITE_DESCRIPTION = (
    "Change a table file with one SQLite statement, one transaction: CREATE TABLE/INDEX/VIEW, ALTER, INSERT, "
    "UPDATE, DELETE, DROP; the first statement creates the file. params fill ? placeholders; rows (a list of "
    "params lists) inserts many. Only this file is reachable (no ATTACH, VACUUM, triggers, temp objects, "
    "extensions, writable pragmas). Logged with who asked. For structured data the user wants kept; notes go "
    "to memory_append.")

_FILE = {"type": "string", "maxLength": 80, "description": "tables/<file>.sqlite, e.g. \"api\""}
_SQL = {"type": "string", "maxLength": 100_000, "description": "one SQL statement"}
_PARAMS = {"type": "array", "description": "values for the ? placeholders"}

LIST_SCHEMA = {
    "type": "object",
    "properties": {"file": {**_FILE, "description": "only this file, with sample rows"}},
    "additionalProperties": False,
}
QUERY_SCHEMA = {
    "type": "object",
    "properties": {
        "file": _FILE, "sql": _SQL, "params": _PARAMS,
        "maxRows": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS},
    },
    "required": ["file", "sql"],
    "additionalProperties": False,
}
WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "file": _FILE, "sql": _SQL, "params": _PARAMS,
        "rows": {"type": "array", "items": {"type": "array"}, "description": "one params list per run"},
    },
    "required": ["file", "sql"],
    "additionalProperties": False,
}


def origin_of(context) -> str:
    """The origin class of a turn's caller. No context (MCP, scripts): the agent working for the
    local owner. In a chat turn, the owner's turns are the agent acting for the owner; anyone else's
    are untrusted (the reference classifies a session's provenance from its sender)."""
    if context is None:
        return "agent"
    explicit = getattr(context, "origin", None)
    if explicit:
        return str(explicit)
    return "agent" if getattr(context, "owner", False) else "untrusted"


def table_tools(store: "TableStore", context=None) -> list[Tool]:
    """The table tools for one turn (``context``: its :class:`reverie.intents.TurnContext`, or None)."""
    origin = origin_of(context)
    session = getattr(context, "session", None)
    sender = getattr(context, "sender", None)

    def list_(args: dict) -> dict:
        if args.get("file"):
            return store.schema(args["file"], sample=5)
        return {"files": store.list()}

    def query(args: dict) -> dict:
        return store.query(args["file"], args["sql"], args.get("params"), max_rows=args.get("maxRows", DEFAULT_ROWS))

    def write(args: dict) -> dict:
        if "params" in args and "rows" in args:
            raise ToolError("table_write: give params or rows, not both")
        # a turn that has read outside content writes as untrusted (taint, docs/trust.md): refused
        writer = current_writer()
        who = least_trusted(origin, writer.origin) if writer is not None else origin
        return store.write(args["file"], args["sql"], args.get("params"), args.get("rows"), origin=who,
                           surface="tool", session=session, sender=sender)

    return [
        Tool("table_list", LIST_DESCRIPTION, LIST_SCHEMA, list_, title="List table files"),
        Tool("table_query", QUERY_DESCRIPTION, QUERY_SCHEMA, query, title="Query a table file (read-only SQL)"),
        Tool("table_write", WRITE_DESCRIPTION, WRITE_SCHEMA, write, read_only=False, destructive=True,
             idempotent=False, title="Change a table file (one SQL statement)"),
    ]
