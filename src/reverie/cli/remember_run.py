"""``reverie remember``: what it does, shared by the full command line (memory_cmds.py) and the
light road that answers a plain ``reverie remember TEXT`` before the framework loads (fast.py)."""

from __future__ import annotations

import sys

from ..errors import UserError
from .basics import Opts, emit, memory_for, say


def remember(o: Opts, text: list[str] | None, use_stdin: bool) -> None:
    if use_stdin:
        if text:
            raise UserError("give the note as arguments or with --stdin, not both")
        from ..workspace.writes import MAX_ENTRY_BYTES, check_entry_size

        raw = sys.stdin.buffer.read(MAX_ENTRY_BYTES + 1)  # never the whole of a stream too big to keep
        check_entry_size(len(raw), read_all=False)
        try:
            body = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UserError(f"standard input is not valid UTF-8 text (byte 0x{raw[exc.start]:02x} at "
                            f"offset {exc.start}); nothing was remembered") from None
    else:
        body = " ".join(text or [])
    if not body.strip():
        raise UserError("nothing to remember: give the text as arguments or with --stdin")
    mem = memory_for(o)
    from ..trust import OWNER_CLI

    path = mem.remember(body, provenance=OWNER_CLI)  # the owner at the terminal
    emit(o, {"path": str(path), "workspace": str(mem.workspace), "chars": len(body.strip())},
         lambda d: say(f"remembered in {d['path']}"))
