"""A base request handler for the real local HTTP servers that tests run (provider wire protocols)."""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest


class JsonHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass

    def _send(self, status: int, body: str) -> None:
        data = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, status: int, text: str, headers: dict | None = None) -> None:
        """An answer as given (any status, any body, extra headers such as Retry-After)."""
        data = text.encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **(headers or {})}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def serving(handler_class, release=None) -> Iterator[str]:
    """Run a real HTTP server on a free loopback port; yields its base URL (http://127.0.0.1:PORT).

    ``release`` (a threading.Event) is set before shutdown so handlers that hang on purpose return.
    """
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler_class)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        if release is not None:
            release.set()
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def fast_retry(monkeypatch):
    """Retry backoff shrunk to 10 ms (import this fixture into a test module to use it)."""
    from reverie import retry

    monkeypatch.setattr(retry, "BASE_SECONDS", 0.01)
