"""What reverie writes by itself is indexed as it is written, like a note saved with memory_append:
the flush's appends, a session's note (in `reverie chat` and through the sidecar), Dreaming's and the
heartbeat review's MEMORY.md. A search right after finds it without waiting for the index's next look
for changed files (at most once a second, in the background), so what that search returns -- and the
recalls Dreaming later counts -- no longer depends on timing.

Each test lets the index settle first, then writes, then reads the index's own rows: nothing else
(no search, no sync) is asked to index anything in between."""

from __future__ import annotations

from dreaming_helpers import durable_life, memory_text, night, open_mem
from engines import index_conn

from reverie import Memory
from reverie.models.scripted import ScriptedModel
from reverie.sidecar import FollowedSession, HostMessage


def indexed(mem: Memory, rel: str) -> str:
    """The text of the index's chunks of ``rel``, in line order."""
    conn = index_conn(mem)
    try:
        rows = conn.execute("SELECT text FROM memory_index_chunks WHERE path = ? ORDER BY start_line",
                            (rel,)).fetchall()
    finally:
        conn.close()
    return "\n".join(r[0] for r in rows)


def keyword_only() -> Memory:
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    return mem


def settled(mem: Memory) -> Memory:
    mem.sync()
    assert mem.index.background.wait(60)
    return mem


def test_the_flush_append_is_indexed_as_it_is_written(reverie_home):
    mem = keyword_only()
    script = {"steps": {"flush": [{"toolCalls": [
        {"name": "memory_append", "arguments": {"text": "Decided: the Quillbrook campsite, two nights."}}]}]}}
    rt = mem.runtime(ScriptedModel(script=script))
    rt.send("We decided on the Quillbrook campsite.")
    settled(mem)
    fr = rt.flush("manual")
    assert fr.status == "written" and fr.path
    assert "Quillbrook campsite, two nights" in indexed(mem, fr.path)
    rt.close()
    mem.close()


def test_a_chat_session_note_is_indexed_as_it_is_written(reverie_home):
    mem = keyword_only()
    rt = mem.runtime(ScriptedModel(script={"steps": {"turn": [{"reply": "Noted, the Quillbrook campsite."}]}}))
    rt.send("We picked the Quillbrook campsite for June.")
    settled(mem)
    rt.send("/new")  # ends the session: its note is written
    assert rt.wait_for_hooks(30)
    (note,) = [r["path"] for r in rt.hook.results if r["status"] == "written"]
    text = indexed(mem, note)
    assert "Quillbrook campsite for June" in text
    assert "Session ID" not in text  # the header is where it came from, not memory
    rt.close()
    mem.close()


def test_a_followed_sessions_note_is_found_by_the_next_search_at_once(reverie_home):
    mem = keyword_only()
    s = FollowedSession(mem, host="test", key="camp")
    s.start()
    s.before_model("We picked the Quillbrook campsite for June.")
    s.after_turn([HostMessage("assistant", "Great choice.", "agent")])
    settled(mem)
    end = s.end("exit")
    (note,) = [n["path"] for n in end.data["notes"] if n["status"] == "written"]
    assert "Quillbrook campsite for June" in indexed(mem, note)
    # and a search that may not wait for the index at all sees it
    hits = mem.search("Quillbrook campsite", sync_wait=0)["results"]
    assert note in {h["path"] for h in hits}
    s.close()
    mem.close()


def test_memory_md_is_indexed_as_dreaming_promotes(reverie_home):
    mem = open_mem()
    durable_life(mem)
    settled(mem)
    before = indexed(mem, "MEMORY.md")
    assert "allergic to peanuts" not in before
    mem.dream(now=night(5))
    assert "allergic to peanuts" in memory_text(mem)  # promoted ...
    assert "allergic to peanuts" in indexed(mem, "MEMORY.md")  # ... and in the index at once
    mem.close()
