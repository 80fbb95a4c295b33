"""Several ``reverie`` commands in one process, start-up paid once:

    python -m reverie.cli.batch '[["status"], ["search", "hotel"]]'

Each command runs through the real entry point (:func:`reverie.cli.main.run`) with its output
captured; the answer is one JSON list on stdout, ``[exit code, stdout, stderr]`` per command, in
order. The tests and the fault benchmarks drive the command line this way (a command's own
start-up, imports and all, costs about a second)."""

from __future__ import annotations

import contextlib
import io
import json
import sys


def run_all(commands: list[list[str]]) -> list[list]:
    from .main import run

    out = []
    for argv in commands:
        o, e = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(o), contextlib.redirect_stderr(e):
            try:
                run(argv)
                code = 0
            except SystemExit as exc:
                code = exc.code or 0
        out.append([code, o.getvalue(), e.getvalue()])
    return out


if __name__ == "__main__":
    print(json.dumps(run_all(json.loads(sys.argv[1]))))
