"""The `reverie` command as a real subprocess, for the tests of its behaviour with people's input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

def _env(home: Path, extra: dict | None = None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake")
    env.update(extra or {})
    return env


def cli(home: Path, *args: str, env: dict | None = None, stdin: str | None = None, cwd=None,
        timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args],
                          capture_output=True, text=True, input=stdin, env=_env(home, env), cwd=cwd,
                          timeout=timeout)


def batch(home: Path, *commands: list[str], env: dict | None = None) -> list[subprocess.CompletedProcess]:
    """Several commands through the real entry point in one subprocess (start-up paid once)."""
    r = subprocess.run([sys.executable, "-m", "reverie.cli.batch", json.dumps(list(commands))], capture_output=True, text=True,
                       env=_env(home, env), timeout=300)
    assert r.returncode == 0, r.stderr
    return [subprocess.CompletedProcess(c, code, out, err) for c, (code, out, err) in zip(commands, json.loads(r.stdout))]


def ok(r: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert r.returncode == 0, (r.args, r.stdout, r.stderr)
    return r


# a progress line of cli/common.py's PlainProgress ("indexing files: 0/62 (0%), 0.0 s"): a command that works
# for more than a second says how far it is before it fails, on a busy machine too
_PROGRESS = re.compile(r"^\w+ [\w ]+: [\d,]+/[\d,]+(?: \(\d+%\))?, [\d.]+ (?:s|min|h)\b")


def one_error(r: subprocess.CompletedProcess, code: int = 1) -> str:
    """The one line a failing command says (its progress lines aside: how soon they come depends on the
    machine's speed), asserting its exit code and that no traceback was shown."""
    assert r.returncode == code, (r.args, r.returncode, r.stdout, r.stderr)
    lines = [x for x in r.stderr.strip().splitlines() if not _PROGRESS.match(x)]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    return lines[0]


_FIGURE = re.compile(r"\d+\.(\d+)")


def same_but_scores(one: str, other: str) -> bool:
    """The two outputs say the same, their figures with decimals (scores, a note's age in days) to one
    unit of the last digit printed: a score decays with the note's age, so two runs a second apart may
    differ there."""
    if _FIGURE.sub("F", one) != _FIGURE.sub("F", other):
        return False
    a, b = list(_FIGURE.finditer(one)), list(_FIGURE.finditer(other))
    return len(a) == len(b) and all(abs(float(x[0]) - float(y[0])) <= 1.01 * 10 ** -min(len(x[1]), len(y[1]))
                                    for x, y in zip(a, b))


def tree(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []
