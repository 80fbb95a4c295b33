"""reverie service install | uninstall | status: the unit files as text, and the command against
real files in temporary folders. The real systemctl is never called (it could start a service on
the machine running the tests): PATH holds only a stand-in that records its arguments."""

from __future__ import annotations

import json
import os
import plistlib
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from reverie.service import units

# A stand-in for systemctl / launchctl: records each call, answers like the real one. Only shell
# built-ins (PATH holds nothing else). FAKE_MODE=nobus answers as a user manager out of reach.
FAKE = r"""#!/bin/sh
echo "${0##*/} $*" >> "$FAKE_LOG"
if [ "$FAKE_MODE" = nobus ]; then echo "Failed to connect to bus: No medium found" >&2; exit 1; fi
state=inactive
if [ -f "$FAKE_STATE" ]; then read -r state < "$FAKE_STATE"; fi
case "$2" in
  is-active) echo "$state"; [ "$state" = active ] && exit 0; exit 3 ;;
  is-enabled) echo enabled ;;
  enable) [ "$3" = --now ] && echo active > "$FAKE_STATE" ;;
  restart) echo active > "$FAKE_STATE" ;;
  disable) echo inactive > "$FAKE_STATE" ;;
esac
case "$1" in
  print) [ "$state" = active ] && exit 0; exit 113 ;;
  bootstrap|load) echo active > "$FAKE_STATE" ;;
  bootout|unload) echo inactive > "$FAKE_STATE" ;;
esac
exit 0
"""


class Box:
    """A user's machine in a temporary folder: HOME, XDG_CONFIG_HOME, a PATH with fake tools."""

    def __init__(self, tmp: Path, *, tools=("systemctl",)):
        self.tmp = tmp
        self.user = tmp / "user home"  # a space: every path below it needs quoting
        self.xdg = tmp / "config"
        self.bin = tmp / "bin"
        self.log = tmp / "calls.log"
        self.state = tmp / "state"
        for d in (self.user, self.xdg, self.bin):
            d.mkdir(parents=True, exist_ok=True)
        for tool in tools:
            script = self.bin / tool
            script.write_text(FAKE)
            script.chmod(script.stat().st_mode | stat.S_IXUSR)
        self.home = self.user / ".reverie"  # the default home
        self.home.mkdir()
        self.env = {"HOME": str(self.user), "XDG_CONFIG_HOME": str(self.xdg), "PATH": str(self.bin),
                    "FAKE_LOG": str(self.log), "FAKE_STATE": str(self.state), "REVERIE_TIMEZONE": "UTC",
                    "LANG": "C.UTF-8"}

    @property
    def unit_dir(self) -> Path:
        return self.xdg / "systemd" / "user"

    def run(self, *args: str, home: Path | None = None, **extra: str) -> subprocess.CompletedProcess:
        env = {**self.env, "REVERIE_HOME": str(home or self.home), **extra}
        return subprocess.run([sys.executable, "-m", "reverie.cli.main", *args], capture_output=True, text=True,
                              env=env, timeout=120)

    def calls(self) -> list[str]:
        calls = self.log.read_text().splitlines() if self.log.exists() else []
        self.log.unlink(missing_ok=True)
        return calls

    def files(self) -> dict[str, bytes]:
        return {str(p.relative_to(self.xdg)): p.read_bytes() for p in sorted(self.xdg.rglob("*")) if p.is_file()}


