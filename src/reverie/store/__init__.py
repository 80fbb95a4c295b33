"""SQLite access: one connection hook, named migrations per component."""

from .connection import LazyConnection, connect, transaction, vec_available
from .migrations import Migration, Migrations

__all__ = ["LazyConnection", "connect", "transaction", "vec_available", "Migration", "Migrations"]
