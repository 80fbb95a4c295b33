"""The web view's server rules through Starlette's TestClient: the token and its cookie, the Host
rule, CSRF and same-origin checks on every write, the agent access rule, compare-and-set edits,
append-only daily notes, safe rendering, and the pages over real data (fake embedder)."""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone

import pytest
from ui_helpers import ORIGIN, TOKEN, client, csrf_of, make_app, read, same_origin

from reverie import Memory
from reverie.workspace import append_text


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=['memory.search.provider="fake"'])
    m.init()
    m.remember("决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。")
    m.remember("The user prefers short, conclusion-first travel plans.")
    append_text(m.workspace / "MEMORY.md", "- 用户坐高铁喜欢靠窗的座位。 <!-- importance: 8 -->")
    yield m
    m.close()


@pytest.fixture
def app(mem):
    return make_app()


# -- the token and the session cookie ---------------------------------------------------------------
def test_without_the_token_nothing_is_served(app, mem):
    c = client(app, login=False)
    for path in ("/", "/a/main/", "/a/main/file?path=MEMORY.md", "/a/main/search?q=x", "/static/ui.css",
                 "/a/main/events", "/a/main/state.json", "/a/main/dreaming", "/a/main/dreaming/restore?id=latest",
                 "/a/main/forget"):
        r = c.get(path)
        assert r.status_code == 401, path
        assert "token" in r.text and "湖景房" not in r.text and "靠窗" not in r.text
    before = {p: p.read_bytes() for p in mem.workspace.rglob("*.md")}
    for path in ("/a/main/dreaming/preview", "/a/main/dreaming/restore", "/a/main/forget/preview",
                 "/a/main/forget/apply"):
        r = c.post(path, data={"session": "x", "text": "湖景房", "confirm": "1", "id": "latest"},
                   headers=same_origin())
        assert r.status_code == 401, path
    assert {p: p.read_bytes() for p in mem.workspace.rglob("*.md")} == before


def test_wrong_token_is_refused(app):
    c = client(app, login=False)
    r = c.get("/?token=" + "y" * 27)
    assert r.status_code == 403
    assert "set-cookie" not in r.headers


def test_token_sets_a_strict_httponly_cookie_and_leaves_the_url(app):
    c = client(app, login=False)
    r = c.get(f"/a/main/files?token={TOKEN}&x=1")
    assert r.status_code == 303
    assert r.headers["location"] == "/a/main/files?x=1"  # the token does not stay in the address bar
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("reverie_ui_test=") and TOKEN not in cookie
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert c.get("/a/main/files").status_code == 200  # the cookie alone is enough now


def test_a_forged_cookie_is_not_a_session(app):
    c = client(app, login=False)
    c.cookies.set("reverie_ui_test", "made-up-session-id")
    assert c.get("/a/main/").status_code == 401


def test_security_headers_on_every_page(app):
    c = client(app)
    r = c.get("/a/main/")
    csp = r.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp
    assert r.headers["x-frame-options"] == "DENY" and r.headers["cache-control"] == "no-store"


# -- host binding and the Host header -------------------------------------------------------------
def test_bind_address_is_loopback_unless_a_host_is_given():
    from reverie.ui.security import bind_address

    assert bind_address(None) == ("127.0.0.1", None)
    assert bind_address("localhost") == ("localhost", None)
    assert bind_address("[::1]") == ("::1", None)
    host, warning = bind_address("0.0.0.0")
    assert host == "0.0.0.0" and "warning" in warning and "token" in warning


def test_a_rebinding_host_header_is_refused_even_with_the_token(app):
    c = client(app, login=False)
    r = c.get(f"/?token={TOKEN}", headers={"Host": "evil.example:8765"})
    assert r.status_code == 400 and "Host" in r.text
    assert "set-cookie" not in r.headers
    for host in ("127.0.0.1:8765", "localhost:8765", "[::1]:8765"):
        assert c.get(f"/?token={TOKEN}", headers={"Host": host}).status_code == 303, host


