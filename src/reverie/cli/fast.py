"""Commands answered before the command-line framework loads: ``--version``, ``reverie mcp``, and
the light commands a running ``reverie serve`` answers for us.

Loading typer and building the command tree costs a few hundred milliseconds. An MCP host waits
only a few seconds for ``initialize`` (on a busy machine every one of them counts), and
``--version`` is what scripts and installers call to see that reverie is there. So these two read
their arguments here, with nothing imported but the standard library; anything this module does
not fully understand (``--help``, an unknown option, a typo) goes on to the full command line,
which gives the usual help and errors.

``reverie remember`` and ``reverie search`` run here too, without typer, when their arguments are
ones this module reads (theirs, ``--json`` and the options every command takes); anything else
(``--help``, a bad value) goes on to the full command line.

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


def parse_common(args: list[str], *, strict: bool = True, values: dict[str, str] | None = None,
                 flags: dict[str, str] | None = None) -> tuple[dict, list[str]] | None:
    """(the root options, the other words), or None when ``strict`` and an option is not one every
    command takes nor one of the command's own named here (the full parser then explains it).
    ``--opt=value`` and ``--opt value`` both work. ``values`` and ``flags`` (option -> key) are the
    command's own options: ``found["own"][key]`` is the list of a value option's values, True for a
    flag. Not strict, other options are passed over (a command's own, which the server reads)."""
    values, flags = values or {}, flags or {}
    found: dict = {"home": None, "agent": None, "workspace": None, "sets": [], "json": False, "own": {}}
    words: list[str] = []
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        if name in ROOT_VALUE_OPTIONS or name in values:
            if not eq:
                value = next(it, None)
                if value is None:
                    return None
            if name in values:
                found["own"].setdefault(values[name], []).append(value)
            elif name == "--set":
                found["sets"].append(value)
            else:
                found[name[2:]] = value
        elif arg == "--json":
            found["json"] = True
        elif arg in flags:
            found["own"][flags[arg]] = True
        elif arg.startswith("-"):
            if strict:
                return None
        else:
            words.append(arg)
    return found, words


def _opts(found: dict):
    """The options every command takes, as the commands' bodies read them."""
    from .basics import Opts

    return Opts(home=_path(found["home"]), agent=found["agent"], workspace=_path(found["workspace"]),
                sets=list(found["sets"]), json=found["json"])


def dispatch(args: list[str]) -> int | None:
    """The exit code of a command answered here, or None to go on to the full command line."""
    parsed = parse_common(args, flags={"--version": "version"})
    if parsed is not None and not parsed[1] and parsed[0]["own"].get("version"):  # (with --home and the like too)
        from .. import __version__

        print(f"reverie {__version__}")
        return 0
    parsed = parse_common(args)
    if parsed is not None and parsed[1] == ["mcp"]:
        return serve_mcp(parsed[0])
    loose = parse_common(args, strict=False)
    if loose is not None and loose[1] and loose[1][0] in DELEGATED and "--help" not in args and "-h" not in args:
        if loose[1][:2] == ["hook", "codex"] and os.environ.get("CODEX_HOME") and not any(
                a.partition("=")[0] == "--codex-home" for a in args):
            # the server runs with its own environment: notify finds the rollouts of the caller's Codex
            args = [*args, "--codex-home", os.environ["CODEX_HOME"]]
        code = delegate(args, loose[1], loose[0])
        return light(args, loose[1][0]) if code is None else code
    return None


def light(args: list[str], command: str | None = None) -> int | None:
    """``remember``, ``search`` and the host hooks run here without the command-line framework; None
    for anything else, or arguments these do not read (the full command line answers). A warm
    server runs the command lines it is sent through here too: parsing them with typer cost each
    call a millisecond or two."""
    if command is None:
        loose = parse_common(args, strict=False)
        if loose is None or not loose[1] or "--help" in args or "-h" in args:
            return None
        command = loose[1][0]
    if command == "hook":
        return hook_here(args)
    if command == "remember":
        return remember_here(args)
    if command == "search":
        return search_here(args)
    return None


def remember_here(args: list[str]) -> int | None:
    """``reverie remember TEXT`` (or ``--stdin``) in this process without the command-line framework:
    noting something is the command people and agents' shells run most, and its start is their
    wait. None: arguments this does not understand (the full command line answers, or explains)."""
    parsed = parse_common(args, flags={"--stdin": "stdin"})
    if parsed is None or parsed[1][:1] != ["remember"]:
        return None
    found, words = parsed
    from .main import guarded
    from .remember_run import remember

    o = _opts(found)
    return guarded(lambda: remember(o, words[1:], bool(found["own"].get("stdin"))))


_SEARCH_VALUES = {"--query": "query", "-q": "query", "--max-results": "max_results", "-n": "max_results",
                  "--min-score": "min_score", "--max-tokens": "max_tokens", "--project": "project"}
_SEARCH_FLAGS = {"--sensitive": "sensitive", "--explain": "explain", "--signal": "signal"}


def search_here(args: list[str]) -> int | None:
    """``reverie search`` in this process without the command-line framework (its options read
    here; a value this does not accept, such as ``-n 0``, goes to the full command line, which
    says what is wrong). None: arguments this does not understand."""
    parsed = parse_common(args, values=_SEARCH_VALUES, flags=_SEARCH_FLAGS)
    if parsed is None or parsed[1][:1] != ["search"] or len(parsed[1]) > 2:
        return None
    found, words = parsed
    own = found["own"]
    last = {key: own[key][-1] for key in ("query", "max_results", "min_score", "max_tokens") if key in own}  # as click
    try:
        n = int(last["max_results"]) if "max_results" in last else None
        floor = float(last["min_score"]) if "min_score" in last else None
        budget = int(last["max_tokens"]) if "max_tokens" in last else None
    except ValueError:
        return None
    if (n is not None and n < 1) or (floor is not None and not 0.0 <= floor <= 1.0) or \
            (budget is not None and not 1 <= budget <= 100_000):
        return None
    query = last.get("query", words[1] if len(words) > 1 else None)
    from .main import guarded
    from .search_run import search

    o = _opts(found)
    flags = {key: bool(own.get(key)) for key in _SEARCH_FLAGS.values()}
    return guarded(lambda: search(o, query, n, floor, project=own.get("project") or None, max_tokens=budget,
                                  **flags))


def hook_here(args: list[str]) -> int | None:
    """A host's hook (Claude Code, Codex) in this process, without the command-line framework (a
    hook runs on every prompt: its start-up is the user's wait). None: arguments this does not
    understand (the full command line then answers, or explains)."""
    rest, own = [], {"--kind": "main", "--codex-home": None}
    it = iter(args)
    for arg in it:
        name = arg.partition("=")[0]
        if name in own:
            own[name] = arg.partition("=")[2] if "=" in arg else next(it, "")
        else:
            rest.append(arg)
    parsed = parse_common(rest)
    if parsed is None or len(parsed[1]) < 2:
        return None
    found, words = parsed
    host, extra = words[1], words[2:]
    if host not in ("claude-code", "codex") or len(extra) > (2 if host == "codex" else 1) or (
            host == "claude-code" and own["--codex-home"] is not None):
        return None
    event = extra[0] if extra else None
    from ..hosts.hooks import answer

    def open_memory():
        from .basics import hook_memory

        return hook_memory(_opts(found))

    if host == "claude-code":
        from ..hosts import claude_code as cc

        return answer(lambda: cc.run_hook(open_memory, sys.stdin.read(), event, own["--kind"]))
    from ..hosts import codex as cx

    if event == cx.NOTIFY and len(extra) < 2:
        return None  # the full command line says what is missing
    raw = extra[1] if event == cx.NOTIFY else None
    return answer(lambda: cx.run(open_memory, event, raw if raw is not None else sys.stdin.read(),
                                 kind=own["--kind"], home=own["--codex-home"]))


def _path(value):
    from pathlib import Path

    return Path(value).expanduser() if value else None


# the commands a running server may answer (reverie.serve.bridge.COMMANDS says the same there)
DELEGATED = frozenset({"search", "get", "remember", "status", "context", "tools", "hook"})
READS_STDIN = frozenset({"hook"})
# a hook that the server does not answer in this long runs here instead (Claude Code gives a hook 30 s)
HOOK_SECONDS = 20.0


def delegate(args: list[str], words: list[str], found: dict) -> int | None:
    """The exit code of ``args`` run by the home's server, or None to run it here."""
    command = words[0]
    # Codex's notify program gets its JSON as an argument, and no input of its own to wait for
    reads_stdin = command in READS_STDIN and not (words[1:2] == ["codex"] and "notify" in words[2:])
    env = os.environ
    if env.get("REVERIE_SERVE", "").lower() in ("off", "0", "no", "false"):
        return None
    home = os.path.abspath(os.path.expanduser(found["home"] or env.get("REVERIE_HOME") or "~/.reverie"))
    stdin = None
    answer = None
    try:
        from ..serve.client import call_cli, reach

        if reach(home) is None:
            return None  # before reading stdin: with no server, the command reads it itself
        if reads_stdin or "--stdin" in args or "-" in args:
            stdin = sys.stdin.buffer.read()
            stdin.decode("utf-8")  # not UTF-8: the command here says so, as it always has
        answer = call_cli(home, args, command, found, stdin.decode("utf-8") if stdin is not None else None,
                          timeout=HOOK_SECONDS if command == "hook" else None)
    except Exception:  # the server is a shortcut: anything wrong with it, and the command runs here
        answer = None
    if answer is None:
        if stdin is not None:  # already read: the command runs here with what was read
            import io

            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        return None
    sys.stdout.write(answer.get("stdout", ""))
    sys.stdout.flush()
    sys.stderr.write(answer.get("stderr", ""))
    sys.stderr.flush()
    return int(answer.get("code", 2))


def serve_mcp(found: dict) -> int:
    from ..mcp.server import open_agent
    from ..mcp.stdio import serve_stdio

    agent = open_agent(home=_path(found["home"]), agent=found["agent"], workspace=_path(found["workspace"]),
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
