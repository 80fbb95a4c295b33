"""The Forget page through Starlette's TestClient, over a real session that wrote a note (fake
embedder): the plan changes nothing, applying needs the confirmation and an unchanged plan, the
report matches the plan, bad selectors come back as the form, and every refused write (no CSRF
token, another origin) changes nothing."""

from __future__ import annotations

import html
import json
import re

import pytest
from dreaming_helpers import day
from ui_helpers import client, csrf_of, make_app, same_origin

from reverie import Memory
from reverie.models.scripted import ScriptedModel
from reverie.sessions import TranscriptStore

SECRET = "locker code 7781-ZEBRA"


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=['memory.search.provider="fake"'])
    m.init()
    rt = m.runtime(ScriptedModel(script={"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": f"The owner's {SECRET} for the gym."}}]},
        {"afterTools": True, "reply": "Saved."}]}}), session="gym", clock=lambda: day(0))
    rt.send(f"Please remember my {SECRET} for the gym.")
    m.sid = rt.session.session_id
    rt.close()
    m.remember("I water the plants on Sundays.", now=day(0, 1))
    m.sync()
    yield m
    m.close()


@pytest.fixture
def app(mem):
    return make_app()


def _state(mem) -> dict:
    """Every file of the workspace and the session's transcript: what a refused forget leaves alone."""
    files = {p.relative_to(mem.workspace).as_posix(): p.read_bytes() for p in mem.workspace.rglob("*.md")}
    store = TranscriptStore(mem.places.agent_db)
    try:
        events = len(store.events(mem.sid, kinds=None))
    finally:
        store.close()
    return {"files": files, "events": events}


def _holding(mem) -> list[str]:
    """Every line of the workspace's notes that holds the secret, as ``file:line``."""
    return [f"{p.name}:{n}" for p in mem.workspace.rglob("*.md")
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "7781-ZEBRA" in line]


def _artifacts(html: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r'data-artifact="(\w+)"><th>[^<]*</th><td class="val">(\d+)</td>', html)}


def _plan(c, **fields) -> tuple[str, dict]:
    page = c.get("/a/main/forget").text
    form = {"csrf": csrf_of(page), "session": "", "participant": "", "hook_source": "", "since": "", "text": "",
            **fields}
    r = c.post("/a/main/forget/preview", data=form, headers=same_origin())
    return r, form


def _apply_form(html: str) -> dict[str, str]:
    form = html[html.index('id="forget-apply-form"'):]
    form = form[:form.index("</form>")]
    return {k: v.replace("&#34;", '"').replace("&#39;", "'").replace("&amp;", "&")
            for k, v in re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form)}


def test_the_plan_shows_every_count_and_changes_nothing(app, mem):
    before = _state(mem)
    c = client(app)
    r, _ = _plan(c, session=mem.sid)
    assert r.status_code == 200 and "dry run: nothing has changed yet" in r.text
    counts = _artifacts(r.text)
    assert len(counts) == 17
    assert counts["memoryLines"] == 1 and counts["memoryFiles"] == 1 and counts["transcriptEvents"] >= 3
    assert counts["indexChunks"] >= 1  # the note was indexed
    [line] = _holding(mem)
    assert "agent:main:gym" in r.text and f"memory/{line.split(':')[0]}" in r.text
    assert _state(mem) == before
    assert 'id="forget-confirm"' in r.text and 'required' in r.text
    report = json.loads(re.search(r'<pre id="forget-json">(.*?)</pre>', r.text, re.S).group(1).replace("&#34;", '"'))
    assert report["dryRun"] is True and report["sessionIds"] == [mem.sid]


