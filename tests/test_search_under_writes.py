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
    old = reader.searcher.last_generation
    other = Memory(overrides=FAKE)
    other.rebuild()  # publishes a new generation
    new = other.index.generation
    other.close()
    assert new != old
    during = reader.search("word3 heron")
    assert reader.searcher.last_generation == old  # no search waits for the new matrix to load
    assert [r["path"] for r in during["results"]] == [r["path"] for r in first["results"]]
    assert reader.searcher.vectors.wait_loaded(30)
    after = reader.search("word3 heron")
    assert reader.searcher.last_generation == new
    assert [r["path"] for r in after["results"]] == [r["path"] for r in first["results"]]
    reader.close()


def test_the_refreshed_matrix_always_equals_the_index(reverie_home):
    """After any mix of new, edited and deleted notes (and the merges they cause), the matrix a
    reader refreshes holds exactly the index's vectors: nearest neighbours equal brute force."""
    import random

    import numpy as np

    from reverie.search.vectors import _build_view, nearest

    reader = Memory(overrides=FAKE)
    reader.init()
    _notes(reader.workspace, 20)
    reader.sync()
    reader.search("heron")
    rng = random.Random(4)
    checked = 0
    notes_dir = reader.workspace / "memory" / "notes"
    for step in range(25):
        names = sorted(p.name for p in notes_dir.iterdir())
        action = rng.choice(["add", "edit", "delete"])
        if action == "delete" and len(names) > 5:
            (notes_dir / rng.choice(names)).unlink()
        elif action == "edit":
            (notes_dir / rng.choice(names)).write_text(f"- edited {step}: a kestrel and word{step}\n", encoding="utf-8")
        else:
            (notes_dir / f"x{step:03d}.md").write_text(f"- added {step}: an egret and word{step}\n", encoding="utf-8")
        reader.sync()
        conn, gen = reader.index.snapshot()
        snap = reader.searcher.vectors.serve(conn, gen, 64)
        reader.searcher.vectors.wait_loaded(10)  # a background merge may replace it: check both
        rows = conn.execute("SELECT seq, embedding FROM memory_index_windows WHERE embedding IS NOT NULL").fetchall()
        mat = np.stack([np.frombuffer(b, dtype=np.float32) for _, b in rows])
        q = reader.embedder.embed_query(f"kestrel egret word{step}")
        sims = mat @ q
        want = sorted(((int(rows[i][0]), float(sims[i])) for i in range(len(rows))), key=lambda t: (-t[1], t[0]))
        for current in (snap, reader.searcher.vectors.serve(conn, gen, 64)):
            derived = "view" in current.__dict__  # derived from the previous view by the refresh
            checked += derived
            got = nearest(current, q, len(rows) + 5)
            if derived:  # the derived view equals one built afresh from the same windows
                full = _build_view([b.take() for b in current.blocks], 64)
                view = current.view
                assert sorted(view.seqs.tolist()) == sorted(full.seqs.tolist())
                by_seq = {int(s): i for i, s in enumerate(view.seqs)}
                for i, s in enumerate(full.seqs.tolist()):
                    j = by_seq[s]
                    assert np.allclose(view.mat[j], full.mat[i])
                    assert np.allclose(view.files[view.file_of[j]], full.files[full.file_of[i]], atol=1e-5)
                assert (np.diff(view.first) >= 0).all()
            assert sorted(s for s, _ in got) == sorted(s for s, _ in want)
            assert [round(c, 5) for _, c in got] == [round(c, 5) for _, c in want]
    assert reader.searcher.vectors.loads == 1
    assert checked > 10  # most refreshes derived their view
    reader.close()
