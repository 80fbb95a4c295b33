"""Concurrent writers, small (benchmarks/fuzz_faults.py runs 8 x 200): processes appending at once
through remember and memory_append each land every entry exactly once, whole, never interleaved,
and in the index after the next sync."""

from __future__ import annotations

import fault_helpers  # noqa: F401  (puts benchmarks/ on the path)
from faultlab import writers
from faultlab.common import FAKE, clean_env

from reverie import Memory


def test_the_check_sees_an_interleaved_or_missing_entry(tmp_path):
    home = tmp_path / "home"
    mem = Memory(home=home, overrides=[FAKE], env=clean_env(home))
    mem.init()
    mem.close()
    (home / "workspace" / "memory" / "2026-03-01.md").write_text(
        "# 2026-03-01\n\n- 09:00 cw 0-0 begin\n- 09:00 cw 1-0 begin\n  middle 1-0\n  end 1-0\n  middle 0-0\n"
        "  end 0-0\n- 09:00 cw 1-0 begin\n  middle 1-0\n  end 1-0\n", encoding="utf-8")
    res = writers.check(home, 2, 2)
    assert res["interleaved"] == 1 and res["duplicated"] == 1 and res["missing"] == 2


def test_four_writers_land_every_entry_once_and_whole_and_the_figures_land_in_their_section(tmp_path):
    from bench_helpers import load_benchmark

    bench = load_benchmark("fuzz_faults")
    doc = tmp_path / "guarantees.md"
    doc.write_text("# Guarantees\n\nintro\n\n## Measured\n\n<!-- fuzz_faults:start -->\nold figures\n"
                   "<!-- fuzz_faults:end -->\n\nafter\n", encoding="utf-8")
    res = bench.main(["--only", "writers", "--writers", "4", "--per-writer", "20", "--doc", str(doc), "--quiet"])
    w = res["writers"]
    assert res["failed"] is False and w["errors"] == []
    assert (w["entries"], w["present"]) == (80, 80)
    assert w["missing"] == w["duplicated"] == w["interleaved"] == w["notIndexed"] == w["headersTwice"] == 0
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Guarantees\n\nintro\n") and text.endswith("\nafter\n")
    assert text.count("<!-- fuzz_faults:start -->") == 1 and "old figures" not in text
    assert "**Concurrent writers**: 4 processes × 20" in text and "load average" in text
