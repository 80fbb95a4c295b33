"""Named points where a test can stop this process dead or hold it, to prove a crash or a
concurrent edit at that exact moment loses nothing.

``REVERIE_FAULTS`` is a comma-separated list of ``kill@<point>`` (SIGKILL, no cleanup: what a power
cut or ``kill -9`` does) and ``pause@<point>`` (touch ``<point>.reached`` in ``REVERIE_FAULTS_DIR``
and wait up to 30 s for ``<point>.go``). Unset, a point costs one dictionary lookup.

Points: ``replace:temp-written``, ``replace:before-rename``, ``replace:renamed`` (the compare-and-set
writer); ``dream:planned``, ``dream:model-answered``, ``dream:memory-written``,
``dream:store-marked``, ``dream:dreams-written`` (a Dreaming sweep).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def _wanted() -> dict[str, str]:
    raw = os.environ.get("REVERIE_FAULTS", "")
    out = {}
    for item in raw.split(","):
        action, _, point = item.strip().partition("@")
        if point:
            out[point] = action
    return out


def point(name: str) -> None:
    if "REVERIE_FAULTS" not in os.environ:
        return
    action = _wanted().get(name)
    if action == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "pause":
        folder = Path(os.environ.get("REVERIE_FAULTS_DIR", "."))
        (folder / f"{name}.reached").touch()
        deadline = time.monotonic() + 30
        while not (folder / f"{name}.go").exists() and time.monotonic() < deadline:
            time.sleep(0.02)
