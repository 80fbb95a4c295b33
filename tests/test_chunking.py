"""Markdown chunking: 1-based inclusive line ranges, overlap, CJK-weighted budgets, long lines,
headings kept with their content, and no broken characters."""

from __future__ import annotations

import hashlib
import random

import pytest

from reverie.index.chunking import chunk_markdown
from reverie.text.cjk import is_cjk_char, weighted_length

HAN = "酒店预算湖景房返程车票杭州西湖高铁周末计划行李天气朋友晚饭博物馆"


def ascii_lines(n: int, width: int = 96, tag: str = "x") -> list[str]:
    return [f"{i:03d} " + tag * width for i in range(1, n + 1)]


def lines_of(text: str, start: int, end: int) -> str:
    return "\n".join(text.split("\n")[start - 1:end])


def assert_ranges_cover(text: str, chunks, tokens: int = 400) -> None:
    """Every chunk's text is its 1-based inclusive line range (ends trimmed of blank lines; a line
    longer than the budget contributes pieces), ranges run forward, every non-blank line is covered."""
    lines = text.split("\n")
    covered: set[int] = set()
    prev_start = 0
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.start_line >= prev_start
        prev_start = c.start_line
        span = lines[c.start_line - 1:c.end_line]
        if all(weighted_length(ln) <= tokens * 4 for ln in span):
            assert c.text == "\n".join(span)
        else:  # pieces of a long line are joined with "\n", as the reference does
            assert "".join(c.text.split("\n")) in "".join(span)
        assert c.hash == hashlib.sha256(c.text.encode("utf-8")).hexdigest()
        covered.update(range(c.start_line, c.end_line + 1))
    assert {i for i, ln in enumerate(lines, 1) if ln.strip()} <= covered


def rebuild_segments(chunks) -> list[str]:
    """The segments of all chunks in order, with each chunk's overlap (a repeat of the previous
    chunk's tail) removed: for a text with no blank lines this must give back every segment once."""
    seq: list[str] = []
    for c in chunks:
        segs = c.text.split("\n")
        k = min(len(seq), len(segs))
        while k and seq[-k:] != segs[:k]:
            k -= 1
        seq.extend(segs[k:])
    return seq


def test_empty_and_blank_files_give_no_chunks():
    assert chunk_markdown("") == []
    assert chunk_markdown("\n\n   \n\t\n") == []


def test_small_file_is_one_chunk_with_1_based_range():
    text = "# Trip\n\n- booked hotel\n- train back\n"
    [c] = chunk_markdown(text)
    assert (c.start_line, c.end_line) == (1, 4)  # inclusive; the trailing empty line 5 is trimmed
    assert c.text == "# Trip\n\n- booked hotel\n- train back"


def test_leading_blank_lines_are_not_the_start():
    [c] = chunk_markdown("\n\n\nfirst real line\nsecond")
    assert (c.start_line, c.end_line) == (4, 5)


def test_ranges_cover_the_text_and_respect_the_budget():
    text = "\n".join(ascii_lines(120))
    chunks = chunk_markdown(text, tokens=400, overlap=80)
    assert len(chunks) > 5
    assert_ranges_cover(text, chunks)
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 120
    for c in chunks:
        assert weighted_length(c.text) <= 400 * 4


def test_overlap_is_carried_into_the_next_chunk():
    text = "\n".join(ascii_lines(60))  # each line costs 101 (100 chars + newline)
    chunks = chunk_markdown(text, tokens=400, overlap=80)
    for a, b in zip(chunks, chunks[1:]):
        shared = a.end_line - b.start_line + 1
        # carry walks back until >= 320 chars: 4 lines of 101
        assert shared == 4, (a.start_line, a.end_line, b.start_line, b.end_line)
        assert b.text.startswith(lines_of(text, b.start_line, a.end_line))


def test_no_overlap_when_overlap_is_zero():
    text = "\n".join(ascii_lines(60))
    chunks = chunk_markdown(text, tokens=400, overlap=0)
    for a, b in zip(chunks, chunks[1:]):
        assert b.start_line == a.end_line + 1
    assert_ranges_cover(text, chunks)


def test_cjk_weighs_about_four_so_a_chunk_holds_about_400_han():
    rng = random.Random(7)
    lines = ["".join(rng.choice(HAN) for _ in range(20)) for _ in range(200)]
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens=400, overlap=80)
    assert_ranges_cover(text, chunks)
    assert len(chunks) >= 8  # 4,000 Han would fit in 3 chunks if counted as 1 each
    for c in chunks[:-1]:
        han = sum(1 for ch in c.text if is_cjk_char(ch))
        assert 300 <= han <= 400, han  # ~400 tokens of Chinese, never 1,600 characters


def test_mixed_cjk_and_latin_budget():
    text = "\n".join(f"{i} 今天讨论了酒店预算 and the hotel budget for the trip" for i in range(300))
    chunks = chunk_markdown(text, tokens=100, overlap=10)
    assert_ranges_cover(text, chunks)
    for c in chunks:
        assert weighted_length(c.text) <= 100 * 4


def test_long_ascii_line_is_split_into_pieces():
    line = "".join(f"word{i} " for i in range(3000))  # ~24,000 chars on one line
    text = f"before\n{line}\nafter"
    chunks = chunk_markdown(text, tokens=400, overlap=80)
    assert_ranges_cover(text, chunks)
    assert chunks[0].text == "before"
    assert len(chunks) >= 1 + len(line) // 1600
    for c in chunks:
        assert len(c.text) <= 1600 + len("\nafter")
    # nothing lost, nothing repeated: a full-budget piece carries no overlap
    assert "".join(c.text for c in chunks[1:]) == line + "\nafter"


