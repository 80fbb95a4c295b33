"""A base request handler for the real local HTTP servers that tests run (provider wire protocols)."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler


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
