"""The forget plan: everything derived from the selected sessions (or holding the selected text),
computed without writing anything -- no file, no table, no index revision.

What counts as derived from a session:

* daily-note lines whose provenance segments it wrote (its ``memory_append`` calls, its flushes),
  and its session note (one segment, or a note naming its ``Session ID``);
* promoted entries whose lineage (``memory_entry_origins``) includes it, with their markers;
* copies: any memory-file line that holds a removed line's text (12+ weighted characters), so a
  fact copied elsewhere goes too (``USER.md`` is never edited: such lines are listed in
  ``curatedWrites`` for the owner to review);
* its transcript and transcript search rows, index chunks, FTS rows and vectors of every changed
  file (and any chunk still holding removed text), the cached embeddings of those chunks, recall
  signals over removed lines, preimages holding removed lines, standing intents it created.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import apsw

from ..index.discover import discover
from ..index.sync import unit_embedding_input
from ..trust import lineage as lin
from ..trust import segments as seg
from ..trust import store as trust_store
from ..trust.recall import MIN_WEIGHT, normalise, weight
from ..dreaming.facttext import fact_text as promoted_text
from ..text.facts import fact_text
from ..trust.tombstones import line_body, line_key, message_key, message_texts, text_key
from ..workspace.entries import snippet_of
from .select import Resolution, Selectors, resolve

DREAM_CORPUS = "memory/.dreams/session-corpus"
_CORPUS_REF = re.compile(r"^\[([^\]#\s]+)#\d+(?:\.\d+)?\]\s")
_CORPUS_PREFIX = re.compile(r"^\[[^\]]*\]\s+")
_DATE_HEADING = re.compile(r"^#\s+\d{4}-\d{2}-\d{2}\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")  # an entry's first line (continuations are indented)
_META_LINE = re.compile(r"^\s*-\s+\*\*[^*]+\*\*:")  # "- **Session Key**: ..." in a session note
_SESSION_ID_LINE = re.compile(r"\*\*Session ID\*\*:\s*(\S+)")
MIN_LINE_WEIGHT = 4  # a removed line this heavy is matched exactly in preimages


@dataclass
class FileChange:
    path: str  # as indexed: workspace-relative, or absolute for extra paths outside it
    absolute: Path
    text: str
    expected_hash: str
    tracked: bool  # a daily note or session note (has a provenance record)
    corpus: bool  # a session note
    remove: set[int] = field(default_factory=set)
    reasons: set[str] = field(default_factory=set)

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def new_text(self) -> str:
        return "\n".join(line for i, line in enumerate(self.lines, 1) if i not in self.remove)

    @property
    def delete(self) -> bool:
        """A dated note (or a session corpus file) left with nothing but headings and blank lines
        is deleted."""
        if not (self.tracked or self.corpus) or not self.remove:
            return False
        return all(not ln.strip() or ln.lstrip().startswith("#") for ln in self.new_text().split("\n"))

    def removed_lines(self) -> list[str]:
        return [line for i, line in enumerate(self.lines, 1) if i in self.remove]


@dataclass
class Plan:
    agent: str
    selectors: Selectors
    resolutions: list[Resolution]
    participant_matches: list[dict]
    targets: list[str]  # resolved session ids
    files: dict[str, FileChange] = field(default_factory=dict)
    entry_keys: list[str] = field(default_factory=list)
    mixed: list[str] = field(default_factory=list)
    untargetable: list[str] = field(default_factory=list)
    curated_writes: list[dict] = field(default_factory=list)
    refusals: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    snippets: set[str] = field(default_factory=set)  # normalised texts whose copies go too
    removed_norm: set[str] = field(default_factory=set)  # normalised removed lines (preimages)
    events: int = 0
    event_fts: int = 0
    text_events: list[int] = field(default_factory=list)  # seqs of events in other sessions holding --text
    # bodies of removed lines: another session may hold them (a recall mark of its startup notes,
    # a memory_search result), and those copies are scrubbed as --text is
    scrub_texts: list[str] = field(default_factory=list)
    index: dict[str, dict] = field(default_factory=dict)  # generation file -> counts and paths
    cache_keys: set[str] = field(default_factory=set)
    cache_rows: int = 0
    signals_delete: list[str] = field(default_factory=list)
    signals_shift: list[tuple[str, int, int]] = field(default_factory=list)  # (key, new start, new end)
    seen_scopes: list[str] = field(default_factory=list)  # Dreaming's ingestion state of the sessions
    preimages: dict[str, str] = field(default_factory=dict)  # path -> scrubbed text
    intents: list[int] = field(default_factory=list)
    origin_rows: int = 0
    tombstones: list[tuple[str, str]] = field(default_factory=list)
    # the stores of forget/stores.py: table files, their write log, automations, damaged copies
    table_cells: dict[str, list[tuple]] = field(default_factory=dict)  # table file -> cells holding the text
    table_log_rows: list[int] = field(default_factory=list)
    cron_jobs: list[tuple[str, str]] = field(default_factory=list)
    cron_logs: list[tuple[str, str, int]] = field(default_factory=list)
    damaged: list[str] = field(default_factory=list)


def strings(value):
    """Every string inside a JSON document."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def _table(conn: apsw.Connection | None, name: str) -> bool:
    return conn is not None and conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name=?", (name,)).fetchone() is not None


