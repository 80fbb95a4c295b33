"""The web view's pure parts: Markdown lines with anchors and badges, citation ranges, explain bars."""

from __future__ import annotations

from reverie.ui import explain
from reverie.ui.mdview import parse_range, render_lines


def test_each_source_line_is_one_row_with_its_kind():
    text = "# Title\n\n- item one\n  - nested\n1. first\n> quoted\n```\n<b>code</b>\n```\n| a | b |\n---\nplain\n"
    rows = render_lines(text)
    assert [r.n for r in rows] == list(range(1, 13))
    assert [r.kind for r in rows] == ["heading", "blank", "bullet", "bullet", "bullet", "quote", "fence", "code",
                                      "fence", "table", "hr", "text"]
    assert rows[0].level == 1 and rows[3].level == 1 and rows[4].marker == "1."
    assert str(rows[7].html) == "&lt;b&gt;code&lt;/b&gt;"  # inside a fence: text, never markup


def test_annotations_become_badges_and_leave_the_text():
    (row,) = render_lines("- 靠窗的座位 <!-- importance: 8 --> <!-- trigger: 高铁; train --> <!-- note to self -->")
    assert "<!--" not in str(row.html) and "靠窗的座位" in str(row.html)
    assert [(b.kind, b.label) for b in row.badges] == [("importance", "importance 8"), ("trigger", "trigger: 高铁"),
                                                        ("trigger", "trigger: train"), ("comment", "note to self")]
    (bad,) = render_lines("- x <!-- importance: 99 -->")
    assert [b.kind for b in bad.badges] == ["invalid"]
    (inert,) = render_lines("- x <!\u2010\u2010 importance: 10 -->")
    assert [b.kind for b in inert.badges] == ["inert"] and "importance: 10" in str(inert.html)


def test_no_raw_html_image_or_script_link_survives():
    (row,) = render_lines('- <script>alert(1)</script> <img src=x onerror=y> ![p](http://t.example/p.png) '
                          '[a](javascript:alert(1)) [b](https://example.org) **ok**')
    html = str(row.html)
    assert "<script" not in html and "<img" not in html and 'href="javascript' not in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">b</a>' in html
    assert "<strong>ok</strong>" in html


def test_highlight_and_first_line():
    rows = render_lines("a\nb\nc\n", first_line=10, highlight=(11, 12))
    assert [(r.n, r.highlighted) for r in rows] == [(10, False), (11, True), (12, True)]


def test_parse_range():
    assert parse_range("5-9") == (5, 9) and parse_range("L5-L9") == (5, 9) and parse_range("7") == (7, 7)
    assert parse_range("9-5") == (5, 9)
    for bad in (None, "", "0", "x", "5-", "L5-Lx", "1-2-3"):
        assert parse_range(bad) is None, bad


def test_explain_rows_draw_each_step_to_scale():
    hit = {"score": 0.5, "explain": {
        "vector": {"cosine": 0.9, "calibrated": 0.8, "rank": 1, "floor": 0.0},
        "keyword": {"score": 0.5, "bm25": -3.0, "coverage": 0.5, "allTerms": True, "rank": 2},
        "path": None,
        "merge": {"content": 0.71, "formula": "0.7 x vector + 0.3 x keyword"},
        "importance": {"value": 8, "multiplier": 1.15}, "project": {"key": None, "active": [], "multiplier": 1.0},
        "preDecay": 0.8165, "eligible": True, "decay": {"multiplier": 0.9, "ageDays": 40.0}, "score": 0.7349,
        "mmr": {"before": 3, "after": 2, "penalty": 0.25}}}
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert list(rows) == ["vector leg", "keyword leg", "merge", "importance", "project", "before decay", "decay",
                          "score", "MMR similarity"]
    w = explain.WIDTH
    assert rows["vector leg"].segments[0].width == round(w * 0.8)
    merge = rows["merge"].segments
    assert [s.css for s in merge] == ["vector", "keyword"]
    assert merge[0].width == round(w * 0.56) and merge[1].x == merge[0].width and merge[1].width == round(w * 0.15)
    assert rows["importance"].value == "×1.15" and rows["importance"].segments[0].css == "up"
    assert rows["decay"].segments[0].css == "down" and rows["project"].segments[0].css == "neutral"
    assert rows["importance"].tick == round(w / explain.MULTIPLIER_SCALE)  # ×1 mark
    assert rows["before decay"].tick == round(w * 0.35)
    assert "3 → 2" in rows["MMR similarity"].note


