"""Commands answered before the command-line framework loads: ``--version`` and ``reverie mcp``.

Loading typer and building the command tree costs a few hundred milliseconds. An MCP host waits
only a few seconds for ``initialize`` (on a busy machine every one of them counts), and
``--version`` is what scripts and installers call to see that reverie is there. So these two read
their arguments here, with nothing imported but the standard library; anything this module does
not fully understand (``--help``, an unknown option, a typo) goes on to the full command line,
which gives the usual help and errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT_VALUE_OPTIONS = ("--home", "--agent", "--workspace", "--set")


def parse_common(args: list[str]) -> tuple[dict, list[str]] | None:
    """(the root options, the other words), or None when an option is not one every command
    takes (the full parser then explains it). ``--opt=value`` and ``--opt value`` both work."""
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
    if parsed is None:
        return None
    found, words = parsed
    if words == ["mcp"]:
        return serve_mcp(found)
    return None


def serve_mcp(found: dict) -> int:
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