def test_an_explicit_host_accepts_other_host_names(mem):
    c = client(make_app(loopback_only=False), login=False)
    r = c.get(f"/?token={TOKEN}", headers={"Host": "192.168.1.20:8765"})
    assert r.status_code == 303


# -- CSRF and same-origin on writes ---------------------------------------------------------------
def _today(mem):
    return mem.workspace / "memory" / f"{datetime.now(timezone.utc):%Y-%m-%d}.md"


def test_append_needs_the_csrf_token(app, mem):
    c = client(app)
    before = read(_today(mem))
    for form in ({"text": "no token"}, {"text": "wrong token", "csrf": "nope"}):
        r = c.post("/a/main/append", data=form, headers=same_origin())
        assert r.status_code == 403 and "CSRF" in r.text
    assert read(_today(mem)) == before
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/append", data={"text": "返程车票已确认", "csrf": csrf}, headers=same_origin())
    assert r.status_code == 303
    assert read(_today(mem)).endswith("返程车票已确认\n")
    assert "hl=" in r.headers["location"]


def test_the_csrf_header_works_for_scripts(app, mem):
    c = client(app)
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/append", data={"text": "from a script"}, headers={**same_origin(), "X-CSRF-Token": csrf})
    assert r.status_code == 303 and "from a script" in read(_today(mem))


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "http://127.0.0.1:9999"},  # another port on this machine is another origin
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site", "Origin": ORIGIN},
    {"Sec-Fetch-Site": "same-site"},
    {},  # names no origin at all
    {"Referer": "http://evil.example/page"},
])
def test_cross_origin_writes_are_refused_even_with_the_csrf_token(app, mem, headers):
    c = client(app)
    csrf = csrf_of(c.get("/a/main/").text)
    before = read(_today(mem))
    r = c.post("/a/main/append", data={"text": "injected", "csrf": csrf}, headers=headers)
    assert r.status_code == 403 and "nothing changed" in r.text
    assert read(_today(mem)) == before


def test_a_same_origin_referer_is_enough_without_origin(app, mem):
    c = client(app)
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/append", data={"text": "via referer", "csrf": csrf}, headers={"Referer": ORIGIN + "/a/main/"})
    assert r.status_code == 303 and "via referer" in read(_today(mem))


def test_another_sessions_csrf_token_does_not_work(app, mem):
    a, b = client(app), client(app)
    csrf_a = csrf_of(a.get("/a/main/").text)
    assert csrf_a != csrf_of(b.get("/a/main/").text)
    before = read(_today(mem))
    r = b.post("/a/main/append", data={"text": "x", "csrf": csrf_a}, headers=same_origin())
    assert r.status_code == 403 and read(_today(mem)) == before


# -- compare-and-set edits ------------------------------------------------------------------------
def _edit_form(c, path="MEMORY.md"):
    html = c.get(f"/a/main/edit?path={path}").text
    expected = re.search(r'name="expected" value="([0-9a-f]{64})"', html).group(1)
    return csrf_of(html), expected


def test_edit_saves_through_compare_and_set_and_keeps_a_preimage(app, mem):
    c = client(app)
    csrf, expected = _edit_form(c)
    old = read(mem.workspace / "MEMORY.md")
    new = old + "- 住湖滨酒店。\r\n"  # a textarea posts CRLF
    r = c.post("/a/main/edit", data={"path": "MEMORY.md", "expected": expected, "text": new, "csrf": csrf},
               headers=same_origin())
    assert r.status_code == 303 and "saved=1" in r.headers["location"]
    assert read(mem.workspace / "MEMORY.md") == old + "- 住湖滨酒店。\n"
    preimages = list((mem.places.agent_dir / "preimages").glob("MEMORY.md.*"))
    assert [read(p) for p in preimages] == [old]


