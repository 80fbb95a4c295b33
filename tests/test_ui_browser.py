"""End-to-end: `reverie ui` on the tour's workspace, driven in Debian's headless Chromium by
Playwright (pointed at /usr/bin/chromium; Playwright never downloads a browser here).

Without Chromium or Playwright these tests skip with the reason locally, and FAIL in CI (CI=true):
a browser test that silently does not run proves nothing.

``REVERIE_UI_SCREENSHOTS=docs/ui python -m pytest tests/test_ui_browser.py`` also writes a
screenshot of each page into that folder (the ones in docs/ui/ were made so).
"""

from __future__ import annotations

import http.server
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
CHROMIUM = os.environ.get("REVERIE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SHOTS = os.environ.get("REVERIE_UI_SCREENSHOTS")
TIMEOUT_MS = 20_000

pytestmark = pytest.mark.slow


def _browser_problem() -> str | None:
    if not Path(CHROMIUM).is_file():
        return f"Chromium not found at {CHROMIUM} (Debian: apt-get install -y chromium; or set REVERIE_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


def _require_browser() -> None:
    problem = _browser_problem()
    if problem is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {problem}", pytrace=False)
    pytest.skip(problem)


def _cli(home: Path, *args: str, stdin: str | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    r = subprocess.run([sys.executable, "-m", "reverie.cli.main", *args], input=stdin, capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, (args, r.stderr)
    return r.stdout


@pytest.fixture(scope="module")
def tour_home(tmp_path_factory) -> Path:
    """The tour's Hangzhou workspace, kept, plus what the other pages show: a standing intent,
    three automations (one of them run once) and a chat session."""
    _require_browser()
    home = tmp_path_factory.mktemp("ui") / "tour"
    _cli(home, "tour", "--keep", "--home", str(home))
    _cli(home, "intent", "create", "-d", "提醒确认返程车票", "-t", "杭州", "-t", "return ticket",
         "--channel", "cli", "--sender", "owner")
    _cli(home, "cron", "add", "--at", "+2h", "--text", "看一下高铁票", "--name", "train tickets")
    _cli(home, "cron", "add", "--every", "1d", "--text", "daily review of the trip plan", "--name", "daily review")
    _cli(home, "cron", "add", "--at", "+1s", "--keep", "--text", "查一下湖滨酒店的订单", "--name", "hotel check")
    time.sleep(1.2)
    _cli(home, "cron", "run-due")  # the hotel check runs once: a history to show
    _cli(home, "chat", stdin="杭州的酒店订好了吗？\n返程车票呢？\n")
    _cli(home, "index")
    return home


@pytest.fixture(scope="module")
def server(tour_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(tour_home), REVERIE_TIMEZONE="UTC", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "reverie.cli.main", "ui", "--port", "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:"), proc.stderr.read() if proc.poll() is not None else url
    yield url
    proc.send_signal(signal.SIGINT)
    try:
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    _require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh --user-data-dir
        ctx = pw.chromium.launch_persistent_context(str(profile), executable_path=CHROMIUM, headless=True,
                                                    args=CHROMIUM_ARGS, viewport={"width": 1180, "height": 820})
        ctx.set_default_timeout(TIMEOUT_MS)
        yield pw, ctx
        ctx.close()


@pytest.fixture
def page(browser, server):
    """A logged-in page; fails the test on any console error (a CSP violation shows up there)."""
    _, ctx = browser
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.console_errors = errors  # a test expecting an error status removes its own line
    pg.goto(server)  # the URL with the token: sets the cookie, lands on the overview
    yield pg
    pg.close()
    assert not errors, errors


def _base(url: str) -> str:
    u = urlsplit(url)
    return f"{u.scheme}://{u.netloc}"


def _shot(pg, name: str, *, at=None) -> None:
    """A screenshot of the viewport (scrolled to ``at``, a locator, when given)."""
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        if at is not None:
            at.evaluate("e => e.scrollIntoView({block: 'start'})")
        pg.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def _workspace(home: Path) -> Path:
    return home / "workspace"


# -- reading ----------------------------------------------------------------------------------------
def test_overview_shows_index_health_counts_and_files(page, server, tour_home):
    files = 1 + len(list((_workspace(tour_home) / "memory").glob("*.md")))  # MEMORY.md and the daily notes
    assert files >= 6
    assert page.url == _base(server) + "/a/main/"  # the token was dropped from the address bar
    assert page.inner_text("h1") == "Agent main"
    assert page.inner_text("#count-files") == str(files)
    assert "healthy" in page.inner_text("#index-health")
    assert "1 armed" in page.inner_text("#count-intents")
    assert page.inner_text("#count-sessions") == "2"  # the tour's recall chat and the chat above
    assert page.locator("#recent-files a").count() == files
    _shot(page, "overview")


def test_search_in_chinese_explains_and_links_to_the_cited_lines(page, server, tour_home):
    page.click("[data-nav=search]")
    page.fill("#q", "为什么没订湖景房")
    page.press("#q", "Enter")
    first = page.locator("article.hit").first
    first.wait_for()
    assert "湖景房" in first.locator(".snippet").inner_text()
    bars = {first.locator("tr.bar-row th").nth(i).inner_text(): first.locator("tr.bar-row td.val").nth(i).inner_text()
            for i in range(first.locator("tr.bar-row").count())}
    for label in ("vector leg", "keyword leg", "merge", "importance", "project", "before decay", "decay", "score",
                  "MMR similarity"):
        assert label in bars, bars
    assert bars["keyword leg"] != "–"  # the Chinese words were found by the keyword leg
    assert re.fullmatch(r"×\d\.\d\d", bars["decay"])
    assert first.locator("svg rect.seg").count() >= 5
    assert "hybrid" in page.inner_text("#search-meta") or "keyword-only" in page.inner_text("#search-meta")
    _shot(page, "search")
    cite = first.locator("a.cite")
    citation = cite.inner_text()
    path, lines = citation.split("#")
    start, end = (int(x) for x in re.findall(r"\d+", lines))
    cite.click()
    page.wait_for_url(re.compile(r"/a/main/file\?"))
    assert page.url.endswith(f"#L{start}")
    highlighted = page.locator("table.md tr.hl")
    assert highlighted.count() == end - start + 1
    assert highlighted.first.get_attribute("id") == f"L{start}"
    assert "湖景房" in " ".join(highlighted.all_inner_texts())


def test_a_citation_link_alone_highlights_its_lines(page, server, tour_home):
    page.goto(_base(server) + "/a/main/file?path=MEMORY.md#L2-L3")
    page.locator("table.md tr.hl").first.wait_for()
    assert [r.get_attribute("id") for r in page.locator("table.md tr.hl").all()] == ["L2", "L3"]
    assert page.locator("#L3 .badge.ann-importance").inner_text() == "importance 8"
    assert "<!--" not in page.inner_text("#lines")
    _shot(page, "file")


def test_intents_and_automations_show_state_next_run_and_history(page, server):
    page.click("[data-nav=acting]")
    intent = page.locator("tr.intent").first
    assert "提醒确认返程车票" in intent.inner_text() and "armed" in intent.inner_text()
    rows = page.locator("tr.automation")
    assert rows.count() == 3
    daily = rows.filter(has_text="daily review")
    assert "every 1d" in daily.inner_text() and "in " in daily.locator(".next-run").inner_text()
    assert "no runs yet" in daily.inner_text()
    done = rows.filter(has_text="hotel check")
    assert "disabled" in done.inner_text()  # a one-time job, kept after it ran
    done.locator("summary").click()
    assert "ok" in done.locator("details li").first.inner_text()
    _shot(page, "acting")


def test_sessions_transcript_and_search_in_chinese(page, server):
    page.click("[data-nav=sessions]")
    page.fill("#sq", "杭州")
    page.press("#sq", "Enter")
    hit = page.locator("#session-hits li").first
    assert "杭州" in hit.inner_text()
    _shot(page, "sessions")
    hit.locator("a").click()
    page.wait_for_url(re.compile(r"/sessions/"))
    assert "杭州的酒店订好了吗" in page.inner_text("#transcript")


# -- Dreaming and forgetting ------------------------------------------------------------------------
def _bytes(folder: Path, names) -> dict[str, bytes]:
    return {n: (folder / n).read_bytes() for n in names}


def test_dreaming_shows_the_night_the_candidates_bars_and_a_dry_run_preview(page, server, tour_home):
    from playwright.sync_api import expect

    ws = _workspace(tour_home)
    before = _bytes(ws, ("MEMORY.md", "DREAMS.md"))
    page.click("[data-nav=dreaming]")
    # the tour's night: its diary entry, and its rewrite of MEMORY.md with the diff
    assert "factual summary by the offline model" in page.inner_text("#diary")
    night = page.locator("#history article.rewrite").first
    assert "+1" in night.locator("header").inner_text() and "consolidated" in night.inner_text()
    added = " ".join(night.locator("pre.diff .add").all_inner_texts())
    assert "+- 决定住西湖边的湖滨酒店" in added and "reverie-entry: st-" in added
    assert night.locator("pre.diff .del").count() == 0
    assert night.locator("a.restore").count() == 1  # its preimage is kept
    _shot(page, "dreaming-history", at=page.locator("#diary"))
    # the candidates still waiting, every component a bar against its threshold
    first = page.locator("article.candidate").first
    labels = first.locator("tr.bar-row th").all_inner_texts()
    assert labels == ["relevance", "frequency", "diversity", "recency", "consolidation", "conceptual", "phase boost",
                      "total", "signals", "queries / days", "age"]
    total = first.locator('tr[data-bar="total"]')
    assert total.locator("line.tick").count() == 1 and "minScore 0.75" in total.inner_text()
    assert total.locator("rect.seg").count() == 7  # six weighted components and the phase boost, stacked
    met = []
    for gate, threshold, ok in (("signals", 3, lambda v: v >= 3), ("queries / days", 3, lambda v: v >= 3),
                                ("age", 30, lambda v: v <= 30)):
        row = first.locator(f'tr[data-bar="{gate}"]')
        assert row.locator("line.tick").count() == 1, gate
        value = float(row.locator("td.val").inner_text().split()[0])
        css = row.locator("rect.seg").get_attribute("class").split()
        assert ("pass" if ok(value) else "fail") in css, (gate, value, css)  # green exactly when met
        met.append(ok(value))
    score = float(first.locator(".score").inner_text())
    promotable = all(met) and score >= 0.75 and "trust: allowed" in first.inner_text()
    assert ("would be promoted" if promotable else "held back") in first.locator("header").inner_text()
    snippet = first.locator(".snippet").inner_text()
    _shot(page, "dreaming-candidates", at=page.locator("#candidates h2"))
    # the preview: a dry run in the background, its progress, then its report
    page.click("#dream-preview")
    expect(page.locator("#dream-text")).to_contain_text(re.compile(r"preview (done|failed)"), timeout=120_000)
    assert "preview done" in page.inner_text("#dream-text") and "nothing was changed" in page.inner_text("#dream-text")
    report = page.locator("#dream-report")
    report.wait_for()
    text = report.inner_text()
    assert "dry run: nothing was changed" in text and "Light:" in text and "candidate(s) staged" in text
    assert "Deep:" in text and "REM:" in text
    if promotable:  # what the candidates say would be promoted is what the dry run would write
        assert snippet in page.inner_text("#would-promote")
    assert "?job=job-" in page.url  # a reload shows this preview's report again
    _shot(page, "dreaming")
    assert _bytes(ws, ("MEMORY.md", "DREAMS.md")) == before


def test_restore_memory_md_from_the_history_then_undo_it(page, server, tour_home):
    path = _workspace(tour_home) / "MEMORY.md"
    after_night = path.read_bytes()
    page.click("[data-nav=dreaming]")
    night = page.locator("#history article.rewrite").first
    added = [t[1:] for t in night.locator("pre.diff .add").all_inner_texts()]
    entry = next(t for t in added if "reverie-entry: st-" in t)
    night.locator("a.restore").click()
    # the confirmation: what the restore takes away, and nothing changed yet
    page.wait_for_url(re.compile(r"/a/main/dreaming/restore\?id="))
    removed = [t[1:] for t in page.locator("#restore-diff .del").all_inner_texts()]
    assert entry in removed and "决定住西湖边的湖滨酒店" in " ".join(removed)
    assert path.read_bytes() == after_night
    _shot(page, "restore")
    page.click("#restore-confirm")
    # back on MEMORY.md, restored, with the way back offered
    page.wait_for_url(re.compile(r"/a/main/file\?path=MEMORY.md&saved=restored"))
    assert "Restored preimage" in page.inner_text("#saved")
    restored = path.read_text(encoding="utf-8")
    assert entry not in restored and path.read_bytes() != after_night
    page.click("#saved a:has-text('undo')")
    page.wait_for_url(re.compile(r"/a/main/dreaming/restore\?id="))
    assert entry in " ".join(page.locator("#restore-diff .add").all_inner_texts())
    page.click("#restore-confirm")
    page.wait_for_url(re.compile(r"saved=restored"))
    assert path.read_bytes() == after_night  # undone byte for byte


def test_forget_a_session_shows_the_plan_then_applies_it(page, server, tour_home, tmp_path):
    import json

    secret = "The hotel safe code is 4417-LAKE."
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": {"turn": [
        {"toolCalls": [{"name": "memory_append", "arguments": {"text": secret}}]}, {"reply": "Noted."}]}}))
    _cli(tour_home, "chat", "--model", f"scripted:{script}", "--session", "trip-safe", "-m", "Remember: " + secret)
    ws = _workspace(tour_home)
    holding = [p for p in (ws / "memory").glob("*.md") if "4417-LAKE" in p.read_text(encoding="utf-8")]
    assert len(holding) == 1
    # from the session's page to the forget form, the session filled in
    page.click("[data-nav=sessions]")
    page.click("#sessions a:has-text('trip-safe')")
    page.click("#forget-session")
    page.wait_for_url(re.compile(r"/a/main/forget\?session="))
    page.click("#forget-preview")
    page.locator("#forget-report").wait_for()
    assert "dry run: nothing has changed yet" in page.inner_text("#forget-title")
    assert "agent:main:trip-safe" in page.inner_text("#forget-sessions")

    def counts() -> dict[str, int]:
        return {r.get_attribute("data-artifact"): int(r.locator("td.val").inner_text())
                for r in page.locator("#forget-artifacts tr").all()}

    plan = counts()
    assert plan["memoryLines"] == 1 and plan["memoryFiles"] == 1 and plan["transcriptEvents"] >= 2
    assert holding[0].name in page.inner_text("#forget-files")
    assert "4417-LAKE" in holding[0].read_text(encoding="utf-8")  # nothing changed by the plan
    _shot(page, "forget")
    page.check("#forget-confirm")
    page.click("#forget-apply")
    expect_title = page.locator("#forget-title")
    expect_title.wait_for()
    assert "Forgotten" in expect_title.inner_text() and "done" in expect_title.inner_text()
    assert counts() == plan  # it removed what the plan said
    assert "4417-LAKE" not in page.inner_text("#forget-json")  # the report never repeats the text
    assert not [p for p in ws.rglob("*.md") if "4417-LAKE" in p.read_text(encoding="utf-8")]
    page.goto(_base(server) + "/a/main/sessions?q=4417-LAKE")  # transcript search: no trace of it
    assert "4417" not in page.inner_text("#session-hits") and "trip-safe" not in page.inner_text("#session-hits")


# -- writing --------------------------------------------------------------------------------------
def test_edit_memory_md_and_the_conflict_path(page, server, tour_home):
    path = _workspace(tour_home) / "MEMORY.md"
    page.goto(_base(server) + "/a/main/file?path=MEMORY.md")
    page.click("#edit-link")
    text = page.input_value("#edit-text")
    assert "靠窗" in text
    page.fill("#edit-text", text + "- 酒店：西湖边的湖滨酒店。\n")
    # someone edits the file on disk between the page load and the save
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("- 返程：周日下午的高铁。\n")
    on_disk = path.read_text(encoding="utf-8")
    page.click("#save")
    page.locator("#conflict").wait_for()
    page.console_errors.remove("Failed to load resource: the server responded with a status of 409 (Conflict)")
    assert path.read_text(encoding="utf-8") == on_disk  # nothing overwritten
    assert "周日下午的高铁" in page.inner_text("#disk-version")
    assert "湖滨酒店" in page.inner_text("#your-version")
    assert "+- 酒店：西湖边的湖滨酒店。" in page.inner_text("#diff")
    _shot(page, "conflict")
    merged = on_disk + "- 酒店：西湖边的湖滨酒店。\n"
    page.fill("#edit-text", merged)
    page.click("#save")
    page.locator("#saved").wait_for()
    assert path.read_text(encoding="utf-8") == merged
    assert "湖滨酒店" in page.inner_text("#lines")


def test_append_to_todays_note(page, server, tour_home):
    page.click("[data-nav=files]")
    page.fill("#append-text", "返程车票已确认：周日 16:05 的高铁。")
    page.click("#append-form button")
    page.locator("#saved").wait_for()
    assert re.search(r"/file\?path=memory%2F\d{4}-\d\d-\d\d\.md", page.url)
    assert "返程车票已确认" in " ".join(page.locator("table.md tr.hl").all_inner_texts())
    # recorded as the owner's (the automation's line above it is the system's)
    assert "o-owner" in page.locator("table.md tr.hl").first.get_attribute("class").split()
    assert page.locator("table.md tr.hl .badge.origin-owner").count() == 1
    assert "owner" in page.inner_text("#origins")
    _shot(page, "daily")
    notes = sorted((_workspace(tour_home) / "memory").glob("*.md"))
    assert notes[-1].read_text(encoding="utf-8").rstrip().endswith("返程车票已确认：周日 16:05 的高铁。")


def test_file_page_updates_live_when_the_file_changes(page, server, tour_home):
    page.goto(_base(server) + "/a/main/file?path=MEMORY.md")
    with open(_workspace(tour_home) / "MEMORY.md", "a", encoding="utf-8") as fh:
        fh.write("- 写在磁盘上的新条目\n")
    page.locator("body[data-refreshed]").wait_for(state="attached")  # the live refresh, not a reload
    assert "写在磁盘上的新条目" in page.inner_text("#lines")


