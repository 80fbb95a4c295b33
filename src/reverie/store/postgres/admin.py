"""What the operator of a shared database does once: apply the schema, give an agent a login role.

Row-level security fences rows by ``reverie.current_agent()``. A connection of the operator's (or
of a role shared by several agents) names its agent itself, through a session setting: that keeps
cooperating reverie processes apart but does not stop a hostile one. A login role made with
:func:`grant_agent` is bound to one agent in ``reverie.agent_roles``, which no agent may read or
change: whatever such a connection sets, it sees and writes only its own agent's rows.
"""

from __future__ import annotations

import re

from ...errors import UserError
from .pool import migrate, raw_connect
from .schema import APP_ROLE, SCHEMA

_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def grant_agent(dsn: str, agent: str, role: str, password: str | None = None) -> dict:
    """Create (or update) login role ``role`` for ``agent``'s rows only; returns what was done."""
    if not _ROLE.match(role):
        raise UserError(f"role name {role!r}: use lower-case letters, digits and _ (at most 63)")
    migrate(dsn)
    from psycopg import sql

    with raw_connect(dsn) as conn:
        with conn.transaction():
            exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is not None
            owner = conn.execute("SELECT agent_id FROM reverie.agent_roles WHERE role_name = %s", (role,)).fetchone()
            if owner and owner[0] != agent:
                raise UserError(f"role {role!r} already belongs to agent {owner[0]!r}")
            if not exists:
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE")
                             .format(sql.Identifier(role)))
            if password is not None:
                conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
            conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(APP_ROLE), sql.Identifier(role)))
            conn.execute(f"INSERT INTO {SCHEMA}.agent_roles(agent_id, role_name) VALUES (%s, %s) "
                         "ON CONFLICT (agent_id) DO UPDATE SET role_name = excluded.role_name", (agent, role))
    return {"agent": agent, "role": role, "created": not exists, "password": password is not None}
