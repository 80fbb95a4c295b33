"""reverie trust: claim your own hand edits; say how edits made outside reverie are classed."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

RISK = ("every edit made outside reverie now counts as yours: an agent or program that can write the "
        "workspace's files (a coding agent's file tools, a sync client) writes as you, and what it writes "
        "can be injected and promoted. Use it only where nothing but you edits these notes.")


def _lines(value: str | None) -> tuple[int, int] | None:
    from ..errors import UserError

    if value is None:
        return None
    a, sep, b = value.partition("-")
    try:
        start, end = int(a), int(b if sep else a)
    except ValueError:
        raise UserError(f"--lines takes A-B (line numbers), not {value!r}") from None
    return start, end


def register(app: typer.Typer) -> None:
    trust_app = typer.Typer(help="Your own edits: claim lines you added to dated notes by hand (reverie "
                                 "reads them as outside edits, untrusted), or say that nothing but you edits "
                                 "the notes on this machine.", no_args_is_help=True)
    app.add_typer(trust_app, name="trust")

    @trust_app.command("claim", help="Class the lines of dated notes that no session of reverie wrote "
                                     "(your hand edits) as yours (owner): found, injected and promoted like "
                                     "what `reverie remember` writes. Lines an agent wrote stay as they are.",
                       epilog="[bold]Examples[/bold]\n  reverie trust claim                          # every "
                              "dated note\n  reverie trust claim memory/2026-12-02.md --lines 4-6 --dry-run")
    def claim(ctx: typer.Context,
              paths: Annotated[Optional[list[str]], typer.Argument(help="dated notes (default: all of them)",
                                                                  show_default=False)] = None,
              lines: Annotated[Optional[str], typer.Option("--lines", help="only these lines, A-B (one note)",
                                                           show_default=False)] = None,
              dry_run: Annotated[bool, typer.Option("--dry-run", help="say what would be claimed; change "
                                                    "nothing")] = False,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..trust.claims import claim as run

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        done = run(mem, paths or None, _lines(lines), dry_run=dry_run)

        def human(found) -> None:
            verb = "would claim" if dry_run else "claimed"
            if not found:
                say("nothing to claim: every line of these notes is reverie's record or already yours")
            for c in found:
                capped = (f" (the note stays capped at {c.floor}: a flush that read outside content "
                          "quarantined it)") if c.floor else ""
                say(f"{verb} {c.lines} line(s) of {c.path} as yours{capped}")

        emit(o, {"dryRun": dry_run, "claimed": [c.as_dict() for c in done]}, lambda _: human(done))

    @trust_app.command("outside-edits", help="How a line added or changed outside reverie is classed: "
                                             "untrusted (the default) or owner. Without a value: the current one.",
                       epilog="[bold]Examples[/bold]\n  reverie trust outside-edits            # how they are classed now\n"
                              "  reverie trust outside-edits owner      # nothing but you edits the notes here")
    def outside_edits(ctx: typer.Context,
                      mode: Annotated[Optional[str], typer.Argument(help="untrusted | owner",
                                                                   show_default=False)] = None,
                      home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                      sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..trust import claims

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        if mode is None:
            now = claims.outside_edits(mem)
            emit(o, {"outsideEdits": now}, lambda _: say(f"outside edits are classed {now}"))
            return
        before = claims.set_outside_edits(mem, mode)

        def human(_) -> None:
            say(f"outside edits are classed {mode} from now on (were {before}); lines already recorded keep "
                "their class: `reverie trust claim` claims those")
            if mode == "owner":
                say(f"warning: {RISK}")

        emit(o, {"outsideEdits": mode, "before": before}, human)
