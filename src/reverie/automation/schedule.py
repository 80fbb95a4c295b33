"""Schedules (``at`` one time, ``every`` interval, ``cron`` 5-field expression with a time zone) and
their next-run computation. All times are epoch milliseconds.

* ``at``: runs once at ``at``; an ISO time without an offset is read in the given zone (UTC if none).
* ``every``: runs at ``anchorMs + k × everyMs`` (k ≥ 1; the anchor is the creation time unless
  given), so runs never drift however late one of them was.
* ``cron``: the next time strictly after now that the expression names, in ``tz`` (``croniter``),
  daylight-saving changes included.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..durations import DurationError, duration_ms
from ..errors import UserError

MIN_EVERY_MS = 1000


class ScheduleError(UserError):
    """A schedule that cannot be parsed or never runs."""


MAX_TIME_MS = 253_399_622_400_000  # 9999-12-01T00:00:00Z: beyond it datetime cannot follow


def parse_duration(text: str) -> int:
    """``30s``, ``5m``, ``2h``, ``1d``, ``1w``, ``1h30m`` to milliseconds (rules in
    :mod:`reverie.durations`; a bare number is refused: seconds or minutes?)."""
    try:
        return int(duration_ms(text))
    except DurationError as exc:
        raise ScheduleError(str(exc)) from None


def zone(name: str | None) -> tzinfo | None:
    if not name:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ScheduleError(f"unknown time zone {name!r} (use an IANA name such as Asia/Shanghai)") from None


def to_ms(when: datetime) -> int:
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return int(when.timestamp() * 1000)


def iso(ms: int | None, tz: tzinfo | None = None) -> str | None:
    if ms is None:
        return None
    when = datetime.fromtimestamp(ms / 1000, timezone.utc)
    if tz is not None:
        return when.astimezone(tz).isoformat(timespec="seconds")
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_at(text: str, now_ms: int, tz: tzinfo | None = None) -> int:
    """``+20m`` (from now) or an ISO-8601 time; a time without an offset is read in ``tz`` (UTC)."""
    raw = (text or "").strip()
    if raw.startswith("+"):
        out = now_ms + parse_duration(raw[1:])
    else:
        try:
            when = datetime.fromisoformat(raw.replace("z", "Z"))
            if when.tzinfo is None:
                when = when.replace(tzinfo=tz or timezone.utc)
            out = to_ms(when)
        except (ValueError, OverflowError, OSError):
            raise ScheduleError(f"cannot read time {text!r}: use ISO-8601 (2026-07-02T09:00, "
                                "2026-07-02T09:00+08:00) or +DURATION (+20m)") from None
    if out > MAX_TIME_MS:
        raise ScheduleError(f"time {text!r} is after 9999-12-01")
    return out


CRON_FIELDS = (("minute", "0-59"), ("hour", "0-23"), ("day of month", "1-31"), ("month", "1-12 or jan-dec"),
               ("day of week", "0-7 or sun-sat"))


def check_cron(expr: str) -> str:
    from croniter import croniter

    fields = (expr or "").split()
    if len(fields) != 5:
        raise ScheduleError(f"bad cron expression {expr!r}: give 5 fields (minute hour day month weekday), "
                            f"not {len(fields)}; e.g. '0 9 * * *' for 09:00 every day")
    if not croniter.is_valid(" ".join(fields)):
        # name the field: try each one alone, every other field '*'
        for i, (name, allowed) in enumerate(CRON_FIELDS):
            alone = " ".join(fields[i] if j == i else "*" for j in range(5))
            if not croniter.is_valid(alone):
                raise ScheduleError(f"bad cron expression {expr!r}: the {name} field {fields[i]!r} is not valid "
                                    f"(allowed: {allowed}, *, lists a,b, ranges a-b, steps */n)")
        raise ScheduleError(f"bad cron expression {expr!r}: give 5 fields (minute hour day month weekday), "
                            "e.g. '0 9 * * *' for 09:00 every day")
    return " ".join(fields)


def make_schedule(*, at: str | None = None, every: str | None = None, cron: str | None = None,
                  tz: str | None = None, now_ms: int, default_tz: tzinfo | None = None) -> dict:
    """A validated schedule from exactly one of ``at``, ``every``, ``cron``."""
    given = [k for k, v in (("at", at), ("every", every), ("cron", cron)) if v]
    if len(given) != 1:
        raise ScheduleError("give exactly one schedule: --at TIME, --every DURATION or --cron EXPR")
    zone(tz)  # validate early
    if at:
        at_ms = parse_at(at, now_ms, zone(tz) or default_tz)
        if at_ms <= now_ms:
            raise ScheduleError(f"--at {at} is in the past ({iso(at_ms)})")
        return {"kind": "at", "at": iso(at_ms), "atMs": at_ms}
    if every:
        every_ms = parse_duration(every)
        if every_ms < MIN_EVERY_MS:
            raise ScheduleError("--every must be at least 1s")
        return {"kind": "every", "everyMs": every_ms, "anchorMs": now_ms}
    out = {"kind": "cron", "expr": check_cron(cron or "")}
    if tz:
        out["tz"] = tz
    try:  # a valid expression can still never fire (Feb 31): find out now, not in the scheduler
        next_run(out, now_ms, default_tz)
    except ScheduleError:
        raise
    except Exception:
        raise ScheduleError(f"cron expression {cron!r} never fires") from None
    return out


def schedule_identity(schedule: dict) -> str:
    return json.dumps(schedule, sort_keys=True, separators=(",", ":"))


def next_run(schedule: dict, after_ms: int, default_tz: tzinfo | None = None) -> int | None:
    """The first run strictly after ``after_ms`` (for ``at``: its time, whatever ``after_ms``)."""
    kind = schedule.get("kind")
    if kind == "at":
        return int(schedule["atMs"])
    if kind == "every":
        every, anchor = int(schedule["everyMs"]), int(schedule.get("anchorMs") or 0)
        if after_ms < anchor:
            return anchor
        return anchor + ((after_ms - anchor) // every + 1) * every
    if kind == "cron":
        from croniter import croniter

        tz = zone(schedule.get("tz")) or default_tz or timezone.utc
        base = datetime.fromtimestamp(after_ms / 1000, timezone.utc).astimezone(tz)
        return to_ms(croniter(schedule["expr"], base).get_next(datetime))
    raise ScheduleError(f"unknown schedule kind {kind!r}")


def describe(schedule: dict) -> str:
    kind = schedule.get("kind")
    if kind == "at":
        return f"at {schedule['at']}"
    if kind == "every":
        ms = int(schedule["everyMs"])
        for unit, size in (("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)):
            if ms % size == 0:
                return f"every {ms // size}{unit}"
        return f"every {ms}ms"
    return f"cron '{schedule.get('expr')}'" + (f" ({schedule['tz']})" if schedule.get("tz") else "")