def test_explain_keyword_only_and_missing_legs():
    hit = {"score": 0.4, "explain": {"vector": None, "keyword": {"score": 0.4, "bm25": -1, "coverage": 1,
                                                                 "allTerms": True, "rank": 1},
                                     "merge": {"content": 0.4, "formula": "keyword only"}, "preDecay": 0.4,
                                     "importance": {"value": None, "multiplier": 1.0},
                                     "project": {"key": None, "active": [], "multiplier": 1.0},
                                     "decay": {"multiplier": 1.0, "ageDays": None}, "score": 0.4}}
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert rows["vector leg"].empty and rows["vector leg"].value == "–"
    assert [s.css for s in rows["merge"].segments] == ["merge"]
    assert "MMR similarity" not in rows and "evergreen" in rows["decay"].note


def test_explain_shows_a_rerank_and_a_keyword_leg_reached_through_its_context():
    hit = {"score": 0.6, "explain": {
        "vector": None,
        "keyword": {"score": 0.3, "unit": 0.0, "window": 0.5, "file": 0.4, "coverage": None, "bm25": None,
                    "allTerms": False, "rank": None},
        "merge": {"content": 0.6, "formula": "keyword only"},
        "rerank": {"score": 0.9, "judged": True, "weight": 0.5, "before": 0.3, "after": 0.6,
                   "formula": "0.5 x content + 0.5 x rerank"},
        "importance": {"value": None, "multiplier": 1.0}, "project": {"key": None, "active": [], "multiplier": 1.0},
        "preDecay": 0.6, "eligible": True, "decay": {"multiplier": 1.0, "ageDays": None}, "score": 0.6}}
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert list(rows)[:4] == ["vector leg", "keyword leg", "merge", "rerank"]
    assert "0.300 → 0.600" in rows["rerank"].note and rows["rerank"].value == "0.900"
    assert "through its context" in rows["keyword leg"].note


def _traced(**extra) -> dict:
    ex = {"vector": None, "keyword": {"score": 0.5, "bm25": -1, "coverage": 1, "allTerms": True, "rank": 1},
          "merge": {"content": 0.5, "formula": "keyword only"}, "importance": {"value": None, "multiplier": 1.0},
          "project": {"key": None, "active": [], "multiplier": 1.0}, "preDecay": 0.6875, "eligible": True,
          "decay": {"multiplier": 1.0, "ageDays": 3.0}, "score": 0.55}
    ex.update(extra)
    return {"score": 0.55, "explain": ex}


def test_explain_shows_what_the_question_lifted_and_a_count_of_someone_elses_doing():
    """The multipliers a question's words set (the days it named, a stated taste, a statement of
    change) sit before decay, a count's ×0.8 for another's line after it; a multiplier of 1 is left out."""
    hit = _traced(time={"range": ["2026-05-25", "2026-05-31"], "multiplier": 1.25},
                  taste={"stated": False, "multiplier": 1.0}, now={"statesChange": True, "multiplier": 1.1},
                  count={"notMine": True, "multiplier": 0.8})
    labels = [r.label for r in explain.rows(hit, 0.35)]
    assert labels == ["vector leg", "keyword leg", "merge", "importance", "project", "time", "now", "before decay",
                      "decay", "count", "score"]
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert rows["time"].value == "×1.25" and rows["now"].value == "×1.10" and rows["count"].value == "×0.80"
    assert rows["count"].segments[0].css == "down" and "not the owner" in rows["count"].note
    plain = [r.label for r in explain.rows(_traced(), 0.35)]
    assert "time" not in plain and "count" not in plain


