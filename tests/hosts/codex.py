"""The real Codex CLI (npm ``@openai/codex``, pinned) for end-to-end tests, run offline against the
scripted model server (hosts.model_server) through a custom model provider.

``codex_cli`` (a session fixture; import it into the test module) installs the pinned release once
with ``npm install --prefix ~/.cache/reverie-test-hosts/codex-<version>`` (``$REVERIE_TEST_HOSTS``
instead of ``~/.cache/reverie-test-hosts`` when set), under a file lock so that parallel pytest
workers install it once, and reuses it afterwards. No npm, or a failed install, FAILS the test: a
missing host is a broken test machine, not a reason to skip. The npm package is a small Node
launcher; the program is a native binary in the platform package (an optional dependency), which
is what the tests run (no Node at run time).

``run_codex`` runs ``codex exec`` with a throw-away ``CODEX_HOME`` whose ``config.toml`` the test
wrote (``provider_config`` gives the part that points Codex at the model server), a throw-away
HOME, and nothing else from the caller's environment (no OPENAI_* or CODEX_* variable of the
machine leaks in). The only key is a placeholder the custom provider reads from
``SCRIPTED_MODEL_KEY``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

CODEX_VERSION = "0.171.0"
PACKAGE = "@openai/codex"
NPM_TIMEOUT = 900
KEY_ENV = "SCRIPTED_MODEL_KEY"  # not REVERIE_*: reverie would warn of it, and its server refuse a caller with it

# Read at import: the autouse fixture in tests/conftest.py removes every REVERIE_* variable per test.
_HOSTS_DIR = os.environ.get("REVERIE_TEST_HOSTS")


def hosts_dir() -> Path:
    return Path(_HOSTS_DIR) if _HOSTS_DIR else Path.home() / ".cache" / "reverie-test-hosts"


def _version_of(binary: Path) -> str | None:
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=60,
                             env={"PATH": os.environ.get("PATH", ""), "HOME": str(binary.parent),
                                  "CODEX_HOME": str(binary.parent)})
    except (OSError, subprocess.TimeoutExpired):
        return None
    words = out.stdout.split()  # "codex-cli 0.171.0"
    return words[-1] if out.returncode == 0 and words else None


def _binary_in(prefix: Path, version: str) -> Path | None:
    """The native codex binary of an install (``vendor/<target>/bin/codex`` in the platform
    package), checked to answer ``--version`` with ``version``."""
    modules = prefix / "node_modules" / "@openai"
    for binary in sorted(modules.glob("codex*/vendor/*/bin/codex")):
        if binary.is_file():
            if not os.access(binary, os.X_OK):
                binary.chmod(0o755)
            if _version_of(binary) == version:
                return binary
    return None


def install_codex(version: str = CODEX_VERSION) -> Path:
    """The path of a working ``codex`` of ``version``, installing it first when needed."""
    root = hosts_dir()
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / f"codex-{version}"
    with open(root / f"codex-{version}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits here, then finds the install made
        if (prefix / ".installed").exists():
            binary = _binary_in(prefix, version)
            if binary is not None:
                return binary
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"npm is missing: the Codex host test installs {PACKAGE}@{version} with npm "
                        "(Debian: apt-get install nodejs npm; .ci/run does this)", pytrace=False)
        staging = root / f".codex-{version}.{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        started = time.monotonic()
        try:
            done = subprocess.run([npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund",
                                   "--loglevel=warn", f"{PACKAGE}@{version}"],
                                  capture_output=True, text=True, timeout=NPM_TIMEOUT, cwd=root)
        except subprocess.TimeoutExpired:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm install {PACKAGE}@{version} took more than {NPM_TIMEOUT} s", pytrace=False)
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm install {PACKAGE}@{version} failed (exit {done.returncode}):\n"
                        f"{(done.stdout + done.stderr)[-3000:]}", pytrace=False)
        binary = _binary_in(staging, version)
        if binary is None:
            shutil.rmtree(staging, ignore_errors=True)
            pytest.fail(f"npm installed {PACKAGE}@{version} but no codex binary there answers --version "
                        f"with {version}:\n{(done.stdout + done.stderr)[-3000:]}", pytrace=False)
        shutil.rmtree(prefix, ignore_errors=True)
        staging.rename(prefix)  # a complete install appears at once, or not at all
        (prefix / ".installed").write_text(f"{PACKAGE}@{version} installed in {time.monotonic() - started:.1f} s\n")
        binary = _binary_in(prefix, version)
        assert binary is not None
        return binary


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    """The pinned Codex binary (installed on first use)."""
    return install_codex()
