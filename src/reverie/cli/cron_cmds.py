"""cron add | list | remove | run-due | runs, and scheduler run: automations (time-based jobs)."""

from __future__ import annotations

import signal
import threading
from datetime import datetime, timezone
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say


def _scheduler(o, *, create: bool = True):
    mem = memory_for(o, create=create, home_only=True)
    return mem, mem.scheduler()


def _when(ms, tz) -> str:
    from ..automation.schedule import iso

    return iso(ms, tz) if ms is not None else "-"


def _job_zone(j: dict | None, default):
    """Times of a job are shown in the job's own zone (its --tz), else the configured one."""
    from ..automation.schedule import zone

    name = ((j or {}).get("schedule") or {}).get("tz")
    try:
        return zone(name) or default
    except Exception:  # a zone removed from the system since: the configured one
        return default


def _job_line(j: dict, tz) -> str:
    from ..automation import describe

    tz = _job_zone(j, tz)
    s = j["state"]
    payload = j["payload"]
    what = f"event: {payload.get('text')}" if payload["kind"] == "systemEvent" else f"agent turn: {payload.get('message')}"
    status = "enabled" if j.get("enabled", True) else "disabled"
    last = f", last {s['lastRunStatus']}" if s.get("lastRunStatus") else ""
    errs = f", {s['consecutiveErrors']} errors in a row" if s.get("consecutiveErrors") else ""
    return (f"{j['id']}  {j['name']}  [{describe(j['schedule'])}]  agent {j.get('agentId')}  {status}\n"
            f"    next {_when(s.get('nextRunAtMs'), tz)}{last}{errs}\n    {what}")


def _run_line(r: dict, tz, zones: dict | None = None) -> str:
    extra = r.get("error") or r.get("summary") or ""
    tz = (zones or {}).get(r.get("jobId"), tz)
    return f"{_when(r.get('ts'), tz)}  {r.get('jobId')}  {r.get('status'):<7} {extra}"


def _zones(sched, tz) -> dict:
    return {j["id"]: _job_zone(j, tz) for j in sched.list()}


def _parse_now(text: str | None) -> datetime | None:
    if not text:
        return None
    from ..automation.schedule import parse_at, to_ms

    return datetime.fromtimestamp(parse_at(text, to_ms(datetime.now(timezone.utc))) / 1000, timezone.utc)


