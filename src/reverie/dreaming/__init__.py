"""Dreaming: what keeps proving useful becomes long-term memory, safely (reference §15-§16).

Overnight (a managed automation, ``0 3 * * *`` in the user's zone) a sweep reads the short-term
recall store that searches fill, the recent daily notes and the interactive transcripts, and runs
three phases: **light** stages candidates, **REM** reflects on recurring themes, **deep** promotes
what passed the thresholds into ``MEMORY.md`` -- consolidated by a model whose plan is validated in
code, else appended -- through the compare-and-set writer with preimages. ``DREAMS.md`` is the page
a person reads afterwards. See docs/dreaming.md.

* :func:`run_sweep` one sweep (``reverie dream run``)
* :func:`status` what the store holds and what would be promoted (``reverie dream status``)
* :func:`explain` every score component of one entry (``reverie promote-explain``)
* :mod:`.preimages` undo a consolidation (``reverie memory preimages`` / ``restore``)
* :mod:`.schedule` the managed automations (the nightly sweep, the heartbeat review)
* :mod:`.backfill` grounded backfill (``reverie rem-harness`` / ``rem-backfill``)
"""

from .sweep import DreamBusy, Sweep, promotion_lock, run_sweep

__all__ = ["DreamBusy", "Sweep", "promotion_lock", "run_sweep"]
