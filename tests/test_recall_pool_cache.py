"""The recall pool of a conversation (what memory put into its context, kept out of transcript
search when the agent quotes it) is kept between the calls of one process — a warm server opens a
store per call, and reading the whole session again on every call made each turn cost more than
the last — and still sees every write: one by another store of the process, one by another process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reverie.models.base import ChatMessage
from reverie.sessions import TranscriptStore

HOTEL = "Decided: we stay at the Lakeside Hotel in Hangzhou, two nights, room 1208."
OWN = "I also booked a taxi for nine tomorrow morning."


def _recall(store: TranscriptStore, sid: str, text: str) -> None:
    store.append(sid, "system", {"event": "recall", "lane": "trigger", "text": "recall (trigger): 1 item(s)",
                                 "items": [{"text": text, "path": "MEMORY.md", "lines": [3, 3]}]}, origin="system")


def _row_text(store: TranscriptStore, seq: int) -> str:
    row = store.conn.execute("SELECT text FROM transcript_fts WHERE rowid = ?", (seq,)).fetchone()
    return row[0] if row else ""


def test_a_pool_kept_by_one_store_serves_the_next_store_of_the_process(tmp_path: Path):
    db = tmp_path / "agent.sqlite"
    first = TranscriptStore(db)
    sid = first.start_session("agent:main:trip").session_id
    first.append_message(sid, "user", ChatMessage("user", "Where are we staying?"), origin="owner")
    _recall(first, sid, HOTEL)
    first.close()
    second = TranscriptStore(db)  # a new call of a warm server
    ev = second.append_message(sid, "assistant", ChatMessage("assistant", f"You told me: {HOTEL}\n{OWN}"),
                               origin="agent")
    text = _row_text(second, ev.seq)
    assert "taxi" in text and "Lakeside" not in text  # the recalled sentence stripped, the agent's own kept
    assert second.recall_pool(sid).reproduces(HOTEL)
    second.close()


def test_a_write_by_another_process_is_seen(tmp_path: Path):
    db = tmp_path / "agent.sqlite"
    store = TranscriptStore(db)
    sid = store.start_session("agent:main:trip").session_id
    store.append_message(sid, "user", ChatMessage("user", "Where are we staying?"), origin="owner")
    assert not store.recall_pool(sid).reproduces(HOTEL)  # the pool is cached here now, empty
    script = ("import sys\nfrom reverie.sessions import TranscriptStore\n"
              "s = TranscriptStore(sys.argv[1])\n"
              "s.append(sys.argv[2], 'system', {'event': 'recall', 'lane': 'trigger', 'text': 'recall', "
              "'items': [{'text': sys.argv[3], 'path': 'MEMORY.md', 'lines': [3, 3]}]}, origin='system')\n"
              "s.close()\n")
    subprocess.run([sys.executable, "-c", script, str(db), sid, HOTEL], check=True, timeout=120)
    ev = store.append_message(sid, "assistant", ChatMessage("assistant", f"You told me: {HOTEL}\n{OWN}"),
                              origin="agent")
    text = _row_text(store, ev.seq)
    assert "taxi" in text and "Lakeside" not in text
    assert store.recall_pool(sid).reproduces(HOTEL)
    store.close()


def _settled(mem) -> dict:
    import time

    from reverie.index.identity import read_meta

    deadline = time.monotonic() + 60
    while mem.index.background.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    return read_meta(mem.index.conn(), "last_sync") or {}


def test_a_conversation_followed_call_by_call_does_not_rescan_the_workspace_each_time(reverie_home: Path):
    """A warm server opens a runtime per hook; each used to start a full pass over the workspace.
    A resumed conversation now asks for one at most every RESYNC_SECONDS per open memory. Seen by
    what the index holds: an edit made by hand is taken in by the next pass, and only by one."""
    from reverie import Memory
    from reverie.sidecar import FollowedSession

    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    note = None
    for i in range(30):
        note = mem.remember(f"Note {i} about the release train and the budget line {i % 7}.")
    mem.sync()
    FollowedSession(mem, host="test", key="warm").start()
    FollowedSession(mem, host="test", key="warm").before_model("What did we say about the budget?")
    _settled(mem)

    def indexed(words: str) -> bool:
        conn = mem.index.conn()
        return bool(conn.execute("SELECT count(*) FROM memory_index_chunks WHERE text LIKE ?",
                                 (f"%{words}%",)).fetchone()[0])

    with note.open("a", encoding="utf-8") as f:  # an edit by hand, which only a pass takes in
        f.write("- The zebra crossing by the office was repainted.\n")
    for i in range(4):
        out = FollowedSession(mem, host="test", key="warm").before_model(f"And the release train, take {i}?")
        assert out.error is None
    _settled(mem)
    assert not indexed("zebra crossing")  # no pass over the workspace for these calls
    mem.RESYNC_SECONDS = 0.0  # (the interval, per open memory)
    FollowedSession(mem, host="test", key="warm").before_model("One more about the budget.")
    _settled(mem)
    assert indexed("zebra crossing")  # past the interval, a resumed conversation brings the index up to date
    mem.close()


def test_a_fold_reads_only_what_is_new_and_sees_another_process(tmp_path: Path):
    from reverie.sessions.folds import fold

    db = tmp_path / "agent.sqlite"
    store = TranscriptStore(db)
    sid = store.start_session("agent:main:fold").session_id
    seen: list[int] = []

    def texts() -> list[str]:
        def step(state: list, ev) -> None:
            seen.append(ev.position)
            state.append(ev.text)
        return fold(store, sid, "test-texts", ("user",), list, step)

    store.append_message(sid, "user", ChatMessage("user", "one"), origin="owner")
    store.append_message(sid, "assistant", ChatMessage("assistant", "reply"), origin="agent")
    assert texts() == ["one"]
    script = ("import sys\nfrom reverie.sessions import TranscriptStore\nfrom reverie.models.base import ChatMessage\n"
              "s = TranscriptStore(sys.argv[1])\n"
              "s.append_message(sys.argv[2], 'user', ChatMessage('user', 'two'), origin='owner')\ns.close()\n")
    subprocess.run([sys.executable, "-c", script, str(db), sid], check=True, timeout=120)
    assert texts() == ["one", "two"]
    assert seen == [1, 3]  # each event read once: the second call read only what was new
    store.drop_cached([sid])  # what a rewrite (forget, retention) does
    assert texts() == ["one", "two"] and seen == [1, 3, 1, 3]
    store.close()
