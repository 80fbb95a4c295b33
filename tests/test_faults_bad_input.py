"""The bad-input table (benchmarks/faultlab/badinput.py; the benchmark runs every row and writes it
into docs/guarantees.md): each kind of bad input gives the exit code it must and one clear line,
and loses nothing. Here a row of each group runs, and the rows for faults the fuzzing found."""

from __future__ import annotations

import fault_helpers  # noqa: F401  (puts benchmarks/ on the path)
from faultlab import badinput

CHOSEN = [
    "REVERIE_CONFIG=/dev/zero", "deeply nested TOML", "memory/ that is a file", "standard input that is not UTF-8",
    "a table file that is not SQLite", "get a FIFO named like a note", "a truncated agent database",
    "a garbage index generation (repairs itself)",
    # found by the fuzzing: these were exit 2 (internal errors)
    "a workspace that is a symlink loop", "a search query of 100,000 characters",
    # issue 31: exit 2 or a raw exception before
    "get a path over 4,096 bytes", "index with a note name that is not UTF-8",
    "a damaged page of the migration ledger (status)",
]


def test_the_table_is_well_formed():
    rows = badinput.rows()
    names = [r.what for r in rows]
    assert len(rows) >= 45 and len(set(names)) == len(names)
    assert {r.code for r in rows} == {0, 1}  # exit 2 is never the right answer to bad input
    assert all(r.says for r in rows if r.code == 1)
    assert set(CHOSEN) <= set(names)


def test_chosen_rows_give_their_exit_code_and_one_line(tmp_path):
    rows = badinput.rows()
    index = [i for i, r in enumerate(rows) if r.what in CHOSEN]
    results = badinput.run_table(tmp_path, workers=2, only=index)
    assert len(results) == len(CHOSEN)
    failed = [r for r in results if not r["ok"]]
    assert failed == []
    for r in results:
        assert r["got"] == r["expected"]
        if r["expected"] == 1:
            assert r["says"].startswith("reverie: error: ")
