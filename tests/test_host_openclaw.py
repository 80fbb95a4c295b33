"""reverie in OpenClaw's memory slot, end to end: the real OpenClaw gateway (npm ``openclaw``, pinned, on a
pinned Node from the npm registry) with reverie's plugin (integrations/openclaw) linked from this
repository, a real `reverie serve` on a real home, and the scripted model server as OpenClaw's only
provider. One gateway for the whole module; each step is one OpenClaw command as a user would type it.

1. A turn: the startup context (MEMORY.md, today's note) is in the system prompt of the model request,
   the trigger recall ("green tea") before the user's words; the model calls memory_search and the tool
   answers from reverie; reverie's transcript holds the turn with provenance (the owner's words, the
   agent's, memory_search's result as recall).
2. `openclaw gateway call sessions.compact`: before_compaction runs reverie's flush, written through
   reverie into the agent's dated note with the owner's class.
3. `sessions.reset`: before_reset / session_end write reverie's session note.
3a. Active Memory (on in the home's settings, offline): a new conversation asking about the past gets
    the recalled fact before the reply, as the model request shows; reverie records the pass.
3b. Dreaming's light phase ingests what the owner said in OpenClaw (from reverie's transcript), never
    a recalled block.
4. reverie serve stopped: the next turn goes on without memory, and the gateway's log says why.
5. The plugin's own tests (node --test), against real `reverie serve`s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_helpers import _env, cli, ok
from hosts.model_server import ModelServer, Text, ToolCall
from hosts.openclaw import PLUGIN_DIR, Gateway, config, openclaw  # noqa: F401  (openclaw: a fixture)
from test_serve import Served

pytestmark = pytest.mark.slow

FACT = "The cabin's boat is called Saltwater Dream."
OLDER = "My sister's wedding is in Porto on June 14."
KEY = "agent:main:e2e"
PROMPT = ("Green tea or coffee this morning? And what is the boat called? "
          "Remember that the spare key is under the blue flowerpot.")


def _found(req) -> Text:
    results = req.tool_results()
    return Text("Found: " + (results[-1][:400] if results else "nothing"))


ASKED = "What did I say about my sister's wedding in Porto?"
ALIVE = "Are you there?"


def _reply(req):
    """The model's answer, by what the request is: should OpenClaw make a call of its own (a retry, a
    turn before compaction), a list of answers in order would answer every later turn wrongly (once,
    under load, the Active Memory turn got another turn's answer)."""
    said = "\n".join(req.user_texts())
    if "context summarization assistant" in req.system_text():
        return Text("Summary: tea, the boat, the spare key.")  # OpenClaw's compaction summary
    if ALIVE in said:
        return Text("Still here.")  # the turn without reverie
    if ASKED in said:
        return Text("In Porto, on June 14.")  # the Active Memory turn
    if "Thanks." in said:
        return Text("You are welcome.")  # turn 2
    if req.tool_results():
        return _found(req)  # turn 1, after the tool
    return ToolCall("memory_search", {"query": "boat name"})  # turn 1


@pytest.fixture(scope="module")
def world(openclaw, tmp_path_factory):  # noqa: F811
    base = tmp_path_factory.mktemp("openclaw")
    home = base / "reverie"
    ok(cli(home, "init"))
    with open(home / "reverie.toml", "a", encoding="utf-8") as f:  # Active Memory on, offline (test 3a)
        f.write("\n[memory.activeMemory]\nenabled = true\n")
    (home / "workspace" / "MEMORY.md").write_text(
        "# Memory\n\n- Prefers green tea over coffee. <!-- trigger: green tea -->\n", encoding="utf-8")
    ok(cli(home, "remember", FACT))
    _remember_days_ago(home, OLDER, 12)  # beyond the startup context: only a recall can bring it (test 3a)
    ok(cli(home, "index"))
    served = Served(home)
    model = ModelServer(_reply).start()
    gateway = None
    try:
        gateway = Gateway(openclaw, base / "openclaw", config(model.url, base / "openclaw-workspace",
                                                              reverie_home=home))
        yield {"home": home, "served": served, "model": model, "gateway": gateway}
    finally:
        if gateway is not None:
            gateway.stop()
        model.stop()
        served.stop()


def _remember_days_ago(home: Path, text: str, days: int) -> None:
    from datetime import datetime, timedelta, timezone

    from reverie import Memory
    from reverie.trust import OWNER_CLI

    mem = Memory(home=home, overrides=['memory.search.provider="none"'])
    try:
        mem.remember(text, now=datetime.now(timezone.utc) - timedelta(days=days), provenance=OWNER_CLI)
    finally:
        mem.close()


def _events(home: Path, kind: str, monkeypatch) -> list:
    from reverie import Memory

    monkeypatch.setenv("REVERIE_HOME", str(home))
    monkeypatch.setenv("REVERIE_EMBEDDING_PROVIDER", "fake")
    mem = Memory(home=home)
    try:
        from reverie.sidecar import FollowedSession

        s = FollowedSession(mem, host="openclaw", key=KEY)
        try:
            return list(s.rt.store.events_of_key(s.rt.key, kind, limit=500))
        finally:
            s.close()
    finally:
        mem.close()


def _first_turn(world):
    """The first turn of KEY's conversation (the owner's words the compaction, reset and Dreaming tests
    look for), run once: a test picked alone (``-k``) runs it itself rather than finding nothing."""
    if "first" not in world:
        world["seen"] = len(world["model"].main_requests())
        world["first"] = world["gateway"].agent(KEY, PROMPT)
    return world["first"]


def _search(world, query: str) -> list[dict]:
    from reverie.serve.client import request

    status, body = request(world["home"], "POST", "/v1/agents/main/search", {"query": query})
    assert status == 200, body
    return body["results"]


def test_a_turn_gets_startup_context_trigger_recall_and_memory_search_and_is_recorded(world, monkeypatch):
    gw, model = world["gateway"], world["model"]
    run = _first_turn(world)
    assert run.returncode == 0, run.describe() + "\n--- gateway log\n" + gw.log()[-3000:]
    main = model.main_requests()[world["seen"]:]
    assert len(main) >= 2, model.describe()
    first = main[0]
    assert "Long-term memory (reverie)" in first.system_text() and FACT in first.system_text(), \
        "the startup context did not reach the model's system prompt"
    users = "\n".join(first.user_texts())
    assert "Recalled from long-term memory (reverie)" in users and "Prefers green tea" in users, \
        "trigger recall did not reach the model's request"
    # before the user's words once: only reverie's trigger lane put it there (the system prompt holds
    # MEMORY.md as well, as OpenClaw's own memory does: the recalled line is the one near the question)
    assert users.count("Prefers green tea") == 1 and users.count('lane="trigger"') == 1, users
    assert "memory_search" in first.tool_names()
    # (the first request that carries a tool's result: on a busy machine OpenClaw may ask the model again
    # before the tool runs, and that request carries none)
    results = next((r.tool_results() for r in main[1:] if r.tool_results()), [])
    assert results and "Saltwater Dream" in results[-1] and "memory/" in results[-1], \
        "OpenClaw's memory_search did not answer from reverie\n" + model.describe() + "\n--- gateway log\n" \
        + gw.log()[-3000:]
    assert "Found:" in run.stdout

    time.sleep(1)  # agent_end is observed after the reply is out
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assistant = _events(world["home"], "assistant", monkeypatch)
        if any(e.text.startswith("Found:") for e in assistant):
            break
        time.sleep(0.5)
    user = _events(world["home"], "user", monkeypatch)
    assert [e.origin for e in user if e.text == PROMPT] == ["owner"]  # recorded once, the owner's words
    assert [e.origin for e in assistant if e.text.startswith("Found:")] == ["agent"], gw.log()[-3000:]
    recalled = [e for e in _events(world["home"], "tool_result", monkeypatch) if "Saltwater" in e.text]
    assert [e.origin for e in recalled] == ["owner"]  # what memory said, of its entry's class
    marks = [e.data for e in _events(world["home"], "system", monkeypatch) if e.data.get("event") == "recall"]
    assert any(m.get("lane") == "memory_search" for m in marks), marks  # marked as recall: never written back


def test_compaction_runs_the_flush_through_reverie(world, monkeypatch):
    gw = world["gateway"]
    assert _first_turn(world).returncode == 0
    run = gw.agent(KEY, "Thanks.")
    assert run.returncode == 0, run.describe()
    compact = gw.call("sessions.compact", {"key": KEY})
    assert compact.returncode == 0 and compact.json().get("compacted") is True, compact.describe()
    deadline = time.monotonic() + 60
    hits = []
    while time.monotonic() < deadline:
        hits = [h for h in _search(world, "spare key blue flowerpot") if "flowerpot" in h["snippet"]]
        if hits:
            break
        time.sleep(1)
    assert hits, "the flush wrote nothing through reverie:\n" + gw.log()[-3000:]
    # in the dated note, written by reverie's flush writer: a class reverie vouches for (a file OpenClaw's
    # own flush turn wrote into the workspace would be untrusted)
    assert hits[0]["path"].startswith("memory/") and hits[0]["provenance"]["originClass"] in ("owner", "agent")
    flushes = [e for e in _events(world["home"], "flush", monkeypatch)]
    assert flushes, "no flush recorded in reverie's transcript"


def test_reset_writes_the_session_note(world):
    gw = world["gateway"]
    assert _first_turn(world).returncode == 0
    notes = world["home"] / "workspace" / "memory"
    before = {p.name: p.read_text() for p in notes.glob("*.md")}
    reset = gw.call("sessions.reset", {"key": KEY})
    assert reset.returncode == 0, reset.describe()
    deadline = time.monotonic() + 60
    changed = {}
    while time.monotonic() < deadline:
        changed = {p.name: p.read_text() for p in notes.glob("*.md") if before.get(p.name) != p.read_text()}
        if changed:
            break
        time.sleep(1)
    assert changed, "no session note was written at reset:\n" + gw.log()[-3000:]
    assert any("flowerpot" in text or "Saltwater" in text or "green tea" in text for text in changed.values()), changed


LATER = "agent:main:e2e-later"


def test_active_memory_recalls_before_the_reply_in_a_new_conversation(world, monkeypatch):
    gw, model = world["gateway"], world["model"]
    seen = len(model.main_requests())
    run = gw.agent(LATER, ASKED)
    assert run.returncode == 0 and "In Porto, on June 14." in run.stdout, run.describe()
    request = next(r for r in model.main_requests()[seen:] if ASKED in "\n".join(r.user_texts()))
    users = "\n".join(request.user_texts())
    assert "Porto" not in request.system_text()  # not in the startup context: twelve days old
    monkeypatch.setattr(sys.modules[__name__], "KEY", LATER)  # _events reads this conversation
    system = [e.data for e in _events(world["home"], "system", monkeypatch)]
    logged = "\n".join(line for line in gw.log().splitlines() if "reverie" in line)
    assert "Recalled from long-term memory (reverie)" in users and "Porto on June 14" in users, \
        f"Active Memory's recall did not reach the model's request:\n{users[-300:]}\n{system}\n{logged[-3000:]}"
    passes = [d for d in system if d.get("event") == "active-memory"]
    assert passes and passes[-1].get("status") == "ok", passes  # the bounded pass ran, and found it


def test_dreaming_ingests_what_the_owner_said_in_openclaw(world):
    assert _first_turn(world).returncode == 0
    deadline = time.monotonic() + 30
    corpus = ""
    while time.monotonic() < deadline:  # agent_end of the last turn is recorded after its reply
        ok(cli(world["home"], "dream", "run", "--phase", "light", "--json"))
        folder = world["home"] / "workspace" / "memory" / ".dreams" / "session-corpus"
        corpus = "\n".join(p.read_text(encoding="utf-8") for p in folder.glob("*.md"))
        if "spare key is under the blue flowerpot" in corpus:
            break
        time.sleep(1)
    assert "spare key is under the blue flowerpot" in corpus, corpus  # the owner's words of the first turn
    # never what memory said: not a recalled block, nor the tool's answer the model echoed ("Found: {...}")
    assert "Recalled from long-term memory" not in corpus and "Saltwater" not in corpus and '"score"' not in corpus


def test_a_stopped_reverie_serve_is_a_clear_error_and_the_turn_goes_on(world):
    gw, served = world["gateway"], world["served"]
    assert served.stop() == 0
    run = gw.agent("agent:main:after-stop", ALIVE)
    assert run.returncode == 0 and "Still here." in run.stdout, run.describe()
    log = gw.log()
    assert "reverie: " in log and "reverie serve is not running for the home" in log, log[-3000:]
    assert f"reverie --home {world['home']} serve" in log


def test_the_plugins_own_tests_pass_against_real_servers(openclaw, tmp_path):  # noqa: F811
    env = {**_env(tmp_path / "unused"), "PATH": f"{openclaw.bin_dir}{os.pathsep}{Path(sys.executable).parent}"
                                               f"{os.pathsep}{os.environ.get('PATH', '')}",
           "REVERIE_BIN": str(Path(sys.executable).parent / "reverie"), "REVERIE_TEST_TMP": str(tmp_path)}
    done = subprocess.run([str(openclaw.node), "--test", "--test-reporter=tap", "test/mapping.test.ts", "test/client.test.ts"], cwd=PLUGIN_DIR, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# skipped 0" in done.stdout, done.stdout[-2000:]
