"""The session-memory hook (reference §18): on ``/new`` and ``/reset``, in a background thread, the
previous session's last N user/assistant messages go to ``memory/YYYY-MM-DD-<slug>.md``.

Only user and assistant messages with text count, and lines starting with ``/`` (commands) are
dropped *before* the last N are taken (openclaw #2681). The slug is ``HHMM`` in the user's time
zone, or a model-made slug when ``sessions.memoryHook.llmSlug`` is on (``HHMM`` when that fails).
The file is created exclusively (``O_EXCL``), so an existing file of the same name is never
touched, even by a racing writer (a ``-2``, ``-3`` suffix is added instead). The reset never waits for any of
this; :meth:`SessionMemoryHook.wait` lets tests and a closing process wait for it.

Trust (docs/trust.md): the agent's lines and sentences that reproduce memory recalled into the
session are removed first (a recalled fact never comes back as a new memory), then what only framed
them (numbering, quote marks, citations, the "… found:" above them) and replies that are model talk
(:func:`reply_text`); each line of the
note is recorded with the class of the message it came from, the header as ``system``
(``forget --session`` finds and removes the note by the session of those records).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Callable

from ..text.boilerplate import SESSION_META, debris, model_talk, quoted_hit
from ..trust import Provenance, record_whole_file, strip_recalled
from ..workspace.annotations import neutralise_annotations
from ..workspace.textclean import clean_text
from .store import TranscriptStore

log = logging.getLogger(__name__)
SlugFn = Callable[[list[tuple[str, str]]], str]


def last_messages(store: TranscriptStore, session_id: str, n: int) -> list[tuple[str, str]]:
    return [(role, text) for role, text, _ in picked_messages(store, session_id, n)]


def picked_messages(store: TranscriptStore, session_id: str, n: int) -> list[tuple[str, str, str]]:
    """The last ``n`` user/assistant messages as (role, text, origin class), recall stripped."""
    pool = store.recall_pool(session_id)
    picked: list[tuple[str, str, str]] = []
    for ev in store.events(session_id, kinds=("user", "assistant")):
        text = (ev.text or "").strip()
        if not text or text.startswith("/") or ev.data.get("interSession"):
            continue
        if ev.kind == "assistant" and pool:
            text = strip_recalled(text, pool).strip()
            if not text:
                continue
        if ev.kind == "assistant":
            text = reply_text(text)
            if not text:
                continue
        # an event recorded before origins were (origin NULL) is not trusted by default
        picked.append((ev.kind, text, ev.origin or "untrusted"))
    return picked[-n:] if n else []


def reply_text(text: str) -> str:
    """An assistant message as the note keeps it: without the lines that only frame what memory
    said (a quoted search hit ``1. “…” [MEMORY.md#L4-L4]``, its debris once the recalled words are
    stripped: ``2. ” [MEMORY.md#L4-L4]``), without a line that only introduced them (``…found:``),
    and "" when what is left is model talk (the offline model's replies, refusals, pleasantries:
    :func:`reverie.text.boilerplate.model_talk`)."""
    kept: list[str] = []
    dropped = False
    for line in text.split("\n"):
        if debris(line) or quoted_hit(line):
            dropped = True
            continue
        if dropped and kept and kept[-1].rstrip().endswith((":", "：")):
            kept.pop()  # "… found:" with nothing found below it any more
        dropped = False
        kept.append(line)
    if dropped and kept and kept[-1].rstrip().endswith((":", "：")):
        kept.pop()
    out = "\n".join(kept).strip()
    return "" if not out or model_talk(out) else out


def _safe_slug(raw: str) -> str:
    slug = re.sub(r"[^\w-]+", "-", (raw or "").strip().lower(), flags=re.UNICODE).strip("-_")
    slug = re.sub(r"-{2,}", "-", slug)
    return slug[:40].strip("-")


def render_note(messages: list[tuple[str, str]], *, when: datetime, session_key: str, session_id: str,
                source: str) -> str:
    return render_note_lines([(role, text, "agent") for role, text in messages], when=when, session_key=session_key,
                             session_id=session_id, source=source)[0]


def render_note_lines(messages: list[tuple[str, str, str]], *, when: datetime, session_key: str, session_id: str,
                      source: str) -> tuple[str, list[str]]:
    """The note's text and the origin class of each of its lines: the header is reverie's
    scaffolding (``system``: never promoted or injected), each message keeps its own class."""
    lines = [f"# Session: {when.strftime('%Y-%m-%d %H:%M:%S')} {when.tzname() or ''}".rstrip(), "",
             *(f"{label}{value}" for label, value in zip(SESSION_META, (session_key, session_id, source))), "",
             "## Conversation Summary", ""]
    origins = ["system"] * len(lines)
    for role, text, origin in messages:
        # conversation text is not the owner's curation: it may not carry live annotations
        body = neutralise_annotations(clean_text(text).text).replace("\n", "\n  ")
        lines.append(f"{role}: {body}")
        origins += [origin] * (body.count("\n") + 1)
    return "\n".join(lines) + "\n", origins


def write_session_note(db_path: Path, session_id: str, workspace: Path, tz: tzinfo, *, messages: int,
                       when: datetime, slug_fn: SlugFn | None = None) -> Path | None:
    store = TranscriptStore(db_path)
    try:
        session = store.session(session_id)
        if session is None:
            return None
        rows = picked_messages(store, session_id, messages)
    finally:
        store.close()
    if not rows:
        return None  # an empty session leaves no note
    picked = [(role, text) for role, text, _ in rows]
    local = when.astimezone(tz)
    slug = local.strftime("%H%M")
    if slug_fn is not None:
        try:
            slug = _safe_slug(slug_fn(picked)) or slug
        except Exception as exc:  # a failing model slug falls back to the time
            log.warning("session-memory: slug failed, using %s: %s", slug, exc)
    folder = workspace / "memory"
    base = f"{local.strftime('%Y-%m-%d')}-{slug}"
    text, origins = render_note_lines(rows, when=local, session_key=session.session_key, session_id=session_id,
                                      source=session.channel)
    body = text.encode("utf-8", "replace")
    # each line is recorded with the class of the message it came from (the owner's words stay the
    # owner's in a session that also read a web page; what the agent said after reading it does not)
    who = [Provenance(o, session.session_kind, session_id, "hook") for o in origins]
    folder.mkdir(parents=True, exist_ok=True)
    # written whole to a hidden file first, then linked to its name: a reader (the watcher, a host reading
    # the folder) or a crash never meets the note empty or half written; linking fails, as O_EXCL does,
    # where the name is taken, so two notes of one minute never share (or touch) a file. (A dot-named file
    # is never taken for a note: workspace/writes.py.)
    tmp = folder / f".{base}.{os.getpid()}.{threading.get_ident()}.part"
    try:
        _write_whole(tmp, body, os.O_TRUNC)
        n = 1
        while True:
            path = folder / (f"{base}.md" if n == 1 else f"{base}-{n}.md")
            try:
                with record_whole_file(db_path, workspace, path, body, who):
                    _link_new(tmp, path, body)
            except FileExistsError:
                n += 1
                continue
            return path
    finally:
        tmp.unlink(missing_ok=True)


def _link_new(tmp: Path, path: Path, body: bytes) -> None:
    """``tmp`` given the new name ``path`` (FileExistsError where it is taken). On a file system without
    hard links the bytes are written to a new file at ``path`` instead (created exclusively)."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError:  # (no hard links here: the note is written in place, as before)
        pass
    _write_whole(path, body, os.O_EXCL)


def _write_whole(path: Path, body: bytes, flag: int) -> None:
    """``body`` written to a file created at ``path`` (``flag``: os.O_TRUNC, or os.O_EXCL where it must be
    new) and flushed to disk; every byte, however the writes fall."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | flag, 0o644)
    try:
        view = memoryview(body)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


class SessionMemoryHook:
    """Runs :func:`write_session_note` in background threads and remembers what each one did."""

    def __init__(self, db_path: Path, workspace: Path, tz: tzinfo, *, messages: int = 15,
                 slug_fn: SlugFn | None = None, enabled: bool = True, writable: bool = True,
                 on_written: Callable[[Path], None] | None = None):
        self.db_path, self.workspace, self.tz = db_path, workspace, tz
        self.on_written = on_written  # told of each note written (the runtime indexes it at once)
        self.messages, self.slug_fn, self.enabled, self.writable = messages, slug_fn, enabled, writable
        self.results: list[dict] = []
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def fire(self, session_id: str, reason: str, when: datetime) -> threading.Thread | None:
        if not self.enabled:
            return None
        record = {"sessionId": session_id, "reason": reason, "status": "running", "path": None, "error": None}
        with self._lock:
            self.results.append(record)

        def work() -> None:
            if not self.writable:
                record.update(status="skipped", error="workspace is read-only")
                return
            try:
                path = write_session_note(self.db_path, session_id, self.workspace, self.tz,
                                          messages=self.messages, when=when, slug_fn=self.slug_fn)
                record.update(status="written" if path else "empty",
                              path=path.relative_to(self.workspace).as_posix() if path else None)
            except Exception as exc:  # errors are only logged, never raised into the chat
                record.update(status="error", error=f"{type(exc).__name__}: {exc}")
                log.warning("session-memory hook failed for %s: %s", session_id, exc)
                return
            if path and self.on_written is not None:
                try:
                    self.on_written(path)
                except Exception as exc:  # the note is written; the index's next look finds it
                    log.warning("session note %s written, not indexed yet: %s", record["path"], exc)

        t = threading.Thread(target=work, name=f"reverie-session-memory-{session_id[:8]}", daemon=True)
        with self._lock:
            self._threads.append(t)
        t.start()
        return t

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for every note being written; True when all are done."""
        with self._lock:
            threads = list(self._threads)
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        for t in threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not any(t.is_alive() for t in threads)