def ok(r: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert r.returncode == 0, (r.args, r.stdout, r.stderr)
    return r


@pytest.fixture
def box(tmp_path: Path) -> Box:
    return Box(tmp_path)


# -- pure rendering ----------------------------------------------------------------------------------
def test_names_one_per_home(tmp_path: Path):
    user = tmp_path / "u"
    assert units.systemd_name(user / ".reverie", user) == "reverie.service"
    assert units.launchd_label(user / ".reverie", user) == "dev.reverie.serve"
    a, b = units.systemd_name(tmp_path / "a", user), units.systemd_name(tmp_path / "b", user)
    assert a != b and a.startswith("reverie-") and len(a) == len("reverie-12345678.service")
    assert units.launchd_label(tmp_path / "a", user) == f"dev.reverie.serve.{a[8:16]}"
    assert units.systemd_dir({"XDG_CONFIG_HOME": "/x/conf"}, user) == Path("/x/conf/systemd/user")
    # a relative XDG_CONFIG_HOME does not count (the XDG rule, as systemd reads it)
    assert units.systemd_dir({"XDG_CONFIG_HOME": "conf"}, user) == user / ".config" / "systemd" / "user"
    assert units.systemd_dir({}, user) == user / ".config" / "systemd" / "user"


def test_secrets_are_left_out_and_only_reverie_settings_and_tz_carried():
    env = {"REVERIE_LOG": "debug", "REVERIE_CHAT_API_KEY": "sk-1", "REVERIE_GITHUB_TOKEN": "t",
           "REVERIE_DB_PASSWORD": "p", "REVERIE_CLIENT_SECRET": "s", "REVERIE_HOME": "/elsewhere",
           "REVERIE_POSTGRES_DSN": "postgresql://me:hunter2@db/reverie", "TZ": "Asia/Shanghai",
           "OPENAI_API_KEY": "sk-2", "PATH": "/usr/bin", "REVERIE_STORE_NAMESPACE": "team"}
    kept, left = units.split_environment(env)
    assert kept == {"REVERIE_LOG": "debug", "REVERIE_STORE_NAMESPACE": "team", "TZ": "Asia/Shanghai"}
    assert left == ["REVERIE_CHAT_API_KEY", "REVERIE_CLIENT_SECRET", "REVERIE_DB_PASSWORD", "REVERIE_GITHUB_TOKEN",
                    "REVERIE_POSTGRES_DSN"]
    assert units.split_environment({"REVERIE_POSTGRES_DSN": "postgresql:///reverie?host=/run"})[1] == []


def test_systemd_quoting_of_spaces_specifiers_dollars_and_quotes():
    assert units.systemd_word("/usr/bin/python3") == "/usr/bin/python3"
    assert units.systemd_word("/home/a b/.reverie") == '"/home/a b/.reverie"'
    assert units.systemd_word("/h/100%") == '"/h/100%%"'
    assert units.systemd_word("/h/$HOME") == '"/h/$$HOME"'
    assert units.systemd_word('/h/say "hi"\\') == '"/h/say \\"hi\\"\\\\"'
    assert units.systemd_assignment("TZ", "A %b") == '"TZ=A %%b"'
    home = Path("/home/me/my notes/100% $work")
    text = units.systemd_unit(home, units.serve_argv("/opt/py 3/bin/python", home, 8767),
                              {"REVERIE_LOG": "debug"})
    lines = text.splitlines()
    assert ('ExecStart="/opt/py 3/bin/python" -m reverie.cli.main --home "/home/me/my notes/100%% $$work" '
            "serve --port 8767") in lines
    assert "Description=reverie serve (memory server, scheduler, web view) for /home/me/my notes/100%% $work" in lines
    assert {"Restart=on-failure", "WantedBy=default.target", 'Environment="REVERIE_LOG=debug"',
            "EnvironmentFile=-/home/me/my notes/100%% $work/serve.env"} <= set(lines)
    assert units.unit_home(text) == str(home)
    assert units.unit_port(text) == 8767
    assert units.unit_port(units.systemd_unit(home, units.serve_argv("/p", home), {})) is None


def test_launchd_plist_rendering(tmp_path: Path):
    home = tmp_path / "a home"
    label = units.launchd_label(home, tmp_path)
    argv = units.serve_argv("/opt/py 3/bin/python", home)
    text = units.launchd_plist(label, home, argv, {"TZ": "Europe/Paris", "REVERIE_LOG": "info"})
    doc = plistlib.loads(text.encode())
    assert doc["Label"] == label and doc["ProgramArguments"] == argv
    assert doc["ProgramArguments"][:5] == ["/opt/py 3/bin/python", "-m", "reverie.cli.main", "--home", str(home)]
    assert doc["RunAtLoad"] is True and doc["KeepAlive"] == {"SuccessfulExit": False}
    assert doc["StandardOutPath"] == doc["StandardErrorPath"] == str(home / "logs" / "serve.log")
    assert doc["EnvironmentVariables"] == {"PYTHONUNBUFFERED": "1", "TZ": "Europe/Paris", "REVERIE_LOG": "info"}
    assert units.plist_home(text, label) == str(home)
    assert units.plist_home(text, "dev.reverie.serve.other") is None  # another home's label: not this one
    assert units.plist_home("<plist>", label) is None
    assert units.argv_port(units.serve_argv("/p", home, 9000)) == 9000


# -- the command, on Linux (systemd) -----------------------------------------------------------------
def test_dry_run_prints_the_unit_and_commands_and_writes_nothing(box: Box):
    r = ok(box.run("service", "install", "--dry-run"))
    assert box.files() == {} and box.calls() == []
    assert f'--home "{box.home}" serve' in r.stdout and r.stdout.startswith("# Written by `reverie service install`")
    assert "would write" in r.stderr
    assert "systemctl --user daemon-reload" in r.stderr and "systemctl --user enable --now reverie.service" in r.stderr
    doc = json.loads(ok(box.run("service", "install", "--dry-run", "--json")).stdout)
    assert doc["dryRun"] is True and doc["written"] is False and doc["action"] == "installed"
    assert doc["commands"] == ["systemctl --user daemon-reload", "systemctl --user enable --now reverie.service"]
    assert doc["content"] == r.stdout and box.files() == {}


def test_install_is_idempotent_and_rewrites_a_changed_unit(box: Box):
    r = ok(box.run("service", "install"))
    unit = box.unit_dir / "reverie.service"
    assert unit.is_file() and f"installed reverie.service: {unit}" in r.stderr
    assert box.calls() == ["systemctl --user daemon-reload", "systemctl --user enable --now reverie.service"]
    text = unit.read_text()
    exec_line = f'ExecStart={units.systemd_word(sys.executable)} -m reverie.cli.main --home "{box.home}" serve'
    assert exec_line in text.splitlines()
    assert 'Environment="REVERIE_TIMEZONE=UTC"' in text

    before = unit.stat()
    r = ok(box.run("service", "install"))
    assert "already installed" in r.stderr
    assert box.calls() == ["systemctl --user is-active reverie.service"]  # running: nothing else
    after = unit.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)

    # the interpreter moved (a new venv): the unit is rewritten and the service restarted
    unit.write_text(text.replace(units.systemd_word(sys.executable), "/old/venv/bin/python"))
    r = ok(box.run("service", "install", "--json"))
    doc = json.loads(r.stdout)
    assert doc["action"] == "updated" and doc["written"] is True and doc["active"] is True
    assert "restarted: systemctl --user enable reverie.service && systemctl --user restart" in " ".join(doc["notes"])
    assert unit.read_text() == text
    assert box.calls() == ["systemctl --user daemon-reload", "systemctl --user enable reverie.service",
                           "systemctl --user restart reverie.service"]


