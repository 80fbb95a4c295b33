"""Index tables (in each index generation file) and the embedding cache (in the agent database)."""

from __future__ import annotations

import apsw

from ..store import Migration, Migrations
from ..store.engine import engine_of
from ..text.fts import TOKENIZERS

_INDEX_BASE = """
CREATE TABLE memory_index_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
CREATE TABLE memory_index_sources (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'memory',
  hash TEXT NOT NULL,
  mtime REAL NOT NULL,
  size INTEGER NOT NULL,
  indexed_at INTEGER NOT NULL,
  UNIQUE (path, source)
) STRICT;
CREATE INDEX memory_index_sources_source ON memory_index_sources(source);
-- seq is the stable integer key the FTS rows point at; id is the public chunk id.
CREATE TABLE memory_index_chunks (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'memory',
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  hash TEXT NOT NULL,
  model TEXT NOT NULL,
  text TEXT NOT NULL,
  embedding BLOB,            -- float32 little-endian; NULL when the vector is missing
  updated_at INTEGER NOT NULL
) STRICT;
CREATE INDEX memory_index_chunks_path_source ON memory_index_chunks(path, source);
CREATE INDEX memory_index_chunks_source ON memory_index_chunks(source);
CREATE TABLE memory_index_chunk_recall_metadata (
  chunk_id TEXT PRIMARY KEY REFERENCES memory_index_chunks(id) ON DELETE CASCADE,
  importance INTEGER CHECK (importance IS NULL OR importance BETWEEN 1 AND 10),
  triggers TEXT,
  project_key TEXT,
  status TEXT CHECK (status IS NULL OR status IN ('active', 'superseded'))
) STRICT;
CREATE TABLE memory_index_chunk_provenance (
  chunk_id TEXT PRIMARY KEY REFERENCES memory_index_chunks(id) ON DELETE CASCADE,
  origin_class TEXT NOT NULL CHECK (origin_class IN ('owner', 'agent', 'untrusted', 'system')),
  session_kind TEXT NOT NULL CHECK (session_kind IN ('interactive', 'cron', 'heartbeat', 'subagent', 'unknown')),
  observed_at INTEGER,
  supersedes_key TEXT
) STRICT;
CREATE TABLE memory_index_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
) STRICT;
INSERT INTO memory_index_state(id, revision) VALUES (1, 0);
CREATE TABLE memory_index_problems (
  path TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'memory',
  problem TEXT NOT NULL,
  seen_at INTEGER NOT NULL,
  PRIMARY KEY (path, source)
) STRICT;
"""

_REVISION_TRIGGERS = "\n".join(
    f"CREATE TRIGGER memory_index_rev_{table}_{op} AFTER {op.upper()} ON memory_index_{table} "
    f"BEGIN UPDATE memory_index_state SET revision = revision + 1 WHERE id = 1; END;"
    for table in ("sources", "chunks")
    for op in ("insert", "update", "delete")
)

_UNIT_WINDOWS = """
ALTER TABLE memory_index_chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
-- a run of consecutive units of one file: the chunks first_seq..last_seq (a file's units are
-- written together, so their seqs are consecutive); embedding = the normalised mean of theirs
CREATE TABLE memory_index_windows (
  seq INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT 'memory',
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  embedding BLOB
) STRICT;
CREATE INDEX memory_index_windows_path_source ON memory_index_windows(path, source);
CREATE INDEX memory_index_windows_first ON memory_index_windows(first_seq);
"""

# Which chunks gained, changed or lost a vector, in order: a long-lived reader refreshes its
# in-memory matrix from the rows after the last id it applied instead of reloading every vector
# after each sync. AUTOINCREMENT keeps ids growing even after the log is pruned.
_VECTOR_LOG = """
CREATE TABLE memory_index_vector_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL
);
CREATE TRIGGER memory_index_vlog_insert AFTER INSERT ON memory_index_chunks
  WHEN new.embedding IS NOT NULL BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (new.seq); END;
CREATE TRIGGER memory_index_vlog_update AFTER UPDATE OF embedding ON memory_index_chunks
  BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (new.seq); END;
CREATE TRIGGER memory_index_vlog_delete AFTER DELETE ON memory_index_chunks
  WHEN old.embedding IS NOT NULL BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (old.seq); END;
"""

# Chunk and vector counts kept with the revision, so a search learns in one row read how many
# chunks still wait for their vector (a count(*) would scan the table on every search).
_COUNTS = """
ALTER TABLE memory_index_state ADD COLUMN chunks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE memory_index_state ADD COLUMN vectors INTEGER NOT NULL DEFAULT 0;
UPDATE memory_index_state SET chunks = (SELECT count(*) FROM memory_index_chunks),
  vectors = (SELECT count(embedding) FROM memory_index_chunks) WHERE id = 1;
CREATE TRIGGER memory_index_count_insert AFTER INSERT ON memory_index_chunks BEGIN
  UPDATE memory_index_state SET chunks = chunks + 1, vectors = vectors + (new.embedding IS NOT NULL) WHERE id = 1; END;
CREATE TRIGGER memory_index_count_delete AFTER DELETE ON memory_index_chunks BEGIN
  UPDATE memory_index_state SET chunks = chunks - 1, vectors = vectors - (old.embedding IS NOT NULL) WHERE id = 1; END;
CREATE TRIGGER memory_index_count_update AFTER UPDATE OF embedding ON memory_index_chunks BEGIN
  UPDATE memory_index_state SET vectors = vectors + (new.embedding IS NOT NULL) - (old.embedding IS NOT NULL)
  WHERE id = 1; END;
"""

