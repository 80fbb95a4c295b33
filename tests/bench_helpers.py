"""Loading a benchmark script (``benchmarks/*.py`` are scripts, not a package) for its smoke test."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str, module_name: str | None = None):
    """``benchmarks/<name>.py`` as a module, registered in ``sys.modules`` (dataclasses look their
    module up there) as ``module_name`` (default ``reverie_bench_<name>``)."""
    spec = importlib.util.spec_from_file_location(module_name or f"reverie_bench_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