def test_installed_but_stopped_is_started_again_without_rewriting(box: Box):
    ok(box.run("service", "install"))
    box.calls()
    box.state.write_text("failed\n")
    r = ok(box.run("service", "install"))
    assert "already installed" in r.stderr
    assert box.calls() == ["systemctl --user is-active reverie.service",
                           "systemctl --user enable --now reverie.service"]


def test_uninstall_removes_exactly_what_install_added(box: Box):
    other = box.tmp / "work memory"
    other.mkdir()
    ok(box.run("service", "install", "--port", "8767", home=other))
    before = box.files()
    box.calls()
    ok(box.run("service", "install"))
    assert set(box.files()) - set(before) == {"systemd/user/reverie.service"}
    box.calls()
    r = ok(box.run("service", "uninstall"))
    assert box.calls() == ["systemctl --user disable --now reverie.service", "systemctl --user daemon-reload",
                           "systemctl --user reset-failed reverie.service"]
    assert box.files() == before  # the other home's unit is untouched
    assert "removed" in r.stderr
    r = ok(box.run("service", "uninstall"))
    assert "no service is installed" in r.stderr and box.calls() == []
    assert box.files() == before


def test_uninstall_dry_run_changes_nothing(box: Box):
    ok(box.run("service", "install"))
    before, _ = box.files(), box.calls()
    r = ok(box.run("service", "uninstall", "--dry-run"))
    assert "systemctl --user disable --now reverie.service" in r.stderr
    assert box.files() == before and box.calls() == []


