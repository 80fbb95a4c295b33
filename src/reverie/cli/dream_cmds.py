"""dream run | status | schedule | heartbeat, promote-explain, rem-harness, rem-backfill, and
memory preimages | restore: Dreaming (docs/dreaming.md)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opened_memory, opts, say

PHASES = ("light", "rem", "deep")


def _when(raw: str | None, tz):
    from datetime import datetime

    from ..errors import UserError

    if not raw:
        return None
    try:
        when = datetime.fromisoformat(raw.strip())
    except ValueError:
        raise UserError(f"--now {raw!r}: expected a time such as 2026-07-02T03:00 or 2026-07-02T03:00+08:00") from None
    return when if when.tzinfo else when.replace(tzinfo=tz)


def _run_human(d: dict) -> None:
    ing = d.get("ingested") or {}
    if ing:
        say(f"ingested {ing.get('dailyEntries', 0)} daily entr(y/ies) from {ing.get('dailyFiles', 0)} note(s), "
            f"{ing.get('sessionMessages', 0)} transcript message(s)")
    ph = d["phases"]
    if "light" in ph:
        say(f"light: {len(ph['light']['items'])} candidate(s) staged")
    if "rem" in ph:
        themes = ", ".join(t["tag"] for t in ph["rem"].get("themes", [])[:5]) or "none"
        say(f"rem: themes {themes}; {len(ph['rem']['items'])} possible lasting truth(s)")
    if "deep" in ph:
        deep = ph["deep"]
        c = deep["counts"]
        verb = "would write" if d["dryRun"] else "wrote"
        say(f"deep: {len(deep['candidates'])} candidate(s) passed; {deep['mode']}: {verb} +{c['added']} "
            f"merged {c['merged']} superseded {c['superseded']}; {len(deep['reconciled'])} already in MEMORY.md")
        for p in deep["promoted"]:
            say(f"  {p['action']}: {p['snippet'][:100]}")
        if deep.get("reason"):
            say(f"  note: {deep['reason']}")
        for h in deep.get("heldBack", [])[:5]:
            say(f"  held back: {h['snippet'][:80]} ({h['reason']})")
    if d["dryRun"]:
        say("dry run: nothing was changed")
    say(f"done in {d['seconds']:.2f}s")


def _status_human(d: dict) -> None:
    say(f"dreaming {'on' if d['enabled'] else 'off'}: '{d['frequency']}' in {d['timezone']}, model {d['model']}")
    last = d.get("lastSweep")
    say(f"last sweep: {last['at']} ({last.get('mode') or 'no deep phase'})" if last else "last sweep: never")
    s = d["store"]
    say(f"short-term store: {s['entries']} entries, {s['recalled']} recalled, {s['promoted']} promoted, "
        f"{s['readyToPromote']} ready to promote")
    for n in d["next"]:
        say(f"  {n['score']:.3f}  {n['snippet']}")
    m = d["memory"]
    say(f"MEMORY.md: {m['chars']} of {m['budget'] or 'unlimited'} characters; {d['preimages']} preimage(s) kept")
    if not d["automations"]:
        say("automations: none yet (created when `reverie scheduler run` starts, or by `reverie dream schedule`)")
    for j in d["automations"]:
        say(f"automation {j['id']} {j['name']} (agent {j['agentId']})")


def register(app: typer.Typer) -> None:
    dream_app = typer.Typer(help="Dreaming: promote what keeps proving useful into MEMORY.md, safely "
                                 "(light -> REM -> deep; docs/dreaming.md).", no_args_is_help=True)
    app.add_typer(dream_app, name="dream")

    @dream_app.command("run", help="Run one sweep now: light (stage), REM (reflect), deep (promote into "
                                   "MEMORY.md); writes DREAMS.md. --dry-run shows the plan and changes nothing.")
    def run(ctx: typer.Context,
            phase: Annotated[Optional[str], typer.Option("--phase", help="only this phase: light, rem or deep",
                                                         show_default=False)] = None,
            dry_run: Annotated[bool, typer.Option("--dry-run", help="plan and report; change nothing")] = False,
            model: Annotated[Optional[str], typer.Option("--model", help="consolidation and diary model for this "
                                                         "run (default memory.dreaming.model, else chat.model)",
                                                         show_default=False)] = None,
            now: Annotated[Optional[str], typer.Option("--now", help="run as of this time (ISO 8601), e.g. to "
                                                       "replay a night", show_default=False)] = None,
            home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError

        if phase is not None and phase not in PHASES:
            raise UserError(f"--phase {phase!r}: use light, rem or deep")
        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            when = _when(now, mem.settings.dreaming_tz())
            emit(o, mem.dream(phase, dry_run=dry_run, model=model, now=when).as_dict(), _run_human)

    @dream_app.command("status", help="What Dreaming holds and would do: the short-term store, what is ready to "
                                      "promote, the last sweep, MEMORY.md against its budget, the automations.")
    def status(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.inspect import status as dream_status

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            emit(o, dream_status(mem), _status_human)

    @dream_app.command("schedule", help="Create or repair the managed automations (the nightly sweep and the "
                                        "heartbeat review) now; `reverie scheduler run` does this when it starts.")
    def schedule(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                 sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.schedule import reconcile

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        sched = mem.scheduler()
        try:
            emit(o, reconcile(mem, sched), lambda d: say(
                f"automations: {len(d['created'])} created, {len(d['removed'])} removed, {len(d['kept'])} kept"))
        finally:
            sched.close()
            mem.close()

    @dream_app.command("heartbeat", help="Run the heartbeat memory review now: a heartbeat turn reads the daily "
                                         "notes since the last review with HEARTBEAT.md and proposes MEMORY.md "
                                         "entries, which Dreaming checks and writes.")
    def heartbeat(ctx: typer.Context,
                  force: Annotated[bool, typer.Option("--force", help="run even if the last review is recent")] = False,
                  model: Annotated[Optional[str], typer.Option("--model", help="model for the turn",
                                                               show_default=False)] = None,
                  home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                  sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.heartbeat import review

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            emit(o, review(mem, model=model, force=force), lambda d: say(d["summary"]))

    @app.command("promote-explain", help="Why a short-term entry is or is not promoted: every score component, "
                                         "weight and threshold, its phase signals and the trust decision. "
                                         "TARGET is a store key, an entry key from MEMORY.md or PATH:LINE.")
    def promote_explain(ctx: typer.Context,
                        target: Annotated[str, typer.Argument(metavar="KEY|PATH:LINE",
                                                              help="memory:<path>:<a>:<b>, st-..., or path:line")],
                        home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                        sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.inspect import explain

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            def human(d: dict) -> None:
                say(f"{d['key']}  {d['snippet'][:100]}")
                say(f"score {d['score']:.4f} (minScore {d['thresholds']['minScore']})")
                for k, v in d["components"].items():
                    w = d["weights"].get(k)
                    say(f"  {k:<14} {v:.4f}" + (f"  x {w:.2f}" if w is not None else "  (added)"))
                say(f"  signals {d['signals']} (recalls {d['recallCount']}, daily {d['dailyCount']}, grounded "
                    f"{d['groundedCount']}; minRecallCount {d['thresholds']['minRecallCount']}), distinct queries "
                    f"{d['uniqueQueries']}, recall days {d['recallDays']} (minUniqueQueries "
                    f"{d['thresholds']['minUniqueQueries']}), age {d['ageDays']} days (maxAgeDays "
                    f"{d['thresholds']['maxAgeDays']})")
                say(("promotable: " if d["promotable"] else "not promoted: ") + "; ".join(d["why"]))

            emit(o, explain(mem, target), human)

    @app.command("rem-harness", help="Preview grounded backfill over existing daily notes: the entries that read "
                                     "as lasting facts and the REM reflection over them. Writes nothing.")
    def rem_harness(ctx: typer.Context,
                    path: Annotated[Optional[str], typer.Option("--path", help="a note or folder in the workspace "
                                                                "(default memory)", show_default=False)] = None,
                    home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                    sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.backfill import harness

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            def human(d: dict) -> None:
                for day in d["days"]:
                    say(f"{day['day']}: {len(day['grounded'])} grounded")
                    for g in day["grounded"]:
                        say(f"  - {g['snippet'][:100]}")
                say(f"{d['grounded']} grounded entr(y/ies); preview only, nothing written")

            emit(o, harness(mem, path), human)

    @app.command("rem-backfill", help="Write grounded backfill: one diary entry per day into DREAMS.md (marked, "
                                      "removable) and, with --stage-short-term, grounded signals in the short-term "
                                      "store. --rollback / --rollback-short-term undo them. Never writes MEMORY.md.")
    def rem_backfill(ctx: typer.Context,
                     path: Annotated[Optional[str], typer.Option("--path", help="a note or folder in the workspace "
                                                                 "(default memory)", show_default=False)] = None,
                     stage: Annotated[bool, typer.Option("--stage-short-term", help="also stage grounded signals")] = False,
                     rollback: Annotated[bool, typer.Option("--rollback", help="remove backfill diary entries")] = False,
                     rollback_st: Annotated[bool, typer.Option("--rollback-short-term",
                                                               help="remove staged grounded signals")] = False,
                     dry_run: Annotated[bool, typer.Option("--dry-run", help="report; change nothing")] = False,
                     home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                     sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.backfill import backfill, rollback as undo

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            if rollback or rollback_st:
                emit(o, undo(mem, diary=rollback, short_term=rollback_st, dry_run=dry_run), lambda d: say(
                    f"{'would remove' if d['dryRun'] else 'removed'} {d['diaryEntries']} backfill diary entr(y/ies), "
                    f"{d['shortTermEntries']} staged signal(s)"))
            else:
                emit(o, backfill(mem, path, stage=stage, dry_run=dry_run), lambda d: say(
                    f"{'would write' if d['dryRun'] else 'wrote'} {d['diaryEntries']} diary entr(y/ies) for "
                    f"{d['grounded']} grounded entr(y/ies); staged {d['staged']}"))

    memory_app = typer.Typer(help="MEMORY.md's preimages: undo a Dreaming rewrite.", no_args_is_help=True)
    app.add_typer(memory_app, name="memory")

    @memory_app.command("preimages", help="List the preimages of MEMORY.md kept before each Dreaming rewrite "
                                          "(newest 8), newest first.")
    def preimages(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                  sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.preimages import listing

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            def human(items: list) -> None:
                if not items:
                    say("no preimages kept yet")
                for i in items:
                    say(f"{i['id']}  {i['createdAt']}  {i['bytes']} bytes, {i['entries']} entries "
                        f"({i['promoted']} promoted)  sha256 {i['sha256'][:12]}")

            emit(o, listing(mem.places, mem.workspace), human)

    @memory_app.command("restore", help="Put a preimage back into MEMORY.md, byte for byte (what it replaces is "
                                        "kept as a preimage in turn, so a restore can be undone).")
    def restore(ctx: typer.Context,
                ident: Annotated[str, typer.Argument(metavar="ID", help="a preimage id, or latest")],
                dry_run: Annotated[bool, typer.Option("--dry-run", help="report; change nothing")] = False,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..dreaming.preimages import restore as put_back

        o = opts(ctx, home, agent, workspace, sets, as_json)
        with opened_memory(o, create=False) as mem:
            emit(o, put_back(mem.places, mem.workspace, ident, dry_run=dry_run), lambda d: say(
                f"MEMORY.md {'already holds' if d['unchanged'] else ('would be' if d['dryRun'] else 'restored to')} "
                f"preimage {d['restored']} ({d['bytes']} bytes)"))
