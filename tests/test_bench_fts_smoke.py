"""Smoke test of benchmarks/fts_tokenizers.py: a tiny run, the cjk design must pass every required query."""

from __future__ import annotations

from bench_helpers import load_benchmark


def test_benchmark_small_run(tmp_path):
    bench = load_benchmark("fts_tokenizers")
    out = tmp_path / "keyword-index.md"
    result = bench.main(["--chunks", "500", "--queries", "40", "--rounds", "1", "--out", str(out)])

    matrix = result["correctness"]
    assert set(matrix) == {"unicode61", "trigram", "pybigram", "cjk"}
    required = [q for _, q, _ in bench.REQUIRED_QUERIES]
    assert {"酒店", "湖景房", "返程车票", "预算", "Hangzhou 酒店", "東京", "ホテル", "호텔", "hotels", "booking"} <= set(required)
    assert all(matrix["cjk"][q] == "ok" for q in required), matrix["cjk"]
    # every candidate answered every query (a failure is reported as a cell, never raised)
    assert all(set(row) == set(required) for row in matrix.values())

    speed = {r.key: r for r in result["speed"]}
    assert speed["cjk"].error is None and speed["cjk"].chunks == 500
    assert len(speed["cjk"].latencies_ms) == 40

    report = out.read_text(encoding="utf-8")
    assert report == result["report"]
    assert "| candidate | chunks | query median ms | query p95 ms | inserts/s | DB MB |" in report
    assert "| query | what it tests | target | unicode61 | trigram | pybigram | cjk |" in report
    assert "SQLite (from apsw)" in report
