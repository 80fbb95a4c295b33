"""The Dreaming page through Starlette's TestClient, over a real night of Dreaming (fake embedder):
the diary, the history with each rewrite's diff, the candidates' bars, the dry-run preview as a
background job, and the restore of a preimage -- with its confirmation, its conflict path, and
the CSRF and same-origin refusals that change nothing."""

from __future__ import annotations

import re
import threading

import pytest
from dreaming_helpers import FAKE, LOW_BAR, durable_life, night, open_mem, sha
from ui_helpers import client, csrf_of, make_app, same_origin, wait_job

from reverie.dreaming.preimages import listing
from reverie.workspace import append_text

PEANUTS = "I am allergic to peanuts."


@pytest.fixture
def mem(reverie_home):
    m = open_mem()
    durable_life(m)
    out = m.dream(now=night(4)).as_dict()
    assert out["phases"]["deep"]["counts"]["added"] == 1
    m.remember("The plumber comes on Thursday.")  # waiting in the store once searched
    m.sync()
    m.search("plumber Thursday")
    m._signals.flush()
    yield m
    m.close()


@pytest.fixture
def app(mem):
    return make_app(overrides=[FAKE, LOW_BAR])


def _files(mem) -> dict[str, str | None]:
    return {n: sha(mem.workspace / n) for n in ("MEMORY.md", "DREAMS.md")}


def test_the_page_shows_diary_history_with_its_diff_candidates_and_preimages(app, mem):
    html = client(app).get("/a/main/dreaming").text
    assert 'class="on" data-nav="dreaming"' in html
    assert re.search(r'<section id="diary">.*2026-06-06.*offline model', html, re.S)
    history = html[html.index('<section id="history">'):html.index('<section id="preimages">')]
    assert '<span class="add">+- I am allergic to peanuts.' in history  # the diff of the night's rewrite
    assert 'class="del"' not in history
    preimage = listing(mem.places, mem.workspace)[0]["id"]
    assert f'/a/main/dreaming/restore?id={preimage}' in history
    candidates = html[html.index('<section id="candidates">'):html.index('<section id="diary">')]
    assert "plumber" in candidates and PEANUTS not in candidates  # promoted entries are not candidates
    for label in ("relevance", "frequency", "diversity", "recency", "consolidation", "conceptual", "phase boost",
                  "total", "signals", "queries / days", "age"):
        assert f'data-bar="{label}"' in candidates, label
    assert "minScore 0.5" in candidates  # the agent's own threshold (memory.dreaming.phases.deep.minScore)
    assert 'class="seg fail"' in candidates  # one recall: below minRecallCount, drawn red
    assert "trust: allowed" in candidates and "held back" in candidates


def test_the_preview_runs_in_the_background_and_shows_its_report_changing_nothing(app, mem):
    before = _files(mem)
    c = client(app)
    csrf = csrf_of(c.get("/a/main/dreaming").text)
    r = c.post("/a/main/dreaming/preview", data={"csrf": csrf}, headers={**same_origin(), "Accept": "application/json"})
    assert r.status_code == 202
    url = r.json()["url"]
    job = wait_job(c, "main", r.json()["job"])
    assert job["state"] == "done" and job["kind"] == "dream" and job["stage"] == "done"
    assert job["done"] == job["total"] == 5 and "nothing was changed" in job["summary"]
    html = c.get(url).text
    report = html[html.index('<section id="dream-report"'):html.index('<section id="candidates">')]
    assert "dry run: nothing was changed" in report and "Light:" in report and "Deep:" in report
    assert _files(mem) == before
    # without script: a plain form post lands on the page that follows the job
    r = c.post("/a/main/dreaming/preview", data={"csrf": csrf}, headers=same_origin())
    assert r.status_code == 303 and re.fullmatch(r"/a/main/dreaming\?job=job-\w+#preview", r.headers["location"])


@pytest.mark.parametrize("path", ["/a/main/dreaming/preview", "/a/main/dreaming/restore"])
@pytest.mark.parametrize("how", ["no csrf", "wrong csrf", "cross origin", "another port", "no origin"])
def test_dreaming_writes_are_refused_without_csrf_or_from_another_origin(app, mem, path, how):
    before = _files(mem)
    c = client(app)
    csrf = csrf_of(c.get("/a/main/dreaming").text)
    preimage = listing(mem.places, mem.workspace)[0]["id"]
    form = {"id": preimage, "expected": sha(mem.workspace / "MEMORY.md"), "csrf": csrf}
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
    assert _files(mem) == before
    assert c.get("/a/main/state.json").json()["job"] is None  # no preview was started either
    assert len(listing(mem.places, mem.workspace)) == 1


def test_restore_is_confirmed_then_applied_and_can_be_undone(app, mem):
    path = mem.workspace / "MEMORY.md"
    after = path.read_bytes()
    preimage = listing(mem.places, mem.workspace)[0]
    c = client(app)
    page = c.get(f"/a/main/dreaming/restore?id={preimage['id']}")
    assert page.status_code == 200 and path.read_bytes() == after  # the confirmation changes nothing
    assert '<span class="del">-- I am allergic to peanuts.' in page.text  # what the restore takes away
    expected = re.search(r'name="expected" value="([0-9a-f]{64})"', page.text).group(1)
    assert expected == sha(path)
    r = c.post("/a/main/dreaming/restore", data={"id": preimage["id"], "expected": expected, "csrf": csrf_of(page.text)},
               headers=same_origin())
    assert r.status_code == 303 and "saved=restored" in r.headers["location"]
    assert sha(path) == preimage["sha256"]  # byte for byte
    kept = re.search(r"kept=(\w+)", r.headers["location"]).group(1)
    shown = c.get(r.headers["location"]).text
    assert f"/a/main/dreaming/restore?id={kept}" in shown and "Restored preimage" in shown
    undo = c.get(f"/a/main/dreaming/restore?id={kept}").text
    r = c.post("/a/main/dreaming/restore", headers=same_origin(), data={
        "id": kept, "csrf": csrf_of(undo),
        "expected": re.search(r'name="expected" value="([0-9a-f]{64})"', undo).group(1)})
    assert r.status_code == 303 and path.read_bytes() == after


def test_a_restore_racing_an_edit_is_a_conflict_and_writes_nothing(app, mem):
    path = mem.workspace / "MEMORY.md"
    preimage = listing(mem.places, mem.workspace)[0]["id"]
    c = client(app)
    page = c.get(f"/a/main/dreaming/restore?id={preimage}").text
    expected = re.search(r'name="expected" value="([0-9a-f]{64})"', page).group(1)
    append_text(path, "- Written while the owner was reading the confirmation.")
    on_disk = path.read_bytes()
    r = c.post("/a/main/dreaming/restore", data={"id": preimage, "expected": expected, "csrf": csrf_of(page)},
               headers=same_origin())
    assert r.status_code == 409 and path.read_bytes() == on_disk
    assert "changed since the restore was reviewed" in r.text
    assert "Written while the owner" in r.text  # the confirmation again, against the file as it is now
    r = c.post("/a/main/dreaming/restore", data={"id": preimage, "csrf": csrf_of(page)}, headers=same_origin())
    assert r.status_code == 400 and path.read_bytes() == on_disk  # no reviewed hash: refused
    assert c.get("/a/main/dreaming/restore?id=19990101T000000000000").status_code == 400


def test_another_agents_dreaming_and_forget_pages_are_refused(mem, reverie_home):
    from reverie import Memory

    other = Memory(agent="other", overrides=[FAKE])
    other.init()
    other.close()
    c = client(make_app(overrides=[FAKE, LOW_BAR]))
    csrf = csrf_of(c.get("/a/main/").text)
    for path in ("/a/other/dreaming", "/a/other/forget", "/a/other/dreaming/restore?id=latest"):
        assert c.get(path).status_code == 403, path
    for path in ("/a/other/dreaming/preview", "/a/other/dreaming/restore", "/a/other/forget/preview",
                 "/a/other/forget/apply"):
        assert c.post(path, data={"csrf": csrf, "session": "x", "confirm": "1"}, headers=same_origin()).status_code == 403


def test_a_preview_runs_beside_a_reindex_and_a_second_click_joins_the_first():
    from reverie.ui.live import Jobs

    jobs, gate = Jobs(), threading.Event()

    def slow(progress):
        gate.wait(10)
        return "ok"

    sync = jobs.start("main", "sync", slow)
    assert jobs.start("main", "rebuild", slow) is sync  # one index job per agent
    dream = jobs.start("main", "dream", slow)
    assert dream is not sync and jobs.start("main", "dream", slow) is dream
    assert jobs.latest("main", ("sync", "rebuild")) is sync and jobs.latest("main", ("dream",)) is dream
    assert jobs.get(dream.id, "other") is None and jobs.get(dream.id, "main") is dream
    gate.set()
    for j in (sync, dream):
        for _ in range(200):
            if j.state != "running":
                break
            threading.Event().wait(0.01)
    assert sync.state == dream.state == "done"
    report = jobs.start("main", "dream", lambda progress: ("summary", {"dryRun": True}))
    for _ in range(200):
        if report.state != "running":
            break
        threading.Event().wait(0.01)
    assert report.summary == "summary" and report.result == {"dryRun": True}
    assert "result" not in report.snapshot()  # the report stays off the event stream
