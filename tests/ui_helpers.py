"""Shared pieces of the web view tests: a served home on the fake embedder and a logged-in client."""

from __future__ import annotations

import re
from pathlib import Path

from starlette.testclient import TestClient

FAKE = ['memory.search.provider="fake"']
TOKEN = "test-token-" + "x" * 16
ORIGIN = "http://127.0.0.1:8765"


def make_app(agents=None, *, all_agents=False, loopback_only=True, watch=False, overrides=None):
    from reverie.ui import build_app
    from reverie.ui.home import UIHome
    from reverie.ui.security import Guard

    home = UIHome(None, agents, all_agents=all_agents, overrides=overrides or FAKE)
    guard = Guard(TOKEN, cookie_name="reverie_ui_test", loopback_only=loopback_only)
    return build_app(home, guard, watch=watch)


def client(app, *, login: bool = True) -> TestClient:
    c = TestClient(app, base_url=ORIGIN, follow_redirects=False)
    if login:
        r = c.get(f"/?token={TOKEN}")
        assert r.status_code == 303, r.text
    return c


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf-token" content="([^"]+)"', html)
    assert m, "no CSRF token on the page"
    return m.group(1)


def same_origin() -> dict[str, str]:
    return {"Origin": ORIGIN, "Sec-Fetch-Site": "same-origin"}


def wait_job(c, agent: str, job: dict, timeout: float = 60) -> dict:
    """Poll state.json until the background job ends."""
    import time

    deadline = time.monotonic() + timeout
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.05)
        job = c.get(f"/a/{agent}/state.json?job={job['id']}").json()["job"]
    return job


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")
