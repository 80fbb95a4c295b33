"""Agent hosts from the npm registry, installed once per machine for the end-to-end tests.

Each host goes into ``~/.cache/reverie-test-hosts/<name>`` (``$REVERIE_TEST_HOSTS`` instead of
``~/.cache/reverie-test-hosts`` when set) under a file lock, so that parallel pytest workers install
it once: it is built in a staging folder and renamed into place whole, so a complete install
appears at once or not at all, and is reused while it still answers with the pinned version. No
npm, or a failed install, FAILS the test: a missing host is a broken test machine, not a reason to
skip.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Callable, TypeVar

import pytest

NPM_TIMEOUT = 900  # a fresh machine downloads hundreds of MB for some hosts
T = TypeVar("T")

# Read at import: the autouse fixture in tests/conftest.py removes every REVERIE_* variable per test.
_HOSTS_DIR = os.environ.get("REVERIE_TEST_HOSTS")


def hosts_dir() -> Path:
    return Path(_HOSTS_DIR) if _HOSTS_DIR else Path.home() / ".cache" / "reverie-test-hosts"


def npm() -> str:
    found = shutil.which("npm")
    if found is None:
        pytest.fail("npm is missing: the host end-to-end tests install their hosts with npm "
                    "(Debian: apt-get install nodejs npm; .ci/run does this)", pytrace=False)
    return found


def npm_install(prefix: Path, spec: str, *, cwd: Path, path: str | None = None, extra: tuple[str, ...] = ()) -> None:
    """``npm install --prefix PREFIX SPEC``; a failure fails the test with npm's last words."""
    env = {**os.environ, "PATH": path} if path is not None else None
    try:
        done = subprocess.run([npm(), "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--loglevel=warn",
                               *extra, spec], capture_output=True, text=True, timeout=NPM_TIMEOUT, cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail(f"npm install {spec} took more than {NPM_TIMEOUT} s", pytrace=False)
    if done.returncode != 0:
        pytest.fail(f"npm install {spec} failed (exit {done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}",
                    pytrace=False)


def installed(name: str, build: Callable[[Path], None], find: Callable[[Path], T | None], what: str) -> T:
    """What ``find`` returns for the install ``name``, made first by ``build(staging_folder)`` when
    there is none that ``find`` accepts."""
    root = hosts_dir()
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker waits here, then finds the install made
        if (prefix / ".installed").exists():
            found = find(prefix)
            if found is not None:
                return found
        staging = root / f".{name}.{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        started = time.monotonic()
        try:
            build(staging)
            if find(staging) is None:
                pytest.fail(f"npm installed {what} but it does not answer with its pinned version (in {staging})",
                            pytrace=False)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        shutil.rmtree(prefix, ignore_errors=True)
        staging.rename(prefix)  # a complete install appears at once, or not at all
        (prefix / ".installed").write_text(f"{what} installed in {time.monotonic() - started:.1f} s\n")
        found = find(prefix)
        assert found is not None
        return found
