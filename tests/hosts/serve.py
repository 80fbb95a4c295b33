"""`reverie serve` as a host test runs it: a real process for the test's home, ready once it has
written ``<home>/run/serve.json``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REVERIE = str(Path(sys.executable).with_name("reverie"))
SERVE_START = 45  # seconds for `reverie serve` to write run/serve.json


class ServeProcess:
    """`reverie --home H serve --port 0`, ready once it has written <home>/run/serve.json."""

    def __init__(self, home: Path, log: Path):
        self.home, self.log = home, log
        self.proc = subprocess.Popen([REVERIE, "--home", str(home), "serve", "--port", "0"],
                                     stdin=subprocess.DEVNULL, stdout=log.open("w"), stderr=subprocess.STDOUT,
                                     env={**os.environ, "REVERIE_HOME": str(home)}, start_new_session=True)

    def wait_ready(self, seconds: float = SERVE_START) -> dict:
        path = self.home / "run" / "serve.json"
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"`reverie serve` exited ({self.proc.returncode}) before writing {path}:\n"
                            f"{self.log.read_text(errors='replace')[-2000:]}", pytrace=False)
            try:
                info = json.loads(path.read_text())
                if {"url", "token"} <= set(info) and info.get("pid") == self.proc.pid:
                    return info
            except (OSError, ValueError):
                pass
            time.sleep(0.1)
        pytest.fail(f"`reverie serve` wrote no {path} within {seconds} s:\n"
                    f"{self.log.read_text(errors='replace')[-2000:]}", pytrace=False)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def cli_calls(self) -> int:
        """How many command lines (hooks included) the server has answered."""
        from reverie.serve.client import request

        status, body = request(self.home, "GET", "/v1/health")
        assert status == 200, body
        return body["cliCalls"]
