"""Options every command takes, output helpers and progress bars (always on stderr)."""

from __future__ import annotations

import contextlib
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Callable, Iterator, Optional

import typer

# the typer-free pieces, in basics.py so that the commands answered without typer (fast.py) share them
from .basics import LENDER, OPENED, Opts, emit, memory_for, opened_memory, say  # noqa: F401

HomeOpt = Annotated[Optional[Path], typer.Option("--home", help="reverie home (default $REVERIE_HOME or ~/.reverie)", show_default=False)]
AgentOpt = Annotated[Optional[str], typer.Option("--agent", help="agent id (default main)", show_default=False)]
WorkspaceOpt = Annotated[Optional[Path], typer.Option("--workspace", help="use this folder as the agent's workspace", show_default=False)]
SetOpt = Annotated[Optional[list[str]], typer.Option("--set", help="override a setting: KEY=VALUE (repeatable)", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="print one JSON document on stdout")]


def opts(ctx: typer.Context, home, agent, workspace, sets, as_json) -> Opts:
    """Command-level options win over the same options given before the command."""
    base: Opts = (ctx.find_root().obj if ctx and isinstance(ctx.find_root().obj, Opts) else None) or Opts()
    return Opts(home=home or base.home, agent=agent or base.agent, workspace=workspace or base.workspace,
                sets=[*base.sets, *(sets or [])], json=as_json or base.json)


class PlainProgress:
    """Progress as plain lines on stderr (a log, a pipe, an agent's shell): once the work has
    taken a second (a quick run prints nothing), a line at each further tenth of a stage or every
    10 s, with an ETA, and one when the stage ends."""

    EVERY_SECONDS = 10.0
    QUIET_SECONDS = 1.0

    def __init__(self, label: str, out=None):
        self.label = label
        self.out = out or sys.stderr
        self._began = time.monotonic()
        self._stage: str | None = None
        self._start = self._last = 0.0
        self._tenth = -1
        self._spoke = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self._stage:
            self._stage, self._start, self._last, self._tenth = stage, now, 0.0, -1
        if not self._spoke and now - self._began < self.QUIET_SECONDS:
            return
        tenth = (10 * done) // total if total else 10
        if tenth == self._tenth and now - self._last < self.EVERY_SECONDS and done < total:
            return
        if done >= total and self._tenth == 10:
            return  # the end was said already
        self._tenth, self._last, self._spoke = tenth, now, True
        elapsed = now - self._start
        line = f"{self.label} {stage}: {done:,}/{total:,}"
        if total:
            line += f" ({100 * done // total}%)"
        line += f", {_duration(elapsed)}"
        if 0 < done < total and elapsed > 0:
            line += f", ETA {_duration(elapsed * (total - done) / done)}"
        print(line, file=self.out, flush=True)


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(seconds + 0.5), 60)
    return f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


@contextlib.contextmanager
def progress_bar(label: str) -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback drawing rich bars on stderr when it is a terminal, plain lines with an
    ETA otherwise (a long index must never look hung in a log)."""
    if not sys.stderr.isatty():
        yield PlainProgress(label)
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    with Progress(TextColumn(f"{label} [bold]{{task.description}}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def update(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield update
