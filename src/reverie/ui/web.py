"""What every page handler shares: the server's state, the navigation, rendering, form reading."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import parse_qsl, quote

from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..timestamps import parse_iso
from .home import UIHome
from .live import Changes, Jobs
from .security import Guard

HERE = Path(__file__).parent
MAX_FORM_BYTES = 4 * 1024 * 1024  # a MEMORY.md edit is text; anything bigger is refused unread

# The navigation, in order: (key, label, path under /a/<agent>). A page is one more entry here
# plus its routes (app.py) and its template, which extends base.html like the others.
NAV: list[tuple[str, str, str]] = [
    ("overview", "Overview", "/"),
    ("files", "Memory files", "/files"),
    ("search", "Search", "/search"),
    ("dreaming", "Dreaming", "/dreaming"),
    ("acting", "Intents & automations", "/acting"),
    ("sessions", "Sessions", "/sessions"),
    ("forget", "Forget", "/forget"),
]


@dataclass
class UI:
    home: UIHome
    guard: Guard
    changes: Changes
    jobs: Jobs
    env: Environment
    stopping: threading.Event = field(default_factory=threading.Event)


def make_env() -> Environment:
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")),
                      autoescape=select_autoescape(["html"], default=True), trim_blocks=True, lstrip_blocks=True)
    env.filters["when"] = when
    env.filters["ago"] = ago
    env.filters["q"] = lambda s: quote(str(s), safe="")
    env.filters["size"] = human_size
    return env


def ui_of(request: Request) -> UI:
    return request.app.state.ui


def render(request: Request, template: str, *, agent: str | None, active: str = "", code: int = 200,
           **ctx) -> HTMLResponse:
    ui = ui_of(request)
    sid = request.scope.get("state", {}).get("ui_session")
    known = ui.home.known_agents()
    if agent is not None and "tz" not in ctx and ui.home.is_served(agent):
        try:
            ctx["tz"] = ui.home.memory(agent).settings.tz()
        except Exception:  # an unreadable zone setting: the machine's zone, named
            pass
    body = ui.env.get_template(template).render(
        agent=agent, active=active, nav=NAV, csrf=ui.guard.csrf_of(sid) or "",
        agents=[{"id": a, "served": ui.home.is_served(a)} for a in known], home=str(ui.home.home), **ctx)
    return HTMLResponse(body, status_code=code)


async def read_form(request: Request) -> dict[str, str]:
    """An url-encoded form (what our pages post), at most MAX_FORM_BYTES; last value wins."""
    size = int(request.headers.get("content-length") or 0)
    if size > MAX_FORM_BYTES:
        return {"_too_big": "1"}
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return {"_too_big": "1"}
    return dict(parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True))


# -- filters ------------------------------------------------------------------------------------
def _as_datetime(value) -> datetime | None:
    if value in (None, ""):
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, (int, float)):
        # milliseconds (automations, intents) or seconds (index meta): ms values are far larger
        return datetime.fromtimestamp(value / 1000 if value > 10**11 else value, timezone.utc)
    return parse_iso(str(value))


@pass_context
def when(ctx, value) -> str:
    """A time in the memory's zone (its ``timezone`` setting, else this machine's), zone named:
    the page is read from anywhere, and '09:00' alone does not say whose nine o'clock."""
    dt = _as_datetime(value)
    if dt is None:
        return "–"
    local = dt.astimezone(ctx.get("tz"))
    name = local.tzname() or ""
    if not name or name[0] in "+-":  # zones without an abbreviation name themselves by offset
        off = int((local.utcoffset() or timedelta(0)).total_seconds() // 60)
        name = "UTC" + (f"{'+' if off >= 0 else '-'}{abs(off) // 60:02d}:{abs(off) % 60:02d}" if off else "")
    return local.strftime("%Y-%m-%d %H:%M ") + name


def ago(value) -> str:
    dt = _as_datetime(value)
    if dt is None:
        return "never"
    secs = (datetime.now(timezone.utc) - dt).total_seconds()
    future = secs < 0
    secs = abs(secs)
    for unit, n in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if secs >= n:
            k = int(secs // n)
            text = f"{k} {unit}{'s' if k != 1 else ''}"
            return f"in {text}" if future else f"{text} ago"
    return "in a moment" if future else "just now"


def human_size(n: int | None) -> str:
    if n is None:
        return "–"
    if n < 1024:
        return f"{n} B"
    return f"{n / 1024:.1f} KB" if n < 1024 * 1024 else f"{n / 1024 / 1024:.1f} MB"
