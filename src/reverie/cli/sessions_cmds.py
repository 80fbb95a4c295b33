"""sessions list | show | export | import | search: the recorded conversations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..timestamps import parse_iso
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

sessions_app = typer.Typer(help="Recorded conversations: list, show, export to JSONL, import JSONL (Claude Code, Codex "
                                "CLI and OpenClaw transcripts, OpenAI-style messages), search (Chinese too).",
                           no_args_is_help=True)

Target = Annotated[Optional[str], typer.Argument(help="session id, or session key (its newest session; default main)",
                                                 show_default=False)]


def _open(o, *, create: bool = False):
    from ..sessions import TranscriptStore

    mem = memory_for(o, create=create)
    return mem, TranscriptStore(mem.agent_store)


def _resolve(store, mem, target: str | None):
    from ..errors import UserError
    from ..sessions import normalize_key

    if target:
        row = store.session(target)
        if row is not None:
            return row
        matches = [s for s in store.sessions() if s.session_id.startswith(target)] if len(target) >= 6 else []
        if len(matches) == 1:
            return matches[0]
    key = normalize_key(target, mem.places.agent)
    row = store.latest_session(key)
    if row is None:
        raise UserError(f"no session {target or key!r} (see reverie sessions list)")
    return row


def _owner_caller(key: str):
    """The owner's main session as a caller, without starting one (a search writes nothing)."""
    from ..sessions import SessionRow

    return SessionRow("", key, "cli", None, "direct", "chat", None, 0, None, None, None, 0, None, None,
                      0, 0, 0, 0, 0, 0)


def _when(iso: str | None) -> str:
    when = parse_iso(iso)
    if when is None:
        return iso or "-"
    return when.astimezone().strftime("%Y-%m-%d %H:%M")


