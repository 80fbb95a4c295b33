"""The one retry loop for calls to providers (embedding batches, chat completions).

An attempt either returns, or raises the caller's error type marked ``retryable`` (a timeout, a
dropped connection, HTTP 429/5xx) or not. Retryable errors are tried again, at most
``ATTEMPTS`` times in all, after the wait the server asked for in ``Retry-After`` (carried on the
error as ``retry_after`` seconds) or else after an exponential backoff. A server that asks for
more than ``RETRY_AFTER_MAX_SECONDS`` is not waited for: the error is raised at once with the wait
in its message, since sleeping that long inside an index run or a chat turn helps nobody.

No HTTP library is imported here: the local embedder goes through this loop too.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Callable, TypeVar

T = TypeVar("T")

ATTEMPTS = 3
BASE_SECONDS = 0.5  # doubled after each failed attempt; tests shrink it
MAX_BACKOFF_SECONDS = 8.0
RETRY_AFTER_MAX_SECONDS = 30.0


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header: delta-seconds (``"3"``, also ``"1.5"`` as
    some servers send) or an HTTP date. None when absent or unreadable; never negative."""
    if not value or not value.strip():
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            from email.utils import parsedate_to_datetime  # a date in Retry-After is rare: ~15 ms of every start

            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when is None:
            return None
        if when.tzinfo is None:  # HTTP dates are GMT
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - (now or datetime.now(timezone.utc))).total_seconds()
    if seconds != seconds or seconds == float("inf"):  # NaN, inf
        return None
    return max(0.0, seconds)


def call_with_retries(attempt: Callable[[], T], *, error: type[Exception],
                      wrap: Callable[[Exception], Exception]) -> T:
    """Run ``attempt`` until it returns or fails for good.

    ``error`` is the caller's error type (it may carry ``retryable`` and ``retry_after``); any other
    exception is a bug in the adapter and becomes ``wrap(exc)`` at once, never a crash.
    """
    delay = BASE_SECONDS
    for n in range(1, ATTEMPTS + 1):
        try:
            return attempt()
        except error as exc:
            if n == ATTEMPTS or not getattr(exc, "retryable", False):
                raise
            asked = getattr(exc, "retry_after", None)
            if asked is not None and asked > RETRY_AFTER_MAX_SECONDS:
                exc.args = (f"{exc.args[0] if exc.args else exc}; the server asks to retry after {asked:.0f} s, "
                            f"longer than reverie waits ({RETRY_AFTER_MAX_SECONDS:.0f} s): try again later",
                            *exc.args[1:])
                raise
            pause = asked if asked is not None else delay
        except Exception as exc:
            raise wrap(exc) from exc
        time.sleep(pause)
        delay = min(delay * 2, MAX_BACKOFF_SECONDS)
    raise AssertionError("unreachable")  # pragma: no cover
