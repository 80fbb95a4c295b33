"""How ``reverie doctor --repair`` reports what it did, table by table."""

from __future__ import annotations

from .common import say

# What each table of the agent database holds, in the words of the person reading the report.
WHAT = {
    "transcript_events": "conversation events", "sessions": "sessions", "transcript_fts": "session search index",
    "standing_intents": "standing intents", "standing_intent_fires": "intent fire records",
    "standing_intents_fts": "intent keyword index", "memory_embedding_cache": "cached embeddings (re-made on demand)",
    "memory_recall_signals": "recall signals (Dreaming's short-term store)",
    "memory_phase_signals": "Dreaming's phase signals", "memory_dream_ingestion": "Dreaming's ingestion state",
    "memory_dream_state": "Dreaming's last runs", "cron_jobs": "automations", "cron_run_logs": "automation run history",
    "reverie_migrations": "schema versions",
}


def _rows(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def _table_line(t: dict) -> str:
    name = f"{t['table']} ({WHAT[t['table']]})" if t["table"] in WHAT else t["table"]
    if t.get("note"):
        return f"  {name}: {t['note']}"
    if t["expected"] is not None:
        lost = f", {t['lost']} lost" if t["lost"] else ", nothing lost"
        text = f"{t['read']} of {_rows(t['expected'])}{lost}"
    elif t["lost"] is not None:
        text = _rows(t["read"]) + (f", {t['lost']} lost" if t["lost"] else ", nothing lost")
    else:
        text = f"{_rows(t['read'])} saved; how many were lost is not known"
    if t.get("fromOrphanPages"):
        text += f" ({t['fromOrphanPages']} from pages no longer linked to the table)"
    if t.get("errors") and t["lost"] != 0:
        text += f" [{t['errors'][0]}]"
    return f"  {name}: {text}"


def print_repair(results: list[dict]) -> None:
    for r in results:
        what, path = r["database"], r["path"]
        if r["status"] == "missing":
            say(f"{what}: not created yet ({path})")
        elif r["status"] == "healthy":
            say(f"{what}: healthy, nothing to repair ({path})")
        else:
            say(f"{what} {path} was damaged ({r['problem']}); repaired into a new file")
            say(f"  the damaged file is kept at {r['kept']}")
            if r.get("fatal"):
                say(f"  {r['fatal']}: the new file is empty; the damaged file is kept for other tools")
            for t in r["tables"]:
                if t["table"] != "reverie_migrations" or t["lost"]:
                    say(_table_line(t))
            for note in r.get("notes") or []:
                say(f"  note: {note}")
            lost = r.get("lostRows") or 0
            say("  nothing was lost" if r.get("complete") else f"  at least {lost} row(s) lost" if lost
                else "  some rows may be lost (see above)")
    if any(r["status"] == "repaired" for r in results):
        say("restart any other reverie process (mcp, chat, scheduler run): it still has the damaged file open")
