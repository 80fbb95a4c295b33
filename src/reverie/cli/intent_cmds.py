"""intent create | list | cancel | check: standing intents (remind when something is said)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

ChannelOpt = Annotated[Optional[str], typer.Option("--channel", help="the channel (provider) of the turn, e.g. telegram, webchat (default cli: reverie chat on this machine)", show_default=False)]
SenderOpt = Annotated[Optional[str], typer.Option("--sender", help="the sender's id on that channel (default the local owner, with the default channel)", show_default=False)]
ConversationOpt = Annotated[Optional[str], typer.Option("--conversation", help="the conversation (chat) id", show_default=False)]
AccountOpt = Annotated[Optional[str], typer.Option("--account", help="the bot account on the channel (default 'default')", show_default=False)]


def _context(channel, sender, conversation, account, *, owner: bool = True):
    """The turn as the command line gives it. Without --channel it is the local owner's own
    terminal, the channel and sender `reverie chat` uses, so what is created here fires there."""
    from ..intents import TurnContext
    from ..intents.model import LOCAL_CHANNEL, LOCAL_OWNER

    if not (channel or "").strip() and not (sender or "").strip():
        channel, sender = LOCAL_CHANNEL, LOCAL_OWNER
    return TurnContext(channel=channel, sender=sender, conversation=conversation, account=account, owner=owner)


def _line(i: dict) -> str:
    where = {"anywhere": "anywhere", "channel": f"channel {i['channel']}",
             "conversation": f"conversation {i['channel']}/{i['conversation']}"}.get(i["scope"], i["scope"])
    who = "anyone" if i["senderScope"] == "anyone" else f"sender {i['sender']}"
    return (f"{i['id']}  {i['status']:<9} fired {i['fireCount']}/{i['maxFires']}  [{', '.join(i['triggerKeywords'])}]"
            f"  {where}, {who}, expires {i['expiresAt']}\n    {i['description']}")


def register(app: typer.Typer) -> None:
    intent_app = typer.Typer(help="Standing intents: reminders that wait for something to be said "
                                  "(\"when someone mentions Hangzhou, remind me ...\").", no_args_is_help=True)
    app.add_typer(intent_app, name="intent")

    @intent_app.command("create", help="Create an armed standing intent as the owner (time-based reminders belong to `reverie cron add`).")
    def create(ctx: typer.Context,
               description: Annotated[Optional[str], typer.Option("--description", "-d", help="what to remind of when it triggers (<= 500 characters)", show_default=False)] = None,
               trigger: Annotated[Optional[list[str]], typer.Option("--trigger", "-t", help="a trigger keyword or phrase; all its words must occur in a message (repeatable, 1-24)", show_default=False)] = None,
               scope: Annotated[str, typer.Option("--scope", help="conversation | channel | anywhere")] = "channel",
               sender_scope: Annotated[str, typer.Option("--sender-scope", help="sender (only the creator's messages) | anyone")] = "sender",
               expires_at: Annotated[Optional[str], typer.Option("--expires-at", help="ISO-8601 expiry (default in 90 days)", show_default=False)] = None,
               max_fires: Annotated[Optional[int], typer.Option("--max-fires", min=1, help="how many times it may trigger (default 3)", show_default=False)] = None,
               cooldown: Annotated[Optional[int], typer.Option("--cooldown", min=0, help="seconds of quiet after a trigger (default 86400)", show_default=False)] = None,
               channel: ChannelOpt = None, sender: SenderOpt = None, conversation: ConversationOpt = None,
               account: AccountOpt = None,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        try:
            out = mem.intents.create(_context(channel, sender, conversation, account), description=description or "",
                                     trigger_keywords=list(trigger or []), scope=scope, sender_scope=sender_scope,
                                     expires_at=expires_at, max_fires=max_fires, cooldown_seconds=cooldown)
        finally:
            mem.close()

        def human(d):
            say(f"created {d['intent']['id']} (armed)")
            print(_line(d["intent"]))

        emit(o, out, human)

    @intent_app.command("list", help="List standing intents, oldest first (expiry and re-arming are applied first).")
    def list_(ctx: typer.Context,
              status: Annotated[Optional[str], typer.Option("--status", help="only this state: pending, armed, fired, done, cancelled, expired", show_default=False)] = None,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        try:
            items = mem.intents.list(status)
        finally:
            mem.close()

        def human(d):
            if not d["intents"]:
                say("no standing intents" + (f" in state {status}" if status else ""))
            for i in d["intents"]:
                print(_line(i))

        emit(o, {"intents": items}, human)

    @intent_app.command("cancel", help="Cancel a pending, armed or fired intent (its state changes; history is kept).")
    def cancel(ctx: typer.Context, intent_id: Annotated[str, typer.Argument(metavar="ID", help="the intent id (si_...)")],
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o)
        try:
            out = mem.intents.cancel(intent_id)
        finally:
            mem.close()
        if not out["cancelled"]:
            raise UserError(out["reason"])
        emit(o, out, lambda d: say(f"cancelled {d['intent']['id']}"))

    @intent_app.command("check", help="Show what one user turn would inject (a dry run: no fire is spent); "
                                       "--fire runs the turn's matching for real.")
    def check(ctx: typer.Context, message: Annotated[str, typer.Argument(help="the user's message")],
              channel: ChannelOpt = None, sender: SenderOpt = None, conversation: ConversationOpt = None,
              account: AccountOpt = None,
              fire: Annotated[bool, typer.Option("--fire", help="spend the fires, as a real turn does")] = False,
              home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=fire)
        try:
            result = mem.match_intents(message, _context(channel, sender, conversation, account, owner=False),
                                       dry_run=not fire)
        finally:
            mem.close()
        if result.error:
            raise UserError(f"matching failed open (nothing injected, no fire spent): {result.error}")

        def human(d):
            if d["block"]:
                print(d["block"])
                if not fire:
                    say("(dry run: no fire spent; --fire spends it)")
            else:
                say("no standing intent triggered")

        emit(o, {**result.as_dict(), "dryRun": not fire}, human)
