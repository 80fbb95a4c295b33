"""Workspace files are canonical: init never clobbers, daily notes are append-only, curated files are
replaced by compare-and-set only, and entry annotations parse as documented."""

from __future__ import annotations

import os
import stat
from datetime import date, datetime, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from reverie import Memory
from reverie.errors import UserError, WriteConflict
from reverie.workspace import (
    MEMORY_HEADER,
    append_daily,
    apply_replace,
    init_workspace,
    parse_annotations,
    plan_replace,
    strip_annotations,
)
from reverie.workspace.writes import PREIMAGES_KEPT

UTC = timezone.utc


# -- init -----------------------------------------------------------------------------------------
def test_init_creates_layout(reverie_home: Path):
    mem = Memory()
    created = mem.init()
    ws = reverie_home / "workspace"
    assert (ws / "memory").is_dir()
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == MEMORY_HEADER
    assert (reverie_home / "reverie.toml").is_file()
    assert set(created) >= {ws, ws / "memory", ws / "MEMORY.md", reverie_home / "reverie.toml"}
    # the template settings file must itself be loadable (every key commented out or valid)
    Memory().settings


def test_init_never_overwrites(reverie_home: Path):
    ws = reverie_home / "workspace"
    ws.mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Mine\n\n- keep me\n", encoding="utf-8")
    reverie_home.joinpath("reverie.toml").write_text("# my settings\n", encoding="utf-8")
    created = Memory().init()
    assert (ws / "MEMORY.md").read_text(encoding="utf-8") == "# Mine\n\n- keep me\n"
    assert reverie_home.joinpath("reverie.toml").read_text(encoding="utf-8") == "# my settings\n"
    assert ws / "MEMORY.md" not in created
    assert Memory().init() == []  # a second init changes nothing


def test_init_leaves_a_dangling_memory_symlink_alone(tmp_path: Path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "MEMORY.md").symlink_to(tmp_path / "elsewhere.md")
    init_workspace(ws)
    assert (ws / "MEMORY.md").is_symlink()
    assert not (tmp_path / "elsewhere.md").exists()


# -- remember / append ----------------------------------------------------------------------------
def test_remember_appends_timestamped_bullet(fake_memory):
    now = datetime(2026, 3, 1, 9, 5, tzinfo=UTC)
    path = fake_memory.remember("Booked the lake-view room", now=now)
    assert path == fake_memory.workspace / "memory" / "2026-03-01.md"
    assert path.read_text(encoding="utf-8") == "# 2026-03-01\n\n- 09:05 Booked the lake-view room\n"
    fake_memory.remember("Second note", now=now.replace(minute=6))
    assert path.read_text(encoding="utf-8").endswith("- 09:05 Booked the lake-view room\n- 09:06 Second note\n")


def test_daily_note_is_named_by_the_configured_timezone(reverie_home: Path):
    late = datetime(2026, 3, 1, 23, 30, tzinfo=UTC)  # already 07:30 on the 2nd in Shanghai
    utc_mem = Memory(overrides=['memory.search.provider="none"'])
    sh_mem = Memory(overrides=['memory.search.provider="none"', 'timezone="Asia/Shanghai"'])
    la_mem = Memory(overrides=['memory.search.provider="none"', 'timezone="America/Los_Angeles"'])
    p_utc = utc_mem.remember("utc note", now=late)
    p_sh = sh_mem.remember("shanghai note", now=late)
    p_la = la_mem.remember("la note", now=datetime(2026, 3, 2, 2, 0, tzinfo=UTC))  # 18:00 on the 1st in LA
    assert p_utc.name == "2026-03-01.md"
    assert p_sh.name == "2026-03-02.md"
    assert p_la.name == "2026-03-01.md"
    assert "- 23:30 utc note" in p_utc.read_text(encoding="utf-8")
    assert "- 07:30 shanghai note" in p_sh.read_text(encoding="utf-8")
    assert "- 18:00 la note" in p_la.read_text(encoding="utf-8")


def test_append_never_changes_earlier_bytes(fake_memory):
    now = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    path = fake_memory.remember("first 酒店 entry", now=now)
    # someone edits the file by hand, with odd bytes the library must not normalise
    with open(path, "ab") as fh:
        fh.write("  trailing spaces   \r\n\t tab line \u00e9\n\n\n".encode("utf-8"))
    before = path.read_bytes()
    for i in range(5):
        fake_memory.remember(f"entry {i}", now=now.replace(minute=i + 1))
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before):].decode("utf-8") == "".join(f"- 08:0{i + 1} entry {i}\n" for i in range(5))


