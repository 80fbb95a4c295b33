"""`reverie serve`: one warm process per home. MCP over Streamable HTTP, CLI commands answered by
it with the same output and exit codes as in-process, the token and loopback rules, one server per
home, a stale state file from a killed server, a clean stop on SIGTERM, a client that goes away
mid-call."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import _env, cli, ok, one_error, same_but_scores
from reverie.mcp.client import Client, HttpServer

pytestmark = pytest.mark.slow


class Served:
    def __init__(self, home: Path, *extra: str):
        self.home = home
        self.proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "serve",
                                      "--port", "0", "--no-scheduler", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home))
        deadline = time.monotonic() + 60
        state = home / "run" / "serve.json"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"serve exited: {self.proc.stderr.read()}")
            if state.exists():
                try:
                    self.info = json.loads(state.read_text())
                except ValueError:
                    self.info = {}
                if self.info.get("pid") == self.proc.pid:  # its own, not a killed server's
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("serve did not start")

    @property
    def mcp(self) -> HttpServer:
        return HttpServer(self.info["url"] + "/mcp", {"authorization": f"Bearer {self.info['token']}"})

    def health(self) -> dict:
        from reverie.serve.client import request

        status, body = request(self.home, "GET", "/v1/health")
        assert status == 200
        return body

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


@pytest.fixture
def served(reverie_home):
    ok(cli(reverie_home, "init"))
    ok(cli(reverie_home, "remember", "The neighbour's parrot is named Captain Flint."))
    ok(cli(reverie_home, "index"))  # settled: both ways of running a command read the same index
    s = Served(reverie_home)
    yield s
    s.stop()


def _raw(info: dict, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
    conn.request(method, path, body=body, headers=headers or {})
    r = conn.getresponse()
    return r.status, r.read()


def test_mcp_over_http_lists_searches_and_appends(served):
    async def go():
        async with Client(served.mcp) as c:
            tools = await c.list_tools()
            found = await c.call_tool("memory_search", {"query": "parrot Captain Flint"})
            appended = await c.call_tool("memory_append", {"text": "The spare key is under the blue flowerpot."})
            again = await c.call_tool("memory_search", {"query": "spare key flowerpot"})
            return tools, found, appended, again, c.server_info

    tools, found, appended, again, info = asyncio.run(go())
    assert info["name"] == "reverie"
    assert {"memory_search", "memory_get", "memory_append"} <= {t.name for t in tools.tools}
    assert "Captain Flint" in found.content[0].text and not found.is_error
    assert json.loads(appended.content[0].text)["status"] == "appended"
    assert "flowerpot" in again.content[0].text


def test_the_official_sdk_client_over_streamable_http(served):
    import contextlib

    import httpx
    from mcp import ClientSession
    from mcp.client import streamable_http

    headers = {"Authorization": f"Bearer {served.info['token']}"}

    @contextlib.asynccontextmanager
    async def connect():
        if hasattr(streamable_http, "streamable_http_client"):  # the SDK's current client (1.2x and later)
            async with httpx.AsyncClient(headers=headers) as http, \
                    streamable_http.streamable_http_client(served.mcp.url, http_client=http) as streams:
                yield streams
        else:  # an older SDK
            async with streamable_http.streamablehttp_client(served.mcp.url, headers=headers) as streams:
                yield streams

    async def go():
        async with connect() as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                return tools, await session.call_tool("memory_search", {"query": "parrot"})

    tools, found = asyncio.run(go())
    assert "memory_search" in {t.name for t in tools.tools}
    assert not found.isError and "Captain Flint" in found.content[0].text


def test_who_may_call(served):
    info = served.info
    token = {"Authorization": f"Bearer {info['token']}"}
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}).encode()
    assert _raw(info, "POST", "/mcp", init)[0] == 401  # no token
    assert _raw(info, "POST", "/mcp", init, {"Authorization": "Bearer wrong"})[0] == 401
    assert _raw(info, "POST", "/mcp", init, {**token, "Host": "evil.example"})[0] == 421  # DNS rebinding
    assert _raw(info, "POST", "/mcp", init, {**token, "Origin": "https://evil.example"})[0] == 403
    assert _raw(info, "GET", "/mcp", b"", token)[0] == 405
    status, body = _raw(info, "POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode(),
                        {**token, "Mcp-Session-Id": "no-such-session"})
    assert status == 404 and b"initialize again" in body
    status, body = _raw(info, "POST", "/mcp/nosuchagent", init, token)
    assert status == 404 and b"does not exist" in body  # a URL never creates an agent
    assert _raw(info, "POST", "/mcp", b"not json", token)[0] == 400
    assert _raw(info, "POST", "/v1/cli", b"{}", token)[0] == 400
    # the web view keeps its own rules: no token, no page
    assert _raw(info, "GET", "/a/main/")[0] in (401, 403)
    assert _raw(info, "GET", f"/?token={info['token']}")[0] in (200, 303, 307)


def _untimed(value):
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("Ms")}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def test_cli_commands_through_the_server_answer_as_in_process(served, reverie_home):
    before = served.health()["cliCalls"]
    cases = [("search", "parrot"), ("search", "parrot", "--json"), ("get", "MEMORY.md"),
             ("get", "../../etc/passwd"), ("search", "--max-results", "0", "parrot"), ("status", "--json")]
    for args in cases:
        through = cli(reverie_home, *args)
        here = cli(reverie_home, *args, env={"REVERIE_SERVE": "off"})
        assert through.returncode == here.returncode, (args, through.stderr, here.stderr)
        if args[0] == "status":  # the same report (the server's warm state may add lines)
            assert json.loads(through.stdout)["agent"] == json.loads(here.stdout)["agent"]
        elif "--json" in args:  # the same answer; only how long each step took differs
            assert same_but_scores(json.dumps(_untimed(json.loads(through.stdout))),
                                   json.dumps(_untimed(json.loads(here.stdout)))), args
        else:
            assert same_but_scores(through.stdout, here.stdout), args
            assert through.stderr == here.stderr, args
    assert one_error(cli(reverie_home, "get", "../../etc/passwd"))
    assert served.health()["cliCalls"] == before + len(cases) + 1
    # a note remembered through the server is found by the next search, also in-process
    ok(cli(reverie_home, "remember", "The boat is called Saltwater Dream."))
    assert "Saltwater" in ok(cli(reverie_home, "search", "boat name", env={"REVERIE_SERVE": "off"})).stdout


def test_standard_input_goes_with_the_command(served, reverie_home):
    before = served.health()["cliCalls"]
    ok(cli(reverie_home, "remember", "--stdin", stdin="From stdin: the gate code changed to 7781.\n"))
    assert served.health()["cliCalls"] == before + 1
    notes = "".join(p.read_text(encoding="utf-8") for p in (reverie_home / "workspace" / "memory").glob("*.md"))
    assert notes.count("the gate code changed to 7781") == 1


def test_commands_the_server_must_not_run_run_here(served, reverie_home):
    before = served.health()["cliCalls"]
    # other REVERIE_* variables than the server's: the server would answer for another setting
    ok(cli(reverie_home, "search", "parrot", env={"REVERIE_AGENT": "main"}))
    ok(cli(reverie_home, "index"))  # long-running: always here
    assert served.health()["cliCalls"] == before  # neither went through the server, both worked


def test_a_second_server_for_the_home_says_one_line(served, reverie_home):
    second = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "serve", "--port", "0"],
                            capture_output=True, text=True, env=_env(reverie_home), timeout=60)
    assert second.returncode == 1
    line = second.stderr.strip().splitlines()[-1]
    assert "already running" in line and str(served.info["pid"]) in line


def test_a_killed_server_leaves_nothing_that_stops_the_next(reverie_home):
    ok(cli(reverie_home, "init"))
    first = Served(reverie_home)
    first.proc.kill()
    first.proc.wait()
    assert (reverie_home / "run" / "serve.json").exists()  # stale, as a kill leaves it
    # the CLI sees no live server and runs in-process
    ok(cli(reverie_home, "remember", "written while no server runs"))
    second = Served(reverie_home)
    try:
        assert second.info["pid"] != first.info["pid"]
        assert "written while no server runs" in ok(cli(reverie_home, "search", "written while")).stdout
        assert second.health()["cliCalls"] >= 1
    finally:
        assert second.stop() == 0
    assert not (reverie_home / "run" / "serve.json").exists()
    assert not Path(second.info["socket"]).exists()


def test_sigterm_stops_cleanly(served):
    assert served.stop() == 0
    assert not (served.home / "run" / "serve.json").exists()
    assert "reverie serve stopped" in served.proc.stderr.read()


def test_sigterm_at_any_moment_of_the_start_stops_it_cleanly(reverie_home):
    """A SIGTERM while the server is still starting (opening the home, before or just after its
    state file appears, while the default agent opens in the background) stops it promptly with
    exit 0, and leaves neither its state file nor its lock behind: the next server starts."""
    ok(cli(reverie_home, "init"))
    ok(cli(reverie_home, "remember", "The neighbour's parrot is named Captain Flint."))
    state = reverie_home / "run" / "serve.json"
    for delay in (0.3, 0.8, None, None):  # None: the moment its state file names it
        proc = subprocess.Popen([sys.executable, "-c", "from reverie.cli.main import run; run()", "serve",
                                 "--port", "0", "--no-scheduler"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(reverie_home))
        if delay is not None:
            time.sleep(delay)
        else:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    if json.loads(state.read_text()).get("pid") == proc.pid:
                        break
                except (OSError, ValueError):
                    pass
                time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise AssertionError(f"serve did not stop on a SIGTERM {delay or 'at its state file'} s into its start")
        # a SIGTERM before reverie's own handler is in place (Python still starting) ends the process
        # as the default action does: nothing was written yet. From the handler on: a clean stop, exit 0
        early = delay is not None and code == -signal.SIGTERM and not state.exists()
        assert code == 0 or early, (code, proc.stderr.read())
        assert not state.exists() or json.loads(state.read_text()).get("pid") != proc.pid
    second = Served(reverie_home)
    assert second.stop() == 0


def test_a_client_gone_mid_call_leaves_the_write_whole(served, reverie_home):
    info = served.info

    token = {"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"}
    init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}).encode()
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=30)
    conn.request("POST", "/mcp", body=init, headers=token)
    r = conn.getresponse()
    r.read()
    sid = r.getheader("mcp-session-id")
    text = "Half-written? The bike lock code is on the fridge note. " * 50
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"name": "memory_append", "arguments": {"text": text}}}).encode()
    raw = socket.create_connection(("127.0.0.1", info["port"]))
    raw.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + info["token"].encode() +
                b"\r\nMcp-Session-Id: " + sid.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: " +
                str(len(call)).encode() + b"\r\n\r\n" + call)
    raw.close()  # gone before the answer
    deadline = time.monotonic() + 30
    notes = reverie_home / "workspace" / "memory"
    while time.monotonic() < deadline:
        body = "".join(p.read_text(encoding="utf-8") for p in notes.glob("*.md"))
        if "bike lock" in body:
            break
        time.sleep(0.1)
    body = "".join(p.read_text(encoding="utf-8") for p in notes.glob("*.md"))
    assert body.count(text.strip()) == 1  # written whole, once
    assert served.health()["ok"] is True  # and the server goes on


def test_remote_binding_needs_an_explicit_flag(reverie_home):
    r = cli(reverie_home, "serve", "--host", "0.0.0.0", "--port", "0")
    assert "--allow-remote" in one_error(r)


def test_a_command_the_server_answers_starts_nothing_it_does_not_use(served, reverie_home, tmp_path):
    """The process of a delegated command (every hook of a host) loads only the road to the server:
    no command-line framework, no settings, no JSON, no regular expressions, no socket wrapper."""
    from import_probe import probe

    before = served.health()["cliCalls"]
    found, r = probe(tmp_path / "modules.txt", ["search", "parrot"], _env(reverie_home))
    assert found["code"] == 0 and "Captain Flint" in r.stdout, r.stderr
    assert served.health()["cliCalls"] == before + 1  # answered by the server, not here
    loaded = set(found["modules"])
    for heavy in ("typer", "click", "pydantic", "reverie.config", "reverie.api", "json", "re", "socket", "pathlib"):
        assert heavy not in loaded, heavy


def test_the_bridge_speaks_json_and_its_own_framing_and_refuses_a_broken_one(served, reverie_home):
    from reverie.serve import wire
    from reverie.serve.client import request

    # the caller's REVERIE_* settings go with a command (the server refuses to answer for others)
    env = {k: v for k, v in _env(reverie_home).items() if k.startswith("REVERIE_") and k != "REVERIE_HOME"}
    status, body = request(reverie_home, "POST", "/v1/cli", {"argv": ["--home", str(reverie_home), "search", "parrot"],
                                                            "env": env, "cwd": str(reverie_home), "stdin": ""})
    assert status == 200 and body["code"] == 0 and "Captain Flint" in body["stdout"]
    before = served.health()["cliCalls"]
    headers = {"Authorization": f"Bearer {served.info['token']}", "Content-Type": wire.CONTENT_TYPE}
    good = wire.command_request(["--home", str(reverie_home), "remember", "framed: the kettle is blue"], env,
                                str(reverie_home), "")
    for broken in (good[:-3], b"x" + good, b"9999:abc,", wire.encode(["2", "/", "", "0", "status"])):
        status, text = _raw(served.info, "POST", "/v1/cli", broken, headers)
        assert status == 400, (broken, status, text)
    assert served.health()["cliCalls"] == before  # nothing ran
    status, raw = _raw(served.info, "POST", "/v1/cli", good, headers)
    assert status == 200 and wire.read_command_answer(raw)["code"] == 0
    notes = "".join(p.read_text(encoding="utf-8") for p in (reverie_home / "workspace" / "memory").glob("*.md"))
    assert notes.count("the kettle is blue") == 1
