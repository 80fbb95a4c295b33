"""forget: remove everything derived from chosen sessions, or one fact, from every file and store."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

Many = Optional[list[str]]


def _human(d: dict) -> None:
    a = d["artifacts"]
    verb = "would remove" if d["dryRun"] else "removed"
    for r in d["sessionResolutions"]:
        say(f"session {r['sessionId']}  ({r['source']}{', ' + r['sessionKey'] if r.get('sessionKey') else ''})")
    for f in d["files"]:
        say(f"  {verb} {len(f['lines'])} line(s) of {f['path']}" + (" (file deleted)" if f["action"] == "delete" else ""))
    say(f"{verb}: {a['memoryLines'] + a['sessionCorpusLines']} memory line(s) in "
        f"{a['memoryFiles'] + a['sessionCorpusFiles']} file(s), {a['memoryEntries']} promoted entr(y/ies), "
        f"{a['indexChunks']} index chunk(s), {a['vectorRows']} vector(s), {a['embeddingCacheRows']} cached "
        f"embedding(s), {a['shortTermEntries']} recall signal(s), {a['transcriptEvents']} transcript event(s), "
        f"{a['backups']} preimage(s), {a['standingIntents']} standing intent(s)")
    scrub = "would scrub" if d["dryRun"] else "scrubbed"
    if a["tableCells"] or a["tableWriteLogRows"]:
        say(f"  {scrub} {a['tableCells']} cell(s) in {a['tableFiles']} table file(s) and "
            f"{a['tableWriteLogRows']} row(s) of the table write log")
    for job in d["cronJobs"]:
        say(f"  {scrub} the text from cron job {job} (it keeps its schedule: review it "
            "with reverie cron list)")
    if a["cronRunLogs"]:
        say(f"  {scrub} {a['cronRunLogs']} automation run record(s)")
    for p in d["damagedCopies"]:
        say(f"  {'would delete' if d['dryRun'] else 'deleted'} {p}: a damaged copy kept by doctor --repair "
            "cannot be searched or scrubbed with certainty")
    for key in d["mixedLineageEntryKeys"]:
        say(f"  entry {key} also came from other sessions (removed; re-add what they support)")
    for key in d["untargetableEntryKeys"]:
        say(f"  entry {key} has no recorded lineage: left in place")
    for w in d["curatedWrites"]:
        say(f"  review {w['path']}" + (f" line {w['line']}" if w.get("line") else "") + f": {w['reason']}")
    for r in d["refusals"]:
        say(f"  refused: {r['reason']}")
    if d["dryRun"]:
        say("dry run: nothing was changed")


def register(app: typer.Typer) -> None:
    @app.command(help="Forget sessions (--session ID|KEY, --participant, --hook-source) or a fact (--text): "
                      "removes every note, entry, index row, vector, cached embedding, recall signal and "
                      "transcript derived from them (scrubbing table files, their write log and cron jobs, "
                      "deleting doctor --repair's damaged copies), and keeps tombstones so nothing comes back. "
                      "Plan first with --dry-run.")
    def forget(ctx: typer.Context,
               session: Annotated[Many, typer.Option("--session", help="session id or key (repeatable)",
                                                     show_default=False)] = None,
               participant: Annotated[Many, typer.Option("--participant", help="sessions this sender spoke in "
                                                         "(repeatable)", show_default=False)] = None,
               hook_source: Annotated[Many, typer.Option("--hook-source", help="sessions fed by this external "
                                                         "content hook, e.g. gmail (repeatable)",
                                                         show_default=False)] = None,
               since: Annotated[Optional[str], typer.Option("--since", help="only participant/hook-source "
                                                            "sessions started on or after this date",
                                                            show_default=False)] = None,
               text: Annotated[Many, typer.Option("--text", help="a fact to remove from every file and store "
                                                  "(repeatable)", show_default=False)] = None,
               dry_run: Annotated[bool, typer.Option("--dry-run", help="plan and report; change nothing")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..forget import Selectors, forget as run
        from ..forget.select import parse_since

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        try:
            sel = Selectors(list(session or []), list(participant or []), list(hook_source or []),
                            parse_since(since, mem.settings.tz()), list(text or []))
            emit(o, run(mem, sel, dry_run=dry_run), _human)
        finally:
            mem.close()