def test_a_file_reverie_did_not_write_is_never_touched(box: Box):
    box.unit_dir.mkdir(parents=True)
    mine = box.unit_dir / "reverie.service"
    mine.write_text("[Service]\nExecStart=/usr/local/bin/my-reverie\n")
    for args in (["service", "install"], ["service", "uninstall"]):
        r = box.run(*args)
        assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "not written by `reverie service install`" in r.stderr
    assert mine.read_text() == "[Service]\nExecStart=/usr/local/bin/my-reverie\n" and box.calls() == []
    assert json.loads(ok(box.run("service", "status", "--json")).stdout)["installed"] is False


def test_secrets_are_left_out_and_the_command_says_where_they_go(box: Box):
    r = ok(box.run("service", "install", REVERIE_CHAT_API_KEY="sk-very-secret", REVERIE_LOG="info",
                   OPENAI_API_KEY="sk-openai"))
    text = (box.unit_dir / "reverie.service").read_text()
    assert "sk-very-secret" not in text and "REVERIE_CHAT_API_KEY" not in text and "sk-openai" not in text
    assert 'Environment="REVERIE_LOG=info"' in text
    assert "REVERIE_CHAT_API_KEY (setting chat.apiKey)" in r.stderr and "reverie.toml" in r.stderr
    assert "serve.env" in r.stderr and "OPENAI_API_KEY" in r.stderr


def test_no_user_manager_keeps_the_unit_and_says_what_to_run(box: Box):
    r = ok(box.run("service", "install", FAKE_MODE="nobus"))
    assert (box.unit_dir / "reverie.service").is_file()
    assert box.calls() == ["systemctl --user daemon-reload"]
    assert "not reachable" in r.stderr
    assert "`systemctl --user daemon-reload && systemctl --user enable --now reverie.service`" in r.stderr
    assert "loginctl enable-linger $USER" in r.stderr
    doc = json.loads(ok(box.run("service", "status", "--json", FAKE_MODE="nobus")).stdout)
    assert doc["installed"] is True and doc["manager"] == "unreachable" and doc["active"] is None

    # uninstall without the manager: the file and the link `enable` made go, nothing else
    wants = box.unit_dir / "default.target.wants"
    wants.mkdir()
    (wants / "reverie.service").symlink_to(box.unit_dir / "reverie.service")
    (wants / "other.service").symlink_to("/dev/null")
    r = ok(box.run("service", "uninstall", FAKE_MODE="nobus"))
    assert sorted(p.name for p in box.unit_dir.rglob("*")) == ["default.target.wants", "other.service"]
    assert "systemctl --user stop reverie.service" in r.stderr


def test_no_systemctl_keeps_the_unit_and_exits_0(tmp_path: Path):
    box = Box(tmp_path, tools=())
    r = ok(box.run("service", "install"))
    assert (box.unit_dir / "reverie.service").is_file()
    assert "systemctl is not on PATH" in r.stderr
    assert "systemctl --user daemon-reload && systemctl --user enable --now reverie.service" in r.stderr


def test_status(box: Box):
    doc = json.loads(ok(box.run("service", "status", "--json")).stdout)
    assert doc["installed"] is False and doc["path"] == str(box.unit_dir / "reverie.service")
    assert "not installed" in ok(box.run("service", "status")).stdout
    ok(box.run("service", "install"))
    box.calls()
    doc = json.loads(ok(box.run("service", "status", "--json")).stdout)
    assert doc == {"system": "systemd", "home": str(box.home), "name": "reverie.service",
                   "path": str(box.unit_dir / "reverie.service"), "installed": True, "upToDate": True,
                   "port": 8766, "manager": "ok", "active": True, "state": "active", "enabled": True,
                   "logs": "journalctl --user -u reverie.service"}
    assert box.calls() == ["systemctl --user is-active reverie.service", "systemctl --user is-enabled reverie.service"]
    out = ok(box.run("service", "status")).stdout
    assert "active: yes (active), enabled at login" in out


def test_the_home_must_exist(box: Box):
    r = box.run("service", "install", home=box.tmp / "nowhere")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "does not exist" in r.stderr and "init" in r.stderr
    assert box.files() == {} and box.calls() == []


