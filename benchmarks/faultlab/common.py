"""What every part of the fuzz and fault suite shares: a clean environment for real `reverie`
processes, one way to run the command, and plain-text tables."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
FAKE = 'memory.search.provider="fake"'


def clean_env(home: Path, extra: dict | None = None) -> dict:
    """The caller's environment without any REVERIE_* setting, on ``home``, with the fake embedder
    (the suite tests files, locks and databases, not retrieval quality)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("REVERIE_") and k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake")
    env.update(extra or {})
    return env


def cli(home: Path, *args: str, env: dict | None = None, stdin: bytes | str | None = None,
        timeout: float = 60, prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    """One `reverie` command as a real process. A hang is reported as exit code None."""
    try:
        return subprocess.run([*(prefix or []), *CLI, *args], capture_output=True, input=stdin,
                              text=not isinstance(stdin, bytes), env=clean_env(home, env), timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out, err = exc.stdout or "", exc.stderr or ""
        return subprocess.CompletedProcess(exc.cmd, None, out, err)  # type: ignore[arg-type]


def text_of(stream: str | bytes | None) -> str:
    if isinstance(stream, bytes):
        return stream.decode("utf-8", "replace")
    return stream or ""


def clean_error(code: int | None, stderr: str) -> str | None:
    """Why a failed command is not a clean user error (None when it is): exit 1 with exactly one
    line starting ``reverie: error:``, no traceback."""
    lines = stderr.strip().splitlines()
    if code is None:
        return "hang (no exit within the time limit)"
    if code == 2:
        return "exit 2 (internal error)"
    if "Traceback" in stderr:
        return "traceback"
    if code == 1 and (len(lines) != 1 or not lines[0].startswith("reverie: error: ")):
        return f"exit 1 without a one-line error ({len(lines)} lines)"
    if code not in (0, 1):
        return f"exit {code}"
    return None


def table(header: list[str], rows: list[list]) -> str:
    """A Markdown table; ``|`` inside a cell is escaped."""
    def cell(v) -> str:
        return str(v).replace("|", "\\|").replace("\n", " ")
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(cell(v) for v in r) + " |" for r in rows]
    return "\n".join(out)
