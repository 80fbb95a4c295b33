"""table list | show | query | import | export | log: structured memory in SQL table files."""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

FileArg = Annotated[str, typer.Argument(metavar="FILE", help="the table file: tables/FILE.sqlite in the workspace")]


def _cell(v) -> str:
    if isinstance(v, dict) and "blob" in v:
        return f"<blob {v['blob']} B>"
    return "NULL" if v is None else " ".join(str(v).split())


def _grid(columns: list[str], rows: list[list], width: int = 40) -> None:
    cells = [[_cell(v)[:width] for v in row] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)).rstrip())
    print("  ".join("-" * w for w in widths))
    for r in cells:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())


def _show_file(info: dict, samples: bool) -> None:
    if info.get("error"):
        print(f"{info['path']}: {info['error']}")
        return
    print(f"{info['path']}  ({info['bytes']:,} bytes)")
    for t in info["tables"]:
        cols = ", ".join(f"{c['name']} {c['type']}".strip() for c in t["columns"])
        rows = f"{t['rows']:,}" if t["rows"] is not None else "uncounted (slow)"
        print(f"  {t['kind']} {t['name']}: {rows} rows  ({cols})")
        if samples and t.get("sample"):
            print()
            _grid([c["name"] for c in t["columns"]], t["sample"])
            print()


def register(app: typer.Typer) -> None:
    table_app = typer.Typer(help="Structured memory: SQL table files the agent makes and queries "
                                 "(tables/<file>.sqlite in the workspace).", no_args_is_help=True)
    app.add_typer(table_app, name="table")

    @table_app.command("list", help="Table files with their tables, columns and row counts.")
    def list_(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        files = memory_for(o).tables.list()

        def human(d):
            if not d["files"]:
                say("no table files yet (the agent makes them with table_write; or: reverie table import FILE CSV)")
            for f in d["files"]:
                _show_file(f, samples=False)

        emit(o, {"files": files}, human)

    @table_app.command("show", help="One table file: its tables, columns, row counts and a few sample rows.")
    def show(ctx: typer.Context, file: FileArg,
             sample: Annotated[int, typer.Option("--sample", min=0, max=100, help="sample rows per table")] = 5,
             home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        info = memory_for(o).tables.schema(file, sample=sample)
        emit(o, info, lambda d: _show_file(d, samples=True))

    @table_app.command("query", help="Run one read-only SQL statement (the table_query tool's caps: rows, bytes, 2 s).")
    def query(ctx: typer.Context, file: FileArg,
              sql: Annotated[str, typer.Argument(help="one SELECT (or WITH ... SELECT) statement")],
              param: Annotated[Optional[list[str]], typer.Option("--param", "-p", help="a value for the next ? placeholder (repeatable; text)", show_default=False)] = None,
              max_rows: Annotated[int, typer.Option("--max-rows", min=1, max=1000, help="rows at most")] = 100,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        out = memory_for(o).tables.query(file, sql, list(param or []) or None, max_rows=max_rows)

        def human(d):
            if d["columns"]:
                _grid(d["columns"], d["rows"])
            say(f"{d['rowCount']} row(s) in {d['ms']} ms" + (f"; {d['note']}" if d["truncated"] else ""))

        emit(o, out, human)

    @table_app.command("import", help="Load a CSV (header row first) into a table of FILE, creating both when missing; one transaction.")
    def import_(ctx: typer.Context, file: FileArg,
                csv_path: Annotated[Path, typer.Argument(metavar="CSV", help="the CSV file (UTF-8; , ; tab or | separated)")],
                table: Annotated[Optional[str], typer.Option("--table", help="table name (default: the CSV's file name)", show_default=False)] = None,
                delimiter: Annotated[Optional[str], typer.Option("--delimiter", help="the separator (default: detected)", show_default=False)] = None,
                dry_run: Annotated[bool, typer.Option("--dry-run", help="show the plan (columns, types, rows); change nothing")] = False,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..tables.csvio import import_csv

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        if not mem.workspace.exists():
            raise UserError(f"workspace {mem.workspace} does not exist; run: reverie init")
        out = import_csv(mem.tables, file, csv_path, table=table, delimiter=delimiter, dry_run=dry_run)

        def human(d):
            cols = ", ".join(f"{c['name']} {c['type']}" for c in d["columns"])
            verb = "would " if dry_run else ""
            action = f"{verb}create table {d['table']} ({cols}) and " if d["create"] else ""
            say(f"{action}{verb}insert {d['rows']:,} row(s) into tables/{d['file']}.sqlite")

        emit(o, out, human)

    @table_app.command("export", help="Write every row of one table as CSV (stdout, or --output; an existing file is never overwritten).")
    def export(ctx: typer.Context, file: FileArg, table: Annotated[str, typer.Argument(help="the table to export")],
               output: Annotated[Optional[Path], typer.Option("--output", "-o", help="write here instead of stdout", show_default=False)] = None,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..tables.csvio import export_csv

        o = opts(ctx, home, agent, workspace, sets, as_json)
        store = memory_for(o).tables
        if output is None:
            if o.json:
                raise UserError("--json needs --output (the CSV itself goes to stdout otherwise)")
            count = export_csv(store, file, table, sys.stdout)
            say(f"{count:,} row(s)")
            return
        try:
            fh = open(output, "x", encoding="utf-8", newline="")
        except FileExistsError:
            raise UserError(f"{output} exists; not overwritten (choose another --output)") from None
        except OSError as exc:
            raise UserError(f"cannot write {output}: {exc.strerror or exc}") from None
        try:
            with fh:
                count = export_csv(store, file, table, fh)
        except BaseException:
            output.unlink(missing_ok=True)  # no half-written CSV left behind
            raise
        emit(o, {"file": file, "table": table, "rows": count, "output": str(output)},
             lambda d: say(f"wrote {d['rows']:,} row(s) to {d['output']}"))

    @table_app.command("log", help="The write log: every change to a table file, who asked (origin) and from where.")
    def log(ctx: typer.Context,
            file: Annotated[Optional[str], typer.Argument(metavar="[FILE]", help="only this table file", show_default=False)] = None,
            limit: Annotated[int, typer.Option("--limit", min=1, help="newest entries at most")] = 50,
            home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        entries = memory_for(o).tables.writes(file, limit)

        def human(d):
            if not d["writes"]:
                say("no writes recorded")
            for e in d["writes"]:
                when = datetime.fromtimestamp(e["at"] / 1000).strftime("%Y-%m-%d %H:%M:%S")
                sql = " ".join(e["statement"].split())[:90]
                print(f"{when}  {e['file']:<12} {e['status']:<8} {e['origin']:<9} {e['surface']:<4} {sql}"
                      + (f"  ({e['error']})" if e["error"] else ""))

        emit(o, {"writes": entries}, human)
