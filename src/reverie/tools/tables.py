"""table_list, table_query, table_write: structured memory in SQLite table files."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..tables import DEFAULT_ROWS, MAX_ROWS
from .base import Tool, ToolError

if TYPE_CHECKING:  # pragma: no cover
    from ..tables import TableStore

LIST_DESCRIPTION = (
    "Structured memory: list the agent's SQL table files (tables/<file>.sqlite) with their tables, "
    "columns and row counts. Use tables for dense structured data that notes handle badly (API "
    "endpoints, accounts, records, prices); a memory_search result from tables/... points at one. "
    "Give `file` to also see a few sample rows of each table.")
QUERY_DESCRIPTION = (
    "Ask a table file an exact question with one read-only SQL statement (SQLite dialect: SELECT, "
    "WITH ... SELECT, PRAGMA table_info). Returns columns and rows, at most maxRows rows (default "
    f"{DEFAULT_ROWS}) and about 64 KB, stopped after 2 seconds; `truncated` says when more rows exist: "
    "narrow the query or page with LIMIT/OFFSET. Pass values through params (`?` placeholders), never "
    "by pasting them into the SQL.")
WRITE_DESCRIPTION = (
    "Change one table file with one SQL statement in one transaction: CREATE TABLE / CREATE INDEX / "
    "CREATE VIEW, ALTER TABLE, INSERT, UPDATE, DELETE, DROP. The file is created by its first "
    "statement. Use `?` placeholders with params, or rows (a list of parameter lists) to insert many "
    "rows with one INSERT. Only the table file itself is reachable: ATTACH, VACUUM, triggers, "
    "temporary objects, extensions and writable pragmas are refused. Every write is logged with who "
    "asked for it. Use it when the user wants structured data kept, not for ordinary notes "
    "(memory_append).")

_FILE = {"type": "string", "maxLength": 80, "description": "the table file: tables/<file>.sqlite, e.g. \"api\""}
_SQL = {"type": "string", "maxLength": 100_000, "description": "one SQL statement (SQLite dialect)"}
_PARAMS = {"type": "array", "description": "values for the ? placeholders, in order"}

LIST_SCHEMA = {
    "type": "object",
    "properties": {"file": {**_FILE, "description": "only this file, with sample rows"}},
    "additionalProperties": False,
}
QUERY_SCHEMA = {
    "type": "object",
    "properties": {
        "file": _FILE, "sql": _SQL, "params": _PARAMS,
        "maxRows": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS,
                    "description": f"rows to return at most (default {DEFAULT_ROWS})"},
    },
    "required": ["file", "sql"],
    "additionalProperties": False,
}
WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "file": _FILE, "sql": _SQL, "params": _PARAMS,
        "rows": {"type": "array", "items": {"type": "array"},
                 "description": "run the statement once per entry, each a list of values for the ? placeholders"},
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
        return store.write(args["file"], args["sql"], args.get("params"), args.get("rows"), origin=origin,
                           surface="tool", session=session, sender=sender)

    return [
        Tool("table_list", LIST_DESCRIPTION, LIST_SCHEMA, list_, title="List table files"),
        Tool("table_query", QUERY_DESCRIPTION, QUERY_SCHEMA, query, title="Query a table file (read-only SQL)"),
        Tool("table_write", WRITE_DESCRIPTION, WRITE_SCHEMA, write, read_only=False, destructive=True,
             idempotent=False, title="Change a table file (one SQL statement)"),
    ]
