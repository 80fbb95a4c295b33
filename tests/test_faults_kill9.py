"""kill -9 on every write path, small (benchmarks/fuzz_faults.py runs >= 100 trials): what was
acknowledged before the kill is there after it, every SQLite file passes its integrity check,
`reverie doctor --repair` finds nothing to repair, and the next commands work with no manual repair.

Each trial is a real process (benchmarks/faultlab/driver.py) killed with SIGKILL at a random moment
among its writes, or at an exact step through REVERIE_FAULTS (reverie/faults.py)."""

from __future__ import annotations

import random
import shutil

import fault_helpers  # noqa: F401  (puts benchmarks/ on the path)
import pytest
from faultlab import kills

TRIALS = [(kind, None) for kind in kills.KINDS if kind not in ("forget", "dream")] + [
    ("forget", "replace:before-rename"), ("dream", "dream:memory-written")]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return kills.prepare(tmp_path_factory.mktemp("kills"))


def test_every_write_path_is_on_trial():
    assert {kind for kind, _ in TRIALS} == set(kills.KINDS)
    planned = kills.plan(120)
    assert {k for k, _ in planned} == set(kills.KINDS) and len(planned) == 120
    assert {p for k, p in planned if k == "dream" and p} == set(kills.DREAM_POINTS)
    assert {p for k, p in planned if k == "forget" and p} == set(kills.FORGET_POINTS)


@pytest.mark.parametrize("kind,point", TRIALS, ids=[f"{k}-{p or 'random'}" for k, p in TRIALS])
def test_kill_9_loses_no_acknowledged_write(base, tmp_path, kind, point):
    trial = kills.run_trial(base, tmp_path, kind, 0, random.Random(hash(kind) % 1000), point)
    assert trial.killed, trial.as_dict()
    assert trial.lost == [] and trial.problems == [], trial.as_dict()


def test_the_checks_see_a_lost_write_and_a_damaged_file(base, tmp_path):
    home = tmp_path / "home"
    shutil.copytree(base, home, symlinks=True)
    lost = kills.Trial("remember", 1, acks=[{"tok": "never-written"}])
    kills.check_acknowledged(lost, home)
    assert lost.lost == ["never-written"]
    gone = kills.Trial("intent", 1, acks=[{"tok": "x", "id": "si_never"}])
    kills.check_acknowledged(gone, home)
    assert gone.lost == ["x"]
    (home / "workspace" / "tables").mkdir(exist_ok=True)
    (home / "workspace" / "tables" / "broken.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    damaged = kills.Trial("table", 1)
    kills.check_integrity(damaged, home)
    assert any("broken.sqlite" in p for p in damaged.problems)