def test_an_edit_racing_a_disk_edit_is_a_conflict_and_overwrites_nothing(app, mem):
    c = client(app)
    csrf, expected = _edit_form(c)
    path = mem.workspace / "MEMORY.md"
    append_text(path, "- edited on disk meanwhile")
    on_disk = read(path)
    r = c.post("/a/main/edit", data={"path": "MEMORY.md", "expected": expected, "text": "- my version\n",
                                     "csrf": csrf}, headers=same_origin())
    assert r.status_code == 409
    assert read(path) == on_disk  # never overwritten
    assert "edited on disk meanwhile" in r.text and "my version" in r.text  # both versions shown
    # the conflict page's form is planned against the disk version: saving from it is deliberate
    fresh = re.search(r'name="expected" value="([0-9a-f]{64})"', r.text).group(1)
    assert fresh != expected
    r = c.post("/a/main/edit", data={"path": "MEMORY.md", "expected": fresh, "text": on_disk + "- merged\n",
                                     "csrf": csrf}, headers=same_origin())
    assert r.status_code == 303 and read(path) == on_disk + "- merged\n"


def test_edit_without_csrf_changes_nothing(app, mem):
    c = client(app)
    _, expected = _edit_form(c)
    before = read(mem.workspace / "MEMORY.md")
    r = c.post("/a/main/edit", data={"path": "MEMORY.md", "expected": expected, "text": "wiped"},
               headers=same_origin())
    assert r.status_code == 403 and read(mem.workspace / "MEMORY.md") == before


@pytest.mark.parametrize("path", ["memory/2026-01-01.md", "../reverie.toml", "DREAMS.md", "/etc/passwd"])
def test_only_memory_and_user_files_can_be_edited(app, mem, path):
    c = client(app)
    assert c.get(f"/a/main/edit?path={path}").status_code == 400
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/edit", data={"path": path, "expected": "0" * 64, "text": "x", "csrf": csrf},
               headers=same_origin())
    assert r.status_code == 400


def test_user_md_can_be_edited_and_created(app, mem):
    c = client(app)
    csrf, expected = _edit_form(c, "USER.md")
    r = c.post("/a/main/edit", data={"path": "USER.md", "expected": expected, "csrf": csrf,
                                     "text": "<!-- observed: 2026-07-01 | status: active -->\n- 喜欢靠窗\n"},
               headers=same_origin())
    assert r.status_code == 303 and "喜欢靠窗" in read(mem.workspace / "USER.md")


# -- the agent access rule ------------------------------------------------------------------------
def test_another_agents_data_is_refused(mem, reverie_home):
    other = Memory(agent="other", overrides=['memory.search.provider="fake"'])
    other.init()
    other.remember("secret of the other agent")
    other.close()
    c = client(make_app())  # serves main only
    page = c.get("/a/main/").text
    assert "other" in page  # listed ...
    for path in ("/a/other/", "/a/other/file?path=MEMORY.md", "/a/other/search?q=secret", "/a/other/sessions",
                 "/a/other/events", "/a/other/state.json"):
        r = c.get(path)
        assert r.status_code == 403, path  # ... but not served
        assert "secret of the other agent" not in r.text
    csrf = csrf_of(page)
    note = other.workspace / "memory" / f"{datetime.now(timezone.utc):%Y-%m-%d}.md"
    before = read(note)
    r = c.post("/a/other/append", data={"text": "x", "csrf": csrf}, headers=same_origin())
    assert r.status_code == 403 and read(note) == before
    assert c.get("/a/nobody/").status_code == 404
    both = client(make_app(all_agents=True))
    assert "secret of the other agent" in both.get("/a/other/file?path=memory/" + note.name).text
    named = client(make_app(["other"]))
    assert named.get("/a/other/").status_code == 200 and named.get("/a/main/").status_code == 403


# -- pages ----------------------------------------------------------------------------------------
def test_a_note_cannot_inject_markup(app, mem):
    append_text(mem.workspace / "MEMORY.md", "- <script>alert(1)</script> <img src=x onerror=alert(2)> "
                "[click](javascript:alert(3)) ![pixel](http://tracker.example/p.png) **bold**")
    html = client(app).get("/a/main/file?path=MEMORY.md").text
    body = html.split("<main>", 1)[1]
    assert "<script" not in body and "<img" not in body and 'href="javascript:' not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body and "<strong>bold</strong>" in body
    assert 'src="http://tracker.example' not in body


def test_file_page_numbers_lines_highlights_a_citation_and_shows_badges(app, mem):
    lines = read(mem.workspace / "MEMORY.md").splitlines()
    n = next(i for i, line in enumerate(lines, 1) if "靠窗" in line)
    html = client(app).get(f"/a/main/file?path=MEMORY.md&hl={n}-{n}").text
    rows = re.findall(r'<tr id="L(\d+)" class="([^"]*)"', html)
    assert [r for r, _ in rows] == [str(i) for i in range(1, len(lines) + 1)]
    assert [r for r, cls in rows if "hl" in cls.split()] == [str(n)]
    assert "importance 8" in html and "&lt;!-- importance" not in html


def test_search_in_chinese_draws_the_explanation(app, mem):
    mem.sync()
    html = client(app).get("/a/main/search", params={"q": "湖景房"}).text
    assert re.search(r'class="cite" href="/a/main/file\?path=memory%2F\d{4}-\d\d-\d\d\.md&(amp;)?hl=1-\d+#L1"', html)
    for label in ("vector leg", "keyword leg", "merge", "importance", "project", "before decay", "decay", "score",
                  "MMR similarity"):
        assert f'data-bar="{label}"' in html, label
    assert "<svg" in html and "0.7 x vector + 0.3 x keyword" in html


def test_pages_over_intents_automations_and_sessions(app, mem):
    from reverie.intents import TurnContext
    from reverie.sessions import TranscriptStore
    from reverie.models.base import ChatMessage

    mem.intents.create(TurnContext(channel="cli", sender="owner", owner=True), description="提醒确认返程车票",
                       trigger_keywords=["杭州"])
    sched = mem.scheduler()
    job = sched.add(payload={"kind": "systemEvent", "text": "看一下高铁票"}, every="1h", agent="main", name="tickets")
    sched.close()
    store = TranscriptStore(mem.places.agent_db)
    s = store.start_session("agent:main:main")
    store.append_message(s.session_id, "user", ChatMessage("user", "杭州的酒店订好了吗？"))
    store.close()
    c = client(app)
    acting = c.get("/a/main/acting").text
    assert "提醒确认返程车票" in acting and "armed" in acting and job["id"] in acting and "every 1h" in acting
    assert "next-run" in acting
    overview = c.get("/a/main/").text
    assert "1 armed" in overview
    found = c.get("/a/main/sessions", params={"q": "杭州"}).text
    assert "杭州的酒店订好了吗" in found and s.session_id in found
    transcript = c.get(f"/a/main/sessions/{s.session_id}").text
    assert "杭州的酒店订好了吗" in transcript


