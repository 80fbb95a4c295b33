"""Honest search (addendum row 10): a query with no hits never triggers a re-index (a zero-hit
query on 167k chunks once blew the deadline rebuilding the index and left a shadow database)."""

from __future__ import annotations


from tests.recall_helpers import write


def test_a_zero_hit_query_never_reindexes(fake_memory):
    for i in range(30):
        write(fake_memory, f"memory/topic-{i}.md", f"# Topic {i}\n\n- Notes about subject number {i}.\n")
    fake_memory.sync()
    before = fake_memory.status()
    gen_files = sorted(p.name for p in fake_memory.places.index_dir.iterdir())
    for q in ("zyxwvut qqqq", "完全不存在的词语组合", "xylophone quartz"):
        out = fake_memory.search(q, min_score=0.99)
        assert out["results"] == [] and not out.get("stale")
    assert fake_memory.searcher.wait_for_sync(60)  # a background sync, had one started, has finished now
    after = fake_memory.status()
    assert after["index"] == before["index"]  # same generation, same revision
    assert after["last_sync"] == before["last_sync"]
    assert sorted(p.name for p in fake_memory.places.index_dir.iterdir()) == gen_files
