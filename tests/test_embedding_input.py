"""The embedding model reads a chunk without its annotation comments."""

from __future__ import annotations

from reverie.embeddings.fake import FakeEmbedder
from reverie.index.sync import embedding_input


def test_comments_are_removed_from_what_the_model_reads():
    text = "- Prefer trains to planes. <!-- importance: 8 --> <!-- trigger: travel; 出行 -->\n- second"
    assert embedding_input(text) == "- Prefer trains to planes.\n- second"
    assert embedding_input("plain text") == "plain text"
    only = "<!-- openclaw-memory-promotion:key -->"
    assert embedding_input(only) == only  # nothing else to read: keep the text as it is


def test_changing_only_an_annotation_reuses_the_cached_vector(fake_memory):
    note = fake_memory.workspace / "MEMORY.md"
    note.write_text("# Long-Term Memory\n\n- Prefer trains to planes. <!-- importance: 5 -->\n", encoding="utf-8")
    fake_memory.sync()
    before = FakeEmbedder.calls
    note.write_text("# Long-Term Memory\n\n- Prefer trains to planes. <!-- importance: 9 -->\n", encoding="utf-8")
    report = fake_memory.sync()
    assert report.changed == 1 and report.chunks_written == 1
    assert FakeEmbedder.calls == before and report.embedded == 0  # same meaning, same vector
    row = fake_memory.index.conn().execute(
        "SELECT m.importance FROM memory_index_chunks c JOIN memory_index_chunk_recall_metadata m "
        "ON m.chunk_id = c.id WHERE c.path = 'MEMORY.md'").fetchone()
    assert row[0] == 9  # while ranking sees the new importance
