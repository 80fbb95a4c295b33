"""A lane before the reply never waits seconds for the embedder: past ``embedBudgetMs`` its search
answers keyword-only and says so (reverie.budget). The embedder is the registered test provider
whose queries take 2 s (``fake`` / ``slow-query``), as a loading local model or a slow remote is."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

from reverie import Memory
from reverie.budget import embed_budget
from reverie.embeddings.fake import FakeEmbedder
from reverie.sidecar import FollowedSession

SLOW = ['memory.search.provider="fake"', 'memory.search.model="slow-query"']


@contextlib.contextmanager
def held_queries():
    """Hold every slow-query embedding until the block ends; yields how many texts the fake
    embedded since (0 while held: nothing that waited for a held query could have returned)."""
    before = FakeEmbedder.calls
    FakeEmbedder.hold = threading.Event()
    try:
        yield lambda: FakeEmbedder.calls - before
    finally:
        FakeEmbedder.hold.set()  # the held calls finish now
        FakeEmbedder.hold = None


def _memory(*extra: str) -> Memory:
    mem = Memory(overrides=[*SLOW, *extra])
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("# Memory\n\n- The boat is moored at Pier 39 in Sausalito.\n",
                                             encoding="utf-8")
    mem.sync()
    return mem


def test_a_search_in_a_budget_goes_keyword_only_and_says_why(reverie_home: Path):
    mem = _memory()
    try:
        with held_queries() as embedded:
            with embed_budget(0.2) as notes:
                out = mem.search("boat moored Sausalito")
            assert embedded() == 0  # answered while the query's embedding is still held: it did not wait
        assert out["mode"] == "keyword-only"
        assert "did not answer within 200 ms" in out["debug"]["vectorSkipped"]
        assert any("Pier 39" in r["snippet"] for r in out["results"])  # the keyword leg still finds it
        assert notes == ["a memory search went keyword-only: the embedder did not answer within 200 ms "
                         "(loading, or a busy machine)"]
        # without a budget (the command line, a tool call), the search waits for its vector
        assert mem.search("boat moored Sausalito")["mode"] == "hybrid"
    finally:
        mem.close()


def test_no_budget_no_note_and_a_fast_embedder_is_not_cut(reverie_home: Path):
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("# Memory\n\n- The boat is moored at Pier 39.\n", encoding="utf-8")
    mem.sync()
    try:
        with embed_budget(5.0) as notes:
            assert mem.search("boat moored")["mode"] == "hybrid"
        assert notes == []
    finally:
        mem.close()


def test_active_memory_before_a_hosts_model_call_degrades_and_the_host_is_told(reverie_home: Path):
    """The sidecar's before-model step with Active Memory on (offline model): its search is
    keyword-only past the budget, the fact still reaches the host, and the notice says why."""
    mem = _memory("memory.activeMemory.enabled=true", "memory.activeMemory.mode=always",
                  'memory.activeMemory.model="offline"', "memory.activeMemory.embedBudgetMs=300")
    try:
        s = FollowedSession(mem, host="test-host", key="budget-1")
        assert s.start().error is None
        with held_queries() as embedded:
            out = s.before_model("Which pier is the boat moored at?")
            assert embedded() == 0  # the host got its answer while the embedding was still held
        assert out.error is None, out.error
        assert "Pier 39" in out.text, out.notices
        assert any("keyword-only" in n and "300 ms" in n for n in out.notices), out.notices
        s.close()
    finally:
        mem.close()
