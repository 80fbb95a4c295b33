"""Text that goes into notes, and notes that come back out as text.

* :func:`clean_text` cleans text an agent (or any writer) hands us before it is written: NUL and
  the other control characters except tab and newline, and lone surrogates (which cannot even be
  encoded as UTF-8), are removed; carriage returns become newlines. One NUL from an agent once
  made the indexer skip the whole daily note as binary, hiding the owner's earlier notes of the day.
* :func:`decode_note` reads a note written by someone else as leniently as makes sense: NUL
  bytes and invalid UTF-8 are replaced by U+FFFD and reported, so one bad segment never takes the
  rest of the file out of the index or out of ``memory_get``. Only content that is mostly not
  text (an image renamed ``.md``) is refused as binary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

REPLACEMENT = "\ufffd"
# C0 controls but tab (09) and newline (0a); DEL and the C1 controls; UTF-16 surrogates, which a
# Python str holds only when they are lone (JSON "\ud800" sent raw over JSON-RPC, say).
_UNWANTED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_BINARY_SAMPLE = 8192
_BINARY_SHARE = 0.30  # above this share of bad characters in the sample, the file is not text
_TEXT_CONTROLS = frozenset("\t\n\r\x0b\x0c")


@dataclass(frozen=True)
class Cleaned:
    text: str
    removed: dict[str, int] = field(default_factory=dict)  # kind -> how many were removed

    def summary(self) -> str:
        """``"removed 1 NUL character and 2 other control characters"``, or "" when nothing was."""
        if not self.removed:
            return ""
        parts = [f"{n} {kind}{'' if n == 1 else 's'}" for kind, n in self.removed.items()]
        return "removed " + (" and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1])


def clean_text(text: str) -> Cleaned:
    """``text`` without NUL, other control characters (tab and newline kept) or lone surrogates."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not _UNWANTED.search(text):
        return Cleaned(text)
    counts = {"NUL character": 0, "other control character": 0, "lone surrogate": 0}
    for m in _UNWANTED.finditer(text):
        ch = m.group()
        kind = ("NUL character" if ch == "\x00" else
                "lone surrogate" if "\ud800" <= ch <= "\udfff" else "other control character")
        counts[kind] += 1
    return Cleaned(_UNWANTED.sub("", text), {k: n for k, n in counts.items() if n})


def _looks_binary(raw: bytes) -> bool:
    sample = raw[:_BINARY_SAMPLE].decode("utf-8", errors="replace")
    if not sample:
        return False
    bad = sum(1 for ch in sample
              if ch == REPLACEMENT or (ch < " " and ch not in _TEXT_CONTROLS) or ch == "\x7f")
    return bad / len(sample) > _BINARY_SHARE


def decode_note(raw: bytes) -> tuple[str | None, str | None]:
    """(text, problem) for a note's bytes.

    Valid UTF-8 without NUL: (text, None). NUL bytes or invalid UTF-8: the text with each bad
    segment replaced by U+FFFD (line breaks untouched, so line numbers hold) and a problem saying
    what was replaced. Mostly-binary content: (None, problem).
    """
    nul = raw.count(b"\x00")
    try:
        text = raw.decode("utf-8")
        bad_at = None
    except UnicodeDecodeError as exc:
        bad_at = exc.start
        text = None
    if text is not None and not nul:
        return text, None
    if _looks_binary(raw):
        return None, "binary content (NUL bytes or invalid UTF-8 throughout); not indexed"
    if text is None:
        text = raw.decode("utf-8", errors="replace")
    what = []
    if nul:
        first = raw.index(b"\x00")
        what.append(f"{nul} NUL byte{'' if nul == 1 else 's'} (first at byte {first})")
    if bad_at is not None:
        what.append(f"invalid UTF-8 (first at byte {bad_at})")
    return text.replace("\x00", REPLACEMENT), " and ".join(what) + " replaced by U+FFFD; the rest is readable"