def _has_column(conn: apsw.Connection, table: str, column: str) -> bool:
    return any(r[1] == column for r in conn.execute(f"PRAGMA table_info({table})"))


_body = line_body


def open_readonly(path) -> apsw.Connection | None:
    """A read-only connection, or None when the database does not exist (a dry run creates nothing)."""
    from ..store import connect

    return connect(path, readonly=True) if path.exists() else None


class Planner:
    def __init__(self, mem, sel: Selectors):
        self.mem = mem
        self.sel = sel
        self.ws = mem.workspace
        self.places = mem.places

    # -- files ---------------------------------------------------------------------------------------
    def _file(self, plan: Plan, rel: str) -> FileChange | None:
        if rel in plan.files:
            return plan.files[rel]
        absolute = Path(rel) if Path(rel).is_absolute() else self.ws / rel
        try:
            raw = absolute.read_bytes()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        tracked = trust_store.tracked(rel)
        fc = FileChange(rel, absolute, text, seg.sha256(raw), tracked,
                        corpus=(tracked and text.lstrip().startswith("# Session:")) or rel.startswith(DREAM_CORPUS))
        plan.files[rel] = fc
        return fc

    def _memory_files(self) -> list[str]:
        return [f.path for f in discover(self.ws, self.mem.settings.search.extra_paths).files]

    def _dream_files(self) -> list[str]:
        """What Dreaming wrote outside MEMORY.md: DREAMS.md (diary quotes, history highlights), its
        phase reports and its session corpus. Never indexed, so discovery does not list them."""
        out = [name for name in ("DREAMS.md", "dreams.md") if (self.ws / name).is_file()]
        for folder in ("memory/dreaming", DREAM_CORPUS):
            base = self.ws / folder
            if base.is_dir() and not base.is_symlink():
                out += sorted(p.relative_to(self.ws).as_posix() for p in base.rglob("*.md")
                              if p.is_file() and not p.is_symlink())
        return out

    def build(self) -> Plan:
        agent_db = open_readonly(self.mem.agent_store)
        try:
            resolutions, matches = resolve(agent_db, self.sel, self.places.agent)
            targets = [r.session_id for r in resolutions if r.source != "unresolved"]
            plan = Plan(self.places.agent, self.sel, resolutions, matches, targets)
            plan.tombstones = [("session", r.session_id) for r in resolutions]
            plan.tombstones += [("text", text_key(t)) for t in self.sel.texts]
            tset = set(targets)
            if tset:
                self._segments(plan, agent_db, tset)
                self._session_notes(plan, tset)
                self._lineage(plan, agent_db, tset)
                self._dream_corpus(plan, tset)
            for t in self.sel.texts:
                plan.snippets.add(normalise(t))
            self._copies(plan)
            self._transcript(plan, agent_db, tset)
            self._index(plan)
            self._cache(plan, agent_db)
            self._signals(plan, agent_db)
            self._preimages(plan)
            self._intents(plan, agent_db, tset)
            from .stores import plan_stores

            plan_stores(self.mem, plan, agent_db)
        finally:
            if agent_db is not None:
                agent_db.close()
        plan.files = {k: v for k, v in plan.files.items() if v.remove}
        for fc in plan.files.values():  # so that an import of files never brings them back
            for line in fc.removed_lines():
                if (weight(normalise(_body(line))) >= MIN_WEIGHT and not line.lstrip().startswith("#")
                        and not _META_LINE.match(line)):
                    plan.tombstones.append(("line", line_key(line)))
        return plan

    def _segments(self, plan: Plan, conn, targets: set[str]) -> None:
        if not _table(conn, "memory_daily_segments"):
            return
        for rel in trust_store.sessions_with_segments(conn, sorted(targets)):
            fc = self._file(plan, rel)
            if fc is None:
                continue
            raw = fc.text.encode("utf-8")
            try:
                mtime = fc.absolute.stat().st_mtime
            except OSError:
                mtime = None
            rec, _ = trust_store.current(conn, rel, raw, mtime)  # in memory only: nothing is written
            for a, b in seg.drop_sessions(rec, targets):
                for n in range(a, b + 1):
                    line = fc.lines[n - 1] if n - 1 < len(fc.lines) else ""
                    if fc.corpus or (line.strip() and not _DATE_HEADING.match(line)):
                        fc.remove.add(n)
                        fc.reasons.add("segment")

    def _session_notes(self, plan: Plan, targets: set[str]) -> None:
        """Session notes written before provenance was recorded name their session in the body."""
        for rel in self._memory_files():
            if not trust_store.tracked(rel):
                continue
            fc = self._file(plan, rel)
            if fc is None or "Session ID" not in fc.text:
                continue
            for i, line in enumerate(fc.lines, 1):
                m = _SESSION_ID_LINE.search(line)
                if m and m.group(1) in targets:
                    if fc.corpus:
                        fc.remove.update(range(1, len(fc.lines) + 1))
                    else:
                        fc.remove.add(i)
                    fc.reasons.add("session-id")

    def _lineage(self, plan: Plan, conn, targets: set[str]) -> None:
        rows = []
        if _table(conn, lin.TABLE):
            rows = conn.execute(f"SELECT entry_key, session_id, path FROM {lin.TABLE}").fetchall()
        by_key: dict[str, set[str]] = {}
        paths: dict[str, set[str]] = {}
        for key, sid, path in rows:
            by_key.setdefault(key, set()).add(sid)
            paths.setdefault(key, set()).add(path)
        selected = sorted(k for k, sids in by_key.items() if sids & targets)
        plan.entry_keys = selected
        plan.mixed = sorted(k for k in selected if by_key[k] - targets)
        plan.origin_rows = sum(1 for key, sid, _ in rows if sid in targets)
        files = {"MEMORY.md", "DREAMS.md"} | {p for k in selected for p in paths.get(k, ())}
        for rel in sorted(files):
            fc = self._file(plan, rel)
            if fc is None:
                continue
            for key, (a, b) in lin.entry_spans(fc.text).items():
                if key in selected:
                    fc.remove.update(range(a, b + 1))
                    fc.reasons.add("entry")
                elif key not in by_key and key not in plan.untargetable:
                    plan.untargetable.append(key)

    def _dream_corpus(self, plan: Plan, targets: set[str]) -> None:
        """Lines of Dreaming's session corpus quoting a forgotten session (``[<session>#<n>] ...``)."""
        for rel in self._dream_files():
            if not rel.startswith(DREAM_CORPUS):
                continue
            fc = self._file(plan, rel)
            if fc is None:
                continue
            for i, line in enumerate(fc.lines, 1):
                m = _CORPUS_REF.match(line)
                if m and m.group(1) in targets:
                    fc.remove.add(i)
                    fc.reasons.add("session-corpus")

    def _copies(self, plan: Plan) -> None:
        """Lines elsewhere that hold the text of a removed line (or a forgotten text)."""
        for fc in list(plan.files.values()):
            for line in fc.removed_lines():
                norm = normalise(_body(line))
                if weight(norm) >= MIN_LINE_WEIGHT:
                    plan.removed_norm.add(norm)
                if weight(norm) >= MIN_WEIGHT:
                    plan.snippets.add(norm)
                    plan.scrub_texts.append(_body(line))
                # the words alone, as Dreaming quotes them (no bullet, time, Source or annotations),
                # and as it writes a candidate or promotion (framing and requests taken off)
                body = snippet_of(_CORPUS_PREFIX.sub("", line))
                written = promoted_text(body, conversation=True) or ""
                for core in (normalise(body), normalise(fact_text(line)), normalise(written)):
                    if weight(core) >= MIN_WEIGHT:
                        plan.snippets.add(core)
        if not plan.snippets:
            return
        for rel in self._memory_files() + self._dream_files():
            fc = self._file(plan, rel)
            if fc is None:
                continue
            protected = set()
            for key, (a, b) in lin.entry_spans(fc.text).items():
                if key in plan.untargetable:
                    protected.update(range(a, b + 1))  # reported, left in place
            for i, line in enumerate(fc.lines, 1):
                if i in fc.remove or i in protected:
                    continue
                norm = normalise(line)
                if not any(s in norm for s in plan.snippets):
                    continue
                if rel == "USER.md" and not self.sel.texts:
                    plan.curated_writes.append({"path": rel, "line": i, "reason": "holds text from a forgotten "
                                                "session; USER.md is left for the owner to review"})
                    continue
                fc.remove.add(i)
                fc.reasons.add("copy")
        if self.sel.texts:  # a forgotten text wrapped over continuation lines: the whole entry goes
            for fc in list(plan.files.values()):
                self._entries_holding(fc, plan.snippets)

    @staticmethod
    def _entries_holding(fc: FileChange, needles: set[str]) -> None:
        lines = fc.lines
        i = 0
        while i < len(lines):
            if not _BULLET.match(lines[i]):
                i += 1
                continue
            j = i
            while j + 1 < len(lines) and lines[j + 1].startswith((" ", "\t")) and lines[j + 1].strip():
                j += 1
            norm = normalise(" ".join(lines[i:j + 1]))
            if j > i and any(n in norm for n in needles):
                fc.remove.update(range(i + 1, j + 2))
                fc.reasons.add("copy")
            i = j + 1

    # -- stores ----------------------------------------------------------------------------------------
    def _transcript(self, plan: Plan, conn, targets: set[str]) -> None:
        if not _table(conn, "transcript_events"):
            return
        from ..sessions import search_rows
        from ..sessions.store import _decode

        if targets:
            marks = ",".join("?" * len(targets))
            ids = tuple(targets)
            plan.events = conn.execute(f"SELECT count(*) FROM transcript_events WHERE session_id IN ({marks})",
                                       ids).fetchone()[0]
            plan.event_fts = search_rows.count_sessions(conn, ids)
            for kind, encoding, body in conn.execute(
                    f"SELECT kind, encoding, body FROM transcript_events WHERE session_id IN ({marks}) "
                    "AND kind IN ('user', 'assistant', 'tool_call')", ids):
                msg = _decode(encoding, body).get("message") or {}
                args = [c.get("arguments") for c in msg.get("toolCalls") or [] if isinstance(c, dict)]
                for text in message_texts(msg.get("content") or "", args):
                    plan.tombstones.append(("message", message_key(text)))
        if self.sel.texts or plan.scrub_texts:
            needles = [normalise(t) for t in [*self.sel.texts, *plan.scrub_texts]]
            for seq, sid, encoding, body in conn.execute(
                    "SELECT seq, session_id, encoding, body FROM transcript_events"):
                if sid not in targets and any(n in normalise(s) for s in strings(_decode(encoding, body))
                                              for n in needles):
                    plan.text_events.append(seq)

    def _index(self, plan: Plan) -> None:
        from ..index.generations import index_connections

        changed = {p for p, fc in plan.files.items() if fc.remove}
        needles = plan.snippets
        for name, opener in index_connections(self.places.index_dir, self.mem.agent_store):
            conn = opener()
            try:
                if not _table(conn, "memory_index_chunks"):
                    continue
                paths = set(changed)
                for path, text in conn.execute("SELECT path, text FROM memory_index_chunks"):
                    if needles and path not in paths and any(n in normalise(text) for n in needles):
                        paths.add(path)
                info = {"paths": sorted(paths), "chunks": 0, "vectors": 0, "sources": 0}
                for path in paths:
                    n, v = conn.execute("SELECT count(*), count(embedding) FROM memory_index_chunks WHERE path=?",
                                        (path,)).fetchone()
                    info["chunks"] += n
                    info["vectors"] += v
                    info["sources"] += conn.execute("SELECT count(*) FROM memory_index_sources WHERE path=?",
                                                    (path,)).fetchone()[0]
                    # a unit's vector is cached under what the model read: its headings and its text
                    ctx = "context" if _has_column(conn, "memory_index_chunks", "context") else "''"
                    for text, context in conn.execute(f"SELECT text, {ctx} FROM memory_index_chunks WHERE path=?",
                                                      (path,)):
                        norm = normalise(text)
                        if (needles and any(s in norm for s in needles)) or \
                                any(r in norm for r in plan.removed_norm if weight(r) >= MIN_WEIGHT):
                            key = unit_embedding_input(text, context)
                            plan.cache_keys.add(hashlib.sha256(key.encode("utf-8")).hexdigest())
                plan.index[name] = info
            finally:
                conn.close()

    def _cache(self, plan: Plan, conn) -> None:
        if not plan.cache_keys or not _table(conn, "memory_embedding_cache"):
            return
        keys = sorted(plan.cache_keys)
        for i in range(0, len(keys), 400):
            part = keys[i:i + 400]
            plan.cache_rows += conn.execute(
                f"SELECT count(*) FROM memory_embedding_cache WHERE hash IN ({','.join('?' * len(part))})",
                part).fetchone()[0]

    def _signals(self, plan: Plan, conn) -> None:
        targets = set(plan.targets)
        if targets and _table(conn, "memory_dream_ingestion"):
            plan.seen_scopes = [scope for (scope,) in conn.execute("SELECT scope FROM memory_dream_ingestion")
                                if scope.startswith("session:") and scope[len("session:"):] in targets]
        if not _table(conn, "memory_recall_signals"):
            return
        has_prov = any(r[1] == "provenance" for r in conn.execute("PRAGMA table_info(memory_recall_signals)"))
        for key, path, start, end, snippet, prov in conn.execute(
                "SELECT key, path, start_line, end_line, snippet, " + ("provenance" if has_prov else "NULL")
                + " FROM memory_recall_signals"):
            fc = plan.files.get(path)
            holds = bool(plan.snippets) and any(s in normalise(snippet) for s in plan.snippets)
            if targets and prov and set((json.loads(prov) or {}).get("sessionIds") or []) & targets:
                holds = True  # an excerpt of a forgotten session
            if fc is None:
                if holds:
                    plan.signals_delete.append(key)
                continue
            if fc.delete or holds or any(start <= n <= end for n in fc.remove):
                plan.signals_delete.append(key)
                continue
            shift = sum(1 for n in fc.remove if n < start)
            if shift:
                plan.signals_shift.append((key, start - shift, end - shift))

    def _preimages(self, plan: Plan) -> None:
        folder = self.places.agent_dir / "preimages"
        if not folder.is_dir() or not (plan.snippets or plan.removed_norm):
            return
        for p in sorted(folder.iterdir()):
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            kept = []
            for line in text.split("\n"):
                norm = normalise(line)
                body = normalise(_body(line))
                if norm and (body in plan.removed_norm or any(s in norm for s in plan.snippets)):
                    continue
                kept.append(line)
            new = "\n".join(kept)
            if new != text:
                plan.preimages[str(p)] = new

    def _intents(self, plan: Plan, conn, targets: set[str]) -> None:
        if not _table(conn, "standing_intents"):
            return
        for key, sid, description in conn.execute(
                "SELECT intent_key, source_session_id, description FROM standing_intents"):
            if sid in targets or (self.sel.texts and any(normalise(t) in normalise(description)
                                                         for t in self.sel.texts)):
                plan.intents.append(key)
