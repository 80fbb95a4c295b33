"""Concurrent writers, small (benchmarks/fuzz_faults.py runs 8 x 200): processes appending at once
through remember and memory_append each land every entry exactly once, whole, never interleaved,
and in the index after the next sync."""

from __future__ import annotations

import fault_helpers  # noqa: F401  (puts benchmarks/ on the path)
from faultlab import writers
from faultlab.common import FAKE, clean_env

from reverie import Memory


def test_four_writers_land_every_entry_once_and_whole(tmp_path):
    res = writers.run_writers(tmp_path, 4, 20)
    assert res["errors"] == []
    assert (res["entries"], res["present"]) == (80, 80)
    assert res["missing"] == res["duplicated"] == res["interleaved"] == res["notIndexed"] == res["headersTwice"] == 0


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


def test_the_benchmark_writes_its_figures_into_one_marked_section(tmp_path):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("reverie_bench_fuzz_faults", fault_helpers.BENCHMARKS / "fuzz_faults.py")
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    doc = tmp_path / "guarantees.md"
    doc.write_text("# Guarantees\n\nintro\n", encoding="utf-8")
    for _ in range(2):
        res = bench.main(["--only", "writers", "--writers", "2", "--per-writer", "3", "--doc", str(doc), "--quiet"])
        assert res["failed"] is False and res["writers"]["present"] == 6
    text = doc.read_text(encoding="utf-8")
    assert text.startswith("# Guarantees\n\nintro\n") and text.count("<!-- fuzz_faults:start -->") == 1
    assert "**Concurrent writers**: 2 processes × 3" in text and "load average" in text
