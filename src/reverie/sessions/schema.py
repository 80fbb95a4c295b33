"""The transcript tables in the agent database (reference §4.3, §20), behind their own migrations.

* ``sessions``: one row per session id, with the fields memory depends on (reference §20):
  compaction count, flush markers, token totals, start and last interaction.
* ``transcript_events``: every event of a session as one complete JSON document, written in its
  own transaction the moment it happens; bodies over :data:`COMPRESS_OVER` bytes are zlib-compressed.
* ``transcript_fts``: user/assistant text for ``sessions_search``. The reference's transcript FTS
  uses plain ``unicode61`` and so finds no Chinese (field failure 2, openclaw #140736); here the
  text is pre-segmented into CJK bigrams (:func:`reverie.text.fts.segment_for_index`) for a
  ``porter unicode61`` table, exactly as the memory index does, and written in the same
  transaction as its event.

Transcripts are durable state: an index reset never touches these tables.
"""

from __future__ import annotations

import apsw

from ..store import Migration, Migrations, connect

KINDS = ("user", "assistant", "tool_call", "tool_result", "compaction", "system", "command", "flush")
COMPRESS_OVER = 4096  # bytes of JSON; longer bodies are stored zlib-compressed
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"  # fed CJK bigrams by segment_for_index(.., "cjk")

_CREATE = f"""
CREATE TABLE sessions (
  session_id TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  channel TEXT NOT NULL DEFAULT 'cli',
  sender TEXT,
  chat_type TEXT NOT NULL CHECK (chat_type IN ('direct', 'group')),
  origin TEXT NOT NULL DEFAULT 'chat',          -- chat | import
  model TEXT,
  started_at INTEGER NOT NULL,                  -- epoch ms
  last_interaction_at INTEGER,                  -- epoch ms; system events never extend it
  ended_at INTEGER,                             -- set by /new or /reset
  ended_reason TEXT,
  compaction_count INTEGER NOT NULL DEFAULT 0,
  memory_flush_at INTEGER,                      -- epoch ms of the last flush attempt
  memory_flush_compaction_count INTEGER,        -- compaction_count when it ran ("flushed this cycle")
  total_tokens INTEGER NOT NULL DEFAULT 0,      -- last known prompt size
  total_tokens_fresh INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,      -- summed over model calls
  output_tokens INTEGER NOT NULL DEFAULT 0,
  transcript_bytes INTEGER NOT NULL DEFAULT 0,  -- uncompressed JSON of all events
  event_count INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX sessions_by_key ON sessions(session_key, started_at);
CREATE INDEX sessions_by_sender ON sessions(chat_type, sender);

CREATE TABLE transcript_events (
  seq INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  session_key TEXT NOT NULL,
  position INTEGER NOT NULL,                    -- 1.. within the session
  event_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ({", ".join(repr(k) for k in KINDS)})),
  created_at INTEGER NOT NULL,                  -- epoch ms
  encoding TEXT NOT NULL CHECK (encoding IN ('json', 'zlib')),
  body BLOB NOT NULL,
  bytes INTEGER NOT NULL,                       -- uncompressed size
  tokens INTEGER NOT NULL DEFAULT 0,            -- estimated tokens of its message text
  UNIQUE (session_id, position)
) STRICT;
CREATE INDEX transcript_events_kind ON transcript_events(session_id, kind, position);

CREATE VIRTUAL TABLE transcript_fts USING fts5(
  text, session_id UNINDEXED, role UNINDEXED, tokenize='{FTS_TOKENIZER}'
);
"""

# Trust (docs/trust.md): the origin class of every event and the kind of every session, decided by
# the program; the participants of a session (forget --participant); the external content source of
# a hook session (forget --hook-source); a session made low-trust by a non-owner in a group; and the
# time a session was forgotten (its events are gone, the row stays so forget can be repeated).
_TRUST = """
ALTER TABLE transcript_events ADD COLUMN origin_class TEXT
  CHECK (origin_class IS NULL OR origin_class IN ('owner', 'agent', 'untrusted', 'system'));
ALTER TABLE sessions ADD COLUMN session_kind TEXT NOT NULL DEFAULT 'unknown'
  CHECK (session_kind IN ('interactive', 'cron', 'heartbeat', 'subagent', 'unknown'));
ALTER TABLE sessions ADD COLUMN hook_source TEXT;
ALTER TABLE sessions ADD COLUMN low_trust INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN forgotten_at INTEGER;
CREATE TABLE session_participants (
  session_id TEXT NOT NULL REFERENCES sessions(session_id),
  actor TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, actor)
) STRICT;
CREATE INDEX session_participants_actor ON session_participants(actor);
"""

TRANSCRIPT_MIGRATIONS = Migrations("transcripts", [Migration("0001_sessions_events_fts", _CREATE),
                                                   Migration("0002_trust", _TRUST)])


def open_transcripts_db(path) -> apsw.Connection:
    """A connection to the agent database with the transcript tables in place.

    ``synchronous=FULL``: a recorded event survives a power cut too, not only a killed process
    (a turn costs a model call; one fsync per event is noise next to it).
    """
    conn = connect(path)
    conn.execute("PRAGMA synchronous=FULL")
    TRANSCRIPT_MIGRATIONS.apply(conn)
    return conn