def register(app: typer.Typer) -> None:
    @sessions_app.command("list", help="Sessions of the agent, newest first: key, id, chat type, events, compactions, flush.")
    def list_(ctx: typer.Context,
              key: Annotated[Optional[str], typer.Option("--key", help="only this session key", show_default=False)] = None,
              limit: Annotated[int, typer.Option("--limit", min=1, help="at most this many")] = 50,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..sessions import normalize_key

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, store = _open(o)
        rows = store.sessions(normalize_key(key, mem.places.agent) if key else None, limit=limit)
        data = {"sessions": [r.as_dict() for r in rows]}
        store.close()

        def human(d):
            if not d["sessions"]:
                say("no sessions yet (reverie chat starts one)")
            for s in d["sessions"]:
                state = f"ended ({s['endedReason']})" if s["endedAt"] else "open"
                print(f"{s['sessionId'][:8]}  {s['sessionKey']:<28} {s['chatType']:<6} {_when(s['startedAt'])}  "
                      f"{s['events']:>4} events  {s['compactionCount']} compactions  "
                      f"flush {_when(s['memoryFlushAt'])}  {state}")

        emit(o, data, human)

    @sessions_app.command(help="Show a session's transcript (user and assistant messages; --all for every event).")
    def show(ctx: typer.Context, target: Target = None,
             all_events: Annotated[bool, typer.Option("--all", help="every event: tool calls, results, compactions, "
                                                      "flushes, commands")] = False,
             home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
             sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, store = _open(o)
        row = _resolve(store, mem, target)
        kinds = None if all_events else ("user", "assistant")
        events = store.events(row.session_id, kinds=kinds)
        store.close()
        data = {"session": row.as_dict(), "events": [e.data for e in events]}

        def human(d):
            s = d["session"]
            say(f"session {s['sessionId']} ({s['sessionKey']}, {s['chatType']}), {s['events']} events")
            for e in d["events"]:
                kind = e["type"]
                msg = e.get("message") or {}
                text = msg.get("content") or e.get("text") or e.get("summary") or ""
                if kind == "tool_call":
                    text = (text + " " if text else "") + "-> " + ", ".join(
                        f"{c['name']}({c.get('arguments')})" for c in msg.get("toolCalls", []))
                elif kind == "compaction":
                    text = f"[{e.get('summarisedMessages')} messages summarised by {e.get('summarizer')}]\n{text}"
                elif kind == "flush":
                    text = f"[flush] {e.get('text')}"
                print(f"[{e['timestamp'][:19].replace('T', ' ')}] {kind}: {text}")

        emit(o, data, human)

    @sessions_app.command("export", help="Export a session as JSONL (OpenAI-style messages; --events: every stored event).")
    def export(ctx: typer.Context, target: Target = None,
               output: Annotated[Optional[Path], typer.Option("--output", "-o", help="write here (default stdout)",
                                                              show_default=False)] = None,
               events: Annotated[bool, typer.Option("--events", help="every stored event as stored")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..sessions import export_lines

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, store = _open(o)
        row = _resolve(store, mem, target)
        lines = list(export_lines(store, row, events=events))
        store.close()
        body = "".join(line + "\n" for line in lines)
        if output:
            output.write_text(body, encoding="utf-8")
            emit(o, {"sessionId": row.session_id, "path": str(output), "lines": len(lines)},
                 lambda d: say(f"wrote {d['lines']} line(s) to {d['path']}"))
        else:
            sys.stdout.write(body)

    @sessions_app.command("import", help="Import chat history as sessions, searchable at once: a host's own transcript "
                                         "(Claude Code, Codex CLI, OpenClaw: who wrote what kept, recall marked, a second "
                                         "import adds only what is new) or OpenAI-style JSONL; a folder imports each "
                                         "*.jsonl in it.")
    def import_(ctx: typer.Context,
                path: Annotated[Path, typer.Argument(help="a .jsonl file, or a folder of them (Claude Code keeps one "
                                                          "per project: ~/.claude/projects/<project>)")],
                fmt: Annotated[str, typer.Option("--format", help="auto | openai | claude-code | codex | openclaw "
                                                              "(auto: told from the first lines)")] = "auto",
                session: Annotated[Optional[str], typer.Option("--session", help="session key (default import:<file name>, "
                                                               "or <format>:<host session id>)", show_default=False)] = None,
                chat_type: Annotated[Optional[str], typer.Option("--chat-type", help="direct | group (default from the key)",
                                                                 show_default=False)] = None,
                sender: Annotated[Optional[str], typer.Option("--sender", show_default=False, help="who spoke")] = None,
                dry_run: Annotated[bool, typer.Option("--dry-run", help="check the files, write nothing")] = False,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..errors import UserError
        from ..sessions.native.batch import plan, run

        o = opts(ctx, home, agent, workspace, sets, as_json)
        if chat_type not in (None, "direct", "group"):
            raise UserError("--chat-type must be direct or group")
        mem, store = _open(o, create=True)
        try:
            planned = plan(path, fmt)  # every file read and checked before anything is written
            reports = run(store, planned, mem.places.agent, session=session, chat_type=chat_type, sender=sender,
                          dry_run=dry_run)
        finally:
            store.close()
        if len(reports) == 1 and reports[0][0]["format"] == "openai" and not path.is_dir():
            # one OpenAI-style file answers as it always has
            rep = reports[0][0]
            data = {"sessionKey": rep["sessionKey"], "dryRun": dry_run,
                    **{k: rep[k] for k in ("sessions", "messages", "forgotten")}}
        else:
            data = {"dryRun": dry_run, "files": [r for r, _ in reports]}
        emit(o, data, lambda d: [say(line) for _, line in reports])

    @sessions_app.command("search", help="Search the transcripts (sessions_search as the owner: every session of the agent).")
    def search(ctx: typer.Context, query: Annotated[str, typer.Argument(help="what to look for, any language")],
               key: Annotated[Optional[str], typer.Option("--key", help="only this session key", show_default=False)] = None,
               limit: Annotated[int, typer.Option("--limit", min=1, max=25, help="how many")] = 10,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..sessions import main_key, normalize_key, search as run_search

        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem, store = _open(o)
        caller = store.current_session(main_key(mem.places.agent)) or _owner_caller(main_key(mem.places.agent))
        out = run_search(store, caller, query, visibility="agent", owner=True,
                         session_key=normalize_key(key, mem.places.agent) if key else None, limit=limit)
        store.close()

        def human(d):
            if d.get("status"):
                say(f"{d['status']}: {d['error']}")
                return
            if not d["results"]:
                say("no matches")
            for i, r in enumerate(d["results"], 1):
                print(f"{i}. {r['score']:.3f}  {r['sessionKey']}  {_when(r['timestamp'])}  {r['role']}")
                print(f"   {r['snippet']}")

        emit(o, out, human)

    app.add_typer(sessions_app, name="sessions")
