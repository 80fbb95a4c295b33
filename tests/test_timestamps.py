"""One reading of a host's time (reverie/timestamps.py): ISO 8601 text with Z or an offset, or an
epoch number in seconds or milliseconds; anything else is None, never an exception."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie.timestamps import epoch_ms, parse_iso

NOON = int(datetime(2026, 7, 1, 12, tzinfo=timezone.utc).timestamp() * 1000)


@pytest.mark.parametrize("value", ["2026-07-01T12:00:00Z", "2026-07-01T12:00:00.000Z", "2026-07-01T20:00:00+08:00",
                                   NOON, NOON / 1000, NOON // 1000])
def test_every_way_a_host_writes_a_time_reads_as_the_same_moment(value):
    assert epoch_ms(value) == NOON


@pytest.mark.parametrize("value", [None, "", "yesterday", "2026-13-01T00:00:00Z", True, [], {"at": 1}])
def test_what_is_not_a_time_is_none(value):
    assert epoch_ms(value) is None and parse_iso(value) is None


def test_a_zone_is_kept_and_a_time_without_one_stays_naive():
    assert parse_iso("2026-07-01T20:00:00+08:00").utcoffset().total_seconds() == 8 * 3600
    assert parse_iso("2026-07-01T12:00:00").tzinfo is None


@pytest.mark.parametrize("value", ["0001-01-01", "0001-01-01T00:00:00", float("nan"), float("inf")])
def test_a_time_without_an_epoch_is_none_not_an_error(value):
    assert epoch_ms(value) is None
