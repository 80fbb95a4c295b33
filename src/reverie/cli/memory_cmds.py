"""init, remember."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say


def register(app: typer.Typer) -> None:
    @app.command(help="Lay out a workspace and a commented settings file; never overwrites a file.")
    def init(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        created = mem.init()
        data = {"agent": mem.places.agent, "workspace": str(mem.workspace),
                "config": str(mem.places.config_file), "created": [str(p) for p in created]}
        if o.workspace is not None:
            # remembered, so the next command finds the workspace without --workspace
            from ..config_edit import set_agent_workspace

            cfg = mem.config_path
            before = set_agent_workspace(cfg, mem.places.agent, mem.workspace)
            data["remembered"] = {"key": f"agents.{mem.places.agent}.workspace", "file": str(cfg),
                                  "previous": before, "changed": before != str(mem.workspace)}

        def human(d):
            say(f"workspace: {d['workspace']}")
            for p in d["created"]:
                say(f"  created {p}")
            r = d.get("remembered")
            if r and r["changed"]:
                was = f" (was {r['previous']})" if r["previous"] else ""
                say(f"  remembered {r['key']} in {r['file']}{was}")
            if not d["created"] and not (r and r["changed"]):
                say("  everything was already there; nothing changed")
            if d["created"]:
                say("  note: reverie records who wrote each line of the dated notes in memory/; a line you add "
                    "there by hand reads as an outside edit (untrusted: never injected or promoted) until you "
                    "claim it: reverie trust claim (docs/trust.md)")

        emit(o, data, human)

    @app.command(help="Append a timestamped note to today's memory/YYYY-MM-DD.md (append-only).")
    def remember(ctx: typer.Context,
                 text: Annotated[Optional[list[str]], typer.Argument(help="what to remember", show_default=False)] = None,
                 stdin: Annotated[bool, typer.Option("--stdin", help="read the note from standard input")] = False,
                 home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        if stdin:
            if text:
                raise UserError("give the note as arguments or with --stdin, not both")
            from ..workspace.writes import MAX_ENTRY_BYTES, check_entry_size

            raw = sys.stdin.buffer.read(MAX_ENTRY_BYTES + 1)  # never the whole of a stream too big to keep
            check_entry_size(len(raw), read_all=False)
            try:
                body = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UserError(f"standard input is not valid UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                                f"offset {exc.start}); nothing was remembered") from None
        else:
            body = " ".join(text or [])
        if not body.strip():
            raise UserError("nothing to remember: give the text as arguments or with --stdin")
        mem = memory_for(o)
        from ..trust import OWNER_CLI

        path = mem.remember(body, provenance=OWNER_CLI)  # the owner at the terminal
        emit(o, {"path": str(path), "workspace": str(mem.workspace), "chars": len(body.strip())},
             lambda d: say(f"remembered in {d['path']}"))
