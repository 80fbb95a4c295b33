"""SQLite access: one connection hook, named migrations per component."""

from .connection import connect, transaction, vec_available
from .migrations import Migration, Migrations

__all__ = ["connect", "transaction", "vec_available", "Migration", "Migrations"]