def test_applying_needs_the_confirmation_and_removes_what_the_plan_said(app, mem):
    c = client(app)
    r, _ = _plan(c, session="gym")  # by key
    plan = _artifacts(r.text)
    form = _apply_form(r.text)
    assert form["session"] == "gym" and len(form["fingerprint"]) == 64
    before = _state(mem)
    r = c.post("/a/main/forget/apply", data=form, headers=same_origin())  # the box not ticked
    assert r.status_code == 400 and "tick the confirmation" in r.text and _state(mem) == before
    r = c.post("/a/main/forget/apply", data={**form, "confirm": "1"}, headers=same_origin())
    assert r.status_code == 200 and "Forgotten" in r.text
    assert _artifacts(r.text) == plan
    assert _holding(mem) == [] and "7781-ZEBRA" not in r.text  # the report never repeats the text
    assert "I water the plants on Sundays." in (mem.workspace / "memory" / "2026-06-01.md").read_text(encoding="utf-8")
    html = client(app).get("/a/main/sessions", params={"q": "7781-ZEBRA"}).text
    assert 'id="no-session-hits"' in html


def test_a_plan_that_changed_since_the_preview_is_shown_again_and_nothing_is_removed(app, mem):
    c = client(app)
    r, _ = _plan(c, text="7781-ZEBRA locker")
    assert _artifacts(r.text)["memoryLines"] == 0  # the words are not in that order anywhere
    r, _ = _plan(c, text="7781-ZEBRA")
    form = {**_apply_form(r.text), "confirm": "1"}
    mem.remember("Again: 7781-ZEBRA is the code.", now=day(0, 2))  # written after the preview
    before = _state(mem)
    r = c.post("/a/main/forget/apply", data=form, headers=same_origin())
    assert r.status_code == 409 and "the plan changed since you previewed it" in r.text
    assert _state(mem) == before and len(_holding(mem)) == 2  # the session's saved line and the new line
    form = {**_apply_form(r.text), "confirm": "1"}  # the new plan, confirmed
    r = c.post("/a/main/forget/apply", data=form, headers=same_origin())
    assert r.status_code == 200 and _holding(mem) == []


@pytest.mark.parametrize("fields, message", [
    ({}, "forget needs a selector"),
    ({"text": "ab"}, "too short to forget safely"),
    ({"participant": "alice", "since": "last week"}, "--since 'last week'"),
])
def test_bad_selectors_come_back_as_the_form_with_the_reason(app, mem, fields, message):
    before = _state(mem)
    r, _ = _plan(client(app), **fields)
    assert r.status_code == 400 and message in html.unescape(r.text) and 'id="forget-form"' in r.text
    assert _state(mem) == before


def test_an_unknown_session_is_reported_unresolved(app, mem):
    r, _ = _plan(client(app), session="no-such-session")
    assert "unresolved" in r.text and sum(_artifacts(r.text).values()) == 0


@pytest.mark.parametrize("path", ["/a/main/forget/preview", "/a/main/forget/apply"])
@pytest.mark.parametrize("how", ["no csrf", "wrong csrf", "cross origin", "another port", "no origin"])
def test_forget_writes_are_refused_without_csrf_or_from_another_origin(app, mem, path, how):
    before = _state(mem)
    c = client(app)
    r, _ = _plan(c, session=mem.sid)
    form = {**_apply_form(r.text), "confirm": "1"}
    headers = same_origin()
    if how == "no csrf":
        del form["csrf"]
    elif how == "wrong csrf":
        form["csrf"] = "guess"
    elif how == "cross origin":
        headers = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}
    elif how == "another port":
        headers = {"Origin": "http://127.0.0.1:9999"}
    else:
        headers = {}
    r = c.post(path, data=form, headers=headers)
    assert r.status_code == 403 and ("CSRF" in r.text or "nothing changed" in r.text)
    assert _state(mem) == before and _holding(mem)


def test_the_form_is_filled_from_a_session_link_but_never_with_text(app, mem):
    c = client(app)
    session_page = c.get(f"/a/main/sessions/{mem.sid}").text
    link = re.search(r'id="forget-session" href="([^"]+)"', session_page).group(1)
    html = c.get(link.replace("&amp;", "&")).text
    assert f">{mem.sid}</textarea>" in html
    html = c.get("/a/main/forget", params={"text": SECRET}).text
    assert SECRET not in html
