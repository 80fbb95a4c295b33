"""Readers do not wait on the writer: after a sync, a long-lived searcher reads only what changed
(not every vector again), and after a rebuild it keeps answering from the previous generation
while the new one's vectors load in the background. Latency figures are in benchmarks/load.py."""

from __future__ import annotations

from pathlib import Path

from reverie import Memory

FAKE = ['memory.search.provider="fake"']


def _notes(ws: Path, n: int) -> None:
    d = ws / "memory" / "notes"
    d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (d / f"n{i:03d}.md").write_text(f"- note {i}: the river word{i} and the heron\n", encoding="utf-8")


def test_a_sync_elsewhere_refreshes_only_what_changed(reverie_home):
    reader = Memory(overrides=FAKE)
    reader.init()
    _notes(reader.workspace, 40)
    reader.sync()
    assert reader.search("heron river")["mode"] == "hybrid"
    matrix = reader.searcher.vectors
    assert matrix.loads == 1
    writer = Memory(overrides=FAKE)  # another process writes and syncs
    new = writer.workspace / "memory" / "kingfisher.md"
    new.write_text("- A kingfisher dived into the millpond.\n", encoding="utf-8")
    (writer.workspace / "memory" / "notes" / "n007.md").unlink()
    writer.sync()
    writer.close()
    out = reader.search("kingfisher millpond")
    assert out["results"][0]["path"] == "memory/kingfisher.md"
    assert out["results"][0]["vectorScore"] is not None  # its vector is in the matrix ...
    assert matrix.loads == 1  # ... which read the one new vector, not all 41 again
    snap = matrix.serve(*reader.index.snapshot(), 64)
    assert snap.rows == 40  # 40 notes - 1 removed + 1 new
    assert "memory/notes/n007.md" not in [r["path"] for r in reader.search("word7 heron", 10)["results"]]
    reader.close()


def test_after_a_rebuild_searches_answer_from_the_previous_generation_until_the_new_one_loads(reverie_home):
    reader = Memory(overrides=FAKE)
    reader.init()
    _notes(reader.workspace, 30)
    reader.sync()
    first = reader.search("word3 heron")
    old = first["debug"]["generation"]
    other = Memory(overrides=FAKE)
    other.rebuild()  # publishes a new generation
    new = other.index.generation
    other.close()
    assert new != old
    during = reader.search("word3 heron")
    assert during["debug"]["generation"] == old  # no search waits for the new matrix to load
    assert [r["path"] for r in during["results"]] == [r["path"] for r in first["results"]]
    assert reader.searcher.vectors.wait_loaded(30)
    after = reader.search("word3 heron")
    assert after["debug"]["generation"] == new
    assert [r["path"] for r in after["results"]] == [r["path"] for r in first["results"]]
    reader.close()
