"""Storage: the engine seam (SQLite per agent, or PostgreSQL shared), one connection hook, named
migrations per component."""

from .connection import LazyConnection, connect, transaction
from .engine import AgentDatabase, PostgresAgentDatabase, SqliteAgentDatabase, as_database, engine_of
from .migrations import Migration, Migrations

__all__ = ["LazyConnection", "connect", "transaction", "Migration", "Migrations", "AgentDatabase",
           "SqliteAgentDatabase", "PostgresAgentDatabase", "as_database", "engine_of"]