def test_ports_a_reinstall_keeps_and_two_homes_on_one_port_warned(box: Box):
    other = box.tmp / "work"
    other.mkdir()
    ok(box.run("service", "install", "--port", "8770", home=other))
    name = units.systemd_name(other, box.user)
    unit = box.unit_dir / name
    assert unit.read_text().splitlines()[9].endswith("serve --port 8770")
    r = ok(box.run("service", "install", home=other))  # without --port: the installed one's
    assert "already installed" in r.stderr
    r = ok(box.run("service", "install", "--port", "8770"))
    assert f"the service of {other} ({unit}) uses port 8770 too" in r.stderr


def test_the_unit_passes_systemd_analyze_verify(box: Box, tmp_path: Path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    # an interpreter path with a space and a '%', as a link to this one: quoting must hold
    odd = tmp_path / "py 100%" / "python"
    odd.parent.mkdir()
    odd.symlink_to(sys.executable)
    home = box.tmp / "my notes $x"
    home.mkdir()
    argv = units.serve_argv(str(odd), home)
    text = units.systemd_unit(home, argv, {"REVERIE_LOG": 'a "quoted" %value%', "TZ": "Asia/Shanghai"})
    unit = tmp_path / "reverie-test.service"
    unit.write_text(text)
    runtime = tmp_path / "runtime"  # verify --user wants a runtime folder, not a running manager
    runtime.mkdir(mode=0o700)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime)}
    r = subprocess.run([analyze, "verify", "--user", str(unit)], capture_output=True, text=True, env=env, timeout=60)
    if r.returncode != 0 and "reverie-test" not in r.stderr:
        pytest.skip(f"systemd-analyze verify does not work here: {r.stderr.strip()[:200]}")
    assert r.returncode == 0 and "reverie-test" not in r.stderr, r.stderr
    # and a unit that is wrong is caught (so the pass above means something)
    unit.write_text(text.replace(units.systemd_word(str(odd)), str(odd)))
    r = subprocess.run([analyze, "verify", "--user", str(unit)], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode != 0


# -- the command elsewhere: macOS (launchd) and systems without a service manager -------------------
@pytest.fixture
def on(monkeypatch: pytest.MonkeyPatch, capsys, tmp_path: Path):
    """Run the command's own functions in this process as if on another system."""
    from reverie.cli import service_cmd
    from reverie.cli.common import Opts

    box = Box(tmp_path, tools=("launchctl",))
    for name, value in box.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("REVERIE_HOME", raising=False)
    monkeypatch.setattr(service_cmd.os, "getuid", lambda: 501, raising=False)

    def call(system: str, command: str, *args):
        monkeypatch.setattr(service_cmd, "_system", lambda: system)
        getattr(service_cmd, f"_{command}")(Opts(home=box.home, json=True), *args)
        return json.loads(capsys.readouterr().out)

    call.box = box
    return call


def test_macos_launch_agent_install_and_uninstall(on):
    box = on.box
    doc = on("launchd", "install", None, False)
    plist = box.user / "Library" / "LaunchAgents" / "dev.reverie.serve.plist"
    assert doc["path"] == str(plist) and doc["action"] == "installed"
    assert box.calls() == [f"launchctl bootstrap gui/501 {plist}"]
    assert (box.home / "logs").is_dir()
    assert plistlib.loads(plist.read_bytes())["ProgramArguments"][-3:] == ["--home", str(box.home), "serve"]
    assert on("launchd", "install", None, False)["action"] == "unchanged"
    assert box.calls() == ["launchctl print gui/501/dev.reverie.serve"]
    plist.write_text(plist.read_text().replace(sys.executable, "/old/venv/bin/python"))
    assert on("launchd", "install", None, False)["action"] == "updated"
    assert box.calls() == ["launchctl bootout gui/501/dev.reverie.serve", "launchctl print gui/501/dev.reverie.serve",
                           f"launchctl bootstrap gui/501 {plist}"]
    assert "/old/venv" not in plist.read_text()
    doc = on("launchd", "uninstall", False)
    assert doc["removed"] is True and not plist.exists()
    assert box.calls() == ["launchctl bootout gui/501/dev.reverie.serve"]


def test_other_systems_get_the_command_and_nothing_is_written(on):
    box = on.box
    doc = on("none", "install", None, False)
    assert doc["system"] == "none" and doc["written"] is False
    assert doc["command"][1:] == ["-m", "reverie.cli.main", "--home", str(box.home), "serve"]
    assert not any(box.user.rglob("*.plist")) and box.files() == {}
    assert on("none", "status")["installed"] is False
