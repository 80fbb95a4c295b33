"""SQLite access: one connection hook, named migrations per component."""

from .connection import LazyConnection, connect, transaction
from .migrations import Migration, Migrations

__all__ = ["LazyConnection", "connect", "transaction", "Migration", "Migrations"]
