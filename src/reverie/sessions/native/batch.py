"""``reverie sessions import PATH``: every file read and checked first, then recorded.

PATH is a transcript or a folder of them (``*.jsonl`` directly inside: Claude Code keeps one
folder per project, OpenClaw one per agent; Codex one per day). Each file's format is detected
from its first lines unless ``--format`` names it; a file in no known format stops the import
before anything is written, as does an OpenAI-style file with a bad line (that format is strict:
docs/conversations.md). A native transcript is never refused for its lines: what cannot be read
is skipped and reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import UserError
from ..jsonl import import_jsonl, parse_jsonl
from ..keys import channel_of, chat_type_of, normalize_key
from ..store import TranscriptStore
from . import ALL_FORMATS, NAMES, detect, parse
from .importer import import_native, read_lines

KNOWN = ", ".join(NAMES[f] for f in ALL_FORMATS)


@dataclass
class Planned:
    path: Path
    format: str


def files_of(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.glob("*.jsonl") if p.is_file())
        if not files:
            raise UserError(f"no *.jsonl files in {path}")
        return files
    if not path.is_file():
        raise UserError(f"no such file or folder: {path}")
    return [path]


def plan(path: Path, fmt: str = "auto") -> list[Planned]:
    """Each file with its format, parsed (nothing written); a UserError for the first that cannot
    be imported."""
    if fmt != "auto" and fmt not in ALL_FORMATS:
        raise UserError(f"--format must be auto or one of {', '.join(ALL_FORMATS)}, got {fmt!r}")
    out = []
    for f in files_of(path):
        lines = read_lines(f)
        found = detect(lines) if fmt == "auto" else fmt
        if found is None:
            why = f"{f}: not a transcript reverie can read (it reads JSONL of {KNOWN}; --format names one)"
            try:  # the strictest reader says which line is wrong
                parse_jsonl(lines)
            except UserError as exc:
                why += f"; as OpenAI-style messages, {exc}"
            raise UserError(why)
        if found == "openai":
            try:
                parse_jsonl(lines)
            except UserError as exc:
                raise UserError(f"{f}: {exc}") from None
            out.append(Planned(f, found))
            continue
        if not parse(found, lines).recognised:
            raise UserError(f"{f}: no {NAMES[found]} lines in it (--format auto tells the formats apart)")
        # parsed again when it is recorded: a folder of long transcripts is not held in memory at once
        out.append(Planned(f, found))
    return out


def run(store: TranscriptStore, planned: list[Planned], agent: str, *, session: str | None = None,
        chat_type: str | None = None, sender: str | None = None, dry_run: bool = False) -> list[tuple[dict, str]]:
    """Record every planned file; (report, line for people) per file."""
    reports = []
    for item in planned:
        if item.format == "openai":
            key = normalize_key(session or f"import:{item.path.stem}", agent)
            rep = import_jsonl(store, item.path, session_key=key, chat_type=chat_type or chat_type_of(key),
                               channel=channel_of(key) if channel_of(key) != "cli" else "import", sender=sender,
                               dry_run=dry_run)
            said = (f"{item.path.name}: {NAMES['openai']} -> {key}: {'would import' if dry_run else 'imported'} "
                    f"{rep.messages} message(s) into {len(rep.sessions) or 'new'} session(s)"
                    + (f", {rep.forgotten} forgotten" if rep.forgotten else ""))
            reports.append(({"path": str(item.path), "format": "openai", "sessionKey": key, **rep.as_dict()}, said))
            continue
        parsed = parse(item.format, read_lines(item.path))
        host_session = parsed.session_id or item.path.name.split(".jsonl", 1)[0]
        key = normalize_key(session or f"{item.format}:{host_session}", agent)
        kind = chat_type
        if kind is None and item.format == "openclaw":
            from .openclaw import chat_type_hint

            kind = chat_type_hint(item.path)
        rep = import_native(store, item.path, item.format, parsed, session_key=key,
                            chat_type=kind or chat_type_of(key), sender=sender, dry_run=dry_run)
        reports.append((rep.as_dict(), rep.line(dry_run)))
    return reports