def test_reindex_runs_in_the_background_and_reports_progress(app, mem):
    c = client(app)
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/reindex", data={"csrf": csrf, "force": "1"},
               headers={**same_origin(), "Accept": "application/json"})
    assert r.status_code == 202
    job = r.json()["job"]
    deadline = time.monotonic() + 60
    while job["state"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
        job = c.get(f"/a/main/state.json?job={job['id']}").json()["job"]
    assert job["state"] == "done", job
    assert job["kind"] == "rebuild" and job["stage"] in ("write", "embed", "scan", "files", "vectors") and job["total"] >= 1
    assert job["summary"].startswith("2 files")  # MEMORY.md and today's note
    assert mem.status()["chunks"]["total"] >= 2


def test_daily_note_lines_show_their_recorded_origin(app, mem):
    from reverie.trust import Provenance

    c = client(app)
    csrf = csrf_of(c.get("/a/main/").text)
    r = c.post("/a/main/append", data={"text": "我确认了返程车票", "csrf": csrf}, headers=same_origin())
    assert r.status_code == 303
    mem.remember("fetched from a web page", provenance=Provenance("untrusted", "interactive", None, "memory_append"))
    with open(_today(mem), "a", encoding="utf-8") as fh:  # an edit made outside reverie
        fh.write("- typed into the file by hand\n")
    html = c.get("/a/main/file", params={"path": f"memory/{_today(mem).name}"}).text
    by_text = {}
    for origin, text in re.findall(r'class="[^"]*o-(\w+)[^"]*">.*?<td class="src[^"]*">(.*?)</td>', html, re.S):
        by_text[re.sub(r"<[^>]+>", "", text).strip()] = origin
    origin_of = lambda needle: next(o for t, o in by_text.items() if needle in t)  # noqa: E731
    assert origin_of("决定住西湖边") == "agent"  # Memory.remember from a program: the agent's
    assert origin_of("我确认了返程车票") == "owner"  # appended in the web view: the owner's
    assert origin_of("fetched from a web page") == "untrusted"
    assert origin_of("typed into the file by hand") == "untrusted"
    assert 'id="origins"' in html and "origin-owner" in html and "origin-untrusted" in html
    assert len(by_text) == len(read(_today(mem)).splitlines())  # every line carries an origin


def test_search_results_carry_origin_badges(app, mem):
    from reverie.trust import Provenance

    from datetime import timedelta

    yesterday = datetime.now(timezone.utc) - timedelta(days=1)  # a note of its own: chunks do not mix origins
    mem.remember("网页上说湖景房今天打折", now=yesterday,
                 provenance=Provenance("untrusted", "interactive", None, "memory_append"))
    mem.sync()
    html = client(app).get("/a/main/search", params={"q": "湖景房"}).text
    assert 'class="badge origin-untrusted"' in html and 'class="badge origin-agent"' in html


def test_intents_page_names_the_sender_and_the_zone_of_times(reverie_home):
    from reverie.intents import TurnContext

    m = Memory(overrides=['memory.search.provider="fake"', 'timezone="Asia/Shanghai"'])
    m.init()
    made = m.intents.create(TurnContext(channel="telegram", sender="42", owner=True), description="确认返程车票",
                            trigger_keywords=["杭州"])["intent"]
    m.intents.match("我下周去杭州", TurnContext(channel="telegram", sender="42", owner=False))
    m.close()
    acting = client(make_app(overrides=['memory.search.provider="fake"', 'timezone="Asia/Shanghai"'])) \
        .get("/a/main/acting").text
    row = acting[acting.index(f'id="{made["id"]}"'):]
    row = row[:row.index("</tr>")]
    assert "sender 42" in row, row
    # creation, the fire and the expiry: each time carries the memory's zone
    times = re.findall(r"\d{4}-\d\d-\d\d \d\d:\d\d( [A-Z][A-Za-z0-9+:-]*)?", row)
    assert len(times) >= 3 and all(t == " CST" for t in times), times


def test_explain_gives_the_vector_legs_rank_never_none(app, mem):
    mem.sync()
    hits = mem.search("hotel travel plans", explain=True)["results"]
    ranks = sorted(h["explain"]["vector"]["rank"] for h in hits if h["explain"]["vector"])
    assert ranks and ranks[0] == 1 and len(set(ranks)) == len(ranks), ranks  # places in the vector leg
    html = client(app).get("/a/main/search", params={"q": "湖景房"}).text
    assert "#None" not in html and "vector leg" in html and re.search(r"cosine [\d.]+, rank #\d+", html)
