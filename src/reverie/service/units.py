"""The files that make ``reverie serve`` a per-user service, rendered as text: pure functions, no
typer, no subprocess (the command in reverie.cli.service_cmd writes them and runs the manager).

One service per reverie home: the default home (``~/.reverie``) gets the plain name
(``reverie.service``, ``dev.reverie.serve``), any other home the plain name plus a short hash of
its path, so two homes can each have one and an uninstall can only ever touch its own home's.
"""

from __future__ import annotations

import hashlib
import plistlib
import re
import shlex
import subprocess
from pathlib import Path
from typing import Mapping

SERVE_DEFAULT_PORT = 8766  # `reverie serve`'s own default, for the "two services, one port" warning
SYSTEMD_NAME = "reverie"
LAUNCHD_LABEL = "dev.reverie.serve"
HOME_KEY = "X-Reverie-Home"  # systemd ignores X- keys: ours names the home the unit belongs to
ENV_FILE = "serve.env"  # <home>/serve.env, read by the systemd unit when it exists (secrets go there)
LOG_FILE = ("logs", "serve.log")  # launchd has no journal: stdout and stderr go to <home>/logs/serve.log

# Names that hold credentials are never copied into a unit file (it is world-readable, and in
# dotfile repositories); nor is a value that carries a password (a DSN with user:password@).
SECRET_WORDS = ("KEY", "TOKEN", "PASSWORD", "SECRET")
_SECRET_VALUE = re.compile(r"://[^/@\s]*:[^/@\s]*@|password\s*=", re.IGNORECASE)
# Replaced by --home in the command line: carrying it over could only contradict it.
_NOT_CARRIED = {"REVERIE_HOME"}


def home_hash(home: Path) -> str:
    return hashlib.sha256(str(home).encode("utf-8", "surrogateescape")).hexdigest()[:8]


def is_default_home(home: Path, user_home: Path) -> bool:
    return home == (user_home / ".reverie")


def systemd_name(home: Path, user_home: Path) -> str:
    base = SYSTEMD_NAME if is_default_home(home, user_home) else f"{SYSTEMD_NAME}-{home_hash(home)}"
    return f"{base}.service"


def launchd_label(home: Path, user_home: Path) -> str:
    return LAUNCHD_LABEL if is_default_home(home, user_home) else f"{LAUNCHD_LABEL}.{home_hash(home)}"


def systemd_dir(env: Mapping[str, str], user_home: Path) -> Path:
    """Where systemd looks for a user's own units. $XDG_CONFIG_HOME counts only when absolute (the
    XDG rule, which systemd follows too)."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else user_home / ".config"
    return base / "systemd" / "user"


def launchd_dir(user_home: Path) -> Path:
    return user_home / "Library" / "LaunchAgents"


def serve_argv(python: str, home: Path, port: int | None = None) -> list[str]:
    """The service's command: this interpreter (the one reverie is installed in; not resolved, a
    venv's python is a symlink whose target does not see the venv) running the CLI module."""
    argv = [python, "-m", "reverie.cli.main", "--home", str(home), "serve"]
    return argv + (["--port", str(port)] if port is not None else [])


def is_secret(name: str, value: str) -> bool:
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS) or bool(_SECRET_VALUE.search(value))


