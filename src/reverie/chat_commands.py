"""Chat commands: ``/new``, ``/reset``, ``/compact``, ``/context``, ``/project``, ``/active-memory``,
``/help``. Only the owner runs them; anyone else's ``/word`` is just talk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .sessions.report import render_context

if TYPE_CHECKING:  # pragma: no cover
    from .runtime import Runtime
    from .sessions.turn import TurnResult

HELP = ("Commands: /new or /reset [first message] start a new session (the previous one is saved to "
        "memory/YYYY-MM-DD-HHMM.md); /compact [instructions] summarise older messages now; /context list|detail "
        "show what goes into the model input; /project [key|clear] the active projects; /active-memory "
        "on|off|status; /help.")
COMMANDS = ("new", "reset", "compact", "context", "help", "project", "active-memory")


def parse_command(text: str) -> tuple[str, str] | None:
    if not text.startswith("/"):
        return None
    name, _, rest = text[1:].partition(" ")
    name = name.strip().lower()
    return (name, rest.strip()) if name in COMMANDS else None


def run_command(rt: "Runtime", name: str, arg: str, raw: str) -> "TurnResult":
    from .sessions.turn import TurnResult

    row = rt.session
    result = TurnResult(raw, command=name, session_id=row.session_id)
    rt.store.append(row.session_id, "command", {"text": raw, "command": name})
    if name in ("new", "reset"):
        rt.new_session(name, result=result)
        result.reply = f"New session started ({name}). The previous one is being saved to memory/."
        if arg:
            turn = rt._user_turn(arg)
            turn.command, turn.notices = name, result.notices + turn.notices
            turn.reply = f"{result.reply}\n{turn.reply}" if turn.reply else result.reply
            return turn
    elif name == "compact":
        rec = rt.compact("manual", instructions=arg or None, result=result)
        result.reply = (f"Compacted: {rec['summarisedMessages']} message(s) summarised "
                        f"({rec['tokensBefore']:,} -> {rec['tokensAfter']:,} tokens)."
                        if rec["status"] == "compacted" else f"Nothing to compact: {rec['reason']}.")
    elif name in ("project", "active-memory"):
        result.reply = rt.recall_lanes.command(name, arg)
    elif name == "context":
        detail = arg.lower().startswith("detail")
        data = rt.context_report(detail=detail)
        result.data = data
        result.reply = render_context(data, detail=detail, tz=rt.tz)
    else:
        result.reply = HELP
    return result
