"""Who may talk to the web view: the token, the session cookie, CSRF, same-origin and Host checks.

The model (docs/ui.md):

* The server binds to 127.0.0.1 unless ``--host`` is given explicitly (then a warning).
* A random token is printed in the URL (as notebook servers do). A request carrying the right
  ``?token=`` gets a session: an HttpOnly, SameSite=Strict cookie holding a random session id (never
  the token itself); a GET is then redirected to the same URL without the token, so it does not
  stay in the address bar or the history. Every later request needs that cookie or the token.
* Every write (any method but GET/HEAD/OPTIONS) must come from our own origin -- ``Sec-Fetch-Site``
  when the browser sends it, then ``Origin``, else ``Referer`` must name this server -- and carry
  the session's CSRF token (a form field ``csrf`` or an ``X-CSRF-Token`` header, checked by
  :func:`check_csrf` in the write handlers, which read the body).
* On loopback the ``Host`` header must name a loopback host: a DNS-rebinding page (evil.example
  resolving to 127.0.0.1) is refused before anything else happens.
* Every answer carries a strict Content-Security-Policy (scripts and styles from this server only,
  no inline script, no remote images), ``X-Frame-Options: DENY`` and ``no-store`` caching.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict
from http.cookies import SimpleCookie
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, RedirectResponse, Response

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
DEFAULT_BIND = "127.0.0.1"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MAX_SESSIONS = 64
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


def bind_address(host: str | None) -> tuple[str, str | None]:
    """The address to listen on and, when it is not loopback, the warning to print."""
    if not host:
        return DEFAULT_BIND, None
    if host.strip("[]") in LOOPBACK_HOSTS:
        return host.strip("[]"), None
    return host, (f"warning: listening on {host}: anyone who can reach this address and learns the token can "
                  "read and edit this memory; keep the token secret (default: 127.0.0.1 only)")


def hostname_of(host_header: str) -> str:
    """``127.0.0.1:8765`` -> ``127.0.0.1``; ``[::1]:8765`` -> ``::1``."""
    h = host_header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


class Guard:
    """The token and the sessions it opened (session id -> CSRF token), in memory only: a
    restarted server prints a new token and forgets every session."""

    def __init__(self, token: str, *, cookie_name: str, loopback_only: bool = True):
        if len(token) < 16:
            raise ValueError("the UI token must be at least 16 characters")
        self.token = token
        self.cookie_name = cookie_name
        self.loopback_only = loopback_only
        self._sessions: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def new_token() -> str:
        return secrets.token_urlsafe(24)

    def token_ok(self, value: str | None) -> bool:
        return bool(value) and hmac.compare_digest(value.encode(), self.token.encode())

    def open_session(self) -> str:
        sid = secrets.token_urlsafe(24)
        with self._lock:
            self._sessions[sid] = secrets.token_urlsafe(24)
            while len(self._sessions) > MAX_SESSIONS:  # the oldest session must log in again
                self._sessions.popitem(last=False)
        return sid

    def csrf_of(self, sid: str | None) -> str | None:
        if not sid:
            return None
        with self._lock:
            return self._sessions.get(sid)

    def csrf_ok(self, sid: str | None, value: str | None) -> bool:
        expected = self.csrf_of(sid)
        return bool(expected and value) and hmac.compare_digest(str(value).encode(), expected.encode())

    def host_ok(self, host_header: str) -> bool:
        if not host_header:
            return False
        return not self.loopback_only or hostname_of(host_header) in LOOPBACK_HOSTS


def same_origin_problem(headers: Headers, scheme: str, host: str) -> str | None:
    """Why a write does not come from this server's own pages, or None when it does."""
    origin = f"{scheme}://{host}".lower()
    site = headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return f"cross-site request refused (Sec-Fetch-Site: {site})"
    sent = headers.get("origin")
    if sent is not None:
        return None if sent.lower() == origin else f"cross-origin request refused (Origin: {sent})"
    referer = (headers.get("referer") or "").lower()
    if referer == origin or referer.startswith(origin + "/"):
        return None
    return "request refused: it names no origin (neither Origin nor Referer from this server)"


def check_csrf(guard: Guard, sid: str | None, form_value: str | None, header_value: str | None) -> bool:
    return guard.csrf_ok(sid, header_value or form_value)


def _cookie_value(headers: Headers, name: str) -> str | None:
    raw = headers.get("cookie")
    if not raw:
        return None
    jar = SimpleCookie()
    try:
        jar.load(raw)
    except Exception:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel else None


def _refusal(status: int, message: str) -> Response:
    return PlainTextResponse(message + "\n", status_code=status)


class GuardMiddleware:
    """Pure ASGI (server-sent event streams pass through untouched)."""

    def __init__(self, app, guard: Guard):
        self.app = app
        self.guard = guard

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.app(scope, receive, send)
        if scope["type"] != "http":  # no websockets here
            return
        guard = self.guard
        headers = Headers(scope=scope)
        host = headers.get("host", "")
        if not guard.host_ok(host):
            return await _refusal(400, f"refused: unexpected Host header {host!r} (this server answers to "
                                       "127.0.0.1 and localhost only)")(scope, receive, send)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        token = next((v for k, v in query if k == "token"), None)
        sid = _cookie_value(headers, guard.cookie_name)
        if guard.csrf_of(sid) is None:
            sid = None
        new_sid = None
        if token is not None:
            if not guard.token_ok(token):
                return await _refusal(403, "refused: wrong token; open the URL `reverie ui` printed")(
                    scope, receive, send)
            if sid is None:
                sid = new_sid = guard.open_session()
            if scope["method"] in ("GET", "HEAD"):
                rest = urlencode([(k, v) for k, v in query if k != "token"])
                target = scope.get("root_path", "") + scope["path"] + (f"?{rest}" if rest else "")
                response = RedirectResponse(target, status_code=303)
                self._set_cookie(response, new_sid)
                return await _with_headers(response)(scope, receive, send)
        elif sid is None:
            return await _refusal(401, "this page needs the token: open the URL `reverie ui` printed "
                                       "(it ends in ?token=...)")(scope, receive, send)
        if scope["method"] not in SAFE_METHODS:
            problem = same_origin_problem(headers, scope.get("scheme", "http"), host)
            if problem:
                return await _refusal(403, problem + "; nothing changed")(scope, receive, send)
        scope.setdefault("state", {})["ui_session"] = sid
        cookie = self._cookie_header(new_sid) if new_sid else None

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                extra = list(SECURITY_HEADERS)
                if cookie:
                    extra.append((b"set-cookie", cookie))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _cookie_header(self, sid: str) -> bytes:
        return f"{self.guard.cookie_name}={sid}; HttpOnly; SameSite=Strict; Path=/".encode()

    def _set_cookie(self, response: Response, sid: str | None) -> None:
        if sid:
            response.raw_headers.append((b"set-cookie", self._cookie_header(sid)))


def _with_headers(response: Response) -> Response:
    response.raw_headers.extend(SECURITY_HEADERS)
    return response
