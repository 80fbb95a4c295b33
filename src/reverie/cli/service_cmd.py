"""reverie service install | uninstall | status: `reverie serve` as a per-user service, started at
login and again after a failure (a systemd user unit on Linux, a launchd agent on macOS), so
Dreaming and automations run without a terminal kept open. See docs/service.md."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import HomeOpt, JsonOpt, emit, opts, say

TIMEOUT = 60  # seconds for one systemctl / launchctl call: a hung user bus must not hang the command
LINGER_DIR = Path("/var/lib/systemd/linger")  # logind keeps an empty file per user with lingering on
# What `systemctl is-active` prints when it reached the manager; nothing (and a bus error on
# stderr) when it did not.
_STATES = {"active", "inactive", "failed", "activating", "deactivating", "reloading", "refreshing",
           "maintenance", "unknown"}


def _examples(*lines: str) -> str:
    return "[bold]Examples[/bold]\n" + "\n".join(f"  {line}" for line in lines)


def _system() -> str:
    if sys.platform.startswith("linux"):
        return "systemd"
    if sys.platform == "darwin":
        return "launchd"
    return "none"


@dataclass
class _Target:
    """The service of one home on this system: its name, its file, and what install would write."""

    system: str  # systemd | launchd | none
    home: Path
    name: str  # unit name or launchd label ("" where there is no service manager)
    path: Path | None
    argv: list[str]
    content: str | None
    left_out: list[str]
    existing: str | None  # the file there now
    owner: str | None  # the home the file there now was written for (None: absent, or not ours)

    @property
    def ours(self) -> bool:
        return self.existing is not None and self.owner == str(self.home)


def _home(raw: Path | None) -> Path:
    from ..paths import default_home, expand

    home = expand(raw, "home") if raw else default_home()
    text = os.path.abspath(home)  # absolute and without '..': the same home gets the same name
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise UserError(f"reverie home {text!r} has a control character in its path; a service cannot name it")
    return Path(text)


def _read(path: Path | None) -> str | None:
    if path is None:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        return ""  # not text: certainly not a file of ours


def _target(raw_home: Path | None, port: int | None = None) -> _Target:
    from ..service import units

    home = _home(raw_home)
    system, user_home = _system(), Path.home()
    environment, left_out = units.split_environment(os.environ)
    if system == "systemd":
        name = units.systemd_name(home, user_home)
        path: Path | None = units.systemd_dir(os.environ, user_home) / name
    elif system == "launchd":
        name = units.launchd_label(home, user_home)
        path = units.launchd_dir(user_home) / f"{name}.plist"
    else:
        name, path = "", None
    existing = _read(path)
    owner = None
    if existing is not None:
        owner = units.unit_home(existing) if system == "systemd" else units.plist_home(existing, name)
        if port is None and owner == str(home):
            # a reinstall (a new interpreter, other settings) keeps the port the service was given
            port = units.unit_port(existing) if system == "systemd" else units.argv_port(
                units.plist_argv(existing, name) or [])
    python = sys.executable
    if not python:
        raise UserError("cannot tell which Python interpreter runs reverie (sys.executable is empty)")
    argv = units.serve_argv(os.path.abspath(python), home, port)
    content = None
    if system == "systemd":
        content = units.systemd_unit(home, argv, environment)
    elif system == "launchd":
        content = units.launchd_plist(name, home, argv, environment)
    return _Target(system, home, name, path, argv, content, left_out, existing, owner)


def _port(t: _Target) -> int:
    from ..service import units

    return units.argv_port(t.argv) or units.SERVE_DEFAULT_PORT


@dataclass
class _Runner:
    """Runs the service manager's commands and keeps what ran (for --json and the tests)."""

    ran: list[dict] = field(default_factory=list)

    def __call__(self, *argv: str) -> tuple[int, str, str]:
        try:
            done = subprocess.run(list(argv), capture_output=True, text=True, timeout=TIMEOUT,
                                  stdin=subprocess.DEVNULL)
            rc, out, err = done.returncode, done.stdout.strip(), done.stderr.strip()
        except FileNotFoundError:
            rc, out, err = 127, "", f"{argv[0]} not found"
        except subprocess.TimeoutExpired:
            rc, out, err = 124, "", f"no answer in {TIMEOUT} s"
        self.ran.append({"command": shlex.join(argv), "exitCode": rc})
        return rc, out, err