def test_append_adds_missing_trailing_newline_first(fake_memory):
    now = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    path = fake_memory.workspace / "memory" / "2026-03-01.md"
    path.write_bytes(b"# 2026-03-01\n\n- 07:00 no newline at end")
    before = path.read_bytes()
    fake_memory.remember("next", now=now)
    after = path.read_bytes()
    assert after.startswith(before)
    assert after == before + b"\n- 08:00 next\n"


def test_empty_existing_daily_note_gets_its_header(fake_memory):
    path = fake_memory.workspace / "memory" / "2026-03-01.md"
    path.touch()
    fake_memory.remember("first", now=datetime(2026, 3, 1, 8, 0, tzinfo=UTC))
    assert path.read_text(encoding="utf-8") == "# 2026-03-01\n\n- 08:00 first\n"


def test_multiline_text_keeps_continuation_indented(fake_memory):
    now = datetime(2026, 3, 1, 8, 0, tzinfo=UTC)
    path = fake_memory.remember("Trip plan:\nday 1 West Lake\n\nday 2 返程", now=now)
    body = path.read_text(encoding="utf-8").split("\n\n", 1)[1]
    assert body == "- 08:00 Trip plan:\n  day 1 West Lake\n\n  day 2 返程\n"


def test_remember_empty_text_is_a_user_error(fake_memory):
    with pytest.raises(UserError):
        fake_memory.remember("   \n  ")
    assert list((fake_memory.workspace / "memory").iterdir()) == []


def test_append_daily_converts_now_into_tz(tmp_path: Path):
    when = datetime(2026, 1, 1, 0, 15, tzinfo=ZoneInfo("Asia/Tokyo"))  # 2025-12-31 15:15 UTC
    p = append_daily(tmp_path, "x", now=when, tz=UTC)
    assert p.name == "2025-12-31.md"
    assert "- 15:15 x" in p.read_text(encoding="utf-8")


# -- compare-and-set replace ----------------------------------------------------------------------
def test_replace_succeeds_and_keeps_mode(tmp_path: Path):
    f = tmp_path / "MEMORY.md"
    f.write_text("# Long-Term Memory\n- old\n", encoding="utf-8")
    os.chmod(f, 0o600)
    plan = plan_replace(f)
    assert plan.text == "# Long-Term Memory\n- old\n"
    apply_replace(plan, "# Long-Term Memory\n- new\n")
    assert f.read_text(encoding="utf-8") == "# Long-Term Memory\n- new\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]  # no temp file left behind


def test_replace_writes_through_symlink(tmp_path: Path):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "MEMORY.md"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o640)
    ws = tmp_path / "ws"
    ws.mkdir()
    link = ws / "MEMORY.md"
    link.symlink_to(target)
    apply_replace(plan_replace(link), "new\n")
    assert link.is_symlink()
    assert os.readlink(link) == str(target)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert list(ws.iterdir()) == [link]


def test_replace_keeps_preimages_at_most_eight(tmp_path: Path):
    f = tmp_path / "MEMORY.md"
    pre = tmp_path / ".preimages"
    f.write_text("v0\n", encoding="utf-8")
    first = apply_replace(plan_replace(f), "v1\n", preimage_dir=pre)
    assert first is not None and first.read_text(encoding="utf-8") == "v0\n"
    for i in range(2, 13):
        apply_replace(plan_replace(f), f"v{i}\n", preimage_dir=pre)
    kept = sorted(pre.iterdir())
    assert len(kept) == PREIMAGES_KEPT == 8
    # the newest preimages survive: v4..v11 (v12 is the live content)
    assert sorted(p.read_text(encoding="utf-8") for p in kept) == sorted(f"v{i}\n" for i in range(4, 12))
    assert f.read_text(encoding="utf-8") == "v12\n"


def test_replace_conflict_when_file_changed_after_plan(tmp_path: Path):
    f = tmp_path / "MEMORY.md"
    pre = tmp_path / ".preimages"
    f.write_text("planned against this\n", encoding="utf-8")
    plan = plan_replace(f)
    f.write_text("someone else wrote this\n", encoding="utf-8")  # between plan and apply
    with pytest.raises(WriteConflict):
        apply_replace(plan, "our rewrite\n", preimage_dir=pre)
    assert f.read_text(encoding="utf-8") == "someone else wrote this\n"  # nothing written
    assert not pre.exists()  # not even a preimage
    assert [p.name for p in tmp_path.iterdir()] == ["MEMORY.md"]


def test_replace_conflict_when_planned_missing_file_appears(tmp_path: Path):
    f = tmp_path / "USER.md"
    plan = plan_replace(f)
    assert plan.text == "" and plan.mode is None
    f.write_text("created meanwhile\n", encoding="utf-8")
    with pytest.raises(WriteConflict):
        apply_replace(plan, "ours\n")
    assert f.read_text(encoding="utf-8") == "created meanwhile\n"


