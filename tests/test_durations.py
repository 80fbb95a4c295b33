"""One duration rule set for settings (the pruning ttl) and schedules (``cron add --every``), where
there were two parsers that disagreed (issue 9, §4): ``1h30m`` and ``1w`` worked for a schedule
but were an error in the settings."""

from __future__ import annotations

import pytest

from reverie.automation.schedule import ScheduleError, parse_duration
from reverie.config import load_settings
from reverie.durations import DurationError, duration_ms
from reverie.errors import UserError


def ttl(value: str) -> float:
    return load_settings(None, {}, [f'sessions.pruning.ttl="{value}"']).sessions.pruning.ttl


@pytest.mark.parametrize("text,ms", [
    ("250ms", 250), ("30s", 30_000), ("5m", 300_000), ("1.5h", 5_400_000), ("2d", 172_800_000),
    ("1w", 604_800_000), ("1h30m", 5_400_000), (" 1 h 30 m ", 5_400_000), ("5M", 300_000), ("0s", 0),
])
def test_settings_and_schedules_read_a_duration_alike(text, ms):
    assert duration_ms(text) == ms
    assert parse_duration(text) == ms
    assert ttl(text) == ms / 1000


@pytest.mark.parametrize("text", ["", "soon", "5 minutes", "m5", "1h x", "-5m", "1.h", "99999999999999999999d"])
def test_what_is_not_a_duration_is_refused_by_both(text):
    with pytest.raises(DurationError):
        duration_ms(text)
    with pytest.raises(ScheduleError):
        parse_duration(text)
    with pytest.raises(UserError, match="sessions.pruning.ttl"):
        ttl(text)


def test_a_bare_number_is_minutes_only_where_the_caller_says_so():
    assert ttl("5") == 300  # the reference's default unit for the pruning ttl
    assert load_settings(None, {}, ["sessions.pruning.ttl=45"]).sessions.pruning.ttl == 45 * 60


def test_a_bare_ttl_means_the_same_in_the_settings_file_and_on_the_command_line(tmp_path):
    toml = tmp_path / "reverie.toml"
    toml.write_text("[sessions.pruning]\nttl = 45\n", encoding="utf-8")
    assert load_settings(toml, {}, []).sessions.pruning.ttl == 45 * 60  # was 45 (seconds) from the file


def test_schedules_refuse_a_bare_number():
    with pytest.raises(ScheduleError, match="cannot read duration"):
        parse_duration("30")  # --every 30: seconds or minutes? refused, not guessed
