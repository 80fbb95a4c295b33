"""Run one `reverie` command line as the console script does, in a fresh interpreter, and list the
modules it imported (the light-import tests). The probe itself imports nothing but ``sys``, so the
list is the command's own; it is written with ``repr`` and read back with ``ast.literal_eval``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PROBE = """
import sys
from reverie.cli.main import run
code = 0
try:
    run(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
mods = sorted(sys.modules)
with open(sys.argv[1], "w") as fh:
    fh.write(repr({"code": code, "modules": mods}))
"""


def probe(out: Path, args: list[str], env: dict) -> tuple[dict, subprocess.CompletedProcess]:
    """({"code", "modules"}, the finished process) of ``reverie ARGS`` run under ``env``."""
    r = subprocess.run([sys.executable, "-c", PROBE, str(out), *args], capture_output=True, text=True, env=env,
                       timeout=120)
    assert out.exists(), r.stderr
    return ast.literal_eval(out.read_text()), r
