"""The fuzz and fault suite lives in benchmarks/faultlab (the benchmark runs it at full size); the
tests import the same code and run it small."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))
