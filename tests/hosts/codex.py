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

import os
import subprocess
from pathlib import Path

import pytest

from .npm_cache import installed, npm_install

CODEX_VERSION = "0.171.0"
PACKAGE = "@openai/codex"
KEY_ENV = "SCRIPTED_MODEL_KEY"  # not REVERIE_*: reverie would warn of it, and its server refuse a caller with it


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
    return installed(f"codex-{version}",
                     lambda staging: npm_install(staging, f"{PACKAGE}@{version}", cwd=staging.parent),
                     lambda prefix: _binary_in(prefix, version), f"{PACKAGE}@{version}")


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    """The pinned Codex binary (installed on first use)."""
    return install_codex()
