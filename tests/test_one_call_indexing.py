"""A process that answers one call and exits (a host's hook run without `reverie serve`) indexes
the text of new notes in the background but never loads the embedding model for them; the next
search that embeds its query anyway (hybrid, the local model) embeds those few chunks first, so it
stays hybrid and ranks the new notes with the rest."""

from __future__ import annotations

import pytest

from reverie import Memory
from reverie.index import progress

from workspace_helpers import write

pytestmark = pytest.mark.semantic

LOCAL = ['memory.search.provider="local"']


def _missing(mem: Memory) -> int:
    chunks, with_vectors = progress.counts(mem.index.conn())
    return chunks - with_vectors


def _cabin(overrides: list[str]) -> Memory:
    """A memory of one note, not indexed yet."""
    mem = Memory(overrides=overrides)
    mem.init()
    write(mem, "memory/2026-11-01.md", "- The cabin is in the mountains near Innsbruck.\n")
    return mem


def _hook_indexes() -> Memory:
    """A one-call process (a hook without the server) that indexed the notes in the background."""
    hook = Memory(overrides=LOCAL).one_call()
    hook.sync_in_background()
    assert hook.index.background.wait(120)
    return hook


def test_a_one_call_process_leaves_vectors_and_the_next_search_catches_up(reverie_home):
    mem = _cabin(LOCAL)
    mem.sync()  # built with vectors
    assert _missing(mem) == 0
    mem.close()
    write(mem, "memory/2026-11-30.md", "- The bicycle lock combination was changed to the blue fridge note.\n")

    hook = _hook_indexes()
    assert hook.index.embedder is not None and hook.index.embedder.loaded is False  # the model never loaded
    assert _missing(hook) >= 1  # its text is indexed; its vector waits
    found = hook.index.conn().execute("SELECT count(*) FROM memory_index_chunks WHERE path LIKE '%2026-11-30%'")
    assert found.fetchone()[0] >= 1
    hook.close()

    reader = Memory(overrides=LOCAL)
    out = reader.search("bicycle lock combination", record_signals=False)
    assert out["mode"] == "hybrid" and "vectorSkipped" not in out["debug"], out["debug"]
    assert out["results"][0]["path"] == "memory/2026-11-30.md"
    assert _missing(reader) == 0
    reader.close()


def test_a_one_call_process_still_builds_a_new_index_with_vectors(reverie_home):
    """An index no full run ever finished on: every chunk would lack its vector (more than a search
    catches up on), so a one-call process embeds then."""
    mem = Memory(overrides=LOCAL)
    mem.init()
    (mem.workspace / "MEMORY.md").write_text("# Memory\n\n- The parrot is named Captain Flint.\n")
    mem.close()
    hook = Memory(overrides=LOCAL).one_call()
    hook.sync_in_background()
    assert hook.index.background.wait(120)
    assert _missing(hook) == 0 and hook.index.stored_identity()["provider"] == "local"
    hook.close()


def test_an_edited_note_keeps_the_vectors_of_its_unchanged_entries(reverie_home):
    """A hook process re-indexing a long note it appended to takes the unchanged entries' vectors
    from the embedding cache (no model call): only the new entry waits for its vector, and the
    next search stays hybrid."""
    mem = Memory(overrides=LOCAL)
    mem.init()
    notes = mem.workspace / "memory"
    notes.mkdir(exist_ok=True)
    day = notes / "2026-11-02.md"
    day.write_text("".join(f"- Entry {i}: the garden shed holds tool number {i} on its own hook.\n"
                           for i in range(30)))
    mem.sync()
    assert _missing(mem) == 0
    chunks = progress.counts(mem.index.conn())[0]
    assert chunks > 16  # more than a search would catch up on
    mem.close()

    with day.open("a", encoding="utf-8") as fh:
        fh.write("- The ferry to the island now leaves at seven from pier four.\n")
    hook = Memory(overrides=LOCAL).one_call()
    hook.sync_in_background()
    assert hook.index.background.wait(120)
    assert hook.index.embedder.loaded is False
    assert _missing(hook) == 1  # the new entry only
    hook.close()

    reader = Memory(overrides=LOCAL)
    out = reader.search("ferry to the island", record_signals=False)
    assert out["mode"] == "hybrid" and "vectorSkipped" not in out["debug"], out["debug"]
    assert _missing(reader) == 0
    reader.close()


