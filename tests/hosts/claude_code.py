"""The real Claude Code (npm ``@anthropic-ai/claude-code``, pinned) for end-to-end tests, run offline
against the scripted model server (hosts.model_server).

``claude_code`` (a session fixture; import it into the test module) installs the pinned release once
with ``npm install --prefix ~/.cache/reverie-test-hosts/claude-code-<version>`` (``$REVERIE_TEST_HOSTS``
instead of ``~/.cache/reverie-test-hosts`` when set), under a file lock so that parallel pytest
workers install it once, and reuses it afterwards. No npm, or a failed install, FAILS the test: a
missing host is a broken test machine, not a reason to skip. The package's ``engines`` asks for
Node 22, but npm only warns (EBADENGINE) on Node 20: its postinstall script runs there and the
program itself is a native binary that needs no Node at run time.

``run_claude`` runs ``claude -p`` with a throw-away HOME, the model server as ANTHROPIC_BASE_URL,
no nonessential traffic, and nothing else from the caller's environment (no ANTHROPIC_*, CLAUDE_*
or MCP_* variable of the machine leaks in), so MCP runs with Claude Code's default settings unless
the test passes some.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from .npm_cache import installed, npm_install

CLAUDE_CODE_VERSION = "2.1.332"
PACKAGE = "@anthropic-ai/claude-code"

def _version_of(binary: Path) -> str | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", ""), "HOME": str(binary.parent)})
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.split()[0] if out.returncode == 0 and out.stdout.strip() else None


def _binary_in(prefix: Path, version: str) -> Path | None:
    """The working claude binary of an install: the bin link (which the postinstall script points at
    the native build), else the native build in the platform package itself (should a future npm
    not run install scripts)."""
    candidates = [prefix / "node_modules" / ".bin" / "claude"]
    candidates += sorted((prefix / "node_modules" / "@anthropic-ai").glob("claude-code-*/claude"))
    for binary in candidates:
        if binary.is_file():
            if binary.parent.name != ".bin" and not os.access(binary, os.X_OK):
                binary.chmod(0o755)
            if _version_of(binary) == version:
                return binary
    return None


def install_claude_code(version: str = CLAUDE_CODE_VERSION) -> Path:
    """The path of a working ``claude`` of ``version``, installing it first when needed."""
    return installed(f"claude-code-{version}",
                     lambda staging: npm_install(staging, f"{PACKAGE}@{version}", cwd=staging.parent,
                                                 extra=("--engine-strict=false",)),
                     lambda prefix: _binary_in(prefix, version), f"{PACKAGE}@{version}")


@pytest.fixture(scope="session")
def claude_code() -> Path:
    """The pinned Claude Code binary (installed on first use)."""
    return install_claude_code()


# -- running it ------------------------------------------------------------------------------------

# Only these variables of the caller reach claude; everything else comes from claude_env's arguments.
_KEEP = ("PATH", "LANG", "LC_ALL", "TMPDIR", "TZ")


def claude_env(home: Path, base_url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {name: os.environ[name] for name in _KEEP if name in os.environ}
    env.update(HOME=str(home), TERM="dumb", ANTHROPIC_BASE_URL=base_url,
               ANTHROPIC_API_KEY="sk-ant-test-placeholder-not-a-key",
               CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
    env.update(extra or {})
    return env


@dataclass
class ClaudeRun:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    debug_log: Path

    def mcp_log(self, limit: int = 60) -> str:
        """The MCP lines of claude's debug log (for failure messages)."""
        try:
            lines = self.debug_log.read_text(errors="replace").splitlines()
        except OSError:
            return "(no debug log)"
        picked = [line[:300] for line in lines if "MCP" in line or "mcp" in line]
        return "\n".join(picked[-limit:])

    def describe(self) -> str:
        return (f"claude exit {self.returncode} after {self.seconds:.1f} s\n--- stdout\n{self.stdout[-2000:]}\n"
                f"--- stderr\n{self.stderr[-2000:]}\n--- MCP in the debug log\n{self.mcp_log()}")


def write_mcp_json(project: Path, servers: dict[str, dict]) -> Path:
    """Register MCP servers the way a project does: ``.mcp.json`` in the project folder."""
    project.mkdir(parents=True, exist_ok=True)
    path = project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}, indent=2))
    return path


def run_claude(binary: Path, prompt: str, *, project: Path, home: Path, base_url: str,
               args: list[str] = (), env: dict[str, str] | None = None, timeout: float = 120) -> ClaudeRun:
    """``claude -p PROMPT`` in ``project`` (its .mcp.json is read), with a debug log beside HOME."""
    home.mkdir(parents=True, exist_ok=True)
    debug_log = home.parent / f"{home.name}-claude-debug.log"
    started = time.monotonic()
    try:
        done = subprocess.run([str(binary), "-p", prompt, "--debug-file", str(debug_log), *args],
                              cwd=project, env=claude_env(home, base_url, env), capture_output=True,
                              text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        run = ClaudeRun(-1, _text(exc.stdout), _text(exc.stderr), time.monotonic() - started, debug_log)
        pytest.fail(f"claude -p did not finish within {timeout} s\n{run.describe()}", pytrace=False)
    return ClaudeRun(done.returncode, done.stdout, done.stderr, time.monotonic() - started, debug_log)


def _text(data) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else (data or "")


# -- reading what it sent --------------------------------------------------------------------------

_MCP_NAME = re.compile(r"\bmcp__[A-Za-z0-9_-]+?__[A-Za-z0-9_-]+")


def deferred_tools(request) -> set[str]:
    """MCP tool names that a request announces without their schemas. With tool search on (Claude
    Code's default), MCP tools are "deferred": the ``tools`` array holds ToolSearch, and a system
    text lists the deferred tools by name; the model loads a schema with ToolSearch("select:NAME"),
    and the next request carries that tool in ``tools`` (with ``defer_loading: true``)."""
    body = request.body if isinstance(request.body, dict) else {}
    return {name for key, value in body.items() if key != "tools" for text in _strings(value)
            for name in _MCP_NAME.findall(text)}


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def offered_tools(request) -> set[str]:
    """Every tool name a request makes available: the ``tools`` array and the deferred list."""
    return set(request.tool_names()) | deferred_tools(request)
