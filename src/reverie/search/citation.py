"""Citations as search prints them (``memory/2026-07-01.md#L5-L9``) and as ``get`` reads them back.

One module writes and parses the form, so whatever search shows an agent can be handed to
``memory_get`` or ``reverie get`` unchanged.
"""

from __future__ import annotations

import re

_CITATION_RE = re.compile(r"^(?P<path>.+?)#L(?P<start>\d+)(?:-L?(?P<end>\d+))?$")


def format_citation(path: str, start: int, end: int) -> str:
    return f"{path}#L{start}-L{end}"


def parse_citation(text: str) -> tuple[str, int, int] | None:
    """``(path, first line, last line)`` for ``path#L5-L9`` (or ``path#L5``); None for a plain path.
    A range written backwards (``#L9-L5``) reads the same lines as ``#L5-L9``."""
    m = _CITATION_RE.match(text.strip()) if isinstance(text, str) else None
    if not m:
        return None
    start = int(m.group("start"))
    end = int(m.group("end") or start)
    return m.group("path"), min(start, end), max(start, end)