# A reader's matrix holds windows (search/vectors.py): the log names the windows whose vector came,
# changed or went. A unit's late vector reaches the log through its window's mean being rewritten.
_WINDOW_VECTOR_LOG = """
DROP TRIGGER memory_index_vlog_insert;
DROP TRIGGER memory_index_vlog_update;
DROP TRIGGER memory_index_vlog_delete;
DELETE FROM memory_index_vector_log;
CREATE TRIGGER memory_index_wlog_insert AFTER INSERT ON memory_index_windows
  WHEN new.embedding IS NOT NULL BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (new.seq); END;
CREATE TRIGGER memory_index_wlog_update AFTER UPDATE OF embedding ON memory_index_windows
  BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (new.seq); END;
CREATE TRIGGER memory_index_wlog_delete AFTER DELETE ON memory_index_windows
  WHEN old.embedding IS NOT NULL BEGIN INSERT INTO memory_index_vector_log(seq) VALUES (old.seq); END;
"""

# A query of one word may name a file (search/keyword.py exact_path_hits): its whole path, file
# name or stem, lowercased. Virtual generated columns with an index each, so finding the files a word
# names is three index probes; matching lower(path) against LIKE patterns read every source (~25 ms
# at 20,000 files, paid by every one-word search). SQLite has no "after the last /": rtrim(p, the
# characters of p other than '/') leaves p up to its last '/', and the name is what follows.
_NAME_EXPR = "lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1))"
_PATH_KEYS = f"""
ALTER TABLE memory_index_sources ADD COLUMN path_key TEXT GENERATED ALWAYS AS (lower(path)) VIRTUAL;
ALTER TABLE memory_index_sources ADD COLUMN name_key TEXT GENERATED ALWAYS AS ({_NAME_EXPR}) VIRTUAL;
ALTER TABLE memory_index_sources ADD COLUMN stem_key TEXT GENERATED ALWAYS AS (
  CASE WHEN instr({_NAME_EXPR}, '.') = 0 THEN {_NAME_EXPR}
  ELSE substr(rtrim({_NAME_EXPR}, replace({_NAME_EXPR}, '.', '')), 1,
              length(rtrim({_NAME_EXPR}, replace({_NAME_EXPR}, '.', ''))) - 1) END) VIRTUAL;
CREATE INDEX memory_index_sources_path_key ON memory_index_sources(path_key);
CREATE INDEX memory_index_sources_name_key ON memory_index_sources(name_key);
CREATE INDEX memory_index_sources_stem_key ON memory_index_sources(stem_key);
"""

INDEX_MIGRATIONS = Migrations("index", [
    Migration("0001_base", _INDEX_BASE),
    Migration("0002_revision_triggers", _REVISION_TRIGGERS),
    # the stat a problem file had, so that fixing it makes the index dirty again
    Migration("0003_problem_stat", "ALTER TABLE memory_index_problems ADD COLUMN mtime REAL; "
                                   "ALTER TABLE memory_index_problems ADD COLUMN size INTEGER;"),
    Migration("0004_vector_log", _VECTOR_LOG),
    Migration("0005_counts", _COUNTS),
    # chunks are entries (units); each sits in one or two context windows of its file (index/chunking.py)
    Migration("0006_unit_windows", _UNIT_WINDOWS),
    # the vector log names windows from now on: the in-memory matrix holds windows, not units
    Migration("0007_window_vector_log", _WINDOW_VECTOR_LOG),
    Migration("0008_path_keys", _PATH_KEYS, readers_cope=True),  # keyword.exact_path_hits scans without it
])


def ensure_fts(conn: apsw.Connection, tokenizer: str) -> None:
    """Create the FTS tables for ``tokenizer`` if missing (the tokenizer is part of the identity)."""
    spec = TOKENIZERS[tokenizer]
    # Contentless: the text lives in memory_index_chunks already, and for the cjk tokenizer the FTS
    # copy would be the (longer) segmented text. contentless_delete lets a changed source's rows
    # be deleted by rowid. (Generations made before this keep their contentful tables; both work.)
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS memory_index_chunks_fts USING fts5(text, content='', "
        f"contentless_delete=1, tokenize='{spec}')")
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS memory_index_paths_fts USING fts5(path, content='', "
        f"contentless_delete=1, tokenize='{spec}')")


def fts_tokenizer_of(conn: apsw.Connection) -> str | None:
    if engine_of(conn) == "postgres":
        return None  # no FTS tables there: the identity names the tokenizer
    row = conn.execute(
        "SELECT sql FROM sqlite_master WHERE name = 'memory_index_chunks_fts'").fetchone()
    if not row or not row[0]:
        return None
    for name, spec in TOKENIZERS.items():
        if f"tokenize='{spec}'" in row[0]:
            return name
    return "unknown"


AGENT_CACHE_MIGRATIONS = Migrations("embedding_cache", [
    Migration("0001_cache", """
CREATE TABLE memory_embedding_cache (
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  provider_key TEXT NOT NULL,
  hash TEXT NOT NULL,
  embedding BLOB NOT NULL,
  dims INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (provider, model, provider_key, hash)
) STRICT;
CREATE INDEX memory_embedding_cache_updated ON memory_embedding_cache(updated_at);
"""),
])
