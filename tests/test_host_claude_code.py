"""The real Claude Code (npm, pinned in hosts/claude_code.py) with reverie as its MCP server, with
Claude Code's DEFAULT MCP settings, against a scripted model on 127.0.0.1 (no network, no key).

reverie is registered as the server ``reverie`` in the project's ``.mcp.json``, the way a project
does: over stdio (``reverie --home H mcp``) or Streamable HTTP (``reverie --home H serve``, its
``/mcp`` endpoint with the bearer token from ``<home>/run/serve.json``). A note is written first
with ``reverie remember``. Then ``claude -p`` asks; the scripted model calls
``mcp__reverie__memory_search`` and answers by quoting the note it got back. Checked:

(a) the FIRST model request already offers every reverie tool. With tool search on (Claude Code's
    default) MCP tools are deferred: they are named in the request's text and loaded with
    ToolSearch, so the model first asks ToolSearch for memory_search and the next request must carry
    its schema in ``tools``. With ENABLE_TOOL_SEARCH=false they are in the first ``tools`` array.
    Claude Code 2.1.332 in ``-p`` sends its first request as soon as it is ready, about 1 s after it
    starts a ``.mcp.json`` server with tool search on (it waits up to about 2 s with it off), where it
    would wait up to 30 s (MCP_TIMEOUT) for a ``--mcp-config`` server: so a slow ``initialize`` shows
    here as a first request without reverie's tools.
(b) the request after the tool call carries a tool_result holding the note's text;
(c) claude prints the final answer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hosts.claude_code import claude_code  # noqa: F401 (a fixture)
from hosts.claude_code import CLAUDE_CODE_VERSION, deferred_tools, run_claude, write_mcp_json
from hosts.model_server import ModelServer, Reply, Text, ToolCall, anthropic_with_tools
from hosts.serve import ServeProcess

REVERIE = str(Path(sys.executable).with_name("reverie"))
NOTE = "Booked the lake-view room at the Hangzhou tea house for the spring trip"
QUERY = "lake-view room Hangzhou"
SEARCH = "mcp__reverie__memory_search"
FINAL = "DONE: memory says"


def reverie_cli(home: Path, *args: str, timeout: float = 120) -> str:
    done = subprocess.run([REVERIE, "--home", str(home), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "REVERIE_HOME": str(home)})
    assert done.returncode == 0, f"reverie {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}"
    return done.stdout


def reverie_tool_names(home: Path) -> set[str]:
    """reverie's agent tools (the ones MCP serves), as Claude Code names them."""
    tools = json.loads(reverie_cli(home, "--json", "tools"))
    return {f"mcp__reverie__{t['function']['name']}" for t in tools}


def answer(request) -> Text:
    """The model's last turn: quote the note if the memory_search result holds it."""
    results = request.tool_results()
    if request.last_is_tool_result() and results and NOTE in results[-1]:
        return Text(f"{FINAL} “{NOTE}”.")
    return Text(f"NO NOTE in the tool result: {results[-1:]!r}")


def script(tool_search: bool) -> list:
    steps = [ToolCall(SEARCH, {"query": QUERY}), answer]
    if tool_search:  # what a model does with a deferred tool: load its schema first
        steps.insert(0, ToolCall("ToolSearch", {"query": f"select:{SEARCH}"}))
    return steps


@pytest.fixture
def reverie_server(request, reverie_home: Path, tmp_path: Path):
    """Claude Code's .mcp.json entry for reverie over the transport under test."""
    if request.param == "stdio":
        yield {"type": "stdio", "command": REVERIE, "args": ["--home", str(reverie_home), "mcp"]}
        return
    serve = ServeProcess(reverie_home, tmp_path / "serve.log")
    try:
        info = serve.wait_ready()
        yield {"type": "http", "url": info["url"].rstrip("/") + "/mcp",
               "headers": {"Authorization": f"Bearer {info['token']}"}}
    finally:
        serve.stop()