def test_replace_conflict_same_size_same_mtime_change(tmp_path: Path):
    """The check is on content, not on stat: a same-size edit with the old mtime is still caught."""
    f = tmp_path / "MEMORY.md"
    f.write_text("aaaa\n", encoding="utf-8")
    st = f.stat()
    plan = plan_replace(f)
    f.write_text("bbbb\n", encoding="utf-8")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(WriteConflict):
        apply_replace(plan, "cccc\n")
    assert f.read_text(encoding="utf-8") == "bbbb\n"


def test_replace_creates_missing_file_with_default_mode(tmp_path: Path):
    f = tmp_path / "USER.md"
    apply_replace(plan_replace(f), "hello\n")
    assert f.read_text(encoding="utf-8") == "hello\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o644


def test_replace_refuses_non_utf8(tmp_path: Path):
    f = tmp_path / "MEMORY.md"
    raw = b"# Memory\n- caf\xe9 latin-1 bytes\n"
    f.write_bytes(raw)
    mtime = f.stat().st_mtime_ns
    with pytest.raises(UserError, match="UTF-8"):
        plan_replace(f)
    assert f.read_bytes() == raw
    assert f.stat().st_mtime_ns == mtime


# -- annotations ----------------------------------------------------------------------------------
def test_trigger_separators():
    a = parse_annotations("- booked hotel <!-- trigger: Hotel Booking; lake  view | 返程车票, budget -->")
    assert a.triggers == ["hotel booking", "lake view", "返程车票", "budget"]


def test_trigger_multiline_and_empty_parts():
    a = parse_annotations("<!-- triggers: one;;\n two | -->")
    assert a.triggers == ["one", "two"]


@pytest.mark.parametrize("body, importance, invalid", [
    ("1", 1, False), ("10", 10, False), (" 7 ", 7, False),
    ("0", None, True), ("11", None, True), ("-3", None, True), ("high", None, True),
])
def test_importance_range(body, importance, invalid):
    a = parse_annotations(f"- x <!-- importance:{body}-->")
    assert a.importance == importance
    assert bool(a.invalid) is invalid


def test_project_with_escaped_semicolon():
    a = parse_annotations(r"- x <!-- project: acme\;beta; gamma ;  -->")
    assert a.projects == ["acme;beta", "gamma"]


def test_project_with_forbidden_character_is_invalid():
    a = parse_annotations("- x <!-- project: ok; bad<key -->")
    assert a.projects == ["ok"]
    assert a.invalid


def test_observed_and_status():
    a = parse_annotations("<!-- observed: 2026-07-01 | status: superseded -->\n- prefers tea")
    assert a.observed == date(2026, 7, 1)
    assert a.status == "superseded"
    b = parse_annotations("<!-- observed: 2026-07-01 | status: Active -->")
    assert b.status == "active"
    bad = parse_annotations("<!-- observed: 2026-13-01 | status: maybe -->")
    assert bad.observed is None and bad.status is None and len(bad.invalid) == 2


def test_no_annotations_stay_neutral():
    a = parse_annotations("- plain entry <!-- promoted from 2026-01-01 --> <!-- note: hi -->")
    assert a.empty
    assert a.triggers == [] and a.importance is None and a.projects == []


def test_chunk_level_merge_keeps_max_importance_and_union():
    a = parse_annotations("- a <!-- importance: 3 --> <!-- trigger: x -->\n- b <!-- importance: 8 --> "
                          "<!-- trigger: y; x -->")
    assert a.importance == 8
    assert a.triggers == ["x", "y"]


def test_strip_annotations():
    assert strip_annotations("- booked <!-- importance: 5 --> hotel <!-- trigger: a -->") == "- booked hotel"


def _remember_at_nine(workspace: str, i: int, barrier) -> None:
    barrier.wait()
    append_daily(Path(workspace), f"entry {i}", now=datetime(2026, 3, 1, 9, 0, tzinfo=UTC), tz=UTC)


def test_concurrent_writers_on_a_new_day_write_one_header(tmp_path: Path):
    """Eight processes append to the same not-yet-existing daily note at once."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    for trial in range(5):  # the race was lost about half the time: five rounds catch it ~97% of runs
        ws = tmp_path / f"ws{trial}"
        (ws / "memory").mkdir(parents=True)
        barrier = ctx.Barrier(8)
        procs = [ctx.Process(target=_remember_at_nine, args=(str(ws), i, barrier)) for i in range(8)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(30)
        assert all(p.exitcode == 0 for p in procs)
        lines = (ws / "memory" / "2026-03-01.md").read_text(encoding="utf-8").split("\n")
        assert lines[:2] == ["# 2026-03-01", ""]
        assert lines.count("# 2026-03-01") == 1
        assert sorted(lines[2:-1]) == sorted(f"- 09:00 entry {i}" for i in range(8))
        assert lines[-1] == ""
