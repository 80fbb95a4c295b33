"""Standing intents: constants (reference §11.1), the turn context, scope encoding, validation and
the public shape of an intent."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import UserError
from .timewords import refusal, time_phrase
from .words import normalize, split_words

DEFAULT_COOLDOWN_SECONDS = 86_400
DEFAULT_MAX_FIRES = 3
DEFAULT_EXPIRY_MS = 90 * 86_400_000
MAX_INJECTED = 3
MAX_INJECTED_CHARS = 1_200
PAGE_SIZE = 32
MAX_CANDIDATES = 256
MAX_DESCRIPTION = 500
MAX_KEYWORDS = 24
MAX_KEYWORD_CHARS = 120
DEFAULT_DEADLINE_SECONDS = 15.0

# The owner at this machine's terminal: `reverie chat` and the `reverie intent` commands speak as
# this sender on this channel, so an intent created on the command line fires in `reverie chat`.
LOCAL_CHANNEL = "cli"
LOCAL_OWNER = "local-owner"

SCOPES = ("conversation", "channel", "anywhere")
SENDER_SCOPES = ("sender", "anyone")
CANCELLABLE = ("pending", "armed", "fired")


class IntentError(UserError):
    """An intent request that cannot be carried out as asked; nothing was written."""


@dataclass(frozen=True)
class TurnContext:
    """Who is speaking, where: given by the chat runtime, which has authenticated the channel.

    ``channel`` is the provider (``telegram``, ``webchat``...), ``account`` the bot account on it,
    ``conversation`` the chat or thread id, ``sender`` the sender's id there. ``owner`` says the
    sender is the agent's owner: only the owner is offered the ``intent`` tool. It defaults to
    False so that a context built without thought never grants it.
    """

    channel: str | None = None
    sender: str | None = None
    conversation: str | None = None
    account: str | None = None
    owner: bool = False
    session: str | None = None

    @property
    def provider(self) -> str | None:
        return _known(self.channel, lower=True)

    @property
    def account_id(self) -> str:
        return _known(self.account) or "default"

    def channel_key(self) -> str | None:
        p = self.provider
        return _encode(["v1", "channel", p, self.account_id, p]) if p else None

    def conversation_key(self) -> str | None:
        p, c = self.provider, _known(self.conversation)
        return _encode(["v1", "conversation", p, self.account_id, c]) if p and c else None

    def sender_key(self) -> str | None:
        p, s = self.provider, _known(self.sender)
        return _encode(["v1", p, self.account_id, s]) if p and s else None


def _known(value: str | None, *, lower: bool = False) -> str | None:
    """A usable identity, or None for missing, blank or the literal 'unknown'."""
    if value is None:
        return None
    v = str(value).strip()
    if not v or v.lower() == "unknown":
        return None
    return v.lower() if lower else v


def _encode(parts: list) -> str:
    return json.dumps(parts, ensure_ascii=False, separators=(",", ":"))


def decode_scope(raw: str | None) -> list | None:
    """A stored scope, or None when it is not a well-formed v1 scope (which then never matches)."""
    if raw is None:
        return None
    try:
        parts = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(parts, list) or not parts or parts[0] != "v1" or not all(isinstance(p, str) for p in parts):
        return None
    return parts


# -- time -------------------------------------------------------------------------------------------
def to_ms(when: datetime) -> int:
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def now_ms(now: datetime | None) -> int:
    return to_ms(now or datetime.now(timezone.utc))


def iso(ms: int | None) -> str | None:
    if ms is None:
        return None
    return datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_iso(text: str, what: str) -> int:
    """An ISO-8601 time to epoch ms; without an offset it is UTC (as the reference reads it)."""
    try:
        when = datetime.fromisoformat(text.strip().replace("z", "Z"))
        return to_ms(when)
    except (ValueError, OverflowError, OSError):
        raise IntentError(f"{what} must be an ISO-8601 time such as 2026-09-30T18:00:00Z, got {text!r}") from None


# -- validation -------------------------------------------------------------------------------------
def clean_keywords(raw) -> list[str]:
    """1..24 entries, each trimmed, lowercased (NFKC), at most 120 characters, deduplicated."""
    if not isinstance(raw, list):
        raise IntentError("triggerKeywords must be a list of strings")
    out: list[str] = []
    for item in raw:
        if not isinstance(item, str):
            raise IntentError("triggerKeywords must be a list of strings")
        kw = " ".join(normalize(item).split())
        if not kw:
            continue
        if len(kw) > MAX_KEYWORD_CHARS:
            raise IntentError(f"trigger keyword {kw[:40]!r}... is longer than {MAX_KEYWORD_CHARS} characters")
        if split_words(kw).empty:
            raise IntentError(f"trigger keyword {kw!r} has no letters or digits to match")
        if kw not in out:
            out.append(kw)
    if not out:
        raise IntentError("give at least one trigger keyword (the words that should bring this intent up)")
    if len(out) > MAX_KEYWORDS:
        raise IntentError(f"at most {MAX_KEYWORDS} trigger keywords, got {len(out)}")
    return out


def clean_description(raw) -> str:
    if not isinstance(raw, str) or not raw.strip():
        raise IntentError("description is required: what to remind the user of when the intent triggers")
    text = raw.strip()
    if len(text) > MAX_DESCRIPTION:
        raise IntentError(f"description is longer than {MAX_DESCRIPTION} characters ({len(text)})")
    return text


def refuse_time_based(description: str, keywords: list[str]) -> None:
    for text in (description, *keywords):
        phrase = time_phrase(text)
        if phrase:
            raise IntentError(refusal(phrase))


def creation_scopes(ctx: TurnContext | None, scope: str, sender_scope: str) -> tuple[str | None, str | None, str]:
    """``(channel_scope, sender_scope, creator_sender)`` for a create, or the identity error."""
    if ctx is None or ctx.provider is None:
        raise IntentError("channel identity is unavailable for this creating turn; a standing intent "
                          "needs an authenticated channel (CLI: --channel)")
    creator = ctx.sender_key()
    if creator is None:
        raise IntentError("sender identity is unavailable for this creating turn; a standing intent "
                          "needs an authenticated sender (CLI: --sender)")
    if scope not in SCOPES:
        raise IntentError(f"scope must be one of {', '.join(SCOPES)}")
    if sender_scope not in SENDER_SCOPES:
        raise IntentError(f"senderScope must be one of {', '.join(SENDER_SCOPES)}")
    if scope == "conversation":
        channel_scope = ctx.conversation_key()
        if channel_scope is None:
            raise IntentError("conversation identity is unavailable for this creating turn; use scope "
                              "channel or anywhere, or give the conversation (CLI: --conversation)")
    elif scope == "channel":
        channel_scope = ctx.channel_key()
    else:
        channel_scope = None
    return channel_scope, (creator if sender_scope == "sender" else None), creator


# -- the public shape -------------------------------------------------------------------------------
COLUMNS = ("intent_key, id, description, trigger_keywords, channel_scope, sender_scope, creator_sender, "
           "status, expires_at, max_fires, fire_count, cooldown_seconds, last_fired_at, created_at, "
           "source_session_id")


@dataclass
class IntentRow:
    key: int
    id: str
    description: str
    keywords: list[str]
    channel_scope: str | None
    sender_scope: str | None
    creator: str | None
    status: str
    expires_at: int
    max_fires: int
    fire_count: int
    cooldown_seconds: int
    last_fired_at: int | None
    created_at: int
    session: str | None

    @classmethod
    def from_row(cls, row: tuple) -> "IntentRow":
        r = list(row)
        try:
            kws = json.loads(r[3])
        except ValueError:
            kws = []
        r[3] = [k for k in kws if isinstance(k, str)] if isinstance(kws, list) else []
        return cls(*r)

    def can_fire(self, now: int) -> bool:
        cooled = self.last_fired_at is None or now >= self.last_fired_at + self.cooldown_seconds * 1000
        return (self.status == "armed" and self.expires_at > now and self.fire_count < self.max_fires
                and cooled and self.creator is not None)

    def as_dict(self) -> dict:
        ch = decode_scope(self.channel_scope)
        se = decode_scope(self.sender_scope)
        cr = decode_scope(self.creator)
        if self.channel_scope is None:
            scope, channel, conversation = "anywhere", None, None
        elif ch and len(ch) == 5 and ch[1] in ("channel", "conversation"):
            scope, channel = ch[1], ch[2]
            conversation = ch[4] if ch[1] == "conversation" else None
        else:
            scope, channel, conversation = "invalid", None, None
        return {
            "id": self.id,
            "description": self.description,
            "triggerKeywords": self.keywords,
            "status": self.status,
            "scope": scope,
            "channel": channel,
            "conversation": conversation,
            "senderScope": "anyone" if self.sender_scope is None else ("sender" if se else "invalid"),
            "sender": se[3] if se and len(se) == 4 else None,
            "creator": cr[3] if cr and len(cr) == 4 else None,
            "maxFires": self.max_fires,
            "fireCount": self.fire_count,
            "cooldownSeconds": self.cooldown_seconds,
            "lastFiredAt": iso(self.last_fired_at),
            "expiresAt": iso(self.expires_at),
            "createdAt": iso(self.created_at),
        }
