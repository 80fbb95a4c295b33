"""The MEMORY.md budget (reference §16.9): the oldest generated blocks go first, and nothing a
person wrote is ever deleted -- each case of the reference's memory-budget tests, plus the append
path end to end."""

from __future__ import annotations

from reverie.dreaming.budget import blocks_of, compact

USER = "# Long-Term Memory\n\n- Something I wrote myself.\n"


def gen(day: str, *bullets: str, heading: str = "Promoted From Short-Term Memory", lineage: bool = False) -> str:
    lines = [f"## {heading} ({day})"]
    for i, b in enumerate(bullets):
        if lineage:
            lines.append(f"<!-- reverie-lineage: k{i} -->")
        lines += [f"<!-- reverie-entry: st-{day}-{i} -->", f"- {b}"]
    return "\n".join(lines) + "\n"


def filler(n: int) -> str:
    return "x" * n


def test_no_budget_returns_the_text_unchanged():
    text = USER + gen("2026-06-01", "a" * 500)
    assert compact(text, "new", 0).text == text
    assert compact(text, "new", -5).text == text


def test_empty_memory_yields_an_empty_result():
    out = compact("", "## section\n- new\n", 50)
    assert out.text == "" and out.fits


def test_text_that_fits_is_untouched():
    text = USER + gen("2026-06-01", "short")
    assert compact(text, "- new", 10_000).text == text


def test_oldest_generated_blocks_go_first_and_dates_are_reported():
    old, mid, new = gen("2026-06-01", filler(200)), gen("2026-06-05", filler(200)), gen("2026-06-09", filler(200))
    text = USER + "\n" + new + "\n" + old + "\n" + mid  # file order is not age order
    out = compact(text, "- addition " + filler(150), len(text) - 100)
    assert out.compacted_dates == ["2026-06-01"] and out.compacted_sections == 1
    assert "2026-06-05" in out.text and "2026-06-09" in out.text and "Something I wrote myself" in out.text


def test_consolidation_sections_are_generated_too():
    text = USER + gen("2026-06-01", filler(300), heading="Consolidated Memory", lineage=True)
    out = compact(text, filler(100), len(USER) + 150)
    assert out.compacted_dates == ["2026-06-01"] and out.text.strip() == USER.strip()


def test_user_text_is_never_deleted_even_if_it_does_not_fit():
    text = USER + "\n## My own notes\n\n" + filler(900) + "\n"
    out = compact(text, "- new", 200)
    assert out.text == text and not out.fits


def test_a_user_heading_inside_a_promotion_section_starts_a_kept_block():
    for heading in ("###\tMy heading", "   ### Indented heading", "###", "My setext heading\n================="):
        text = USER + gen("2026-06-01", filler(300)) + heading + "\n- my own line under it\n"
        out = compact(text, filler(50), len(USER) + 200)
        assert "- my own line under it" in out.text, heading
        assert heading.split("\n")[0] in out.text, heading
        assert filler(300) not in out.text, heading  # the generated part before it still goes


def test_a_marker_only_section_is_kept():
    text = USER + "## Promoted From Short-Term Memory (2026-06-01)\n<!-- reverie-entry: st-x -->\n" + filler(300) + "\n"
    out = compact(text, filler(50), len(USER) + 100)
    assert filler(300) in out.text


def test_a_look_alike_dated_section_without_markers_is_kept():
    text = USER + "## Promoted From Short-Term Memory (2026-06-01)\n- " + filler(300) + "\n"
    out = compact(text, filler(50), len(USER) + 100)
    assert filler(300) in out.text and out.compacted_sections == 0


def test_a_section_with_user_prose_is_kept():
    text = USER + gen("2026-06-01", filler(300)) + "I added this paragraph myself.\n"
    out = compact(text, filler(50), len(USER) + 100)
    assert "I added this paragraph myself." in out.text and filler(300) in out.text


def test_an_orphan_lineage_marker_keeps_its_section():
    text = USER + "## Consolidated Memory (2026-06-01)\n<!-- reverie-lineage: home -->\n- " + filler(300) + "\n"
    out = compact(text, filler(50), len(USER) + 100)
    assert filler(300) in out.text


def test_an_inline_note_beside_a_marker_keeps_its_section():
    text = (USER + "## Consolidated Memory (2026-06-01)\n<!-- reverie-entry: st-a --> <!-- my note -->\n- "
            + filler(300) + "\n")
    out = compact(text, filler(50), len(USER) + 100)
    assert filler(300) in out.text


def test_multi_project_sections_are_dropped_whole():
    section = ("## Promoted From Short-Term Memory (2026-06-01)\n\n### Global\n<!-- reverie-entry: st-g -->\n- "
               + filler(200) + "\n\n### Project: gh/atlas\n<!-- reverie-entry: st-p -->\n- " + filler(200) + "\n")
    text = USER + section
    out = compact(text, filler(50), len(USER) + 100)
    assert "### Global" not in out.text and "### Project: gh/atlas" not in out.text
    assert out.compacted_dates == ["2026-06-01"]


def test_the_result_never_starts_with_a_blank_line():
    text = gen("2026-06-01", filler(300)) + "\n\n- mine\n"
    text = "\n\n" + text
    out = compact(text, filler(50), 120)
    assert not out.text.startswith("\n") and "- mine" in out.text


def test_blocks_are_cut_at_every_heading():
    text = USER + gen("2026-06-01", "a") + "## Mine\n- b\n"
    kinds = [(b.lines[0], b.generated) for b in blocks_of(text)]
    assert ("## Promoted From Short-Term Memory (2026-06-01)", True) in kinds and ("## Mine", False) in kinds