def test_a_catch_up_that_embedded_nothing_is_not_tried_again_at_once(reverie_home):
    """With the index held by another writer, the search's catch-up embeds nothing; the next
    search does not try again at once (it goes keyword-only, as before the catch-up existed, while
    the background fill takes over), rather than paying for a failed attempt on every search."""
    from reverie.index import generations

    mem = _cabin(LOCAL)
    mem.sync()
    mem.close()
    write(mem, "memory/2026-11-30.md", "- The bicycle lock combination is on the blue fridge note.\n")
    _hook_indexes().close()

    reader = Memory(overrides=LOCAL)
    assert _missing(reader) == 1
    with generations.lock(reader.index.index_dir, "sync"):  # another writer holds the index
        held = reader.search("bicycle lock combination", record_signals=False)
    assert "vectorSkipped" in held["debug"] and _missing(reader) == 1
    again = reader.search("bicycle lock combination", record_signals=False)
    assert "vectorSkipped" in again["debug"]  # not tried again at once
    reader.index.background.wait(60)
    reader.close()


@pytest.fixture
def held_passages():
    """Model "slow" of the fake provider embeds passages only once the test lets it."""
    import threading

    from reverie.embeddings.fake import FakeEmbedder

    FakeEmbedder.hold = threading.Event()
    yield FakeEmbedder.hold
    FakeEmbedder.hold.set()
    FakeEmbedder.hold = None


def _while_our_run_embeds(held) -> Memory:
    """A memory whose own background run has written a new note's text and is embedding it."""
    import time

    mem = _cabin(['memory.search.provider="fake"', 'memory.search.model="slow"'])
    held.set()
    mem.sync()
    held.clear()
    write(mem, "memory/2026-11-30.md", "- The bicycle lock combination is on the blue fridge note.\n")
    mem.index.sync_in_background(full=True)
    deadline = time.monotonic() + 60
    while _missing(mem) == 0 and time.monotonic() < deadline:  # its text is in, its vector waits
        time.sleep(0.02)
    assert _missing(mem) == 1 and mem.index.background.running()
    return mem


def test_a_search_waits_briefly_for_its_own_run_embedding_the_few_chunks_it_lacks(reverie_home, held_passages,
                                                                                 monkeypatch):
    """The run that embeds them is this process's own (a start-up sync, the one after Dreaming):
    the search waits for it rather than going keyword-only, so the newest note ranks with the rest."""
    import threading

    from reverie.search import service

    monkeypatch.setattr(service, "CATCH_UP_WAIT", 60.0)  # ample: the run is let go at once
    mem = _while_our_run_embeds(held_passages)
    threading.Timer(0.1, held_passages.set).start()
    out = mem.search("bicycle lock combination", record_signals=False)
    assert "vectorSkipped" not in out["debug"] and out["mode"] == "hybrid", out["debug"]
    assert out["results"][0]["path"] == "memory/2026-11-30.md" and _missing(mem) == 0
    mem.close()


def test_a_search_does_not_wait_long_for_its_own_run_nor_again_at_once(reverie_home, held_passages, monkeypatch):
    from reverie.search import service

    monkeypatch.setattr(service, "CATCH_UP_WAIT", 0.2)
    mem = _while_our_run_embeds(held_passages)
    first = mem.search("bicycle lock combination", record_signals=False)
    assert "vectorSkipped" in first["debug"] and first["results"]  # keyword-only meanwhile, still found
    monkeypatch.setattr(service, "CATCH_UP_WAIT", 60.0)  # would wait for ever if it tried again
    again = mem.search("bicycle lock combination", record_signals=False)
    assert "vectorSkipped" in again["debug"]  # not waited for again within VECTOR_BUSY_SECONDS
    held_passages.set()
    mem.close()
