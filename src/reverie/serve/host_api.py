"""JSON endpoints for hosts that run their own conversation and keep reverie as their memory
(OpenClaw's memory slot, docs/hosts/openclaw.md): the memory sidecar and the memory manager a host
asks for, over ``reverie serve``, under the same token, Host and Origin rules as ``/v1``.

All are ``POST /v1/agents/<agent>/<what>`` with a JSON object (``{}`` when there is nothing to say)
and answer JSON:

=========================  =====================================================================
``sidecar/<op>``           :class:`reverie.sidecar.FollowedSession` for ``session`` (the host's
                           key), ``host``, ``kind``, ``projects``, ``cwd``, ``owner``; ``op`` one
                           of start (``source``), before_model (``text``, ``turn``), after_turn and
                           before_compaction (``messages``, or ``openclawMessages``: OpenClaw's own
                           message objects, read by the OpenClaw transcript parser), end
                           (``reason``). Answers the ``Outcome`` (``error`` set, never raised).
``search``                 hybrid search (``query``, ``maxResults``, ``minScore``, ``maxTokens``:
                           the results that fit in that many tokens, ``activeProjectKeys``; ``lexicalOnly``: keyword scoring only, no query
                           embedding; ``sources``: memory and/or sessions)
``read``                   lines of a memory file (``path``, ``from``, ``lines``)
``status``                 the index: files, chunks, dirty, provider, model, workspace
``sync``                   bring the index up to date with the files (``force``: rebuild)
``triggers``               curated entries that carry trigger phrases (``activeProjectKeys``,
                           ``limit``), with their origin class
``classify``               origin classes of workspace files (``workspaceDir``, ``paths``): a file
                           outside this agent's workspace is ``untrusted`` (reverie cannot vouch
                           for it); one inside is the least trusted class of its lines
=========================  =====================================================================

A request may name the home it means (``home``): a server of another home refuses it with 409, so
a host configured for one home never reads or writes another's memory. Bad input is 400, an agent
that does not exist 404, a memory-side failure 500; each with ``{"error": "<one line>"}``.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..mcp import http as mcp_http

PREFIX = "/v1/agents/"
SIDECAR_OPS = ("start", "before_model", "after_turn", "before_compaction", "end")
ENDPOINTS = ("search", "read", "status", "sync", "triggers", "classify")
SOURCES = ("memory", "sessions")


class BadRequest(ValueError):
    """The request is not what the endpoint takes: said in one line (400)."""


def handles(path: str) -> bool:
    return path.startswith(PREFIX)


async def handle(app, path: str, scope, receive, send) -> None:
    """One request under ``/v1/agents/`` (the caller has checked the token, Host and Origin)."""
    import anyio

    parts = path[len(PREFIX):].strip("/").split("/")
    agent, what = parts[0], "/".join(parts[1:])
    op = what[len("sidecar/"):] if what.startswith("sidecar/") else None
    if not agent or (what not in ENDPOINTS and op not in SIDECAR_OPS):
        return await mcp_http.respond(send, 404, {"error": f"no such endpoint: {path} (POST /v1/agents/<agent>/"
                                                  f"{{{','.join(ENDPOINTS)}}} or sidecar/{{{','.join(SIDECAR_OPS)}}})"})
    if scope["method"] != "POST":
        return await mcp_http.respond(send, 405, {"error": "POST a JSON object"}, [(b"allow", b"POST")])
    raw = await mcp_http._body(receive)
    if raw is None:
        return  # the client went away before its request was whole: nothing was done
    try:
        req = json.loads(raw or b"{}")
        if not isinstance(req, dict):
            raise ValueError
    except ValueError:
        return await mcp_http.respond(send, 400, {"error": "the body must be one JSON object"})
    wanted = req.get("home")
    if wanted is not None and not _same_home(str(wanted), app.home):
        return await mcp_http.respond(send, 409, {"error": f"this reverie serve is for the home {app.home}, not "
                                                  f"{wanted}: start reverie serve for that home (reverie --home "
                                                  f"{wanted} serve)", "home": str(app.home)})
    try:
        app.pool.server(agent)  # a named agent must exist: a URL never creates one (a typo would)
    except Exception as exc:
        return await mcp_http.respond(send, 404, {"error": str(exc).splitlines()[0]})

    def work() -> tuple[int, dict]:
        from ..errors import UserError

        mem = app.lender.lend(app.home, agent, None, list(app.pool.overrides))
        try:
            if op is not None:
                return 200, sidecar(mem, op, req)
            return 200, CALLS[what](mem, req)
        except (BadRequest, UserError) as exc:
            return 400, {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
        except Exception as exc:  # a memory-side failure: one line, the host goes on without memory
            return 500, {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")}
        finally:
            app.lender.give_back()

    status, body = await anyio.to_thread.run_sync(work)
    return await mcp_http.respond(send, status, body)


def _same_home(wanted: str, home: Path) -> bool:
    try:
        return Path(os.path.expanduser(wanted)).resolve() == Path(home).resolve()
    except OSError:
        return False


# -- reading the request -----------------------------------------------------------------------------

def _str(req: dict, name: str, default: str | None = None, *, required: bool = False) -> str | None:
    value = req.get(name, default)
    if value is None and not required:
        return None
    if not isinstance(value, str) or (required and not value.strip()):
        raise BadRequest(f"{name} must be a non-empty string")
    return value


def _int(req: dict, name: str, low: int = 1) -> int | None:
    value = req.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise BadRequest(f"{name} must be a whole number of at least {low}")
    return value


def _keys(req: dict, name: str) -> list[str] | None:
    value = req.get(name)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadRequest(f"{name} must be a list of strings")
    return [v for v in value if v.strip()]


# -- the sidecar ---------------------------------------------------------------------------------------

def sidecar(mem, op: str, req: dict) -> dict:
    from ..sidecar import KINDS, FollowedSession

    key = _str(req, "session", required=True)
    kind = _str(req, "kind", "main")
    if kind not in KINDS:
        raise BadRequest(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    host = _str(req, "host", "host") or "host"
    s = FollowedSession(mem, host=host, key=key, kind=kind, projects=_keys(req, "projects"),
                        cwd=_str(req, "cwd"), owner=req.get("owner", True) is not False,
                        channel=_str(req, "channel"))
    try:
        if op == "start":
            out = s.start(_str(req, "source", "startup") or "startup")
        elif op == "before_model":
            out = s.before_model(_str(req, "text", required=True), turn=_str(req, "turn"))
        elif op == "after_turn":
            out = s.after_turn(messages_of(req, host))
        elif op == "before_compaction":
            out = s.before_compaction(messages_of(req, host))
        else:
            out = s.end(_str(req, "reason", "end") or "end")
    finally:
        s.close()
    return out.as_dict()


def messages_of(req: dict, host: str) -> list:
    """The turn's messages: ``messages`` as HostMessage fields, or ``openclawMessages`` as OpenClaw
    hands them to its hooks (``agent_end``, ``before_compaction``)."""
    from ..sessions.host import HostMessage, ToolCallPart

    if req.get("openclawMessages") is not None:
        return openclaw_messages(req["openclawMessages"])
    raw = req.get("messages") or []
    if not isinstance(raw, list):
        raise BadRequest("messages must be a list")
    out = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict):
            raise BadRequest(f"messages[{i}] must be an object")
        calls = tuple(ToolCallPart(str(c.get("id") or ""), str(c.get("name") or ""),
                                   c.get("arguments") if isinstance(c.get("arguments"), dict) else {})
                      for c in m.get("toolCalls") or [] if isinstance(c, dict))
        try:
            out.append(HostMessage(str(m.get("role")), str(m.get("text") or ""), str(m.get("origin")),
                                   tool_calls=calls, tool_name=m.get("toolName"), tool_call_id=m.get("toolCallId"),
                                   host_id=m.get("hostId")))
        except ValueError as exc:
            raise BadRequest(f"messages[{i}]: {exc}") from None
    return out


def openclaw_messages(raw) -> list:
    """OpenClaw's in-memory messages (role user / assistant / toolResult ..., as its transcript holds
    them) through the OpenClaw transcript parser, each with a host id made of its role, timestamp and
    words: the same message handed over again (a retried hook, the next turn's history) is
    recorded once."""
    from ..sessions.native.openclaw import parse_lines

    if not isinstance(raw, list):
        raise BadRequest("openclawMessages must be a list")
    lines = []
    for i, m in enumerate(raw):
        if not isinstance(m, dict):
            raise BadRequest(f"openclawMessages[{i}] must be an object")
        digest = hashlib.sha256(json.dumps([m.get("role"), m.get("timestamp"), m.get("content"),
                                            m.get("toolCallId")], sort_keys=True, default=str).encode()).hexdigest()
        lines.append(json.dumps({"type": "message", "id": f"oc:{digest[:20]}", "message": m}, default=str))
    return list(parse_lines(lines).messages)


# -- the memory manager -------------------------------------------------------------------------------

def search(mem, req: dict) -> dict:
    from ..trust.framing import frame_search

    query = _str(req, "query", required=True)
    sources = _keys(req, "sources") or list(SOURCES)
    if not set(sources) <= set(SOURCES):
        raise BadRequest(f"sources must be among {', '.join(SOURCES)}")
    # (maxTokens is judged by the search itself: one message for every way in)
    n, floor, budget = _int(req, "maxResults"), req.get("minScore"), req.get("maxTokens")
    if floor is not None and (isinstance(floor, bool) or not isinstance(floor, (int, float))):
        raise BadRequest("minScore must be a number between 0 and 1")
    projects = _keys(req, "activeProjectKeys")
    if req.get("lexicalOnly"):
        # keyword scoring only: no query embedding (a host's reply path must not wait on a model)
        from ..search.service import SearchService

        out = SearchService(mem.index, mem.settings.search, None, mem.provider_state).search(
            query, n, floor, projects=projects, max_tokens=budget)
    else:
        out = mem.search(query, n, floor, projects=projects, max_tokens=budget)
    kept = [r for r in out.get("results") or [] if r.get("source", "memory") in sources]
    if len(kept) < len(out.get("results") or []) and out.get("budget"):
        from ..search.reading import spent

        out["budget"]["tokens"] = spent(kept)  # what the host is handed, not what was ranked
    out["results"] = kept
    return frame_search(out)


def read(mem, req: dict) -> dict:
    out = mem.get(_str(req, "path", required=True), _int(req, "from"), _int(req, "lines"))
    if out.get("status") != "not_found" and not out.get("error"):
        out.setdefault("status", "ok")
    return out


def status(mem, req: dict) -> dict:
    st = mem.status()
    chunks = st.get("chunks") or {}
    return {"backend": "reverie", "provider": st.get("provider"), "model": st.get("model"),
            "files": st.get("files"), "chunks": chunks.get("total"), "dirty": bool(st.get("dirty")),
            "workspaceDir": st.get("workspace"), "dbPath": st.get("database"), "agent": st.get("agent"),
            "home": st.get("home"), "provenance": st.get("provenance"), "memory": st.get("memory"),
            "problems": st.get("problems") or [], "warnings": st.get("warnings") or [],
            "fts": st.get("fts"), "vector": st.get("vector")}


def sync(mem, req: dict) -> dict:
    report = mem.rebuild() if req.get("force") else mem.sync()
    return {"ok": True, "report": report.as_dict() if hasattr(report, "as_dict") else str(report)}


def triggers(mem, req: dict) -> dict:
    """The trigger-bearing curated entries, as trigger recall sees them (eligible or not: each
    carries its origin class, and a host decides with it)."""
    from ..recall import trigger

    limit = _int(req, "limit") or 200
    active = set(_keys(req, "activeProjectKeys") or [])
    if not mem.workspace.is_dir():
        return {"results": []}
    conn, generation = mem.index.snapshot()
    out = []
    for e in trigger.phrase_index(conn, generation).entries:
        if e.projects and not set(e.projects) <= active:
            continue  # annotated for a project that is not active: fail closed
        row = {"path": e.path, "startLine": e.start_line, "endLine": e.end_line, "score": 1.0, "snippet": e.text,
               "source": "memory", "triggers": "; ".join(p for p, _ in e.phrases),
               "citation": f"{e.path}#L{e.start_line}-L{e.end_line}"}
        if e.projects:
            row["projectKey"] = ";".join(e.projects)
        if e.origin:
            row["provenance"] = {"originClass": e.origin, "sessionKind": "interactive"}
        out.append(row)
        if len(out) >= limit:
            break
    return {"results": out}


def classify(mem, req: dict) -> dict:
    workspace = _str(req, "workspaceDir", required=True)
    paths = _keys(req, "paths")
    if paths is None:
        raise BadRequest("paths must be a list of strings")
    try:
        ours = Path(workspace).expanduser().resolve() == mem.workspace.resolve()
    except OSError:
        ours = False
    out = []
    for rel in paths:
        origin = "untrusted"
        if ours:
            target = (mem.workspace / rel).resolve()
            if target.is_file() and mem.workspace.resolve() in target.parents:
                origin = _file_origin(mem, target)
        out.append({"relativePath": rel, "originClass": origin})
    return {"classifications": out}


def _file_origin(mem, path: Path) -> str:
    """The least trusted class among the file's lines as reverie recorded them."""
    trust = getattr(mem, "trust", None)
    if trust is None:
        return "untrusted"
    lines = max(1, len(path.read_text(encoding="utf-8", errors="replace").splitlines()))
    origin = trust.origins(str(path)).lines(1, lines).origin
    return origin if origin in ("owner", "agent", "untrusted", "system") else "untrusted"


CALLS = {"search": search, "read": read, "status": status, "sync": sync, "triggers": triggers,
         "classify": classify}