def split_environment(env: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """(the variables the service gets, the secret ones left out): the REVERIE_* settings set
    now, and TZ; sorted, so the same shell renders the same file."""
    kept: dict[str, str] = {}
    left_out: list[str] = []
    for name in sorted(env):
        if not (name.startswith("REVERIE_") or name == "TZ") or name in _NOT_CARRIED:
            continue
        if is_secret(name, env[name]):
            left_out.append(name)
        else:
            kept[name] = env[name]
    return kept, left_out


# -- systemd ---------------------------------------------------------------------------------------
_SAFE_WORD = re.compile(r"[A-Za-z0-9_@+=:,./-]+")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _c_escape(text: str) -> str:
    return "".join(_ESCAPES.get(c) or (f"\\x{ord(c):02x}" if ord(c) < 32 or ord(c) == 127 else c) for c in text)


def systemd_word(word: str) -> str:
    """One word of an Exec line: '%' starts a specifier and '$' a variable (both doubled), and a
    word with anything beyond plain path characters (a space) goes in double quotes, C-escaped."""
    word = word.replace("%", "%%").replace("$", "$$")
    return word if _SAFE_WORD.fullmatch(word) else f'"{_c_escape(word)}"'


def systemd_assignment(name: str, value: str) -> str:
    """One Environment= assignment, always quoted (no '$' expansion there, specifiers still)."""
    return f'"{_c_escape(f"{name}={value}").replace("%", "%%")}"'


def _plain_line(text: str) -> str:
    """A value that runs to the end of the line (Description=, a path): specifiers doubled, no
    control characters."""
    return "".join("?" if ord(c) < 32 or ord(c) == 127 else c for c in text).replace("%", "%%")


def systemd_unit(home: Path, argv: list[str], environment: Mapping[str, str]) -> str:
    lines = ["# Written by `reverie service install` for the home below; `reverie service uninstall` removes it.",
             "# Secrets do not belong here (this file is readable by others): put them in the home's",
             f"# reverie.toml or in {ENV_FILE} beside it (NAME=value lines, read below when it exists).",
             "[Unit]",
             f"Description=reverie serve (memory server, scheduler, web view) for {_plain_line(str(home))}",
             f"{HOME_KEY}={home}",
             "",
             "[Service]",
             "Type=simple",
             "ExecStart=" + " ".join(systemd_word(w) for w in argv),
             # unbuffered: lines reach the journal as they are written, in order
             "Environment=PYTHONUNBUFFERED=1"]
    lines += [f"Environment={systemd_assignment(k, v)}" for k, v in environment.items()]
    lines += [f"EnvironmentFile=-{_plain_line(str(home / ENV_FILE))}",
              "Restart=on-failure",
              "RestartSec=5",
              "",
              "[Install]",
              "WantedBy=default.target",
              ""]
    return "\n".join(lines)


def unit_home(text: str) -> str | None:
    """The home a unit file was written for (its X-Reverie-Home), None for a file not ours."""
    for line in text.splitlines():
        if line.startswith(f"{HOME_KEY}="):
            return line[len(HOME_KEY) + 1:]
    return None


def unit_port(text: str) -> int | None:
    """The --port a unit gives `serve` (ours end their ExecStart with serve [--port N]); None:
    serve's default."""
    for line in text.splitlines():
        found = re.match(r"ExecStart=.*\sserve\s+--port\s+(\d+)\s*$", line)
        if found:
            return int(found.group(1))
    return None


# -- launchd ---------------------------------------------------------------------------------------
def launchd_plist(label: str, home: Path, argv: list[str], environment: Mapping[str, str]) -> str:
    log = str(home.joinpath(*LOG_FILE))
    doc = {"Label": label,
           "ProgramArguments": list(argv),
           "EnvironmentVariables": {"PYTHONUNBUFFERED": "1", **environment},
           "RunAtLoad": True,
           "KeepAlive": {"SuccessfulExit": False},  # started again when it fails, not after a clean stop
           "ThrottleInterval": 5,
           "StandardOutPath": log,
           "StandardErrorPath": log}
    return plistlib.dumps(doc, fmt=plistlib.FMT_XML, sort_keys=True).decode("utf-8")


def plist_argv(text: str, label: str) -> list[str] | None:
    """The command of a launchd agent we wrote (its label, reverie's CLI module), else None."""
    try:
        doc = plistlib.loads(text.encode("utf-8"))
    except Exception:  # not a plist at all: not ours
        return None
    if not isinstance(doc, dict) or doc.get("Label") != label:
        return None
    args = doc.get("ProgramArguments")
    if not isinstance(args, list) or "reverie.cli.main" not in args or "--home" not in args[:-1]:
        return None
    return [str(a) for a in args]


def plist_home(text: str, label: str) -> str | None:
    """The home a launchd agent was written for by us (its `--home H`), else None."""
    args = plist_argv(text, label)
    return args[args.index("--home") + 1] if args else None


def argv_port(argv: list[str]) -> int | None:
    """The --port a `serve` command line gives; None: serve's default."""
    if "--port" in argv[:-1] and argv[argv.index("--port") + 1].isdigit():
        return int(argv[argv.index("--port") + 1])
    return None


# -- elsewhere -------------------------------------------------------------------------------------
def command_line(argv: list[str], windows: bool) -> str:
    """The command as one line for that system's shell."""
    return subprocess.list2cmdline(argv) if windows else shlex.join(argv)
