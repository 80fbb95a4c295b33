"""Entry point: builds the command tree and turns errors into one line and an exit code.

Exit codes: 0 success, 1 a user error (bad input, one line on stderr), 2 an internal error.
"""

from __future__ import annotations

import errno
import os
import sys
import warnings

from ..errors import ReverieError

# typer (and the command tree) loads only when a command needs it: ``--version`` and ``reverie
# mcp`` are answered before (cli/fast.py), and every millisecond of an MCP server's start counts.
_app = None


def _application():
    global _app
    if _app is None:
        from .root import build

        _app = build()
    return _app


MODULES = ("memory_cmds", "index_cmds", "config_cmds", "tour_cmd", "intent_cmds", "cron_cmds", "chat_cmd",
           "sessions_cmds", "table_cmds", "plugins_cmd", "transfer_cmds", "forget_cmd", "search_cmds", "ui_cmd",
           "dream_cmds", "context_cmd", "db_cmds", "mcp_cmd", "serve_cmd", "service_cmd", "hook_cmd", "install_cmd",
           "trust_cmd")
# Which module defines each command: a one-shot command imports and builds only its own module
# (importing and building all of them cost ~50 ms per command). Help, a name not listed here (a
# typo, a new command) or no command at all loads them all. tests/test_cli.py checks the map.
COMMAND_MODULES = {"init": "memory_cmds", "remember": "memory_cmds", "index": "index_cmds", "status": "index_cmds",
                   "watch": "index_cmds", "config": "config_cmds", "tour": "tour_cmd", "intent": "intent_cmds",
                   "cron": "cron_cmds", "scheduler": "cron_cmds", "chat": "chat_cmd", "sessions": "sessions_cmds",
                   "search": "search_cmds", "get": "search_cmds", "tools": "search_cmds", "mcp": "mcp_cmd", "serve": "serve_cmd",
                   "doctor": "search_cmds", "table": "table_cmds", "plugins": "plugins_cmd",
                   "import": "transfer_cmds", "export": "transfer_cmds",
                   "forget": "forget_cmd", "ui": "ui_cmd",
                   "dream": "dream_cmds", "promote-explain": "dream_cmds", "rem-harness": "dream_cmds",
                   "rem-backfill": "dream_cmds", "memory": "dream_cmds", "context": "context_cmd", "db": "db_cmds",
                   "service": "service_cmd", "hook": "hook_cmd",
                   "install": "install_cmd", "uninstall": "install_cmd", "trust": "trust_cmd"}
_ROOT_VALUE_OPTIONS = {"--home", "--agent", "--workspace", "--set"}
_registered: set[str] = set()


def _command_name(argv: list[str]) -> str | None:
    """The command an argument list names (the first word that is neither a root option nor its value)."""
    args = iter(argv)
    for arg in args:
        if arg in _ROOT_VALUE_OPTIONS:
            next(args, None)
        elif not arg.startswith("-"):
            return arg
    return None


def _register(command: str | None = None):
    """Register the module defining ``command`` (every module when it is None or unknown)."""
    import importlib

    wanted = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else MODULES
    for name in wanted:
        if name not in _registered:
            _registered.add(name)
            importlib.import_module(f".{name}", __package__).register(_application())
    return _application()


