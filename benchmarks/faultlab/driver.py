"""One write path in a loop, in a process of its own, until it is killed.

``python driver.py KIND HOME PREFIX`` prints ``READY`` when reverie is open, then performs writes of
one kind, each with a unique token, and prints ``ACK <json>`` (flushed) only after the write has
returned: whatever is acknowledged must survive a ``kill -9`` that follows. The settings are the
suite's (fake embedder; Dreaming's bar lowered to match it).
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

OVERRIDES = ['memory.search.provider="fake"', "memory.dreaming.phases.deep.minScore=0.5"]
DAY0 = datetime(2026, 6, 1, 9, 0, tzinfo=timezone.utc)
LOOPS = 100_000  # "until killed"; a driver that finishes prints DONE


def night(n: int) -> datetime:
    return (DAY0 + timedelta(days=n + 1)).replace(hour=3)


def entry(tok: str) -> str:
    # three lines: an entry written in pieces, or two interleaved, would split them apart
    return f"fzk {tok} begin\nmiddle {tok}\nend {tok}"


def ack(**what) -> None:
    sys.stdout.write("ACK " + json.dumps(what) + "\n")
    sys.stdout.flush()


def _write_note(path: Path, text: str) -> None:
    """An owner's edit made whole (temp file and rename), so only reverie's own writes are on trial."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def run(kind: str, home: Path, prefix: str) -> None:
    from reverie import Memory

    mem = Memory(home=home, overrides=OVERRIDES)
    print("READY", flush=True)
    if kind == "remember":
        for i in range(LOOPS):
            mem.remember(entry(f"{prefix}-{i}"))
            ack(tok=f"{prefix}-{i}")
    elif kind == "memory_append":
        tool = {t.name: t for t in mem.tools()}["memory_append"]
        for i in range(LOOPS):
            tool.call({"text": entry(f"{prefix}-{i}") + "\x00"})  # the NUL is cleaned, and said so
            ack(tok=f"{prefix}-{i}")
    elif kind == "remember_cli":
        import subprocess

        for i in range(LOOPS):  # `reverie remember` itself, one process a note: the kill may land in it
            cmd = [sys.executable, "-c", "from reverie.cli.main import run; run()", "remember", entry(f"{prefix}-{i}")]
            if subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode == 0:
                ack(tok=f"{prefix}-{i}")
    elif kind in ("index", "rebuild"):
        for i in range(LOOPS):
            tok = f"{prefix}-{i}"
            _write_note(mem.workspace / "memory" / f"k-{tok}.md", f"# {tok}\n\n- fzk {tok} indexed note\n")
            mem.sync() if kind == "index" else mem.rebuild()
            ack(tok=tok)
    elif kind == "chat":
        rt = mem.runtime("offline", session="fz")
        for i in range(LOOPS):
            tok = f"{prefix}-{i}"
            rt.send(f"We decided that fzk {tok} is the plan.")
            ack(turn=tok)
            if i % 2:
                fr = rt.flush("manual")
                ack(flushed=fr.appended)
    elif kind == "intent":
        from reverie.intents import TurnContext

        owner = TurnContext(channel="cli", sender="owner", owner=True)
        for i in range(LOOPS):
            tok = f"{prefix}-{i}"
            out = mem.intents.create(owner, description=f"fzk {tok} reminder", trigger_keywords=[f"kw{i}x{prefix}"])
            ack(tok=tok, id=out["intent"]["id"])
    elif kind == "table":
        from reverie.intents import TurnContext

        tool = {t.name: t for t in mem.tools(TurnContext(channel="cli", sender="owner", owner=True))}["table_write"]
        tool.call({"file": "fz", "sql": "CREATE TABLE IF NOT EXISTS notes (tok TEXT NOT NULL, body TEXT)"})
        for i in range(LOOPS):
            tok = f"{prefix}-{i}"
            tool.call({"file": "fz", "sql": "INSERT INTO notes VALUES (?, ?)", "params": [tok, "x" * 400]})
            ack(tok=tok)
    elif kind == "dream":
        mem.dream(now=night(4))
        ack(dreamed=True)
    elif kind == "forget":
        from reverie.forget.apply import forget
        from reverie.forget.select import Selectors

        for k in range(FORGET_FACTS):
            forget(mem, Selectors(texts=[forget_fact(k)]))
            ack(forgot=k)
    print("DONE", flush=True)
    mem.close()


FORGET_FACTS = 20


def forget_fact(k: int) -> str:
    return f"fzforget{k} passport number"


if __name__ == "__main__":
    run(sys.argv[1], Path(sys.argv[2]), sys.argv[3])
