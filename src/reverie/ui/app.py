"""The Starlette application: routes, error pages, static files, and the watcher's lifetime."""

from __future__ import annotations

import contextlib

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..errors import UserError
from . import activity, dreaming_page, events, forget_page, pages, search_page, writes
from .home import AgentRefused, UIHome
from .live import Changes, Jobs
from .security import Guard, GuardMiddleware
from .web import HERE, UI, make_env, render


def _agent_refused(request: Request, exc: AgentRefused) -> HTMLResponse:
    if exc.known:
        message = (f"Agent {exc.agent!r} is not served by this server. Start it with "
                   f"`reverie ui --agent {exc.agent}` (or --all-agents) to see its memory.")
        return render(request, "error.html", agent=None, title="Not served", message=message, code=403)
    return render(request, "error.html", agent=None, title="No such agent",
                  message=f"This home has no agent {exc.agent!r}.", code=404)


def _user_error(request: Request, exc: UserError) -> HTMLResponse:
    agent = request.path_params.get("agent")
    ui = request.app.state.ui
    shown = agent if agent and ui.home.is_served(agent) else None
    return render(request, "error.html", agent=shown, title="Cannot do that",
                  message=str(exc).splitlines()[0] if str(exc) else type(exc).__name__, code=400)


def _not_found(request: Request, exc) -> PlainTextResponse:
    return PlainTextResponse(f"{getattr(exc, 'detail', 'not found')}\n", status_code=getattr(exc, "status_code", 404))


def build_app(home: UIHome, guard: Guard, *, watch: bool = True) -> Starlette:
    """The web view over ``home`` behind ``guard``. ``watch`` starts the file watcher with the app
    (a TestClient used without ``with`` runs no lifespan, so it watches nothing)."""
    ui = UI(home=home, guard=guard, changes=Changes(home.open_workspaces), jobs=Jobs(), env=make_env())

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if watch:
            ui.changes.start()
        try:
            yield
        finally:
            ui.stopping.set()
            ui.changes.stop()
            home.close()

    agent = "/a/{agent}"
    routes = [
        Route("/", pages.root),
        Route(f"{agent}/", pages.overview),
        Route(f"{agent}/files", pages.files_page),
        Route(f"{agent}/file", pages.file_page),
        Route(f"{agent}/edit", writes.edit_page, methods=["GET"]),
        Route(f"{agent}/edit", writes.edit_save, methods=["POST"]),
        Route(f"{agent}/append", writes.append_note, methods=["POST"]),
        Route(f"{agent}/reindex", writes.reindex, methods=["POST"]),
        Route(f"{agent}/search", search_page.search_page),
        Route(f"{agent}/dreaming", dreaming_page.dreaming_page),
        Route(f"{agent}/dreaming/preview", dreaming_page.dream_preview, methods=["POST"]),
        Route(f"{agent}/dreaming/restore", dreaming_page.restore_page, methods=["GET"]),
        Route(f"{agent}/dreaming/restore", dreaming_page.restore_apply, methods=["POST"]),
        Route(f"{agent}/forget", forget_page.forget_page, methods=["GET"]),
        Route(f"{agent}/forget/preview", forget_page.forget_preview, methods=["POST"]),
        Route(f"{agent}/forget/apply", forget_page.forget_apply, methods=["POST"]),
        Route(f"{agent}/acting", activity.acting_page),
        Route(f"{agent}/sessions", activity.sessions_page),
        Route(f"{agent}/sessions/{{sid}}", activity.session_page),
        Route(f"{agent}/events", events.events),
        Route(f"{agent}/state.json", events.state),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={
        AgentRefused: _agent_refused, UserError: _user_error, writes.CsrfRefused: writes.refused,
        404: _not_found, 405: _not_found})
    app.state.ui = ui
    app.add_middleware(GuardMiddleware, guard=guard)
    return app
