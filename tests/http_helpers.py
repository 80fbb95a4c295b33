"""A base request handler for the real local HTTP servers that tests run (provider wire protocols)."""

from __future__ import annotations

import contextlib
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator


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
