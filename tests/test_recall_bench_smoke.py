"""Smoke test of benchmarks/trigger_recall.py: a small run injects on the turns that mention a
phrase, and writes (then replaces, never duplicates) its section of the doc."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "trigger_recall.py"


def _load():
    spec = importlib.util.spec_from_file_location("reverie_bench_trigger_recall", BENCH)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_benchmark_small_run(tmp_path):
    bench = _load()
    doc = tmp_path / "recall.md"
    doc.write_text("# Recall\n\nintro\n", encoding="utf-8")
    res = bench.main(["--phrases", "300", "--turns", "80", "--out", str(doc)])
    assert 0 < res["injectedTurns"] < 80
    assert 0 < res["median_ms"] <= res["p95_ms"] <= res["max_ms"]
    bench.main(["--phrases", "200", "--turns", "40", "--out", str(doc)])
    text = doc.read_text(encoding="utf-8")
    assert text.count(bench.BEGIN) == 1 and "200 trigger phrases" in text and text.startswith("# Recall")
