"""Markdown chunking into units (entries) and context windows: 1-based inclusive line ranges,
entries with their continuation lines, per-entry annotations, CJK-weighted budgets, long entries cut
at sentence ends, windows with overlap, and no broken characters."""

from __future__ import annotations

import random
import time
from datetime import datetime, timezone

import pytest

from reverie.index.chunking import UNIT_TOKENS, chunk_markdown, is_curated
from reverie.text.cjk import weighted_length

HAN = "酒店预算湖景房返程车票杭州西湖高铁周末计划行李天气朋友晚饭博物馆"
UNIT_BUDGET = UNIT_TOKENS * 4


def spans(text: str, **kw) -> list[tuple[int, int, str]]:
    return [(u.start_line, u.end_line, u.text) for u in chunk_markdown(text, **kw).units]


def test_empty_and_blank_files_give_nothing():
    for text in ("", "\n\n   \n\t\n"):
        out = chunk_markdown(text)
        assert out.units == [] and out.windows == []


def test_each_bullet_is_a_unit_with_1_based_lines():
    text = "# Trip\n\n- booked hotel\n- train back\n"
    assert spans(text) == [(3, 3, "- booked hotel"), (4, 4, "- train back")]
    assert all(u.context == "Trip" for u in chunk_markdown(text).units)


def test_continuation_lines_and_sub_items_stay_with_their_entry():
    text = ("- The vendor proposal was rejected\n"
            "  because it was over budget.\n"
            "  - the second offer too\n"
            "\n"
            "    a loose paragraph of the sub-item\n"
            "- next entry\n"
            "1. numbered\n"
            "   continued\n")
    assert [(s, e) for s, e, _ in spans(text)] == [(1, 5), (6, 6), (7, 8)]
    assert spans(text)[0][2].endswith("a loose paragraph of the sub-item")


def test_one_fact_per_line_is_one_unit_per_line_but_wrapped_prose_is_joined():
    turns = "Ana: I adopted a cat.\nBen: Lovely! What is its name?\nAna: Pixel.\n"
    assert [(s, e) for s, e, _ in spans(turns)] == [(1, 1), (2, 2), (3, 3)]
    wrapped = ("This paragraph was wrapped by an editor at a fixed width so that its\n"
               "sentences continue on the next line without any punctuation at the end\n"
               "of each line.\nA new fact.\n")
    assert [(s, e) for s, e, _ in spans(wrapped)] == [(1, 3), (4, 4)]


def test_a_comment_line_belongs_to_the_entry_below():
    text = ("<!-- observed: 2026-07-01 | status: superseded -->\n\n- Prefer long answers\n\n"
            "<!-- observed: 2026-07-02 | status: active -->\n\n- Prefer concise answers\n")
    units = chunk_markdown(text, curated=True).units
    assert [(u.start_line, u.end_line) for u in units] == [(1, 3), (5, 7)]
    assert "superseded" in units[0].annotations and "active" not in units[0].annotations
    assert "active" in units[1].annotations and "superseded" not in units[1].annotations


def test_each_entry_keeps_only_its_own_annotations():
    text = ("# Long-Term Memory\n\n"
            "- Prefers window seats on long flights <!-- importance: 8 --> <!-- project: travel -->\n"
            "- The vendor proposal was rejected: over budget\n"
            "- Deploys go out on Tuesdays <!-- importance: 3 -->\n")
    a, b, c = chunk_markdown(text, curated=True).units
    assert "importance: 8" in a.annotations and "project: travel" in a.annotations
    assert b.annotations == ""
    assert c.annotations == "<!-- importance: 3 -->"


def test_a_curated_section_of_prose_is_one_entry_with_its_heading():
    text = ("# Memory\n\n## Travel <!-- importance: 7 -->\nLikes trains.\n\nAvoids night buses.\n\n"
            "## Work\n- ships on Tuesdays\n")
    units = chunk_markdown(text, curated=True).units
    assert [(u.start_line, u.end_line) for u in units] == [(3, 6), (9, 9)]
    assert units[0].text.startswith("## Travel") and "Avoids night buses." in units[0].text
    assert "importance: 7" in units[0].annotations
    # a daily note keeps one unit per line of prose
    assert len(chunk_markdown(text).units) == 3