def test_the_cli_prints_the_same_multipliers(capsys):
    from reverie.cli.search_run import _print_explain

    _print_explain(_traced(time={"range": ["2026-05-25", "2026-05-31"], "multiplier": 1.25},
                           now={"statesChange": True, "multiplier": 1.1}, count={"notMine": True, "multiplier": 0.8}))
    out = capsys.readouterr().out
    assert "x project 1.0 x the days asked about 1.25 x statement of change 1.1 = 0.6875 before decay" in out
    assert "(3.0 days old) x not the owner's doing 0.8 = 0.55" in out
    # a sum of money: a line naming no amount (and one that is also another's, ×0.8 twice)
    _print_explain(_traced(count={"notMine": False, "namesAmount": False, "multiplier": 0.8}))
    assert "(3.0 days old) x names no amount 0.8 = 0.55" in capsys.readouterr().out
    _print_explain(_traced(count={"notMine": True, "namesAmount": False, "multiplier": 0.64}))
    assert "x not the owner's doing, names no amount 0.64 = 0.55" in capsys.readouterr().out
    rows = {r.label: r for r in explain.rows(_traced(count={"notMine": False, "namesAmount": False,
                                                             "multiplier": 0.8}), 0.35)}
    assert rows["count"].note == "names no amount"
    # a count of a kind: a line naming nothing of it ("我坐在长椅上听了会儿音乐" for 几场演出)
    _print_explain(_traced(count={"notMine": False, "namesKind": False, "multiplier": 0.8}))
    assert "(3.0 days old) x names nothing of the kind counted 0.8 = 0.55" in capsys.readouterr().out
    kind = {r.label: r for r in explain.rows(_traced(count={"notMine": False, "namesKind": True,
                                                            "multiplier": 1.0}), 0.35)}
    assert "count" not in kind  # a multiplier of 1 is left out


def test_explain_shows_a_concern_lifted_for_a_request_for_counsel(capsys):
    """search/needs.py: a line stating a concern in the situation a request for counsel names."""
    from reverie.cli.search_run import _print_explain

    need = {"situations": ["meal"], "states": ["meal"], "multiplier": 1.5}
    rows = {r.label: r for r in explain.rows(_traced(need=need), 0.35)}
    assert rows["need"].value == "×1.50" and "concern" in rows["need"].note
    _print_explain(_traced(need=need))
    assert "x project 1.0 x a concern in the situation asked about 1.5 = 0.6875 before decay" in capsys.readouterr().out
    assert "need" not in {r.label for r in explain.rows(_traced(need={**need, "multiplier": 1.0}), 0.35)}


def test_explain_says_when_the_questions_characters_or_its_days_set_the_keyword_leg(capsys):
    """search/loose.py and search/days_asked.py: the share of the question's characters a unit holds,
    and whether it is a note of the days asked, beside the keyword leg (web view and CLI)."""
    from reverie.cli.search_run import _print_explain

    kw = {"score": 0.2, "unit": 0.0, "window": 0.0, "file": 0.0, "coverage": 0.0, "bm25": None,
          "allTerms": False, "rank": None}
    hit = _traced(keyword=kw, loose={"share": 0.5, "dayAsked": True, "weight": 0.4})
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert rows["keyword leg"].note.endswith("holds 0.50 of the question's characters, a note of the days asked")
    plain = {r.label: r for r in explain.rows(_traced(loose={"share": 0.0, "dayAsked": False, "weight": 0.4}), 0.35)}
    assert "characters" not in plain["keyword leg"].note
    _print_explain(hit)
    assert "loose 0.50 of the question's characters, a note of the days asked" in capsys.readouterr().out


def test_explain_names_the_member_that_held_a_head_word(capsys):
    """text/kinds.py: "Saw a cardiologist" holds "doctor" through a member of its kind; both explain
    surfaces say which, and nothing where the text holds its words itself."""
    from reverie.cli.search_run import _print_explain

    hit = _traced()
    hit["explain"]["keyword"]["members"] = {"doctor": "cardiologist"}
    rows = {r.label: r for r in explain.rows(hit, 0.35)}
    assert rows["keyword leg"].note.endswith('; "doctor" as "cardiologist"')
    _print_explain(hit)
    assert '; "doctor" as "cardiologist"' in capsys.readouterr().out
    plain = {r.label: r for r in explain.rows(_traced(), 0.35)}
    assert " as " not in plain["keyword leg"].note
