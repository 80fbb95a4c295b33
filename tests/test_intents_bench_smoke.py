"""Smoke test of benchmarks/intents_match.py: a tiny run fires intents, never fails open, and
writes (then replaces, never duplicates) its section of the doc."""

from __future__ import annotations

from bench_helpers import load_benchmark


def test_benchmark_small_run(tmp_path):
    bench = load_benchmark("intents_match")
    doc = tmp_path / "intents.md"
    doc.write_text("# Intents\n\nintro\n", encoding="utf-8")
    res = bench.main(["--intents", "300", "--turns", "60", "--out", str(doc)])
    assert res["errors"] == 0 and res["fired"] > 0
    assert 0 < res["median_ms"] <= res["p95_ms"] <= res["max_ms"]
    bench.main(["--intents", "200", "--turns", "30", "--out", str(doc)])
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Intents\n\nintro\n")
    assert text.count("## Benchmark: per-turn matching") == 1 and "--intents 200 --turns 30" in text