def _first_line(err: str, rc: int) -> str:
    return (err.splitlines() or [f"exit code {rc}"])[0]


def _sc(*args: str) -> list[str]:
    return ["systemctl", "--user", *args]


def _joined(commands: list[list[str]]) -> str:
    return " && ".join(shlex.join(c) for c in commands)


def _lingering() -> bool:
    import getpass

    try:
        return (LINGER_DIR / getpass.getuser()).exists()
    except Exception:  # no user name to look up: say how to turn it on
        return False


def _write(path: Path, text: str) -> None:
    """Written whole or not at all: a half-written unit would be read by the manager."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _secret_notes(t: _Target) -> list[str]:
    """Secrets never go into the unit file; say where each one goes instead."""
    notes = []
    if t.left_out:
        from ..config import ENV_KEYS

        names = ", ".join(f"{n} (setting {ENV_KEYS[n]})" if n in ENV_KEYS else n for n in t.left_out)
        alt = f", or as NAME=value lines in {t.home / 'serve.env'} (chmod 600)" if t.system == "systemd" else ""
        notes.append(f"left out of the service, secrets are never written into it: {names}; put them in "
                     f"{t.home / 'reverie.toml'} under those settings{alt}")
    provider = sorted(n for n in os.environ if n.endswith("_API_KEY") and not n.startswith("REVERIE_"))
    if provider:
        one = len(provider) == 1
        it = "it" if one else "them"
        alt = f"{t.home / 'serve.env'} or " if t.system == "systemd" else ""
        notes.append(f"{', '.join(provider)} {'is' if one else 'are'} set in this shell, but a service does not see "
                     f"your shell: if it needs {it}, put {it} in {alt}an apiKey setting of {t.home / 'reverie.toml'}")
    return notes


def _port_notes(t: _Target) -> list[str]:
    """Two services on one port: the second would fail and restart for ever."""
    from ..service import units

    if t.path is None or not t.path.parent.is_dir():
        return []
    pattern = "reverie*.service" if t.system == "systemd" else f"{units.LAUNCHD_LABEL}*.plist"
    port, notes = _port(t), []
    for other in sorted(t.path.parent.glob(pattern)):
        if other.name == t.path.name:
            continue
        text = _read(other) or ""
        if t.system == "systemd":
            home, their = units.unit_home(text), units.unit_port(text)
        else:
            label = other.name.removesuffix(".plist")
            home, their = units.plist_home(text, label), units.argv_port(units.plist_argv(text, label) or [])
        if home is not None and (their or units.SERVE_DEFAULT_PORT) == port:
            notes.append(f"the service of {home} ({other}) uses port {port} too: only one of them can run; "
                         f"give this one another port ({_command(t, 'install')} --port {port + 1})")
    return notes


# -- systemd -----------------------------------------------------------------------------------------
def _systemd_plan(t: _Target, action: str) -> list[list[str]]:
    """What runs once the unit file is in place."""
    if action == "installed":
        return [_sc("daemon-reload"), _sc("enable", "--now", t.name)]
    if action == "updated":
        return [_sc("daemon-reload"), _sc("enable", t.name), _sc("restart", t.name)]
    return [_sc("enable", "--now", t.name)]  # unchanged: only when it is not running


def _unreachable(t: _Target, why: str, todo: list[list[str]]) -> str:
    return (f"the systemd user manager is not reachable here ({why}), so the service was not started; "
            f"the unit is written: in a login session, run `{_joined(todo)}`, and "
            "`loginctl enable-linger $USER` to keep it running while you are logged out")


def _failed(t: _Target, cmd: list[str], rc: int, err: str) -> UserError:
    return UserError(f"{t.path} is written, but `{shlex.join(cmd)}` failed: {_first_line(err, rc)} "
                     f"(logs: {_logs_hint(t)})")


def _start_systemd(t: _Target, action: str, run: _Runner) -> dict:
    todo = _systemd_plan(t, action)
    if shutil.which("systemctl") is None:
        return {"manager": "missing", "active": None,
                "notes": [f"systemctl is not on PATH, so nothing was started: on a system with systemd, run "
                          f"`{_joined(todo)}`; elsewhere start `{shlex.join(t.argv)}` at login another way"]}
    if action == "unchanged":
        rc, out, err = run(*_sc("is-active", t.name))
        if out not in _STATES:
            return {"manager": "unreachable", "active": None, "notes": [_unreachable(t, _first_line(err, rc), todo)]}
        if rc == 0:
            return {"manager": "ok", "active": True, "notes": []}
    else:
        rc, out, err = run(*todo[0])
        if rc != 0:
            return {"manager": "unreachable", "active": None, "notes": [_unreachable(t, _first_line(err, rc), todo)]}
        todo = todo[1:]
    for cmd in todo:
        rc, out, err = run(*cmd)
        if rc != 0:
            raise _failed(t, cmd, rc, err)
    notes = [f"{'restarted' if action == 'updated' else 'started'}: {_joined(todo)}"]
    if not _lingering():
        notes.append("it runs while you are logged in; `loginctl enable-linger $USER` keeps it running after "
                     "you log out (and starts it at boot)")
    return {"manager": "ok", "active": True, "notes": notes}


def _systemd_state(t: _Target, run: _Runner) -> dict:
    if shutil.which("systemctl") is None:
        return {"manager": "missing", "active": None, "state": None, "enabled": None}
    rc, out, err = run(*_sc("is-active", t.name))
    if out not in _STATES:
        return {"manager": "unreachable", "active": None, "state": None, "enabled": None,
                "why": _first_line(err, rc)}
    _, enabled, _ = run(*_sc("is-enabled", t.name))
    return {"manager": "ok", "active": rc == 0, "state": out, "enabled": enabled == "enabled"}


def _stop_systemd(t: _Target, run: _Runner) -> list[str]:
    """Stop and disable the unit, remove its file, tell the manager."""
    assert t.path is not None
    reachable = shutil.which("systemctl") is not None
    if reachable:
        rc, out, err = run(*_sc("disable", "--now", t.name))
        if rc != 0:
            _, state, _ = run(*_sc("is-active", t.name))
            if state in _STATES:  # the manager answered: a real failure, keep the file
                raise UserError(f"`systemctl --user disable --now {t.name}` failed: {_first_line(err, rc)}; "
                                f"{t.path} is left as it is")
            reachable = False
    t.path.unlink()
    notes = [f"removed {t.path}"]
    if reachable:
        run(*_sc("daemon-reload"))
        run(*_sc("reset-failed", t.name))  # forget a failed state too (an error here is no matter)
        notes.insert(0, f"stopped and disabled {t.name}")
        return notes
    # what `disable` would have removed: the link `enable` made (only that one, only if it is a link)
    link = t.path.parent / "default.target.wants" / t.name
    if link.is_symlink():
        link.unlink()
        notes.append(f"removed {link}")
    notes.append(f"the systemd user manager was not reachable: if {t.name} is still running in a login "
                 f"session, stop it there with `systemctl --user stop {t.name}`")
    return notes


# -- launchd -----------------------------------------------------------------------------------------
def _domain() -> str:
    return f"gui/{os.getuid()}"  # type: ignore[attr-defined]  (macOS only)


def _launchd_plan(t: _Target, action: str) -> list[list[str]]:
    bootstrap = ["launchctl", "bootstrap", _domain(), str(t.path)]
    if action == "updated":
        return [["launchctl", "bootout", f"{_domain()}/{t.name}"], bootstrap]
    return [bootstrap]


def _start_launchd(t: _Target, action: str, run: _Runner) -> dict:
    todo = _launchd_plan(t, action)
    if shutil.which("launchctl") is None:
        return {"manager": "missing", "active": None,
                "notes": [f"launchctl is not on PATH, so nothing was started: run `{_joined(todo)}`"]}
    if action == "unchanged":
        rc, _, _ = run("launchctl", "print", f"{_domain()}/{t.name}")
        if rc == 0:
            return {"manager": "ok", "active": True, "notes": []}
    elif action == "updated":
        run(*todo[0])  # unload the old definition; not loaded is fine
        # bootout returns before the job is gone, and a bootstrap meanwhile fails ("in progress")
        for _ in range(25):
            if subprocess.run(["launchctl", "print", f"{_domain()}/{t.name}"], capture_output=True,
                              timeout=TIMEOUT).returncode != 0:
                break
            time.sleep(0.2)
    rc, _, err = run(*todo[-1])
    if rc != 0:  # older macOS, or no GUI domain (ssh): the legacy verb
        legacy = ["launchctl", "load", "-w", str(t.path)]
        rc2, _, err2 = run(*legacy)
        if rc2 != 0:
            raise _failed(t, todo[-1], rc, err or err2)
    return {"manager": "ok", "active": True, "notes": [f"loaded {t.name} (logs: {t.home / 'logs' / 'serve.log'})"]}


def _launchd_state(t: _Target, run: _Runner) -> dict:
    import re

    if shutil.which("launchctl") is None:
        return {"manager": "missing", "active": None, "state": None, "enabled": None}
    rc, out, _ = run("launchctl", "print", f"{_domain()}/{t.name}")
    if rc != 0:
        return {"manager": "ok", "active": False, "state": "not loaded", "enabled": False}
    state = re.search(r"^\s*state = (.+)$", out, re.MULTILINE)
    word = state.group(1).strip() if state else "loaded"
    return {"manager": "ok", "active": word == "running", "state": word, "enabled": True}


def _stop_launchd(t: _Target, run: _Runner) -> list[str]:
    assert t.path is not None
    notes = []
    if shutil.which("launchctl") is not None:
        rc, _, _ = run("launchctl", "bootout", f"{_domain()}/{t.name}")
        if rc != 0:  # older macOS; "not loaded" is no matter either way
            rc, _, _ = run("launchctl", "unload", "-w", str(t.path))
        if rc == 0:
            notes.append(f"stopped {t.name}")
    t.path.unlink()
    return [*notes, f"removed {t.path}"]


# -- the commands --------------------------------------------------------------------------------
def _command(t: _Target, verb: str) -> str:
    """The command for this home, as the user would type it."""
    from ..service.units import is_default_home

    if is_default_home(t.home, Path.home()) and not os.environ.get("REVERIE_HOME"):
        return f"reverie service {verb}"
    return f"reverie --home {shlex.quote(str(t.home))} service {verb}"


def _logs_hint(t: _Target) -> str:
    if t.system == "systemd":
        return f"journalctl --user -u {t.name}"
    return str(t.home / "logs" / "serve.log")


def _no_manager(t: _Target, o, dry_run: bool) -> None:
    from ..service.units import command_line

    line = command_line(t.argv, windows=sys.platform.startswith("win"))
    emit(o, {"system": "none", "platform": sys.platform, "home": str(t.home), "dryRun": dry_run,
             "written": False, "command": t.argv, "commandLine": line},
         lambda d: (say(f"reverie installs no service on this system ({sys.platform}); nothing was written. "
                        "To run reverie's server at login, start this command then (on Windows: Task Scheduler, "
                        "trigger \"At log on\"):"), print(line)))


def _install(o, port: int | None, dry_run: bool) -> None:
    t = _target(o.home, port)
    if not t.home.is_dir():
        what = "is not a folder" if t.home.exists() else "does not exist"
        raise UserError(f"reverie home {t.home} {what} (check --home / REVERIE_HOME; "
                        f"`reverie --home {shlex.quote(str(t.home))} init` creates it)")
    if t.system == "none":
        return _no_manager(t, o, dry_run)
    assert t.path is not None and t.content is not None
    if t.existing is not None and not t.ours:
        raise UserError(f"{t.path} exists and was not written by `reverie service install` for {t.home}: "
                        "move it away first (nothing was changed)")
    action = "installed" if t.existing is None else "unchanged" if t.existing == t.content else "updated"
    notes = [*_port_notes(t), *_secret_notes(t)]
    plan = (_systemd_plan if t.system == "systemd" else _launchd_plan)(t, action)
    doc = {"system": t.system, "home": str(t.home), "name": t.name, "path": str(t.path), "port": _port(t),
           "action": action, "dryRun": dry_run, "written": False, "content": t.content,
           "leftOut": t.left_out, "logs": _logs_hint(t)}
    if dry_run:
        if action == "unchanged":
            check = (shlex.join(_sc("is-active", t.name)) if t.system == "systemd"
                     else shlex.join(["launchctl", "print", f"{_domain()}/{t.name}"]))
            said = [f"already installed, {t.path} is unchanged: would only check it is running ({check}) and "
                    f"start it if not ({_joined(plan)})"]
        else:
            said = [f"would {'write' if action == 'installed' else 'rewrite'} {t.path} (shown on stdout)",
                    "would run:", *(f"  {shlex.join(c)}" for c in plan)]
        doc.update(commands=[shlex.join(c) for c in plan], notes=notes)
        emit(o, doc, lambda d: (print(t.content, end=""), [say(line) for line in [*said, *notes]]))
        return
    if action != "unchanged":
        if t.system == "launchd":
            (t.home / "logs").mkdir(exist_ok=True)  # launchd opens the log file but makes no folder
        _write(t.path, t.content)
    run = _Runner()
    started = (_start_systemd if t.system == "systemd" else _start_launchd)(t, action, run)
    notes = [*started.pop("notes"), *notes]
    doc.update(written=action != "unchanged", commands=[r["command"] for r in run.ran], notes=notes, **started)
    head = {"installed": f"installed {t.name}: {t.path}", "updated": f"updated {t.path} (it differed)",
            "unchanged": f"already installed: {t.path} is unchanged"}[action]
    emit(o, doc, lambda d: [say(line) for line in [head, *notes, f"logs: {_logs_hint(t)}",
                                                   f"check it with: {_command(t, 'status')}"]])


def _uninstall(o, dry_run: bool) -> None:
    t = _target(o.home)
    doc = {"system": t.system, "home": str(t.home), "name": t.name, "path": str(t.path) if t.path else None,
           "dryRun": dry_run, "removed": False}
    if t.path is None or t.existing is None:
        where = f" (no {t.path})" if t.path else ""
        emit(o, doc, lambda d: say(f"no service is installed for {t.home}{where}; nothing to do"))
        return
    if not t.ours:
        raise UserError(f"{t.path} was not written by `reverie service install` for {t.home}: "
                        "left as it is")
    if dry_run:
        plan = ([_sc("disable", "--now", t.name), ["rm", str(t.path)], _sc("daemon-reload"),
                 _sc("reset-failed", t.name)]
                if t.system == "systemd" else
                [["launchctl", "bootout", f"{_domain()}/{t.name}"], ["rm", str(t.path)]])
        emit(o, {**doc, "commands": [shlex.join(c) for c in plan]},
             lambda d: [say(line) for line in ["would run:", *(f"  {c}" for c in d["commands"])]])
        return
    run = _Runner()
    notes = (_stop_systemd if t.system == "systemd" else _stop_launchd)(t, run)
    emit(o, {**doc, "removed": True, "commands": [r["command"] for r in run.ran], "notes": notes},
         lambda d: [say(line) for line in notes])


def _status(o) -> None:
    from ..service import units

    t = _target(o.home)
    doc: dict = {"system": t.system, "home": str(t.home), "name": t.name or None,
                 "path": str(t.path) if t.path else None, "installed": t.ours, "upToDate": None,
                 "port": None, "manager": None, "active": None, "state": None, "enabled": None}
    if t.existing is not None and not t.ours:
        doc["foreign"] = True  # a file of that name that reverie did not write for this home
    if t.ours:
        doc.update(upToDate=t.existing == t.content, port=_port(t), logs=_logs_hint(t))
        state = (_systemd_state if t.system == "systemd" else _launchd_state)(t, _Runner())
        doc.update(state)

    def human(d: dict) -> None:
        if d["system"] == "none":
            print(f"no service: reverie installs none on this system ({sys.platform})")
            return
        if not d["installed"]:
            other = " (a file of that name is there, not written by reverie for this home)" if d.get("foreign") else ""
            print(f"not installed for {d['home']}: no {d['path']}{other}")
            print(f"install it with: {_command(t, 'install')}")
            return
        print(f"installed for {d['home']}: {d['path']}")
        if not d["upToDate"]:
            print("differs from what `reverie service install` would write now (another interpreter or "
                  "settings): run it again to update")
        if d["manager"] == "missing":
            active = f"unknown ({'systemctl' if d['system'] == 'systemd' else 'launchctl'} is not on PATH)"
        elif d["manager"] == "unreachable":
            active = f"unknown (the systemd user manager is not reachable here: {d.get('why')})"
        else:
            active = f"{'yes' if d['active'] else 'no'} ({d['state']})"
            if d["system"] == "systemd":
                active += ", enabled at login" if d["enabled"] else ", not enabled at login"
        print(f"active: {active}")
        print(f"port: {d['port']}" + ("" if d["port"] != units.SERVE_DEFAULT_PORT else " (serve's default)"))
        print(f"logs: {d['logs']}")

    emit(o, doc, human)


def register(app: typer.Typer) -> None:
    service_app = typer.Typer(help="Run `reverie serve` as a service of your user: started at login, restarted "
                                   "after a failure (systemd user unit on Linux, launchd agent on macOS).",
                              no_args_is_help=True)
    app.add_typer(service_app, name="service")

    @service_app.command("install", help="Install and start the service for this home (one per home). Run again, "
                         "it changes nothing when the file would be the same, and rewrites and restarts it when it "
                         "differs (a new interpreter, other settings).",
                         epilog=_examples("reverie service install",
                                          "reverie service install --dry-run > reverie.service    # the unit, written nowhere",
                                          "reverie --home ~/work-memory service install --port 8767"))
    def install(ctx: typer.Context,
                port: Annotated[Optional[int], typer.Option("--port", min=1, max=65535,
                                help="port for `reverie serve` (default: the installed service's, else serve's own, "
                                     "8766); a second home needs another one", show_default=False)] = None,
                dry_run: Annotated[bool, typer.Option("--dry-run", help="print the file and the commands; "
                                                      "change nothing")] = False,
                home: HomeOpt = None, as_json: JsonOpt = False) -> None:
        _install(opts(ctx, home, None, None, None, as_json), port, dry_run)

    @service_app.command("uninstall", help="Stop the service of this home and remove exactly the file install wrote.",
                         epilog=_examples("reverie service uninstall", "reverie service uninstall --dry-run",
                                          "reverie --home ~/work-memory service uninstall"))
    def uninstall(ctx: typer.Context,
                  dry_run: Annotated[bool, typer.Option("--dry-run", help="say what would be done; change nothing")] = False,
                  home: HomeOpt = None, as_json: JsonOpt = False) -> None:
        _uninstall(opts(ctx, home, None, None, None, as_json), dry_run)

    @service_app.command("status", help="Whether a service is installed for this home, where, and whether it runs.",
                         epilog=_examples("reverie service status", "reverie service status --json"))
    def status(ctx: typer.Context, home: HomeOpt = None, as_json: JsonOpt = False) -> None:
        _status(opts(ctx, home, None, None, None, as_json))
