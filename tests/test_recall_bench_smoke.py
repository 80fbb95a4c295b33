"""Smoke test of benchmarks/trigger_recall.py: a small run injects on the turns that mention a
phrase, and writes (then replaces, never duplicates) its section of the doc."""

from __future__ import annotations

from bench_helpers import load_benchmark


def test_benchmark_small_run(tmp_path):
    bench = load_benchmark("trigger_recall")
    doc = tmp_path / "recall.md"
    doc.write_text("# Recall\n\nintro\n", encoding="utf-8")
    res = bench.main(["--phrases", "300", "--turns", "80", "--out", str(doc)])
    assert 0 < res["injectedTurns"] < 80
    assert 0 < res["median_ms"] <= res["p95_ms"] <= res["max_ms"]
    bench.main(["--phrases", "200", "--turns", "40", "--out", str(doc)])
    text = doc.read_text(encoding="utf-8")
    assert text.count(bench.BEGIN) == 1 and "200 trigger phrases" in text and text.startswith("# Recall")
