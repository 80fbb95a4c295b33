"""Smoke run of benchmarks/trust_suite.py: at least 50 attacks are defined; a few families through
the chat runtime and the MCP server, and forget trials, all come out at 0; the figures land in
their marked section of the doc (replaced, never duplicated)."""

from __future__ import annotations

from bench_helpers import load_benchmark


def test_trust_suite_small_run(tmp_path):
    bench = load_benchmark("trust_suite")
    every = bench.attacks()
    assert len(every) >= 50 and {a.surface for a in every} == {"runtime", "mcp"}
    assert len({a.id for a in every}) == len(every)
    doc = tmp_path / "trust.md"
    doc.write_text("# Trust\n\nintro\n", encoding="utf-8")
    res = bench.main(["--only", "web,mcp,recall", "--forget-trials", "1", "--text-trials", "1",
                      "--doc", str(doc)])
    assert res["errors"] == 0 and len(res["attacks"]) >= 20
    assert res["totals"] == {c: 0 for c in bench.COLUMNS}
    assert res["reachedMemory"] > 0  # the attacks did get their payloads into memory files (as untrusted)
    assert len(res["forgetTrials"]) == 2 and res["forgetLeaks"] == 0
    assert all(t["presentBefore"] for t in res["forgetTrials"])
    bench.main(["--only", "background", "--forget-trials", "0", "--text-trials", "0", "--doc", str(doc)])
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Trust\n\nintro\n") and text.count("trust_suite:start") == 1
