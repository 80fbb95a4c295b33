"""The standing-intents tables in the agent database (reference §4.2), behind their own migrations.

The keyword FTS is *external content* over two pre-segmented columns of ``standing_intents``, kept
in sync by after-insert/delete/update triggers, as the reference does. SQLite triggers cannot call
Python, so the CJK segmentation is done in code when a row is written (``fts_words``/``fts_solo``,
see :mod:`reverie.intents.words`) and the triggers only copy those columns: every write to a row and
to its FTS entry then happens in the same statement, hence the same transaction, by construction.
"""

from __future__ import annotations

import apsw

from ..store import Migration, Migrations, connect

STATUSES = ("pending", "armed", "fired", "done", "cancelled", "expired")

_CREATE = f"""
CREATE TABLE standing_intents (
  intent_key INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL,
  trigger_keywords TEXT NOT NULL,              -- JSON array of normalised keyword entries
  trigger_embedding TEXT,                      -- reserved (always NULL: matching is lexical)
  channel_scope TEXT,                          -- JSON ["v1", kind, provider, account, x]; NULL = anywhere
  sender_scope TEXT,                           -- JSON ["v1", provider, account, sender]; NULL = anyone
  creator_sender TEXT CHECK (creator_sender IS NULL OR length(trim(creator_sender)) > 0),
  status TEXT NOT NULL CHECK (status IN ({", ".join(repr(s) for s in STATUSES)})),
  expires_at INTEGER NOT NULL,                 -- epoch ms
  max_fires INTEGER NOT NULL CHECK (max_fires > 0),
  fire_count INTEGER NOT NULL DEFAULT 0 CHECK (fire_count >= 0),
  cooldown_seconds INTEGER NOT NULL DEFAULT 86400 CHECK (cooldown_seconds >= 0),
  last_fired_at INTEGER,                       -- epoch ms
  created_at INTEGER NOT NULL,                 -- epoch ms
  source_session_id TEXT,
  fts_words TEXT NOT NULL DEFAULT '',          -- keywords as indexed: Latin words + CJK bigrams
  fts_solo TEXT NOT NULL DEFAULT ''            -- single-character CJK keyword words
);
CREATE INDEX standing_intents_lifecycle ON standing_intents(status, expires_at, last_fired_at);
CREATE INDEX standing_intents_scope ON standing_intents(status, channel_scope, sender_scope);
CREATE INDEX standing_intents_created ON standing_intents(created_at, id);

CREATE VIRTUAL TABLE standing_intents_fts USING fts5(
  fts_words, fts_solo, content='standing_intents', content_rowid='intent_key',
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER standing_intents_ai AFTER INSERT ON standing_intents BEGIN
  INSERT INTO standing_intents_fts(rowid, fts_words, fts_solo) VALUES (new.intent_key, new.fts_words, new.fts_solo);
END;
CREATE TRIGGER standing_intents_ad AFTER DELETE ON standing_intents BEGIN
  INSERT INTO standing_intents_fts(standing_intents_fts, rowid, fts_words, fts_solo)
    VALUES ('delete', old.intent_key, old.fts_words, old.fts_solo);
END;
CREATE TRIGGER standing_intents_au AFTER UPDATE OF fts_words, fts_solo ON standing_intents BEGIN
  INSERT INTO standing_intents_fts(standing_intents_fts, rowid, fts_words, fts_solo)
    VALUES ('delete', old.intent_key, old.fts_words, old.fts_solo);
  INSERT INTO standing_intents_fts(rowid, fts_words, fts_solo) VALUES (new.intent_key, new.fts_words, new.fts_solo);
END;

-- One row per fire: cancelling or expiring an intent never removes these.
CREATE TABLE standing_intent_fires (
  intent_key INTEGER NOT NULL REFERENCES standing_intents(intent_key),
  fired_at INTEGER NOT NULL,
  fire_number INTEGER NOT NULL,
  channel TEXT,
  conversation TEXT,
  sender TEXT,
  session_id TEXT,
  PRIMARY KEY (intent_key, fire_number)
);
"""

INTENT_MIGRATIONS = Migrations("standing_intents", [Migration("0001_standing_intents", _CREATE)])


def open_intents_db(path) -> apsw.Connection:
    conn = connect(path)
    INTENT_MIGRATIONS.apply(conn)
    return conn
