"""The forget report (reference §17's fields, plus reverie's own stores)."""

from __future__ import annotations

from .plan import Plan


def report(plan: Plan, *, dry_run: bool) -> dict:
    files = list(plan.files.values())
    corpus = [f for f in files if f.corpus]
    memory = [f for f in files if not f.corpus]
    index = plan.index.values()
    out = {
        "agentId": plan.agent,
        "dryRun": dry_run,
        "sessionIds": [r.session_id for r in plan.resolutions],
        "participantMatches": plan.participant_matches,
        "sessionResolutions": [r.as_dict() for r in plan.resolutions],
        "entryKeys": plan.entry_keys,
        "mixedLineageEntryKeys": plan.mixed,
        "untargetableEntryKeys": plan.untargetable,
        "curatedWrites": plan.curated_writes,
        "artifacts": {
            "memoryFiles": len(memory),
            "memoryEntries": len(plan.entry_keys),
            "memoryLines": sum(len(f.remove) for f in memory),
            "sessionCorpusFiles": len(corpus),
            "sessionCorpusLines": sum(len(f.remove) for f in corpus),
            "indexChunks": sum(i["chunks"] for i in index),
            "indexSources": sum(i["sources"] for i in index),
            "ftsRows": sum(i["chunks"] for i in index),
            "vectorRows": sum(i["vectors"] for i in index),
            "embeddingCacheRows": plan.cache_rows,
            "shortTermEntries": len(plan.signals_delete),
            "seenHashScopes": len(plan.seen_scopes),
            "backups": len(plan.preimages),
            "originRows": plan.origin_rows,
            "transcriptEvents": plan.events + len(plan.text_events),
            "transcriptSearchRows": plan.event_fts,
            "standingIntents": len(plan.intents),
            "tableFiles": len(plan.table_cells),
            "tableCells": sum(len(c) for c in plan.table_cells.values()),
            "tableWriteLogRows": len(plan.table_log_rows),
            "cronJobs": len(plan.cron_jobs),
            "cronRunLogs": len(plan.cron_logs),
            "damagedCopies": len(plan.damaged),
        },
        "cronJobs": [job_id for _key, job_id in plan.cron_jobs],
        "damagedCopies": plan.damaged,
        "files": [{"path": f.path, "action": "delete" if f.delete else "rewrite", "lines": sorted(f.remove),
                   "why": sorted(f.reasons)} for f in files],
        "refusals": plan.refusals,
        "warnings": plan.warnings,
    }
    if plan.selectors.texts:
        # the report never repeats the forgotten text
        out["texts"] = [{"chars": len(t)} for t in plan.selectors.texts]
    return out
