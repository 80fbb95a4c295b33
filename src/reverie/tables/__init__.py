"""Structured memory: SQLite table files the agent makes and queries (``tables/<name>.sqlite`` in
the workspace), opened only through a hardened connection, capped, and logged with origin."""

from .store import DEFAULT_BYTES, DEFAULT_ROWS, MAX_BYTES, MAX_ROWS, TableError, TableStore, check_name

__all__ = ["TableStore", "TableError", "check_name", "DEFAULT_ROWS", "MAX_ROWS", "DEFAULT_BYTES", "MAX_BYTES"]