def __getattr__(name: str):
    if name == "app":  # the whole command tree, for code that inspects it
        return _register()
    raise AttributeError(name)


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


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings reach people as one line on stderr, without a source location."""
    print(f"reverie: warning: {message}", file=sys.stderr, flush=True)


# Errors of the machine or the file system that the user can fix (a read-only folder, a full disk,
# a file where a folder belongs): one line, exit 1, rather than "internal error".
_USER_ERRNOS = {errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
                errno.EROFS: "read-only file system", errno.ENOSPC: "no space left on the device",
                errno.EDQUOT: "disk quota exceeded", errno.ENOTDIR: "a part of the path is not a folder",
                errno.EISDIR: "is a folder", errno.ENAMETOOLONG: "a name in the path is too long",
                errno.ELOOP: "too many levels of symbolic links"}


def _os_error(exc: OSError) -> str | None:
    if exc.errno not in _USER_ERRNOS:
        return None
    where = exc.filename if exc.filename is not None else ""
    if isinstance(where, (str, bytes)):
        from ..workspace.read import shown  # one line, never 4 KB of path

        where = shown(os.fsdecode(where))
    return f"cannot use {where}: {_USER_ERRNOS[exc.errno]}" if where else _USER_ERRNOS[exc.errno]


def run(argv: list[str] | None = None) -> None:
    from .fast import dispatch

    warnings.showwarning = _show_warning
    args = sys.argv[1:] if argv is None else argv
    if not _undecodable(args):
        code = dispatch(args)
        if code is not None:
            sys.exit(code)
    sys.exit(execute(args))


_built: dict = {}


def _command(args: list[str]):
    """The click command for ``args``: the modules it needs registered, built once per set of
    modules (a warm server runs many commands: each is built once)."""
    import typer

    from .helptext import tidy

    app = _register(_command_name(args))
    key = frozenset(_registered)
    if key not in _built:
        _built.clear()
        _built[key] = tidy(typer.main.get_command(app))
    return _built[key]


def execute(args: list[str]) -> int:
    """Run one command line; returns its exit code (messages already printed)."""
    bad = _undecodable(args)
    if bad:
        return _fail(bad, 1)
    command = _command(args)
    return guarded(lambda: command.main(args=list(args), prog_name="reverie", standalone_mode=False))


def guarded(work) -> int:
    """The exit code of ``work()`` (a command's body; its int result, else 0), every error turned into
    one line and its code. The full command line and the commands fast.py answers share it."""
    try:
        rv = work()
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
            code = _fail(_plain_words(message.splitlines()[0]), 1)
        elif kind == "Abort":
            code = _fail("interrupted", 130)
        elif isinstance(exc, OSError) and _os_error(exc):
            code = _fail(_os_error(exc), 1)  # type: ignore[arg-type]
        elif (damaged := _damaged(exc)) is not None:
            code = _fail(str(damaged), damaged.exit_code)
        elif type(exc).__name__ == "ReadOnlyError" and type(exc).__module__.startswith("apsw"):
            code = _fail(_read_only_home(), 1)
        else:
            code = _internal(exc)
    return code


# Typer checks values with pydantic and words its complaints that way; people get these instead.
_PLAIN = [(r"Input should be a valid integer.*", "must be a whole number"),
          (r"Input should be a valid number.*", "must be a number"),
          (r"Input should be greater than or equal to (\S+)", r"must be at least \1"),
          (r"Input should be less than or equal to (\S+)", r"must be at most \1"),
          (r"Input should be greater than (\S+)", r"must be more than \1"),
          (r"Input should be less than (\S+)", r"must be less than \1"),
          (r"Input should be a valid boolean.*", "must be true or false")]


def _plain():
    import re  # only when a complaint is worded (re costs a command that never needs it ~10 ms)

    return [(re.compile(p), words) for p, words in _PLAIN]


def _plain_words(message: str) -> str:
    for pattern, words in _plain():
        message = pattern.sub(words, message)
    return message


def _undecodable(args: list[str]) -> str | None:
    """Arguments that were not UTF-8 arrive holding lone surrogates (Python's surrogateescape):
    refused here, before a note or a query is written with bytes no one can read back."""
    for i, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError as exc:
            byte = ord(arg[exc.start]) - 0xDC00 if 0xDC80 <= ord(arg[exc.start]) <= 0xDCFF else None
            what = f"byte 0x{byte:02x}" if byte is not None else "a lone surrogate"
            return f"argument {i} is not valid UTF-8 text ({what} at position {exc.start}); nothing was done"
    return None


def _damaged(exc: Exception):
    """A database error: is it a damaged agent (or automations) database? Then name the repair."""
    if not type(exc).__module__.startswith("apsw"):
        return None
    from ..repair import diagnose
    from .basics import OPENED

    try:
        return diagnose(exc, OPENED)
    except Exception:  # a diagnosis must never hide the original error
        return None


def _read_only_home() -> str:
    """A command that must write met a database it can only read (a read-only home or mount)."""
    from .basics import OPENED

    where = f" in {OPENED[-1].home}" if OPENED else ""
    return (f"cannot write reverie's database{where}: it is read-only (a read-only file, folder or mount); "
            "nothing was changed")


def _internal(exc: Exception) -> int:
    """A fault of ours: one line, details only when asked for."""
    if os.environ.get("REVERIE_LOG") == "debug":
        import traceback

        traceback.print_exc()
    return _fail(f"internal error: {type(exc).__name__}: {exc} (set REVERIE_LOG=debug for details)", 2)


if __name__ == "__main__":  # pragma: no cover
    run()