def register(app: typer.Typer) -> None:
    cron_app = typer.Typer(help="Automations: time-based jobs (\"tomorrow at 9, remind me ...\") run by `reverie scheduler run`.",
                           no_args_is_help=True)
    app.add_typer(cron_app, name="cron")

    @cron_app.command("add", help="Add a job: one schedule (--at, --every, --cron) and one payload (--text, --message).")
    def add(ctx: typer.Context,
            at: Annotated[Optional[str], typer.Option("--at", help="once, at an ISO-8601 time (2026-07-02T09:00, read in --tz or the configured zone) or +DURATION (+20m)", show_default=False)] = None,
            every: Annotated[Optional[str], typer.Option("--every", help="repeatedly, every DURATION (30s, 15m, 2h, 1d)", show_default=False)] = None,
            cron: Annotated[Optional[str], typer.Option("--cron", help="a 5-field cron expression, e.g. '0 9 * * *'", show_default=False)] = None,
            tz: Annotated[Optional[str], typer.Option("--tz", help="IANA time zone for --cron and a bare --at time (default the configured timezone, else the host's)", show_default=False)] = None,
            text: Annotated[Optional[str], typer.Option("--text", help="system event: this text is appended to the agent's daily note", show_default=False)] = None,
            message: Annotated[Optional[str], typer.Option("--message", help="agent turn: this message is sent to the agent in a session of its own (cron:<job id>); the reply is kept in the transcript and the run history", show_default=False)] = None,
            model: Annotated[Optional[str], typer.Option("--model", help="for --message: offline | openai:<model> | anthropic:<model> (default chat.model)", show_default=False)] = None,
            name: Annotated[Optional[str], typer.Option("--name", help="a short name (default the start of the text)", show_default=False)] = None,
            description: Annotated[Optional[str], typer.Option("--description", help="a longer description", show_default=False)] = None,
            keep: Annotated[bool, typer.Option("--keep", help="keep a one-time job (disabled) after it succeeded instead of deleting it")] = False,
            home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        if bool(text) == bool(message):
            raise UserError("give exactly one payload: --text T (a system event) or --message M (an agent turn)")
        if model and not message:
            raise UserError("--model goes with --message (an agent turn)")
        payload = {"kind": "systemEvent", "text": text} if text else {"kind": "agentTurn", "message": message}
        if model:
            payload["model"] = model
        mem, sched = _scheduler(o)
        if message:
            from .. import models

            # refuse now a model that can never run (unknown provider, no API key for its own
            # host) rather than fail every run later
            problem = models.create(model or mem.settings.chat.model, mem.settings.chat).not_ready()  # no connection
            if problem:
                sched.close()
                raise UserError(problem)
        try:
            tz_name = tz or mem.settings.timezone
            job = sched.add(payload=payload, at=at, every=every, cron=cron, tz=tz_name, agent=mem.places.agent,
                            name=name, description=description, keep=keep)
        finally:
            sched.close()
        emit(o, job, lambda j: (say(f"added {j['id']}"), print(_job_line(j, mem.settings.tz()))))

    @cron_app.command("list", help="List jobs with their schedule, next run and last result.")
    def list_(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, sched = _scheduler(o, create=False)
        try:
            jobs = sched.list(agent=o.agent)
        finally:
            sched.close()

        def human(d):
            if not d["jobs"]:
                say("no automations")
            for j in d["jobs"]:
                print(_job_line(j, mem.settings.tz()))

        emit(o, {"jobs": jobs}, human)

    @cron_app.command("remove", help="Delete a job (its run history is kept until it ages out).")
    def remove(ctx: typer.Context, job_id: Annotated[str, typer.Argument(metavar="ID", help="the job id (job_...)")],
               dry_run: Annotated[bool, typer.Option("--dry-run", help="say what would be removed; change nothing")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, sched = _scheduler(o)
        try:
            job = sched.get(job_id)
            if job is None:
                raise UserError(f"no automation with id {job_id!r} (see: reverie cron list)")
            removed = False if dry_run else sched.remove(job_id)
        finally:
            sched.close()
        emit(o, {"removed": removed, "dryRun": dry_run, "job": job},
             lambda d: say(f"{'would remove' if dry_run else 'removed'} {job_id}"))

    @cron_app.command("run-due", help="Run every job that is due now, once, and print the run records.")
    def run_due(ctx: typer.Context,
                now: Annotated[Optional[str], typer.Option("--now", help="preview: list the jobs that would be due at this time (ISO-8601 or +DURATION); runs and changes nothing", show_default=False)] = None,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, sched = _scheduler(o)
        try:
            if now:
                # A pretended clock must never run jobs or move schedules: running them "in the
                # future" would skip every real run in between and could steal a live claim.
                at = _parse_now(now)
                due = sched.due_at(at)
                emit(o, {"dryRun": True, "at": at.isoformat(), "wouldRun": due},
                     lambda d: say("\n".join(f"would run {j['id']}  {j['name']}" for j in d["wouldRun"])
                                   or "nothing would be due"))
                return
            zones = _zones(sched, mem.settings.tz())  # before running: a one-shot job is deleted after
            records = sched.run_due()
        finally:
            sched.close()

        def human(d):
            if not d["runs"]:
                say("nothing was due")
            for r in d["runs"]:
                print(_run_line(r, mem.settings.tz(), zones))

        emit(o, {"runs": records}, human)

    @cron_app.command("runs", help="Show run history, newest first (all jobs, or one).")
    def runs(ctx: typer.Context,
             job_id: Annotated[Optional[str], typer.Argument(metavar="[ID]", help="only this job", show_default=False)] = None,
             limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="how many records")] = 50,
             home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, sched = _scheduler(o, create=False)
        try:
            records = sched.runs(job_id, limit)
            zones = _zones(sched, mem.settings.tz())
        finally:
            sched.close()

        def human(d):
            if not d["runs"]:
                say("no runs recorded")
            for r in d["runs"]:
                print(_run_line(r, mem.settings.tz(), zones))

        emit(o, {"runs": records}, human)

    sched_app = typer.Typer(help="The scheduler that runs automations.", no_args_is_help=True)
    app.add_typer(sched_app, name="scheduler")

    @sched_app.command("run", help="Run due automations in the foreground until Ctrl-C or SIGTERM (a running job is finished first).")
    def run(ctx: typer.Context,
            poll: Annotated[float, typer.Option("--poll", min=0.05, help="seconds between looks for new or changed jobs")] = 5.0,
            home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, sched = _scheduler(o)
        stop = threading.Event()
        why: list[str] = []

        def on_signal(signum, frame):
            if stop.is_set():  # a second signal: stop now (an interrupted run is redone once on restart)
                raise KeyboardInterrupt
            why.append(signal.Signals(signum).name)
            stop.set()

        # before the start-up work: a signal during it stops the scheduler cleanly once it is done
        previous: dict = {}
        count = 0
        try:
            for s in (signal.SIGINT, signal.SIGTERM):
                previous[s] = signal.signal(s, on_signal)
            from ..cron_turns import prune_agent
            from ..dreaming.schedule import reconcile

            reconcile(mem, sched)  # Dreaming's managed jobs (nightly sweep, heartbeat review), one per workspace
            pruned = prune_agent(mem)  # cron.sessionRetention: also after every agent-turn run
            if pruned:
                say(f"deleted the transcripts of {pruned} run sessions older than cron.sessionRetention")
            if not stop.is_set():  # (a signal during start-up: stopped before running anything)
                tz = mem.settings.tz()
                say(f"scheduler running for {mem.places.home} ({len(sched.list())} jobs); Ctrl-C to stop")
                zones = _zones(sched, tz)

                def on_run(r: dict) -> None:
                    if r.get("jobId") not in zones:  # added since the scheduler started
                        zones.update(_zones(sched, tz))
                    say(_run_line(r, tz, zones))

                count = sched.run_forever(stop, poll_seconds=poll, on_run=on_run)
        finally:
            for s, h in previous.items():
                signal.signal(s, h)
            sched.close()
        say(f"scheduler stopped ({why[0] if why else 'done'}) after {count} runs")
        if o.json:
            emit(o, {"runs": count, "stoppedBy": why[0] if why else None})
