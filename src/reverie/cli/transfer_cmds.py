"""import openclaw | markdown | reverie, and export: moving an agent's memory in and out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

DryRunOpt = Annotated[bool, typer.Option("--dry-run", help="report what would be taken and left; change nothing")]
SourceArg = Annotated[Path, typer.Argument(metavar="PATH", show_default=False)]


def _human(d: dict) -> None:
    verb = "would take" if d["dryRun"] else "took"
    say(f"{verb} {d['taken']['count']} file(s) from {d['source']} into {d['destination']}"
        + (f"; {d['alreadyThere']['count']} already there" if d["alreadyThere"]["count"] else ""))
    for c in d["taken"]["items"]:
        print(f"  + {c['to']}" + (f"  (from {c['from']})" if c["from"] != c["to"] else ""))
    for c in d["conflicts"]["items"]:
        print(f"  ! {c['to']}: {c['reason']}")
    if d["conflicts"]["count"]:
        say(f"{d['conflicts']['count']} conflict(s): those files were left as they are in the destination")
    sessions = d.get("sessions")
    if sessions:
        say(f"sessions: {sessions['imported']} {'to import' if d['dryRun'] else 'imported'} "
            f"({sessions['events']} events), {len(sessions['alreadyThere'])} already there"
            + (f"; left: {', '.join(f'{n} {what}' for what, n in sessions['left'].items())}" if sessions.get("left") else ""))
    for key in ("intents", "automations"):
        if key in d:
            part = d[key]
            say(f"{key}: " + (f"{part['planned']} to import" if "planned" in part else
                              f"{part['imported']} imported, {len(part['alreadyThere'])} already there"))
    if d["left"]["count"]:
        say(f"left {d['left']['count']} item(s):")
        for item in d["left"]["items"]:
            print(f"  - {item['path']}: {item['reason']}")
    for note in d.get("notes") or []:
        say(note)
    if not d["dryRun"] and (d["taken"]["count"] or (sessions and sessions["imported"])):
        say("next: reverie index (makes the imported notes searchable)")


def register(app: typer.Typer) -> None:
    import_app = typer.Typer(help="Bring memory in: an OpenClaw workspace, a folder of Markdown notes, or a reverie "
                                  "export. Nothing is overwritten; the report says what was taken and left.",
                             no_args_is_help=True)
    app.add_typer(import_app, name="import")

    @import_app.command("openclaw", help="Take an OpenClaw agent's memory: MEMORY.md, USER.md, DREAMS.md, daily "
                                         "notes (slugged ones too), workspace files and JSONL transcripts. PATH is "
                                         "OpenClaw's state folder (~/.openclaw) or a workspace.")
    def openclaw(ctx: typer.Context, path: SourceArg,
                 from_agent: Annotated[str, typer.Option("--from-agent", help="the OpenClaw agent to take")] = "main",
                 sessions: Annotated[Optional[Path], typer.Option("--sessions", help="the transcripts folder, when not beside the workspace", show_default=False)] = None,
                 dry_run: DryRunOpt = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..transfer import import_openclaw

        o = opts(ctx, home, agent, workspace, sets, as_json)
        report = import_openclaw(memory_for(o), path, agent=from_agent, sessions=sessions, dry_run=dry_run)
        emit(o, report.as_dict(), _human)

    @import_app.command("markdown", help="Take a folder of Markdown notes (an Obsidian vault, a journal): dated "
                                         "files become daily notes, the rest goes under memory/imports/NAME/; "
                                         "front matter and wiki links are kept as they are.")
    def markdown(ctx: typer.Context, path: SourceArg,
                 name: Annotated[Optional[str], typer.Option("--name", help="folder under memory/imports/ (default: the source folder's name)", show_default=False)] = None,
                 dry_run: DryRunOpt = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..transfer import import_markdown

        o = opts(ctx, home, agent, workspace, sets, as_json)
        report = import_markdown(memory_for(o), path, name=name, dry_run=dry_run)
        emit(o, report.as_dict(), _human)

    @import_app.command("reverie", help="Take back a `reverie export` (files, transcripts, intents, automations), "
                                        "into this home and agent.")
    def reverie_(ctx: typer.Context, path: SourceArg, dry_run: DryRunOpt = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..transfer import import_archive

        o = opts(ctx, home, agent, workspace, sets, as_json)
        report = import_archive(memory_for(o), path, dry_run=dry_run)
        emit(o, report.as_dict(), _human)

    @app.command("export", help="Write a complete, re-importable copy of the agent into a new folder: workspace files, "
                                "transcripts as JSONL, standing intents, automations (reverie import reverie takes it back).")
    def export(ctx: typer.Context, dest: Annotated[Path, typer.Argument(metavar="DEST", help="a new (or empty) folder")],
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..transfer import export_agent

        o = opts(ctx, home, agent, workspace, sets, as_json)
        manifest = export_agent(memory_for(o), dest)
        summary = {k: manifest[k] for k in ("path", "agent", "exportedAt", "counts", "left")}

        def human(d):
            c = d["counts"]
            say(f"exported agent {d['agent']} to {d['path']}: {c['files']} file(s), {c['sessions']} session(s) "
                f"({c['events']} events), {c['intents']} intent(s), {c['automations']} automation(s)")
            for item in d["left"]:
                print(f"  - {item['path']}: {item['reason']}")

        emit(o, summary, human)
