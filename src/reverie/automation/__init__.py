"""Automations: time-based jobs ("tomorrow at 9, remind me to look at the train tickets") in the
shared state database, run by a scheduler exactly once per due time. Condition-based reminders are
standing intents (:mod:`reverie.intents`)."""

from .handlers import (DEFAULT_HANDLERS, PAYLOAD_KINDS, HandlerRegistry, RunContext, RunOutcome, default_handlers,
                       register_handler)
from .schedule import ScheduleError, describe, make_schedule, next_run, parse_duration
from .scheduler import ONE_SHOT_RETRY_MS, RECURRING_BACKOFF_MS, Scheduler
from .schema import AUTOMATION_MIGRATIONS

__all__ = [
    "Scheduler", "HandlerRegistry", "RunContext", "RunOutcome", "register_handler", "default_handlers",
    "DEFAULT_HANDLERS", "PAYLOAD_KINDS", "ScheduleError", "describe", "make_schedule", "next_run", "parse_duration",
    "RECURRING_BACKOFF_MS", "ONE_SHOT_RETRY_MS", "AUTOMATION_MIGRATIONS",
]