def test_curated_files_are_memory_and_user_at_the_root():
    assert is_curated("MEMORY.md") and is_curated("USER.md")
    assert not is_curated("memory/MEMORY.md") and not is_curated("memory/2026-07-01.md")


def test_curated_entries_are_their_own_windows():
    text = "".join(f"- fact number {i}\n" for i in range(30))
    curated = chunk_markdown(text, curated=True)
    assert [(w.first, w.last) for w in curated.windows] == [(i, i) for i in range(30)]
    daily = chunk_markdown(text)
    assert len(daily.windows) == 1 and (daily.windows[0].first, daily.windows[0].last) == (0, 29)


def test_a_fenced_code_block_is_one_unit():
    text = "- before\n```python\ndef f():\n\n    return 1\n```\n- after\n"
    assert [(s, e) for s, e, _ in spans(text)] == [(1, 1), (2, 6), (7, 7)]


def test_a_long_entry_is_cut_at_sentence_ends_within_budget():
    sentences = [f"Sentence number {i} talks about the hotel budget and the train." for i in range(40)]
    text = "- " + " ".join(sentences) + "\n- short\n"
    units = chunk_markdown(text).units
    pieces = [u for u in units if u.start_line == 1]
    assert len(pieces) > 3
    for u in pieces:
        assert weighted_length(u.text) <= UNIT_BUDGET
        assert u.text.rstrip().endswith(".")  # cut after a sentence, not inside one
    assert " ".join(u.text for u in pieces) == "- " + " ".join(sentences)
    assert units[-1].text == "- short" and units[-1].start_line == 2


def test_cjk_weighs_about_four_so_a_unit_holds_about_128_han():
    rng = random.Random(7)
    line = "".join(rng.choice(HAN) for _ in range(1000))
    units = chunk_markdown(line).units
    assert "".join(u.text for u in units) == line
    for u in units:
        assert (u.start_line, u.end_line) == (1, 1)
        assert len(u.text) <= UNIT_TOKENS  # 128 Han characters at most, not 512


def test_long_chinese_prose_is_cut_after_full_stops():
    sent = "今天在杭州西湖附近找了一家酒店，步行就能到断桥。"
    units = chunk_markdown(sent * 30).units
    assert len(units) > 1
    assert all(u.text.endswith("。") for u in units)


@pytest.mark.parametrize("chars", [
    ["😀", "🎉", "🚄"],                  # astral plane: surrogate pairs in UTF-16
    ["👨\u200d👩\u200d👧", "🇨🇳"],       # ZWJ sequence, flag pair
    ["𠀀", "𠮷", "𡈽"],                   # CJK Extension B
    ["a", "😀", "b", "𠮷", "c", "酒店"],
])
def test_astral_characters_never_split_into_invalid_strings(chars):
    rng = random.Random(5)
    line = "".join(rng.choice(chars) for _ in range(3000))
    text = f"# Emoji\n{line}\ntail"
    units = chunk_markdown(text).units
    assert len(units) > 2
    for u in units:
        u.text.encode("utf-8")  # strict: raises on a lone surrogate
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in u.text)
    assert "".join(u.text for u in units if u.start_line == 2) == line


def test_windows_respect_the_budget_carry_the_overlap_and_cover_every_unit():
    text = "## Day\n\n" + "".join(f"- entry {i:03d} " + "x" * 90 + "\n" for i in range(60))
    out = chunk_markdown(text, tokens=400, overlap=80)
    units, windows = out.units, out.windows
    assert len(windows) > 3
    covered = set()
    for w in windows:
        members = units[w.first:w.last + 1]
        assert sum(weighted_length(u.text) + 1 for u in members) <= 400 * 4
        assert w.end_line == members[-1].end_line
        covered.update(range(w.first, w.last + 1))
    assert covered == set(range(len(units)))
    for a, b in zip(windows, windows[1:]):
        carried = units[b.first:a.last + 1]
        assert carried, "consecutive windows share their boundary units"
        assert sum(weighted_length(u.text) + 1 for u in carried) <= 80 * 4
    # the heading that introduces the first unit belongs to the first window
    assert windows[0].start_line == 1
    no_overlap = chunk_markdown(text, tokens=400, overlap=0).windows
    assert all(b.first == a.last + 1 for a, b in zip(no_overlap, no_overlap[1:]))


