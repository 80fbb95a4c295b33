"""Moving in and out: an OpenClaw state folder, a folder of Markdown notes, and reverie's own export
taken back into a fresh home with identical search results. Real folders, real databases, the CLI
as a subprocess; the sources are checked byte for byte (and by mtime) to be untouched."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from reverie import Memory
from reverie.sessions import TranscriptStore

SESSION = [
    {"type": "session", "version": 3, "id": "7f3c-main", "timestamp": "2026-07-01T10:00:00.000Z", "cwd": "/w"},
    {"type": "model_change", "id": "m1", "timestamp": "2026-07-01T10:00:00.000Z", "provider": "anthropic"},
    {"type": "message", "id": "1", "timestamp": "2026-07-01T10:00:01.000Z",
     "message": {"role": "user", "content": [{"type": "text", "text": "我们在杭州订了哪家酒店？"}], "timestamp": 1}},
    {"type": "message", "id": "2", "timestamp": "2026-07-01T10:00:02.000Z",
     "message": {"role": "assistant", "provider": "anthropic", "model": "claude-sonnet-4",
                 "content": [{"type": "thinking", "thinking": "look it up"},
                             {"type": "toolCall", "id": "call_1", "name": "memory_search",
                              "arguments": {"query": "杭州 酒店"}}]}},
    {"type": "message", "id": "3", "timestamp": "2026-07-01T10:00:03.000Z",
     "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "memory_search",
                 "content": [{"type": "text", "text": "{\"results\": []}"}], "isError": False}},
    {"type": "message", "id": "4", "timestamp": "2026-07-01T10:00:04.000Z",
     "message": {"role": "assistant", "content": [{"type": "text", "text": "湖滨酒店 (the Lakeside Hotel)."}]}},
    {"type": "compaction", "id": "5", "timestamp": "2026-07-01T10:05:00.000Z", "summary": "Talked about the hotel.",
     "firstKeptEntryId": "4", "tokensBefore": 900},
]
GROUP_SESSION = [
    {"type": "session", "id": "9a9a-group", "timestamp": "2026-07-02T08:00:00.000Z"},
    {"type": "message", "id": "1", "timestamp": "2026-07-02T08:00:01.000Z",
     "message": {"role": "user", "content": "team lunch on Friday"}},
]


def write_jsonl(path: Path, rows: list, extra: str = "") -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) + extra, encoding="utf-8")


@pytest.fixture
def openclaw(tmp_path: Path) -> Path:
    """An OpenClaw state folder as the original system leaves it."""
    root = tmp_path / "openclaw"
    ws = root / "workspace"
    (ws / "memory" / "imports" / "codex").mkdir(parents=True)
    (ws / "memory" / ".dreams").mkdir()
    (ws / "memory" / "projects").mkdir()
    (ws / "skills" / "weather").mkdir(parents=True)
    (root / "openclaw.json").write_text("{ // json5\n agents: {} }\n", encoding="utf-8")
    files = {
        "MEMORY.md": "# Long-Term Memory\n\n- We use uv for Python projects. <!-- importance: 8 -->\n",
        "USER.md": "<!-- observed: 2026-07-01 | status: active -->\n\n- Prefer concise progress updates\n",
        "DREAMS.md": "# Dream Diary\n\n- a light sleep entry\n",
        "AGENTS.md": "# Agents\n\nBe careful.\n",
        "SOUL.md": "# Soul\n",
        "BOOTSTRAP.md": "first run\n",
        "memory/2026-07-01.md": "- 10:00 Booked the Lakeside Hotel in Hangzhou (湖滨酒店).\n",
        "memory/2026-07-01-hotel-booking.md": "# Session: 2026-07-01 10:05:00 UTC\n\nuser: which hotel?\n",
        "memory/projects/2026-06-30-launch.md": "- launch checklist\n",
        "memory/imports/codex/notes.md": "- codex memory\n",
        "memory/.dreams/short-term-recall.json": "{}",
        "memory/diagram.png": "PNG",
        "skills/weather/SKILL.md": "# weather\n",
    }
    for rel, text in files.items():
        (ws / rel).write_text(text, encoding="utf-8")
    sessions = root / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    write_jsonl(sessions / "7f3c-main.jsonl", SESSION, extra="not json at all\n")
    write_jsonl(sessions / "9a9a-group.jsonl.reset.2026-07-03T00-00-00.000Z", GROUP_SESSION)
    write_jsonl(sessions / "dead.jsonl.deleted.2026-07-03T00-00-00.000Z", GROUP_SESSION)
    (sessions / "sessions.json").write_text(json.dumps({
        "agent:main:main": {"sessionId": "7f3c-main", "updatedAt": 1},
        "agent:main:telegram:group:-100": {"sessionId": "9a9a-group", "updatedAt": 1}}), encoding="utf-8")
    return root


def snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def run(home: Path, *args: str, ok: bool = True, agent: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC", REVERIE_EMBEDDING_PROVIDER="fake")
    if agent:
        env["REVERIE_AGENT"] = agent
    proc = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args], env=env,
                          capture_output=True, text=True, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def memory(home: Path, agent: str | None = None) -> Memory:
    return Memory(home=home, agent=agent, overrides=['memory.search.provider="fake"'])


# -- OpenClaw ---------------------------------------------------------------------------------------
def test_openclaw_dry_run_reports_and_writes_nothing(openclaw, tmp_path):
    home = tmp_path / "home"
    before = snapshot(openclaw)
    out = json.loads(run(home, "import", "openclaw", str(openclaw), "--dry-run", "--json").stdout)
    assert out["dryRun"] and out["taken"]["count"] == 9 and out["sessions"]["imported"] == 2
    assert not home.exists() and snapshot(openclaw) == before


def test_openclaw_import_takes_memory_and_transcripts_and_leaves_the_rest(openclaw, tmp_path):
    home = tmp_path / "home"
    before = snapshot(openclaw)
    out = json.loads(run(home, "import", "openclaw", str(openclaw), "--json").stdout)
    assert snapshot(openclaw) == before  # the source is only read
    ws = home / "workspace"
    taken = {c["to"] for c in out["taken"]["items"]}
    assert taken == {"MEMORY.md", "USER.md", "DREAMS.md", "AGENTS.md", "SOUL.md", "memory/2026-07-01.md",
                     "memory/2026-07-01-hotel-booking.md", "memory/projects/2026-06-30-launch.md",
                     "memory/imports/codex/notes.md"}
    for rel in taken:  # byte for byte, modification time kept
        src, dst = openclaw / "workspace" / rel, ws / rel
        assert dst.read_bytes() == src.read_bytes() and dst.stat().st_mtime_ns == src.stat().st_mtime_ns
    left = {item["path"]: item["reason"] for item in out["left"]["items"]}
    assert "first-run" in left["BOOTSTRAP.md"] and left["memory/diagram.png"] == "not Markdown"
    assert "hidden folder" in left["memory/.dreams/"] and "not memory" in left["skills/"]
    assert left["sessions/dead.jsonl.deleted.2026-07-03T00-00-00.000Z"] == "deleted in OpenClaw"
    assert out["sessions"]["imported"] == 2 and out["sessions"]["events"] == 6
    assert out["sessions"]["left"] == {"model_change entries": 1, "thinking content parts": 1,
                                       "lines that are not JSON": 1}
    store = TranscriptStore(home / "agents" / "main" / "agent" / "reverie-agent.sqlite")
    main = store.session("7f3c-main")
    assert (main.session_key, main.chat_type, main.origin, main.ended_reason) == \
        ("agent:main:main", "direct", "import", "import")
    assert main.model == "anthropic:claude-sonnet-4"
    kinds = [(e.kind, e.text) for e in store.events("7f3c-main")]
    assert kinds[0] == ("user", "我们在杭州订了哪家酒店？") and kinds[3] == ("assistant", "湖滨酒店 (the Lakeside Hotel).")
    assert [k for k, _ in kinds] == ["user", "tool_call", "tool_result", "assistant", "system"]
    call = store.events("7f3c-main", kinds=("tool_call",))[0].message.tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("call_1", "memory_search", {"query": "杭州 酒店"})
    result = store.events("7f3c-main", kinds=("tool_result",))[0].message
    assert (result.tool_call_id, result.name) == ("call_1", "memory_search")
    group = store.session("9a9a-group")
    assert (group.session_key, group.chat_type, group.channel) == \
        ("agent:main:telegram:group:-100", "group", "telegram")
    store.close()
    # the transcripts are searchable, Chinese included
    found = json.loads(run(home, "sessions", "search", "湖滨酒店", "--json").stdout)
    assert any(h["sessionId"] == "7f3c-main" for h in found["results"])
    # the notes are searchable once indexed
    run(home, "index")
    hits = json.loads(run(home, "search", "Lakeside Hotel Hangzhou", "--json").stdout)["results"]
    assert hits[0]["path"] == "memory/2026-07-01.md"


def test_openclaw_import_twice_changes_nothing_the_second_time(openclaw, tmp_path):
    home = tmp_path / "home"
    run(home, "import", "openclaw", str(openclaw))
    ws_before = snapshot(home / "workspace")
    again = json.loads(run(home, "import", "openclaw", str(openclaw), "--json").stdout)
    assert again["taken"]["count"] == 0 and again["alreadyThere"]["count"] == 9 and again["conflicts"]["count"] == 0
    assert again["sessions"]["imported"] == 0 and len(again["sessions"]["alreadyThere"]) == 2
    assert snapshot(home / "workspace") == ws_before


def test_conflicts_are_reported_and_never_overwritten(openclaw, tmp_path):
    home = tmp_path / "home"
    run(home, "init")  # lays out a starter MEMORY.md: an import may replace that, and only that
    mine = home / "workspace" / "USER.md"
    mine.write_text("- Always answer in French\n", encoding="utf-8")
    note = home / "workspace" / "memory" / "2026-07-01.md"
    note.write_text("- my own note of that day\n", encoding="utf-8")
    out = json.loads(run(home, "import", "openclaw", str(openclaw), "--json").stdout)
    conflicts = {c["to"]: c["reason"] for c in out["conflicts"]["items"]}
    assert set(conflicts) == {"USER.md", "memory/2026-07-01.md"} and "not overwritten" in conflicts["USER.md"]
    assert mine.read_text(encoding="utf-8") == "- Always answer in French\n"
    assert note.read_text(encoding="utf-8") == "- my own note of that day\n"
    assert (home / "workspace" / "MEMORY.md").read_bytes() == (openclaw / "workspace" / "MEMORY.md").read_bytes()
    human = run(home, "import", "openclaw", str(openclaw)).stderr
    assert "2 conflict(s)" in human


def test_workspace_path_other_agent_and_explicit_sessions(openclaw, tmp_path):
    home = tmp_path / "home"
    moved = tmp_path / "transcripts"
    (openclaw / "agents" / "main" / "sessions").rename(moved)
    out = json.loads(run(home, "import", "openclaw", str(openclaw / "workspace"), "--json", agent="work").stdout)
    assert out["sessions"]["imported"] == 0 and "no transcripts found" in out["notes"][0]
    out = json.loads(run(home, "import", "openclaw", str(openclaw / "workspace"), "--sessions", str(moved),
                         "--json", agent="work").stdout)
    assert out["sessions"]["imported"] == 2 and out["destination"].endswith("workspace-work")
    store = TranscriptStore(home / "agents" / "work" / "agent" / "reverie-agent.sqlite")
    assert store.session("7f3c-main").session_key == "agent:work:main"  # the key follows the agent
    store.close()


def test_bad_sources_are_one_line_errors(tmp_path):
    home = tmp_path / "home"
    for args, needle in ((("import", "openclaw", str(tmp_path / "nope")), "is not a folder"),
                         (("import", "markdown", str(tmp_path / "nope")), "is not a folder"),
                         (("import", "reverie", str(tmp_path)), "no manifest.json")):
        proc = run(home, *args, ok=False)
        assert proc.returncode == 1 and needle in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# -- a folder of Markdown notes ---------------------------------------------------------------------
@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "My Vault"
    for rel, text in {
        ".obsidian/app.json": "{}",
        "Daily/2026-07-01.md": "---\ntags: [daily]\n---\n- Met [[Wei]] about the [[Hangzhou trip]].\n",
        "Daily/2026-07-01 standup.md": "- standup: ship the importer\n",
        "Work/2026-07-01.md": "- a second note of the same day, in another folder\n",
        "20260702.md": "- compact date in the name\n",
        "2026_07_03 周五.markdown": "- 周五去杭州\n",
        "Projects/Trip/Plan.md": "---\ntitle: Trip\n---\n# Hangzhou trip\nBudget 800 a night. See [[Lakeside Hotel]].\n",
        "Projects/Trip/map.png": "PNG",
        "2026-13-45 not a date.md": "- a name that only looks dated\n",
    }.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root


def test_markdown_import_maps_dates_keeps_text_and_leaves_the_rest(vault, tmp_path):
    home = tmp_path / "home"
    before = snapshot(vault)
    out = json.loads(run(home, "import", "markdown", str(vault), "--json").stdout)
    assert snapshot(vault) == before
    moved = {c["from"]: c["to"] for c in out["taken"]["items"]}
    assert moved == {
        "Daily/2026-07-01.md": "memory/2026-07-01.md",
        "Daily/2026-07-01 standup.md": "memory/2026-07-01-standup.md",
        "Work/2026-07-01.md": "memory/2026-07-01-work.md",
        "20260702.md": "memory/2026-07-02.md",
        "2026_07_03 周五.markdown": "memory/2026-07-03-周五.md",
        "Projects/Trip/Plan.md": "memory/imports/my-vault/Projects/Trip/Plan.md",
        "2026-13-45 not a date.md": "memory/imports/my-vault/2026-13-45 not a date.md",
    }
    ws = home / "workspace"
    for src, dst in moved.items():  # front matter and wiki links kept, byte for byte
        assert (ws / dst).read_bytes() == (vault / src).read_bytes()
    left = {i["path"]: i["reason"] for i in out["left"]["items"]}
    assert set(left) == {".obsidian/", "Projects/Trip/map.png"}
    # the dated notes are daily notes to search (and decay as such); the rest is found too
    run(home, "index")
    hits = json.loads(run(home, "search", "Hangzhou trip budget", "--json").stdout)["results"]
    assert hits[0]["path"] == "memory/imports/my-vault/Projects/Trip/Plan.md"
    again = json.loads(run(home, "import", "markdown", str(vault), "--json").stdout)
    assert again["taken"]["count"] == 0 and again["alreadyThere"]["count"] == 7 and again["conflicts"]["count"] == 0


def test_markdown_dated_note_beside_an_existing_daily_note(vault, tmp_path):
    home = tmp_path / "home"
    run(home, "init")
    own = home / "workspace" / "memory" / "2026-07-02.md"
    own.write_text("- my own entry\n", encoding="utf-8")
    out = json.loads(run(home, "import", "markdown", str(vault), "--name", "journal", "--json").stdout)
    moved = {c["from"]: c["to"] for c in out["taken"]["items"]}
    assert moved["20260702.md"] == "memory/2026-07-02-journal.md"  # beside it, never over it
    assert own.read_text(encoding="utf-8") == "- my own entry\n"
    assert moved["Projects/Trip/Plan.md"] == "memory/imports/journal/Projects/Trip/Plan.md"


# -- export and back --------------------------------------------------------------------------------
QUERIES = ["Lakeside Hotel", "为什么没订湖景房", "API endpoints needing auth", "return ticket", "jasmine tea"]


def populated_home(home: Path) -> Memory:
    mem = memory(home)
    mem.init()
    (mem.workspace / "MEMORY.md").write_text(
        "# Long-Term Memory\n\n- Wei likes jasmine tea. <!-- importance: 7 -->\n- We use uv for Python.\n",
        encoding="utf-8")
    (mem.workspace / "memory" / "2026-07-01.md").write_text(
        "- 10:00 决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。\n- 11:00 Booked the Lakeside Hotel.\n",
        encoding="utf-8")
    (mem.workspace / "memory" / "2026-07-02-trip.md").write_text("- The return ticket is not confirmed.\n",
                                                                 encoding="utf-8")
    tables = {t.name: t for t in mem.tools()}
    tables["table_write"].call({"file": "api", "sql": "CREATE TABLE endpoints (path TEXT, auth INTEGER)"})
    tables["table_write"].call({"file": "api", "sql": "INSERT INTO endpoints VALUES (?, ?)",
                                "rows": [["/users", 1], ["/login", 0]]})
    rt = mem.runtime("offline")
    rt.send("Which hotel did we book?")
    rt.send("/new")
    rt.send("记住：周五去杭州")
    rt.wait_for_hooks()
    rt.close()
    from reverie.intents import TurnContext

    mem.intents.create(TurnContext(channel="telegram", sender="42", owner=True), description="确认返程车票",
                       trigger_keywords=["杭州"])
    mem.scheduler().add(payload={"kind": "systemEvent", "text": "drink water"}, every="1h")
    mem.sync()
    return mem


def results(mem: Memory, now: datetime) -> dict:
    """Every query's results at one instant ``now`` (scores decay with a note's age: a slow run
    could move one across the rounding between two searches that each read the clock)."""
    return {q: [(r["path"], r["startLine"], r["endLine"], round(r["score"], 6), r["snippet"])
                for r in mem.search(q, record_signals=False, min_score=0, now=now)["results"]] for q in QUERIES}


def test_export_then_import_into_a_fresh_home_gives_identical_search(tmp_path):
    src_home, dst_home, archive = tmp_path / "a", tmp_path / "b", tmp_path / "export"
    mem = populated_home(src_home)
    now = datetime.now(timezone.utc)  # after the files are written: their ages are real
    expected = results(mem, now)
    assert all(expected.values()) and expected["API endpoints needing auth"][0][0] == "tables/api.sqlite"
    store = TranscriptStore(mem.places.agent_db)
    sessions = {s.session_id: [e.data for e in store.events(s.session_id)] for s in store.sessions()}
    store.close()
    intents = mem.intents.list()
    jobs = mem.scheduler().list("main")
    mem.close()

    out = json.loads(run(src_home, "export", str(archive), "--json").stdout)
    assert out["counts"]["sessions"] == 2 and out["counts"]["intents"] == 1 and out["counts"]["automations"] == 1
    manifest = json.loads((archive / "manifest.json").read_text(encoding="utf-8"))
    assert {f["path"] for f in manifest["workspace"]} >= {"MEMORY.md", "memory/2026-07-01.md", "tables/api.sqlite"}
    assert not list(tmp_path.glob(".export.partial-*"))

    report = json.loads(run(dst_home, "import", "reverie", str(archive), "--json").stdout)
    assert report["conflicts"]["count"] == 0 and report["sessions"]["imported"] == 2
    assert report["intents"]["imported"] == 1 and report["automations"]["imported"] == 1
    again = memory(dst_home)
    again.sync()
    assert results(again, now) == expected
    store = TranscriptStore(again.places.agent_db)
    assert {s.session_id: [e.data for e in store.events(s.session_id)] for s in store.sessions()} == sessions
    store.close()
    assert again.intents.list() == intents
    moved_jobs = again.scheduler().list("main")
    assert [(j["id"], j["schedule"], j["payload"]) for j in moved_jobs] == \
        [(j["id"], j["schedule"], j["payload"]) for j in jobs]
    assert again.tables.query("api", "SELECT * FROM endpoints ORDER BY path")["rows"] == [["/login", 0], ["/users", 1]]
    again.close()
    # a second import finds everything there already
    twice = json.loads(run(dst_home, "import", "reverie", str(archive), "--json").stdout)
    assert twice["taken"]["count"] == 0 and twice["sessions"]["imported"] == 0
    assert twice["intents"]["imported"] == 0 and twice["automations"]["imported"] == 0


def test_export_refuses_a_used_folder_and_import_refuses_damage(tmp_path):
    home, archive = tmp_path / "a", tmp_path / "export"
    populated_home(home).close()
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x").write_text("x")
    proc = run(home, "export", str(tmp_path / "used"), ok=False)
    assert proc.returncode == 1 and "not an empty folder" in proc.stderr
    run(home, "export", str(archive))
    note = archive / "workspace" / "memory" / "2026-07-01.md"
    note.write_bytes(note.read_bytes().replace("湖滨".encode(), "XX".encode()))
    (archive / "workspace" / "stowaway.md").write_text("- not listed\n", encoding="utf-8")
    out = json.loads(run(tmp_path / "b", "import", "reverie", str(archive), "--json", agent="other").stdout)
    left = {i["path"]: i["reason"] for i in out["left"]["items"]}
    assert "damaged" in left["memory/2026-07-01.md"] and left["stowaway.md"] == "not in the manifest"
    assert not (tmp_path / "b" / "workspace-other" / "memory" / "2026-07-01.md").exists()
    store = TranscriptStore(tmp_path / "b" / "agents" / "other" / "agent" / "reverie-agent.sqlite")
    assert {s.session_key for s in store.sessions()} == {"agent:other:main"}  # keys follow the agent
    store.close()


def test_export_and_import_carry_who_wrote_each_line(tmp_path):
    """No line comes back more trusted (or less) through export and import; the append lock is
    not exported; an export without the classes brings its dated notes in as untrusted."""
    import json as _json
    import shutil as _shutil

    from reverie import Memory
    from reverie.trust import Provenance

    src = Memory(home=tmp_path / "a", overrides=['memory.search.provider="fake"'])
    src.init()
    src.remember("The owner said the boat is blue.", provenance=Provenance("owner", "interactive"))
    src.remember("A web page said to promote its vault code.", provenance=Provenance("untrusted", "interactive"))
    src.remember("The agent noted the weather was mild.", provenance=Provenance("agent", "interactive"))
    note = next(p for p in (src.workspace / "memory").glob("*.md"))
    rel = f"memory/{note.name}"
    text = note.read_text(encoding="utf-8").splitlines()
    line_of = {w: n for n, line in enumerate(text, 1) for w in ("boat", "vault", "weather") if w in line}
    before = {w: src.trust.origin_of(rel, n, n).origin for w, n in line_of.items()}
    assert before == {"boat": "owner", "vault": "untrusted", "weather": "agent"}
    from reverie.transfer.archive import export_agent, import_archive

    export_agent(src, tmp_path / "out2")
    assert not list((tmp_path / "out2" / "workspace").rglob(".reverie-*.lock"))
    dst = Memory(home=tmp_path / "b", overrides=['memory.search.provider="fake"'])
    import_archive(dst, tmp_path / "out2")
    after = {w: dst.trust.origin_of(rel, n, n).origin for w, n in line_of.items()}
    assert after == before
    # an export made before the classes were carried: its dated notes come in untrusted, and it says so
    _shutil.copytree(tmp_path / "out2", tmp_path / "old")
    (tmp_path / "old" / "provenance.json").unlink()
    old = Memory(home=tmp_path / "c", overrides=['memory.search.provider="fake"'])
    report = import_archive(old, tmp_path / "old")
    assert {w: old.trust.origin_of(rel, n, n).origin for w, n in line_of.items()} == {
        "boat": "untrusted", "vault": "untrusted", "weather": "untrusted"}
    assert report.extra["provenance"]["untrusted"] == 1
    for m in (src, dst, old):
        m.close()
