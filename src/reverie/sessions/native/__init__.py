"""Native host transcripts: Claude Code, Codex CLI and OpenClaw session files read as
:class:`~reverie.sessions.host.HostMessage` objects.

Each host keeps its conversations as JSONL in a shape of its own; one module per host turns its
lines into messages with the provenance the host vouches for (the owner's typed prompts ``owner``,
the assistant's words ``agent``, results of reverie's recall tools ``recall``, any other tool's
output ``untrusted``, host scaffolding ``system``). The parsers are pure: lines in, messages out,
never a store write (:mod:`.importer` records them; the sidecar feeds a live transcript through
:func:`.claude_code.parse_from`).

A line that is not JSON, is cut short or has a type the parser does not know is skipped and
listed with its line number; known bookkeeping lines (queue operations, attachments, token
counts...) are skipped and counted by type. Nothing a file holds makes a parser raise.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from ..host import HostMessage

FORMATS = ("claude-code", "codex", "openclaw")
ALL_FORMATS = ("openai",) + FORMATS  # what `reverie sessions import --format` accepts besides auto
NAMES = {"openai": "OpenAI-style messages", "claude-code": "Claude Code", "codex": "Codex CLI",
         "openclaw": "OpenClaw"}
DETECT_LINES = 50  # a Claude Code file can open with a few bookkeeping lines before anything typed
MAX_LISTED = 20  # problem lines listed by number; the rest only counted


@dataclass
class Skipped:
    """What a parse left out: lines by type (bookkeeping, meta, mirrors), and problem lines (not
    JSON, cut short, an unknown type) by number."""

    types: Counter = field(default_factory=Counter)
    problems: list[tuple[int, str]] = field(default_factory=list)
    more_problems: int = 0

    def count(self, kind: str) -> None:
        self.types[kind] += 1

    def problem(self, line: int, why: str, kind: str) -> None:
        self.types[kind] += 1
        if len(self.problems) < MAX_LISTED:
            self.problems.append((line, why))
        else:
            self.more_problems += 1

    def as_dict(self) -> dict:
        out: dict = {"lines": sum(self.types.values()), "byType": dict(sorted(self.types.items()))}
        if self.problems:
            out["problems"] = [{"line": n, "why": why} for n, why in self.problems]
        if self.more_problems:
            out["moreProblems"] = self.more_problems
        return out


@dataclass
class Parsed:
    """A parsed transcript; unpacks as ``messages, skipped``."""

    messages: list[HostMessage]
    skipped: Skipped
    session_id: str | None = None  # the host's own session id
    cwd: str | None = None
    recognised: int = 0  # lines of this host's format (taken or skipped as bookkeeping)

    def __iter__(self) -> Iterator:
        yield self.messages
        yield self.skipped


def json_lines(lines: Iterable[str], skipped: Skipped, *, first: int = 1) -> Iterator[tuple[int, dict, str]]:
    """(line number, object, raw line) of each line holding a JSON object; the others are listed
    as problems (a last line that does not parse was most likely cut short by a writer)."""
    lines = list(lines)
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        n = first + i
        try:
            d = json.loads(line)
        except ValueError:
            skipped.problem(n, "cut short (last line)" if i == last else "not JSON", "(bad line)")
            continue
        if not isinstance(d, dict):
            skipped.problem(n, "not a JSON object", "(bad line)")
            continue
        yield n, d, line


def _format_of(d: dict) -> str | None:
    kind = d.get("type")
    if isinstance(d.get("payload"), dict) and kind in ("session_meta", "response_item", "event_msg",
                                                       "turn_context", "compacted"):
        return "codex"
    if d.get("record_type") == "state" or (kind is None and {"id", "timestamp", "instructions"} <= set(d)) or \
            (kind in ("message", "function_call", "reasoning") and "payload" not in d and "message" not in d
             and "parentId" not in d):
        return "codex"  # a 2025 rollout: no envelope yet
    if kind == "session" and isinstance(d.get("id"), str) and ("version" in d or "cwd" in d):
        return "openclaw"
    if kind == "message" and isinstance(d.get("message"), dict) and "parentId" in d:
        return "openclaw"
    if isinstance(kind, str) and ("sessionId" in d or "parentUuid" in d or (kind == "summary" and "leafUuid" in d)):
        return "claude-code"
    if kind is None and (isinstance(d.get("messages"), list) or d.get("role") in
                         ("user", "assistant", "system", "tool", "function")):
        return "openai"
    return None


def detect(first_lines: Iterable[str]) -> str | None:
    """The format of a transcript from its first lines (``openai``, ``claude-code``, ``codex``,
    ``openclaw``), or None when no line looks like any of them."""
    for n, line in enumerate(first_lines):
        if n >= DETECT_LINES:
            break
        try:
            d = json.loads(line)
        except ValueError:
            continue
        found = _format_of(d) if isinstance(d, dict) else None
        if found:
            return found
    return None


def parse(fmt: str, lines: Iterable[str]) -> Parsed:
    """The messages of a whole transcript in a native format (``claude-code``, ``codex``,
    ``openclaw``); ``messages, skipped = parse(...)``."""
    if fmt == "claude-code":
        from .claude_code import parse_lines
    elif fmt == "codex":
        from .codex import parse_lines
    elif fmt == "openclaw":
        from .openclaw import parse_lines
    else:
        raise ValueError(f"not a native transcript format: {fmt!r} (expected one of {', '.join(FORMATS)})")
    return parse_lines(lines)
