"""Human text for ``/context list|detail``."""

from __future__ import annotations

from datetime import datetime


def _n(x: int | None) -> str:
    return f"{x or 0:,}"


def _when(ms: int, tz) -> str:
    return datetime.fromtimestamp(ms / 1000, tz).strftime("%Y-%m-%d %H:%M:%S")


def render_context(data: dict, *, detail: bool, tz) -> str:
    s, plan, inp = data["session"], data["plan"], data["input"]
    window = plan["window"]
    lines = [f"Context of {s['sessionKey']} (session {s['sessionId'][:8]}, {s['chatType']}), model {data['model']}, "
             f"window {_n(window)} tokens",
             f"  total {_n(inp['totalTokens'])} tokens ({100 * inp['totalTokens'] / max(1, window):.0f}% of the window); "
             f"flush at {_n(plan['flush_threshold'])}, compaction at {_n(plan['compaction_threshold'])} "
             f"(reserve {_n(plan['reserve'])}, soft {_n(plan['soft'])}, keep recent {_n(plan['keep_recent'])})"]
    for part in inp["parts"]:
        extra = f" ({part['count']})" if "count" in part else (f" ({_n(part['chars'])} chars)" if "chars" in part else "")
        lines.append(f"  {part['part']:<17} {_n(part['tokens']):>8} tokens{extra}")
    for f in inp["bootstrap"]:
        why = f" ({f['reason']})" if f.get("reason") else ""
        if f["status"] in ("absent", "left-out", "empty"):
            if detail and f["status"] != "absent":
                lines.append(f"    {f['name']:<14} {f['status']}{why}")
        elif detail or f["truncated"]:
            mark = f["status"].upper() if f["truncated"] else f["status"]
            lines.append(f"    {f['name']:<14} {mark}: {_n(f['injected_chars'])} of {_n(f['raw_chars'])} chars{why}")
    lines.append("  cut: " + (", ".join(inp["cut"]) + " (see above; use memory_get for the rest)" if inp["cut"]
                              else "nothing (every file and message went in whole)"))
    pr = inp.get("pruning") or {}
    if pr.get("mode") == "cache-ttl":
        lines.append(f"  pruning cache-ttl: {pr.get('soft_trimmed', 0)} tool result(s) trimmed, "
                     f"{pr.get('hard_cleared', 0)} cleared (input only; the transcript is unchanged)")
    else:
        lines.append("  pruning: off")
    if inp.get("perTurn"):
        lines.append("  per-turn blocks: " + ", ".join(inp["perTurn"]))
    lines.append(f"Session: {s['compactionCount']} compaction(s), flushed this cycle: "
                 f"{'yes' if data['flushedThisCycle'] else 'no'}; transcript {_n(s['transcriptBytes'])} bytes, "
                 f"{s['events']} events")
    flushes = data["flushes"]
    lines.append(f"Flushes of {s['sessionKey']}: " + ("none yet" if not flushes else str(len(flushes))))
    for f in flushes:
        lines.append(f"  {_when(f['at'], tz)} [{f['trigger']}] {f['line']}")
    hooks = data.get("sessionNotes") or []
    for h in hooks:
        lines.append(f"  session note for {h['sessionId'][:8]}: {h['status']}"
                     + (f" {h['path']}" if h.get("path") else "") + (f" ({h['error']})" if h.get("error") else ""))
    rec = data.get("recall")
    if rec:
        lines += _recall_lines(rec, detail)
    if detail:
        if inp.get("tools"):
            lines.append("Tools: " + ", ".join(f"{t['name']} ({t['tokens']})" for t in inp["tools"]))
        if inp.get("messages"):
            lines.append("Messages:")
            for i, m in enumerate(inp["messages"], 1):
                calls = f" -> {', '.join(m['toolCalls'])}" if m.get("toolCalls") else ""
                lines.append(f"  {i:>3}. {m['role']:<9} {m['tokens']:>6} tok  {m['preview']}{calls}")
    return "\n".join(lines)


def _recall_lines(rec: dict, detail: bool) -> list[str]:
    """The recall lanes: active projects, Active Memory, and (detail) every injection of the session."""
    am = rec.get("activeMemory") or {}
    out = [f"Recall ({rec.get('audience')} session): projects "
           + (", ".join(rec.get("projects") or []) or "none")
           + (f" (inferred: {rec['projectsInferred']})" if rec.get("projectsInferred") else ""),
           f"  Active Memory: {'on' if am.get('on') else 'off'}, mode {am.get('mode')}; "
           + ("runs here" if am.get("runsHere") else f"not here: {am.get('why')}")
           + ("; recalls across conversations" if am.get("acrossConversations") else "")]
    if rec.get("startupNotesCut"):
        out.append("  startup notes cut (in context only; memory_get reads the rest): "
                   + ", ".join(rec["startupNotesCut"]))
    trig = rec.get("trigger")
    if trig:
        out.append(f"  last trigger recall: {trig['matched']} matched, {trig['injected']} injected, "
                   f"{trig['leftOutInactiveProject']} left out (inactive project), {trig['alreadyInjected']} "
                   f"already injected this session ({trig['ms']} ms)")
    events = rec.get("events") or []
    if not detail:
        if events:
            out.append(f"  {len(events)} recall event(s) this session (/context detail lists them)")
        return out
    out.append("Recall events of this session:" if events else "Recall events of this session: none")
    for ev in events:
        out.append(f"  #{ev['position']} [{ev['lane']}] {ev.get('text') or ''}")
        for item in ev.get("items") or []:
            lines = item.get("lines")
            where = f"{item.get('path')}#L{lines[0]}-L{lines[1]}" if item.get("path") and lines else (item.get("path") or "-")
            out.append(f"      {where} ({item.get('originClass') or '?'})" + (f": {item['why']}" if item.get("why") else ""))
        for r in ev.get("refused") or []:
            out.append(f"      refused {r.get('path') or '-'}: {r.get('reason')}")
    return out
