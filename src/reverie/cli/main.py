"""Entry point: builds the command tree and turns errors into one line and an exit code.

Exit codes: 0 success, 1 a user error (bad input, one line on stderr), 2 an internal error.
"""

from __future__ import annotations

import os
import sys
import traceback

import typer

from ..errors import ReverieError
from .common import AgentOpt, HomeOpt, JsonOpt, Opts, SetOpt, WorkspaceOpt

app = typer.Typer(
    name="reverie",
    help="Long-term memory for AI agents: Markdown files as truth, a per-agent SQLite index, "
    "hybrid search that works for Chinese as well as English.",
    pretty_exceptions_enable=False,
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@app.callback()
def _root(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
          sets: SetOpt = None, as_json: JsonOpt = False) -> None:
    ctx.obj = Opts(home=home, agent=agent, workspace=workspace, sets=list(sets or []), json=as_json)


def _register() -> None:
    from . import chat_cmd, config_cmds, cron_cmds, index_cmds, intent_cmds, memory_cmds, sessions_cmds, tour_cmd
    from . import plugins_cmd, table_cmds, transfer_cmds

    for module in (memory_cmds, index_cmds, config_cmds, tour_cmd, intent_cmds, cron_cmds, chat_cmd, sessions_cmds):
        module.register(app)
    table_cmds.register(app)
    plugins_cmd.register(app)
    transfer_cmds.register(app)
    try:
        from . import search_cmds
    except ImportError:  # pragma: no cover - search arrives with its own module
        return
    search_cmds.register(app)
    from . import ui_cmd

    ui_cmd.register(app)


_register()


def _fail(message: str, code: int) -> int:
    print(f"reverie: error: {message}", file=sys.stderr)
    return code


def _kind(exc: BaseException) -> str | None:
    """Typer ships its own copy of click (older releases use click itself): match by class name."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    for kind in ("Exit", "ClickException", "Abort"):
        if kind in names:
            return kind
    return None


def run(argv: list[str] | None = None) -> None:
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name="reverie", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except KeyboardInterrupt:
        code = _fail("interrupted", 130)
    except ReverieError as exc:
        code = _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__, exc.exit_code)
    except BrokenPipeError:
        code = 0
    except Exception as exc:
        kind = _kind(exc)
        if kind == "Exit":
            code = getattr(exc, "exit_code", 0)
        elif type(exc).__name__ == "NoArgsIsHelpError":
            code = 0  # the help text has been shown
        elif kind == "ClickException":  # bad flags and arguments are user errors
            message = exc.format_message().strip() or type(exc).__name__  # type: ignore[attr-defined]
            code = _fail(message.splitlines()[0], 1)
        elif kind == "Abort":
            code = _fail("interrupted", 130)
        else:
            code = _internal(exc)
    sys.exit(code)


def _internal(exc: Exception) -> int:
    """A fault of ours: one line, details only when asked for."""
    if os.environ.get("REVERIE_LOG") == "debug":
        traceback.print_exc()
    return _fail(f"internal error: {type(exc).__name__}: {exc} (set REVERIE_LOG=debug for details)", 2)


if __name__ == "__main__":  # pragma: no cover
    run()