@pytest.mark.slow
@pytest.mark.parametrize("tool_search", [True, False], ids=["tool-search", "tools-inline"])
@pytest.mark.parametrize("reverie_server", ["stdio", "http"], indirect=True)
def test_claude_code_finds_a_note_through_reverie(claude_code: Path, reverie_home: Path,  # noqa: F811
                                                  reverie_server: dict, tool_search: bool, tmp_path: Path):
    started = time.monotonic()
    reverie_cli(reverie_home, "remember", NOTE)
    expected = reverie_tool_names(reverie_home)
    assert SEARCH in expected and len(expected) >= 3, expected
    write_mcp_json(tmp_path / "project", {"reverie": reverie_server})
    # Claude Code's own settings stay at their defaults (no MCP_CONNECT_TIMEOUT_MS, no
    # MCP_CONNECTION_NONBLOCKING); only tool search is switched off for the inline case.
    env = {} if tool_search else {"ENABLE_TOOL_SEARCH": "false"}

    with ModelServer(script(tool_search), is_main=anthropic_with_tools) as model:
        run = run_claude(claude_code, "Where did I book a room for the spring trip?", project=tmp_path / "project",
                         home=tmp_path / "claude-home", base_url=model.url, env=env,
                         args=["--allowedTools", "mcp__reverie__*"])
    traffic = f"{run.describe()}\n--- model traffic\n{model.describe()}"
    main = model.main_requests()
    assert run.returncode == 0, traffic
    assert main and all(r.path == "/v1/messages" for r in main), traffic

    # (a) the first request offers every reverie tool
    first = main[0]
    if tool_search:
        assert expected <= deferred_tools(first), (
            f"the first request does not name reverie's tools (missing {sorted(expected - deferred_tools(first))});"
            f" reverie was not connected in time\n{traffic}")
        assert "ToolSearch" in first.tool_names(), traffic
        loaded = main[1].tool(SEARCH)
        assert loaded is not None, f"ToolSearch did not load {SEARCH}\n{traffic}"
    else:
        assert expected <= set(first.tool_names()), (
            f"the first request's tools lack {sorted(expected - set(first.tool_names()))};"
            f" reverie was not connected in time\n{traffic}")
        loaded = first.tool(SEARCH)
    assert "query" in loaded["input_schema"]["properties"], loaded

    # (b) the memory_search result reached the model, with the note in it
    after_search = main[-1]
    assert after_search.last_is_tool_result(), traffic
    assert NOTE in after_search.tool_results()[-1], traffic

    # (c) claude printed the model's final answer
    assert f"{FINAL} “{NOTE}”." in run.stdout, traffic
    assert len(main) == (3 if tool_search else 2), traffic
    print(f"claude-code {CLAUDE_CODE_VERSION}: claude -p {run.seconds:.1f} s, "
          f"whole test {time.monotonic() - started:.1f} s")


# -- the scripted model server itself (fast: plain HTTP, no host) -----------------------------------


def _post(url: str, body: dict) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _events(text: str) -> list[dict]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ") and line[6:] != "[DONE]"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_model_server_answers_three_apis_from_its_script(stream: bool):
    call = ToolCall("lookup", {"q": "lake"})
    quote = lambda request: Text("saw " + request.tool_results()[-1])  # noqa: E731
    with ModelServer([Reply("looking", [call]), quote] * 3) as model:
        user = [{"role": "user", "content": "hi"}]
        status, a = _post(model.url + "/v1/messages", {"model": "m", "stream": stream, "messages": user})
        assert status == 200
        if stream:
            kinds = [e["type"] for e in _events(a)]
            assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
            partial = "".join(e["delta"].get("partial_json", "") for e in _events(a)
                              if e["type"] == "content_block_delta")
            assert json.loads(partial) == {"q": "lake"} and _events(a)[-2]["delta"]["stop_reason"] == "tool_use"
        else:
            assert [b["type"] for b in json.loads(a)["content"]] == ["text", "tool_use"]
        status, a2 = _post(model.url + "/v1/messages", {"model": "m", "stream": stream, "messages": user + [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "R1"}]}]})
        assert "saw R1" in a2

        status, c = _post(model.openai_url + "/chat/completions", {"model": "m", "stream": stream, "messages": user})
        args = ("".join(e["choices"][0]["delta"].get("tool_calls", [{}])[0].get("function", {}).get("arguments", "")
                        for e in _events(c) if e["choices"]) if stream
                else json.loads(c)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
        assert json.loads(args) == {"q": "lake"}
        _, c2 = _post(model.openai_url + "/chat/completions", {"model": "m", "stream": stream, "messages": user + [
            {"role": "tool", "tool_call_id": "c1", "content": "R2"}]})
        assert "saw R2" in c2

        _, r = _post(model.openai_url + "/responses", {"model": "m", "stream": stream, "input": "hi"})
        output = _events(r)[-1]["response"]["output"] if stream else json.loads(r)["output"]
        assert [i["type"] for i in output] == ["message", "function_call"]
        _, r2 = _post(model.openai_url + "/responses", {"model": "m", "stream": stream, "input": [
            {"type": "function_call_output", "call_id": "c1", "output": "R3"}]})
        assert "saw R3" in r2

        assert _post(model.url + "/v1/nope", {})[0] == 404
    assert [r.api for r in model.main_requests()] == ["anthropic"] * 2 + ["chat"] * 2 + ["responses"] * 2
    assert model.requests[-1].path == "/v1/nope" and not model.errors
