"""The standing-intent tools (reference §11.2): ``intent`` creates and cancels (the owner's acts, in
an authenticated turn); ``intent_list`` only reads."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..intents import STATUSES, IntentError, TurnContext
from ..intents.model import MAX_DESCRIPTION, MAX_KEYWORD_CHARS, MAX_KEYWORDS
from .base import Tool, ToolError

if TYPE_CHECKING:  # pragma: no cover
    from ..intents import IntentStore

INTENT_DESCRIPTION = (
    "Standing intents: reminders that wait for something to be SAID, not for a time. Use create when "
    "the user asks to be reminded when a topic comes up later (\"when someone mentions Hangzhou, remind "
    "me to confirm the return ticket\"): give a description of what to remind and specific "
    "triggerKeywords (every word of one keyword must appear in a later message; Chinese works). The "
    "system then injects the reminder by itself when a later message matches; do not deliver it early. "
    "Time-based reminders (\"tomorrow at 9\", \"in 2 hours\", \"every morning\") are refused: they belong "
    "to the scheduler (reverie cron add). cancel (with id, from intent_list) only when the user "
    "explicitly asks to cancel one. Never cancel on your own.")
LIST_DESCRIPTION = (
    "List the user's standing intents (reminders that wait for something to be said) and their state: "
    "pending, armed, fired, done, cancelled or expired. Read-only.")

INTENT_SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["create", "cancel"], "description": "what to do"},
        "id": {"type": "string", "description": "cancel: the intent to cancel"},
        "description": {"type": "string", "maxLength": MAX_DESCRIPTION,
                        "description": "create: what to remind the user of when it triggers"},
        "triggerKeywords": {"type": "array", "minItems": 1, "maxItems": MAX_KEYWORDS,
                            "items": {"type": "string", "maxLength": MAX_KEYWORD_CHARS},
                            "description": "create: words or phrases that trigger it; all words of one "
                                           "entry must occur in a message"},
        "scope": {"type": "string", "enum": ["conversation", "channel", "anywhere"],
                  "description": "create: where it may trigger (default channel)"},
        "senderScope": {"type": "string", "enum": ["sender", "anyone"],
                        "description": "create: whose messages may trigger it (default sender: the creator)"},
        "expiresAt": {"type": "string", "description": "create: ISO-8601 expiry in the future (default 90 days)"},
        "maxFires": {"type": "integer", "minimum": 1, "description": "create: how many times it may trigger (default 3)"},
        "cooldownSeconds": {"type": "integer", "minimum": 0,
                            "description": "create: quiet time after a trigger (default 86400)"},
    },
    "required": ["action"],
    "additionalProperties": False,
}
LIST_SCHEMA = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": list(STATUSES), "description": "only intents in this state"},
    },
    "additionalProperties": False,
}


def intent_list_tool(store: "IntentStore") -> Tool:
    """Listing changes nothing (lifecycle maintenance aside: expiry and re-arming are applied
    first, as for every read), so any surface the owner uses may offer it, MCP included."""

    def handle(args: dict) -> dict:
        try:
            return {"intents": store.list(args.get("status"))}
        except IntentError as exc:
            raise ToolError(f"intent_list: {exc}") from None

    return Tool("intent_list", LIST_DESCRIPTION, LIST_SCHEMA, handle, read_only=True, destructive=False,
                idempotent=True, title="List standing intents")


def intent_tool(store: "IntentStore", context: TurnContext) -> Tool:
    """Create and cancel: the owner's acts, for an authenticated turn only. Cancelling ends an
    intent for good, hence ``destructive``; a caller without an authenticated owner turn (MCP,
    scripts) is never offered this tool (``Memory.tools`` gives it ``intent_list`` alone)."""

    def handle(args: dict) -> dict:
        action = args["action"]
        if context is None or not context.owner:
            raise ToolError("intent: only the owner can create or cancel standing intents")
        try:
            if action == "cancel":
                if not args.get("id"):
                    raise ToolError("intent: cancel needs the id of the intent")
                return store.cancel(args["id"])
            if "description" not in args or "triggerKeywords" not in args:
                raise ToolError("intent: create needs description and triggerKeywords")
            return store.create(context, description=args["description"],
                                trigger_keywords=args["triggerKeywords"], scope=args.get("scope"),
                                sender_scope=args.get("senderScope"), expires_at=args.get("expiresAt"),
                                max_fires=args.get("maxFires"), cooldown_seconds=args.get("cooldownSeconds"))
        except IntentError as exc:
            raise ToolError(f"intent: {exc}") from None

    return Tool("intent", INTENT_DESCRIPTION, INTENT_SCHEMA, handle, read_only=False, destructive=True,
                idempotent=False, title="Create or cancel a standing intent")
