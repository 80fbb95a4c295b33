"""Where trust is enforced: the two decisions every recall lane and Dreaming make through here.

* :meth:`Trust.may_inject` -- may this content enter the context without being asked for
  (startup context, trigger recall, Active Memory, standing-intent blocks)? Only ``owner`` and
  ``agent`` content. Explicit lanes (``memory_search``, ``memory_get``, the session tools) return
  everything, but untrusted content is framed as untrusted there.
* :meth:`Trust.may_promote` -- may this candidate become a durable memory (Dreaming's promotion
  into ``MEMORY.md``, consolidation)? Never ``untrusted`` or ``system`` content; never anything
  from cron, heartbeat or sub-agent sessions; session-derived candidates only from interactive
  sessions; never text that carries reverie's own context frames (a copy of injected context);
  never text that holds a secret (:mod:`.secrets`).

Both automatic paths also keep secrets out: an automatic lane never injects text holding one, and
:meth:`Trust.injectable` (startup notes, bootstrap files) replaces such a line by a marker.

The origin of a candidate is looked up by the program (the daily-note segments of its lines),
whatever the caller claims: a claimed origin can only lower trust, never raise it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..store import as_database, transaction
from .classes import BACKGROUND_KINDS, TRUSTED, least_trusted, weakest_kind
from .framing import OUR_TAGS
from .recall import AUTO_LANES, normalise
from .secrets import holds_secret, withhold_lines
from .segments import RangeOrigin
from .store import FileOrigins, file_origins, open_trust_db, rel_of, tracked

SENSITIVE_REASON = "withheld: sensitive (looks like it holds a secret: found by the owner's search only)"
_FRAME_MARKERS = tuple(normalise(t) for t in ("recalled-memory", "untrusted-content"))


@dataclass
class Candidate:
    """Something that might become a durable memory or be injected."""

    text: str
    path: str | None = None  # workspace-relative, or "sessions/<id>" for transcript-derived text
    start_line: int = 1
    end_line: int | None = None
    origin: str | None = None  # what the caller believes; can only lower trust
    kind: str | None = None
    source: str = "memory"  # memory | sessions
    session_id: str | None = None


@dataclass
class Decision:
    allowed: bool
    reason: str
    origin: str
    kind: str

    def __bool__(self) -> bool:
        return self.allowed

    def as_dict(self) -> dict:
        return {"allowed": self.allowed, "reason": self.reason, "originClass": self.origin, "sessionKind": self.kind}


def _session_derived(c: Candidate) -> bool:
    return c.source == "sessions" or bool(c.session_id) or (c.path or "").startswith("sessions/")


def _frames_inside(text: str) -> bool:
    norm = normalise(text)
    return any(m in norm for m in _FRAME_MARKERS)


def promotion_decision(c: Candidate, found: RangeOrigin | None) -> Decision:
    """The promotion rule over a candidate and the origin the program found for it."""
    origin = least_trusted(c.origin, found.origin if found else None) if (c.origin or found) else "untrusted"
    kind = weakest_kind(c.kind, found.kind if found else None)
    if not (c.text or "").strip():
        return Decision(False, "empty candidate", origin, kind)
    if origin not in TRUSTED:
        return Decision(False, f"origin {origin}: only owner or agent content may become a durable memory",
                        origin, kind)
    if kind in BACKGROUND_KINDS:
        return Decision(False, f"from a {kind} session: background sessions never produce durable memories",
                        origin, kind)
    if _session_derived(c) and kind != "interactive":
        return Decision(False, f"session-derived from a {kind} session: only interactive sessions count", origin, kind)
    if _frames_inside(c.text):
        return Decision(False, "carries a recall or untrusted frame: a copy of injected context, not a memory",
                        origin, kind)
    if holds_secret(c.text):  # the reason never repeats the text
        return Decision(False, SENSITIVE_REASON, origin, kind)
    return Decision(True, "ok", origin, kind)


def injection_decision(lane: str, origin: str | None, kind: str | None = None, text: str | None = None) -> Decision:
    o = origin or "untrusted"  # unknown origin never rides an automatic lane
    k = kind or "unknown"
    if lane not in AUTO_LANES:
        return Decision(True, "explicit lane: returned, framed as untrusted when it is", o, k)
    if o not in TRUSTED:
        return Decision(False, f"origin {o}: automatic recall injects only owner or agent content", o, k)
    if text and holds_secret(text):
        return Decision(False, SENSITIVE_REASON, o, k)
    return Decision(True, "ok", o, k)


class Trust:
    """Trust decisions over one agent's workspace and database (what Dreaming and the recall
    lanes call)."""

    def __init__(self, db_path: Path, workspace: Path, *, readonly: bool = False):
        self.db_path = as_database(db_path)  # a path (SQLite) or an AgentDatabase
        self.workspace = Path(workspace)
        self.readonly = readonly  # dry runs: compute origins without recording an outside edit

    def origins(self, path: str) -> FileOrigins:
        """Every line's origin in one memory file (reconciled with the file as it is now)."""
        absolute = Path(path) if Path(path).is_absolute() else self.workspace / path
        rel = rel_of(self.workspace, absolute)
        if rel is None or not tracked(rel):
            return file_origins(None, self.workspace, absolute)  # curated: no database needed
        if self.readonly:
            from ..store import connect

            conn = connect(self.db_path, readonly=True) if self.db_path.exists() else None
            has = conn is not None and conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name='memory_daily_segments'").fetchone() is not None
            try:
                return file_origins(conn if has else None, self.workspace, rel, persist=False)
            finally:
                if conn is not None:
                    conn.close()
        conn = open_trust_db(self.db_path)
        try:
            return file_origins(conn, self.workspace, rel)
        finally:
            conn.close()

    def line_classes(self, path: str) -> list[list]:
        """The classes of a dated note's lines as runs ``[first, last, origin, kind, session, writer]``
        (what ``reverie export`` carries, so an import neither raises nor lowers them)."""
        found = self.origins(path)
        record = found.record
        if record is None:
            return []
        runs: list[list] = []
        for n, (_, who) in enumerate(record.lines(), 1):
            # a quarantined note (an untrusted flush) holds every line at its floor: carried so
            key = [least_trusted(record.floor, who.origin), who.kind, who.session_id, who.writer]
            if runs and runs[-1][2:] == key and runs[-1][1] == n - 1:
                runs[-1][1] = n
            else:
                runs.append([n, n, *key])
        return runs

    def restore_line_classes(self, path: str, runs: list[list] | None) -> None:
        """Record a dated note brought in by an import with the classes its export carried; lines
        no run covers, and a note whose export carried none, are ``untrusted`` (an import never
        vouches for what it cannot show was reverie's)."""
        from . import segments as seg
        from .store import now_ms, save

        absolute = self.workspace / path
        rel = rel_of(self.workspace, absolute)
        if rel is None or not tracked(rel):
            return
        data = absolute.read_bytes()
        at = now_ms()
        unknown = seg.Writer("untrusted", "unknown", None, "import", at)
        per_line = [unknown] * len(seg.split_lines(data))
        writers: dict = {}
        for run in runs or []:
            try:
                first, last, origin, kind, session, writer = run
                key = (str(origin), str(kind), session, str(writer))
                who = writers.setdefault(key, seg.Writer(key[0], key[1], key[2], key[3], at))
                if key[0] not in ("owner", "agent", "untrusted", "system"):
                    continue
                for n in range(max(1, int(first)), min(len(per_line), int(last)) + 1):
                    per_line[n - 1] = who
            except (TypeError, ValueError):
                continue  # a damaged run: its lines stay untrusted
        conn = open_trust_db(self.db_path)
        try:
            with transaction(conn):
                save(conn, seg.create_lines(rel, data, per_line))
        finally:
            conn.close()

    def origin_of(self, path: str, start_line: int = 1, end_line: int | None = None) -> RangeOrigin:
        """The origin of lines of a memory file, as the program recorded them."""
        return self.origins(path).lines(start_line, end_line if end_line is not None else start_line)

    def may_promote(self, candidate: Candidate) -> Decision:
        found = None
        if candidate.path and not candidate.path.startswith("sessions/"):
            found = self.origin_of(candidate.path, candidate.start_line, candidate.end_line)
        return promotion_decision(candidate, found)

    def may_inject(self, lane: str, candidate: Candidate) -> Decision:
        origin, kind = candidate.origin, candidate.kind
        if candidate.path and not candidate.path.startswith("sessions/"):
            found = self.origin_of(candidate.path, candidate.start_line, candidate.end_line)
            origin = least_trusted(origin, found.origin) if origin else found.origin
            kind = weakest_kind(kind, found.kind)
        return injection_decision(lane, origin, kind, candidate.text)

    def injectable_lines(self, path: str, text: str, first_line: int = 1) -> tuple[str, int]:
        """``text`` (lines of ``path`` from ``first_line``) without the lines an automatic lane
        may not inject; returns the text and how many lines were dropped."""
        kept, dropped, _, _ = self.injectable(path, text, first_line)
        return kept, dropped

    def injectable(self, path: str, text: str, first_line: int = 1) -> tuple[str, int, str, str]:
        """:meth:`injectable_lines`, and the least trusted class and weakest kind of the lines kept
        (a file whose lines have different writers: a session note, a daily note). A kept line that
        holds a secret is replaced by :data:`~reverie.trust.secrets.LINE_MARKER` (not counted as dropped)."""
        text, _ = withhold_lines(text)
        origins = self.origins(path)
        kept, dropped, classes, kinds = [], 0, [], []
        for i, line in enumerate(text.split("\n")):
            n = first_line + i
            if not line.strip():
                kept.append(line)
                continue
            found = origins.lines(n, n)
            if found.origin in TRUSTED:
                kept.append(line)
                classes.append(found.origin)
                kinds.append(found.kind)
            else:
                dropped += 1
        return ("\n".join(kept), dropped, least_trusted(*classes) if classes else "agent",
                weakest_kind(*kinds) if kinds else "unknown")


def may_promote(trust: Trust, candidate: Candidate) -> Decision:
    """The one promotion gate (Dreaming calls this for every candidate)."""
    return trust.may_promote(candidate)


__all__ = ["Candidate", "Decision", "Trust", "may_promote", "promotion_decision", "injection_decision", "OUR_TAGS"]
