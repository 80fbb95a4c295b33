"""``reverie context``: exactly what a session of a kind would start with, and why each file is in
or out (workspace files by audience and budget, today's and yesterday's notes, entries of
inactive projects, lines from outside reverie)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

KINDS = {"main": ("direct", "interactive"), "group": ("group", "interactive"), "cron": ("direct", "cron"),
         "subagent": ("direct", "subagent")}


def _print(d: dict) -> None:
    print(f"A {d['audience']} session of agent {d['agent']} starts with (projects: "
          f"{', '.join(d['projects']) or 'none'}{'; inferred: ' + d['inferred'] if d.get('inferred') else ''}):")
    b = d["budgets"]
    print(f"Workspace files ({b['maxChars']:,} chars per file, USER.md {b['userMaxChars']:,}, {b['totalMaxChars']:,} "
          "in all):")
    for f in d["files"]:
        why = f" -- {f['reason']}" if f.get("reason") else ""
        if f["status"] in ("injected", "truncated", "clamped"):
            size = (f"{f['injected_chars']:,} of {f['raw_chars']:,} chars, CUT ({f['status']})" if f["truncated"]
                    else f"{f['injected_chars']:,} chars")
            print(f"  in   {f['name']:<13} {size}{why}")
        else:
            print(f"  out  {f['name']:<13} {f['status']}{why}")
    sc = d["startupBudgets"]
    print(f"Daily notes ({sc['dailyMemoryDays']} days, {sc['maxFileChars']:,} chars per file, {sc['maxTotalChars']:,} "
          "in all):")
    if d.get("notesReason"):
        print(f"  none: {d['notesReason']}")
    for n in d["notes"]:
        label = f"{n['role']} of {n['why']}"
        why = f" -- {n['reason']}" if n.get("reason") else ""
        if n["injected_chars"]:
            size = (f"{n['injected_chars']:,} of {n['raw_chars']:,} chars, CUT ({n['status']})" if n["truncated"]
                    else f"{n['injected_chars']:,} chars")
            print(f"  in   {n['path']:<30} {label}: {size}{why}")
        else:
            print(f"  out  {n['path']:<30} {label}: {n['status']}{why}")
    for day in d["days"]:
        if not day["chosen"]:
            print(f"  ({day['day']}, {day['why']}: {day['reason']})")
    if d["truncated"]:
        say("cut at session start (in context only; read the rest with memory_get): " + ", ".join(d["truncated"]))


def register(app: typer.Typer) -> None:
    @app.command(help="Show exactly what a new session would start with (workspace files, today's and yesterday's "
                      "notes) and why each file is in or out; nothing is changed.")
    def context(ctx: typer.Context,
                session_kind: Annotated[str, typer.Option("--session-kind", help="main | group | cron | subagent")] = "main",
                project: Annotated[Optional[list[str]], typer.Option("--project", help="active project key "
                                                                     "(repeatable; default: the folder's)")] = None,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..recall.projects import folder_scope
        from ..recall.startup import plan

        o = opts(ctx, home, agent, workspace, sets, as_json)
        if session_kind not in KINDS:
            raise UserError(f"--session-kind must be one of {', '.join(KINDS)}, not {session_kind!r}")
        mem = memory_for(o, create=False)
        try:
            scope = folder_scope(mem.settings, project)
            inferred = scope.inferred
            chat_type, kind = KINDS[session_kind]
            p = plan(mem, chat_type=chat_type, session_kind=kind, scope=scope)
            boot, sc = mem.settings.sessions.bootstrap, mem.settings.sessions.startup_context
            data = {"agent": mem.places.agent, "sessionKind": session_kind, **p.as_dict(),
                    "inferred": inferred.how if inferred else None,
                    "budgets": boot.model_dump(by_alias=True),
                    "startupBudgets": sc.model_dump(by_alias=True)}
        finally:
            mem.close()
        emit(o, data, _print)