def test_long_cjk_line_is_split_by_weight():
    rng = random.Random(3)
    line = "".join(rng.choice(HAN) for _ in range(2500))
    chunks = chunk_markdown(line, tokens=400, overlap=80)
    assert "".join(c.text for c in chunks) == line
    for c in chunks:
        assert (c.start_line, c.end_line) == (1, 1)
        assert len(c.text) <= 400  # 400 Han characters at most, not 1,600


def test_heading_never_ends_a_chunk_it_starts_the_next():
    # Lines 1-15 cost 1,515; the heading on line 16 still fits, line 17 does not: the heading
    # must move to the next chunk together with line 17.
    lines = ascii_lines(15) + ["## Section B"] + ascii_lines(20, tag="y")
    text = "\n".join(lines)
    chunks = chunk_markdown(text, tokens=400, overlap=80)
    assert_ranges_cover(text, chunks)
    assert chunks[0].end_line == 15
    assert not chunks[0].text.rstrip().endswith("## Section B")
    holder = next(c for c in chunks if "## Section B" in c.text)
    assert holder.start_line <= 16 < holder.end_line
    for c in chunks[:-1]:
        last = [ln for ln in c.text.split("\n") if ln.strip()][-1]
        assert not last.lstrip().startswith("#"), c.text[-60:]


def test_heading_followed_by_blank_lines_moves_with_them():
    lines = ascii_lines(15) + ["# Part two", "", ""] + ascii_lines(20, tag="z")
    text = "\n".join(lines)
    chunks = chunk_markdown(text)
    assert_ranges_cover(text, chunks)
    holder = next(c for c in chunks if "# Part two" in c.text)
    assert "zzzz" in holder.text
    assert "# Part two" not in chunks[0].text


def test_stacked_headings_move_together():
    # "# Trip" and "## Hotel" both fit after line 15, the content after them does not
    lines = ascii_lines(15) + ["# Trip", "", "## Hotel"] + ascii_lines(20, tag="y")
    text = "\n".join(lines)
    chunks = chunk_markdown(text)
    assert_ranges_cover(text, chunks)
    assert chunks[0].end_line == 15
    holder = next(c for c in chunks if "# Trip" in c.text)
    assert holder.text.split("\n")[-1] != "# Trip"
    assert "## Hotel\n" in holder.text and "yyyy" in holder.text


def test_stacked_headings_before_a_long_line_are_kept():
    text = "# Trip\n## Hotel\n" + "".join(f"{i:05d}" for i in range(700))
    chunks = chunk_markdown(text)
    assert chunks[0].start_line == 1
    assert chunks[0].text.startswith("# Trip\n## Hotel\n00000")
    assert_ranges_cover(text, chunks)


def test_headings_only_file_makes_no_chunk_and_is_fast():
    text = "\n".join(f"## heading {i}" for i in range(50_000))
    assert chunk_markdown(text) == []


def test_heading_before_a_long_line_is_kept():
    text = "# Heading\n" + "".join(f"{i:05d}" for i in range(1000))  # one 5,000-char line
    chunks = chunk_markdown(text)
    assert chunks[0].start_line == 1
    assert chunks[0].text.startswith("# Heading\n000000000100002")
    assert_ranges_cover(text, chunks)
    assert "".join(rebuild_segments(chunks)) == text.replace("\n", "")  # no piece lost


def test_every_line_of_a_realistic_note_is_findable():
    rng = random.Random(11)
    parts: list[str] = []
    for s in range(12):
        parts.append(f"## Section {s}")
        parts.append("")
        for _ in range(rng.randint(1, 25)):
            if rng.random() < 0.3:
                parts.append("- " + "".join(rng.choice(HAN) for _ in range(rng.randint(5, 60))))
            else:
                parts.append("- " + " ".join(rng.choice(["hotel", "budget", "train", "lake", "view"])
                                             for _ in range(rng.randint(3, 40))))
        parts.append("")
    text = "\n".join(parts)
    chunks = chunk_markdown(text)
    assert_ranges_cover(text, chunks)


@pytest.mark.parametrize("units", [
    ["😀", "🎉", "🚄"],                  # astral plane: surrogate pairs in UTF-16
    ["👨\u200d👩\u200d👧", "🇨🇳"],       # ZWJ sequence, flag pair
    ["𠀀", "𠮷", "𡈽"],                   # CJK Extension B
    ["a", "😀", "b", "𠮷", "c", "酒店"],
])
def test_astral_characters_never_split_into_invalid_strings(units):
    rng = random.Random(5)
    line = "".join(rng.choice(units) for _ in range(3000))
    line2 = "".join(rng.choice(units) for _ in range(3000))
    text = f"# Emoji\n{line}\n{line2}\ntail"
    chunks = chunk_markdown(text, tokens=64, overlap=8)
    assert len(chunks) > 2
    for c in chunks:
        c.text.encode("utf-8")  # strict: raises on a lone surrogate
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in c.text)
    assert_ranges_cover(text, chunks, tokens=64)
    # pieces are whole code points: without the overlap they rebuild the text exactly
    assert "".join(rebuild_segments(chunks)) == text.replace("\n", "")


def test_ext_b_weighs_like_han():
    ext_b = "".join(chr(0x20000 + i) for i in range(600))
    chunks = chunk_markdown(ext_b, tokens=100, overlap=10)
    assert "".join(c.text for c in chunks) == ext_b
    for c in chunks:
        assert len(c.text) <= 100


def test_hash_is_stable_and_text_sensitive():
    a = chunk_markdown("- same text")[0]
    b = chunk_markdown("- same text")[0]
    c = chunk_markdown("- same text!")[0]
    assert a.hash == b.hash != c.hash
