"""`reverie ui` as a real process: what it prints, where it listens, live events, a clean stop."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from reverie import Memory


def _start(*args: str, env_home: Path) -> tuple[subprocess.Popen, str, list[str]]:
    env = {**os.environ, "REVERIE_HOME": str(env_home), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "reverie.cli.main", "--set", 'memory.search.provider="fake"', "ui",
                             "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    err: list[str] = []
    threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True).start()
    url = proc.stdout.readline().strip()
    assert url.startswith("http://"), (url, err)
    return proc, url, err


def _stop(proc: subprocess.Popen, sig: int = signal.SIGINT) -> int:
    proc.send_signal(sig)
    try:
        return proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def _get(url: str, path: str, headers: dict | None = None) -> tuple[int, dict, str]:
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
    conn.request("GET", path, headers=headers or {})
    r = conn.getresponse()
    body = r.read().decode("utf-8", errors="replace")
    return r.status, dict(r.getheaders()), body


@pytest.fixture
def workspace_home(reverie_home):
    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    mem.remember("决定住西湖边的湖滨酒店")
    mem.close()
    return reverie_home


def test_ui_listens_on_loopback_prints_a_token_url_and_stops_cleanly(workspace_home):
    proc, url, err = _start(env_home=workspace_home)
    try:
        u = urlsplit(url)
        assert u.hostname == "127.0.0.1" and u.query.startswith("token=") and len(u.query) > 30
        status, _, body = _get(url, "/a/main/")
        assert status == 401  # no token, no cookie
        status, headers, _ = _get(url, f"/?{u.query}")
        assert status == 303
        cookie = headers["set-cookie"].split(";", 1)[0]
        status, _, body = _get(url, "/a/main/file?path=MEMORY.md", {"Cookie": cookie})
        assert status == 200 and "MEMORY.md" in body
        # an event stream left open must not keep the server from stopping
        u2 = urlsplit(url)
        stream = http.client.HTTPConnection(u2.hostname, u2.port, timeout=10)
        stream.request("GET", "/a/main/events", headers={"Cookie": cookie})
        assert stream.getresponse().status == 200
    finally:
        t0 = time.monotonic()
        code = _stop(proc)
    assert code == 0, err
    assert time.monotonic() - t0 < 10
    assert any("serving agent(s) main" in line for line in err)


def test_an_explicit_host_warns(workspace_home):
    proc, url, err = _start("--host", "0.0.0.0", env_home=workspace_home)
    try:
        status, _, _ = _get(url, "/")
        assert status == 401
    finally:
        code = _stop(proc, signal.SIGTERM)
    assert code == 0, err
    assert any("warning: listening on 0.0.0.0" in line for line in err)


def test_a_busy_port_is_a_user_error(workspace_home):
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    port = sock.getsockname()[1]
    try:
        r = subprocess.run([sys.executable, "-m", "reverie.cli.main", "ui", "--port", str(port)], capture_output=True,
                           text=True, env={**os.environ, "REVERIE_HOME": str(workspace_home)}, timeout=60)
    finally:
        sock.close()
    assert r.returncode == 1
    assert f"port {port} on 127.0.0.1 is in use" in r.stderr and r.stdout == ""


def test_a_host_that_does_not_resolve_is_blamed_not_the_port(workspace_home):
    r = subprocess.run([sys.executable, "-m", "reverie.cli.main", "ui", "--host", "bogus.invalid.", "--port", "0"],
                       capture_output=True, text=True, env={**os.environ, "REVERIE_HOME": str(workspace_home)},
                       timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    last = r.stderr.strip().splitlines()[-1]  # (after the warning an explicit host always gets)
    assert last.startswith("reverie: error: cannot listen on bogus.invalid.:") and "port" not in last, r.stderr


def test_sigterm_stops_the_server_while_the_engine_is_stuck_in_a_batch(workspace_home, monkeypatch):
    monkeypatch.setenv("FAKE_EMBEDDER_STUCK_AFTER", "0")  # every batch of passages never returns
    notes = workspace_home / "workspace" / "memory" / "notes"
    notes.mkdir(parents=True, exist_ok=True)
    for i in range(80):  # not indexed yet: a search starts a background run that embeds them
        (notes / f"n{i}.md").write_text(f"- otter note {i}\n", encoding="utf-8")
    proc, url, err = _start(env_home=workspace_home)
    try:
        u = urlsplit(url)
        _, headers, _ = _get(url, f"/?{u.query}")
        cookie = headers["set-cookie"].split(";", 1)[0]
        status, _, _ = _get(url, "/a/main/search?q=otter", {"Cookie": cookie})
        assert status == 200
    finally:
        code = _stop(proc, signal.SIGTERM)  # (fails if the process outlives a generous 15 s)
    assert code == 0, err
    assert any("reverie ui stopped" in line for line in err)


def test_file_changes_reach_an_open_page_as_events(workspace_home):
    proc, url, err = _start(env_home=workspace_home)
    try:
        u = urlsplit(url)
        _, headers, _ = _get(url, f"/?{u.query}")
        cookie = headers["set-cookie"].split(";", 1)[0]
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
        conn.request("GET", "/a/main/events", headers={"Cookie": cookie})
        resp = conn.getresponse()
        assert resp.headers["content-type"].startswith("text/event-stream")
        assert resp.readline().startswith(b"retry:")
        mem = Memory(home=workspace_home, overrides=['memory.search.provider="fake"'])
        deadline = time.monotonic() + 15
        event = None
        while time.monotonic() < deadline and event is None:
            # the watcher may still be starting: write until a change arrives
            mem.remember("返程车票已确认")
            t_end = time.monotonic() + 2
            while time.monotonic() < t_end:
                line = resp.readline().decode()
                if line.startswith("event: change"):
                    event = json.loads(resp.readline().decode()[len("data: "):])
                    break
        mem.close()
        assert event is not None, "no change event within 15 s"
        assert any(p.startswith("memory/") for p in event["paths"])
    finally:
        _stop(proc)


def test_a_dreaming_preview_reports_its_progress_on_the_event_stream(workspace_home):
    import re

    proc, url, err = _start(env_home=workspace_home)
    try:
        u = urlsplit(url)
        _, headers, _ = _get(url, f"/?{u.query}")
        cookie = headers["set-cookie"].split(";", 1)[0]
        _, _, page = _get(url, "/a/main/dreaming", {"Cookie": cookie})
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        stream = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
        stream.request("GET", "/a/main/events", headers={"Cookie": cookie})
        resp = stream.getresponse()
        assert resp.readline().startswith(b"retry:")
        post = http.client.HTTPConnection(u.hostname, u.port, timeout=20)
        post.request("POST", "/a/main/dreaming/preview", body=f"csrf={csrf}",
                     headers={"Cookie": cookie, "Origin": f"http://{u.netloc}", "Accept": "application/json",
                              "Content-Type": "application/x-www-form-urlencoded"})
        started = post.getresponse()
        assert started.status == 202
        job_id = json.loads(started.read())["job"]["id"]
        seen = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (seen and seen[-1]["state"] != "running"):
            line = resp.readline().decode()
            if line.startswith("event: job"):
                seen.append(json.loads(resp.readline().decode()[len("data: "):]))
        assert seen and all(j["id"] == job_id and j["kind"] == "dream" for j in seen)
        assert seen[-1]["state"] == "done" and seen[-1]["done"] == seen[-1]["total"] == 5, seen
    finally:
        _stop(proc)
