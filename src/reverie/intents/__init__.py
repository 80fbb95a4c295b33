"""Standing intents: reminders that wait for something to be *said* ("when someone mentions
Hangzhou, remind me to confirm the return ticket"), stored as executable state in the agent
database and matched on every user turn without a model call. Time-based reminders are
automations (:mod:`reverie.automation`), not intents."""

from .matching import MatchResult, match_turn, render_block
from .model import (DEFAULT_COOLDOWN_SECONDS, DEFAULT_DEADLINE_SECONDS, DEFAULT_EXPIRY_MS, DEFAULT_MAX_FIRES,
                    MAX_INJECTED, MAX_INJECTED_CHARS, IntentError, TurnContext)
from .schema import INTENT_MIGRATIONS, STATUSES
from .store import IntentStore
from .timewords import time_phrase

__all__ = [
    "IntentStore", "IntentError", "TurnContext", "MatchResult", "match_turn", "render_block", "time_phrase",
    "INTENT_MIGRATIONS", "STATUSES", "DEFAULT_COOLDOWN_SECONDS", "DEFAULT_DEADLINE_SECONDS", "DEFAULT_EXPIRY_MS",
    "DEFAULT_MAX_FIRES", "MAX_INJECTED", "MAX_INJECTED_CHARS",
]