def test_reindex_shows_progress_to_the_end(page, server):
    from playwright.sync_api import expect

    page.check("input[name=force]")
    page.click("#reindex")
    # (locator waits only: the page's CSP forbids the eval a wait_for_function would need)
    expect(page.locator("#job-text")).to_contain_text(re.compile(r"rebuild (done|failed)"), timeout=120_000)
    text = page.inner_text("#job-text")
    assert "rebuild done" in text and "files" in text, text


# -- refusals -------------------------------------------------------------------------------------
def test_without_the_token_nothing_is_shown(browser, server, tmp_path):
    pw, _ = browser
    from playwright.sync_api import sync_playwright  # noqa: F401  (same driver, new profile)

    ctx = pw.chromium.launch_persistent_context(str(tmp_path / "fresh-profile"), executable_path=CHROMIUM,
                                                headless=True, args=CHROMIUM_ARGS)
    try:
        pg = ctx.new_page()
        r = pg.goto(_base(server) + "/a/main/file?path=MEMORY.md")
        assert r.status == 401
        assert "token" in pg.inner_text("body") and "靠窗" not in pg.content()
    finally:
        ctx.close()


class _Evil(http.server.BaseHTTPRequestHandler):
    target = ""

    def do_GET(self):
        body = (f'<form id="f" method="post" action="{self.target}/a/main/append">'
                '<input name="text" value="written by another site"><input name="csrf" value="guess"></form>'
                '<script>document.getElementById("f").submit()</script>').encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_cross_site_post_is_refused_and_changes_nothing(browser, server, tour_home):
    _, ctx = browser
    notes = _workspace(tour_home) / "memory"
    before = {p.name: p.read_bytes() for p in notes.glob("*.md")}
    _Evil.target = _base(server)
    evil = http.server.HTTPServer(("127.0.0.1", 0), _Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        pg = ctx.new_page()  # this context holds the UI's cookie: the page on the other port gets it sent
        pg.goto(server)  # the URL with the token sets the cookie (this test may run alone)
        pg.goto(_base(server) + "/a/main/")
        with pg.expect_navigation(url=re.compile(r"/a/main/append")) as nav:
            pg.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        assert nav.value.status == 403
        assert "refused" in pg.inner_text("body") and "nothing changed" in pg.inner_text("body")
        pg.close()
    finally:
        evil.shutdown()
    assert {p.name: p.read_bytes() for p in notes.glob("*.md")} == before
