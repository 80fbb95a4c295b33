"""Commands answered before the command-line framework loads: ``--version``, ``reverie mcp``, and
the light commands a running ``reverie serve`` answers for us.

Loading typer and building the command tree costs a few hundred milliseconds. An MCP host waits
only a few seconds for ``initialize`` (on a busy machine every one of them counts), and
``--version`` is what scripts and installers call to see that reverie is there. So these two read
their arguments here, with nothing imported but the standard library; anything this module does
not fully understand (``--help``, an unknown option, a typo) goes on to the full command line,
which gives the usual help and errors.

With ``reverie serve`` running for the home, ``search``, ``get``, ``remember``, ``status``,
``context``, ``tools`` and the host hooks (``hook``) are sent to it over its Unix socket, with
their standard input when they read it, and run there by the same code (its imports done, its
embedder loaded): the output and the exit code are the command's own. When the server cannot take
a command line (another home, other ``REVERIE_*`` variables) or cannot be reached, the command runs
here as it always has. ``REVERIE_SERVE=off`` never asks it.
"""

from __future__ import annotations

import os
import sys

ROOT_VALUE_OPTIONS = ("--home", "--agent", "--workspace", "--set")


def parse_common(args: list[str], *, strict: bool = True) -> tuple[dict, list[str]] | None:
    """(the root options, the other words), or None when ``strict`` and an option is not one every
    command takes (the full parser then explains it). ``--opt=value`` and ``--opt value`` both
    work. Not strict, other options are passed over (a command's own, which the server reads)."""
    found: dict = {"home": None, "agent": None, "workspace": None, "sets": [], "json": False}
    words: list[str] = []
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        if name in ROOT_VALUE_OPTIONS:
            if not eq:
                value = next(it, None)
                if value is None:
                    return None
            key = name[2:]
            if key == "set":
                found["sets"].append(value)
            else:
                found[key] = value
        elif arg == "--json":
            found["json"] = True
        elif arg.startswith("-"):
            if strict:
                return None
        else:
            words.append(arg)
    return found, words


def dispatch(args: list[str]) -> int | None:
    """The exit code of a command answered here, or None to go on to the full command line."""
    if args == ["--version"]:
        from .. import __version__

        print(f"reverie {__version__}")
        return 0
    parsed = parse_common(args)
    if parsed is not None and parsed[1] == ["mcp"]:
        return serve_mcp(parsed[0])
    loose = parse_common(args, strict=False)
    if loose is not None and loose[1] and loose[1][0] in DELEGATED and "--help" not in args and "-h" not in args:
        return delegate(args, loose[1][0], loose[0])
    return None


# the commands a running server may answer (reverie.serve.bridge.COMMANDS says the same there)
DELEGATED = frozenset({"search", "get", "remember", "status", "context", "tools", "hook"})
READS_STDIN = frozenset({"hook"})


def delegate(args: list[str], command: str, found: dict) -> int | None:
    """The exit code of ``args`` run by the home's server, or None to run it here."""
    env = os.environ
    if env.get("REVERIE_SERVE", "").lower() in ("off", "0", "no", "false"):
        return None
    home = os.path.abspath(os.path.expanduser(found["home"] or env.get("REVERIE_HOME") or "~/.reverie"))
    stdin = None
    answer = None
    try:
        from ..serve.client import call_cli
        from ..serve.state import running

        if not running(home):
            return None  # before reading stdin: with no server, the command reads it itself
        if command in READS_STDIN or "--stdin" in args or "-" in args:
            stdin = sys.stdin.read()
        answer = call_cli(home, args, command, found, stdin)
    except Exception:  # the server is a shortcut: anything wrong with it, and the command runs here
        answer = None
    if answer is None:
        if stdin is not None:  # already read: the command runs here with what was read
            import io

            sys.stdin = io.StringIO(stdin)
        return None
    sys.stdout.write(answer.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(answer.get("stderr", ""))
    sys.stderr.flush()
    return int(answer.get("code", 2))


def serve_mcp(found: dict) -> int:
    from pathlib import Path

    from ..mcp.server import open_agent
    from ..mcp.stdio import serve_stdio

    def path(value):
        return Path(value).expanduser() if value else None

    agent = open_agent(home=path(found["home"]), agent=found["agent"], workspace=path(found["workspace"]),
                       overrides=found["sets"])

    def refused(exc: BaseException) -> int | None:
        from ..errors import ReverieError

        if isinstance(exc, ReverieError):  # a bad setting or home: one line, as every command says it
            message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            print(f"reverie: error: {message}", file=sys.stderr, flush=True)
            return exc.exit_code
        return None

    try:
        return serve_stdio(agent.tools, warm=agent.warm, on_open_error=refused)
    finally:
        agent.close()