def test_every_line_of_a_realistic_note_is_in_a_unit():
    rng = random.Random(11)
    parts: list[str] = []
    for s in range(12):
        parts += [f"## Section {s}", ""]
        for _ in range(rng.randint(1, 25)):
            if rng.random() < 0.3:
                parts.append("- " + "".join(rng.choice(HAN) for _ in range(rng.randint(5, 60))))
            else:
                parts.append("- " + " ".join(rng.choice(["hotel", "budget", "train", "lake", "view"])
                                             for _ in range(rng.randint(3, 40))))
        parts.append("")
    text = "\n".join(parts)
    units = chunk_markdown(text).units
    covered = {n for u in units for n in range(u.start_line, u.end_line + 1)}
    body = {i for i, ln in enumerate(text.split("\n"), 1) if ln.strip() and not ln.startswith("#")}
    assert body <= covered
    assert all(u.context.startswith("Section") for u in units)


def test_headings_only_file_makes_no_unit_and_is_fast():
    text = "\n".join(f"## heading {i}" for i in range(50_000))
    t = time.perf_counter()
    assert chunk_markdown(text).units == []
    assert time.perf_counter() - t < 30  # (generous: 0.4 s on a busy 2-core machine)


def test_hash_follows_text_heading_and_annotations():
    a = chunk_markdown("- same text").units[0]
    b = chunk_markdown("- same text").units[0]
    c = chunk_markdown("- same text!").units[0]
    d = chunk_markdown("# Heading\n- same text").units[0]
    assert a.hash == b.hash != c.hash
    assert d.hash != a.hash and d.index_text == "Heading\n- same text"


def test_a_generated_description_stays_one_unit_up_to_the_window_budget():
    text = ("# Table file: api\n\nStructured data; query it with table_query.\n\n## table endpoints (3 rows)\n\n"
            "Columns: method TEXT, path TEXT\n\nSample rows:\n- method: GET; path: /health\n")
    out = chunk_markdown(text, whole=True)
    assert len(out.units) == 1 and len(out.windows) == 1
    u = out.units[0]
    assert (u.start_line, u.end_line) == (1, 10) and "table_query" in u.text and "endpoints" in u.text
    big = chunk_markdown(text + "".join(f"- method: GET; path: /p{i}\n" for i in range(400)), tokens=400, whole=True)
    assert len(big.units) > 1 and all(weighted_length(u.text) <= 400 * 4 for u in big.units)


def test_a_session_notes_metadata_is_no_unit_but_a_users_look_alike_is():
    """The three lines reverie writes under "# Session: …" say where a conversation came from: no
    search should find every note's header for "source" or "claude", and two notes of the same
    conversation must not differ by their random session ids."""
    from reverie.sessions.hook import render_note

    def note(sid: str) -> str:
        return render_note([("user", "The cabin has a wood stove."), ("assistant", "Noted.")],
                           when=datetime(2026, 10, 2, 9, 0, tzinfo=timezone.utc),
                           session_key="agent:main:claude-code:abc", session_id=sid, source="claude-code")

    a, b = chunk_markdown(note("0b8c-1")), chunk_markdown(note("77f2-2"))
    assert [u.text for u in a.units] == ["user: The cabin has a wood stove.", "assistant: Noted."]
    assert [(u.text, u.start_line) for u in a.units] == [(u.text, u.start_line) for u in b.units]
    assert [(w.start_line, w.end_line) for w in a.windows] == [(w.start_line, w.end_line) for w in b.windows]
    # the same three items anywhere else (a user's own notes) stay memory
    mine = "# Trip notes\n\n- **Session Key**: the Tuesday slot\n- **Session ID**: 42\n- **Source**: Wikipedia\n"
    assert len(chunk_markdown(mine).units) == 3
    mine = "# Session: planning\n\n- **Source**: Wikipedia\n- **Decision**: Postgres\n"
    assert [u.text for u in chunk_markdown(mine).units] == ["- **Source**: Wikipedia", "- **Decision**: Postgres"]
