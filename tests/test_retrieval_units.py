"""What the agent reads must hold the answer: per-entry annotations in curated files, superseded
directives yielding, snippets that show the matching entry (with its lines) however deep in the
note it sits, a keyword score that follows the rare words on a large workspace and still scores a
full match 1.0 on a tiny one, and long, chatty queries."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from workspace_helpers import open_mem, write

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL

NONE = 'memory.search.provider="none"'
FAKE = 'memory.search.provider="fake"'
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def search(mem: Memory, query: str, n: int = 10, **kw) -> dict:
    kw.setdefault("now", NOW)
    kw.setdefault("record_signals", False)
    return mem.search(query, n, **kw)


# -- curated files: one entry, one unit, its own annotations ---------------------------------------
MEMORY = ("# Long-Term Memory\n\n"
          "- Prefers window seats on long flights <!-- importance: 8 --> <!-- project: travel -->\n"
          "- The vendor proposal was rejected because it was over budget by 40 percent\n"
          "- Deploys go out on Tuesdays after the review <!-- importance: 2 -->\n")


def test_each_memory_entry_is_indexed_with_only_its_own_annotations(reverie_home):
    mem = open_mem(NONE)
    write(mem, "MEMORY.md", MEMORY)
    mem.sync()
    rows = mem.index.conn().execute(
        "SELECT c.start_line, c.end_line, m.importance, m.project_key FROM memory_index_chunks c "
        "LEFT JOIN memory_index_chunk_recall_metadata m ON m.chunk_id = c.id ORDER BY c.start_line").fetchall()
    assert rows == [(3, 3, 8, "travel"), (4, 4, None, None), (5, 5, 2, None)]
    out = search(mem, "vendor proposal budget", explain=True)
    top = out["results"][0]
    assert (top["startLine"], top["endLine"]) == (4, 4)  # the entry is its own window and citation
    assert "importance" not in top and "projectKey" not in top
    assert top["explain"]["importance"]["multiplier"] == 1.0
    mem.close()


def test_user_md_superseded_directive_yields_to_the_active_one(reverie_home):
    mem = open_mem(NONE)
    write(mem, "USER.md", "# User\n\n"
          "<!-- observed: 2026-07-01 | status: superseded -->\n\n- Prefer long detailed answers\n\n"
          "<!-- observed: 2026-09-01 | status: active -->\n\n- Prefer short detailed answers\n")
    mem.sync()
    out = search(mem, "prefer detailed answers", explain=True)
    first, second = out["results"][:2]
    assert "short" in first["snippet"] and first["status"] == "active"
    assert "long" in second["snippet"] and second["status"] == "superseded"
    ex_old, ex_new = second["explain"], first["explain"]
    assert ex_old["status"]["multiplier"] == 0.5 and ex_new["status"]["multiplier"] == 1.0
    assert ex_old["preDecay"] == pytest.approx(0.5 * ex_old["merge"]["content"], abs=1e-3)
    mem.close()


# -- snippets: the matching entry, with its lines ------------------------------------------------------
def test_evidence_deep_in_a_long_note_is_in_the_snippet_with_its_lines(reverie_home):
    mem = open_mem(NONE)
    filler = [f"- Walked to the market on day {i} and bought bread, cheese and some fruit." for i in range(20)]
    lines = ["# 2026-11-20", ""] + filler + ["- The zeppelin museum tickets were booked for Friday.", "- Later: tea."]
    write(mem, "memory/2026-11-20.md", "\n".join(lines) + "\n")
    mem.sync()
    evidence_line = lines.index("- The zeppelin museum tickets were booked for Friday.") + 1
    assert len("\n".join(lines[:evidence_line - 1])) > 700  # beyond the snippet cap from the top
    top = search(mem, "zeppelin museum tickets")["results"][0]
    assert "zeppelin museum tickets" in top["snippet"]
    assert top["snippetStartLine"] == top["snippetEndLine"] == evidence_line
    assert top["startLine"] <= evidence_line <= top["endLine"]  # the citation's window holds it
    assert top["citation"] == f"memory/2026-11-20.md#L{top['startLine']}-L{top['endLine']}"
    mem.close()


def test_a_long_entry_shows_the_piece_that_matches(reverie_home):
    mem = open_mem(NONE)
    story = " ".join(f"On stop {i} the group saw old churches and ate lunch." for i in range(30))
    write(mem, "memory/2026-11-21.md", f"- {story} Finally the guide mentioned the hidden lighthouse café.\n")
    mem.sync()
    top = search(mem, "hidden lighthouse café")["results"][0]
    assert "hidden lighthouse café" in top["snippet"]
    assert len(top["snippet"]) <= 700
    assert top["snippetStartLine"] == 1
    mem.close()


# -- the keyword score at both ends of corpus size -----------------------------------------------------
def test_tiny_workspace_full_match_scores_one_and_partial_less(reverie_home):
    mem = open_mem(NONE)
    write(mem, "memory/a.md", "- Booked the hotel by the railway station.\n")
    write(mem, "memory/b.md", "- The hotel pool was closed.\n")
    mem.sync()
    out = search(mem, "hotel railway station", explain=True)
    scores = {r["path"]: r["explain"]["keyword"]["score"] for r in out["results"]}
    assert scores["memory/a.md"] == pytest.approx(1.0)
    assert 0 < scores["memory/b.md"] < 0.5  # "hotel" is in every note here: it weighs least
    mem.close()


def test_large_workspace_rare_word_outweighs_chatty_common_words(reverie_home):
    mem = open_mem(NONE)
    for i in range(200):
        if i % 10 < 3:  # chatty words in 30% of the notes: common, but not everywhere
            text = f"- Remember we talked about it and you mentioned the weekly meeting number {i}.\n"
        else:
            text = f"- Bought groceries for dinner number {i}: rice, beans and tomatoes.\n"
        write(mem, f"memory/notes/n{i:03d}.md", text)
    write(mem, "memory/zeppelin.md", "- The zeppelin ride over the lake is booked for June.\n")
    mem.sync()
    out = search(mem, "do you remember when we talked about it, you mentioned the zeppelin", explain=True)
    # half bm25, half plain word coverage ranked the chatty notes first: they hold 3 of 4 words
    assert out["results"][0]["path"] == "memory/zeppelin.md"
    kw = out["results"][0]["explain"]["keyword"]
    assert kw["unit"] > 0.5  # the rare word carries most of the query's weight
    mem.close()


# -- long, chatty queries --------------------------------------------------------------------------------
def test_a_dialogue_query_weighs_its_last_turn(reverie_home):
    mem = open_mem(NONE)
    write(mem, "memory/2026-10-01.md", "- 在杭州酒店住了两晚。\n")
    write(mem, "memory/2026-10-05.md", "- 钢琴老师下个月搬去上海。\n")
    write(mem, "memory/2026-10-06.md", "- 买了新的咖啡豆。\n")
    dialogue = ("用户：你好！上次我们聊到杭州酒店，住得还不错。\n"
                "助手：很高兴听到！还有什么我可以帮忙的吗？\n"
                "用户：对了，我女儿的钢琴老师是不是要搬走了？")
    out = search(mem, dialogue, explain=True)
    assert out["results"][0]["path"] == "memory/2026-10-05.md"
    assert [r["path"] for r in out["results"]][:2] == ["memory/2026-10-05.md", "memory/2026-10-01.md"]
    # the same words with the hotel in the last turn flip the order
    flipped = ("用户：你好！我女儿的钢琴老师是不是要搬走了？\n助手：好像是的。\n"
               "用户：对了，上次我们聊到杭州酒店，住得还不错吧？")
    assert search(mem, flipped)["results"][0]["path"] == "memory/2026-10-01.md"
    mem.close()


def test_a_long_chatty_query_is_answered_quickly_from_its_content_words(reverie_home):
    mem = open_mem(NONE)
    for i in range(40):
        write(mem, f"memory/n{i:02d}.md", f"- note {i}: the team discussed item {i} at length today.\n")
    write(mem, "memory/passport.md", "- Passport renewal appointment is on 3 December at the consulate.\n")
    mem.sync()
    chatty = ("Hey, thanks so much for all the help earlier today, it was really useful and I appreciate it. "
              "So anyway, I was just wondering, because I honestly cannot quite remember anymore and it has "
              "been bugging me all day long, when exactly is my passport renewal appointment supposed to be?")
    out = search(mem, chatty)
    assert out["results"][0]["path"] == "memory/passport.md"
    mem.close()


def test_consecutive_results_citing_one_window_are_one_passage(reverie_home):
    mem = open_mem(NONE)
    lines = ["# 2026-11-22", "", "- Kayak rental booked at the north pier.", "- Bought sunscreen.",
             "- Packed the dry bags.", "- Kayak rental deposit paid in cash.", "- Called mum."]
    write(mem, "memory/2026-11-22.md", "\n".join(lines) + "\n")
    write(mem, "memory/2026-11-23.md", "- The kayak trip was cancelled by rain.\n")
    mem.sync()
    out = search(mem, "kayak rental", 6, explain=True)
    top = out["results"][0]
    assert top["path"] == "memory/2026-11-22.md"
    assert (top["snippetStartLine"], top["snippetEndLine"]) == (3, 6)
    assert top["snippet"] == "- Kayak rental booked at the north pier.\n…\n- Kayak rental deposit paid in cash."
    assert [m["lines"] for m in top["explain"]["merged"]] == [[6, 6]]
    assert out["results"][1]["path"] == "memory/2026-11-23.md"
    # merged before the cut: one result asked for, the same passage
    assert search(mem, "kayak rental", 1)["results"][0]["snippet"] == top["snippet"]
    mem.close()


def test_importance_cannot_lift_a_clearly_less_relevant_entry(reverie_home):
    mem = open_mem(NONE)
    write(mem, "MEMORY.md", "# Memory\n\n- kayak rental deposit paid at the north pier office <!-- importance: 10 -->\n")
    write(mem, "memory/2026-11-29.md", "- kayak rental deposit paid at the north pier office in cash\n")
    for i in range(10):
        write(mem, f"memory/other/n{i}.md", f"- groceries for dinner number {i}\n")
    mem.sync()
    out = search(mem, "kayak rental deposit paid pier office north cash", explain=True)
    note, entry = out["results"][0], out["results"][1]
    assert note["path"] == "memory/2026-11-29.md" and entry["path"] == "MEMORY.md"
    ratio = entry["explain"]["merge"]["content"] / note["explain"]["merge"]["content"]
    assert ratio < 0.9 and ratio * 1.25 > 1.0  # the full x1.25 would have put the entry first
    assert entry["explain"]["importance"]["multiplier"] == 1.25
    assert entry["explain"]["boost"] == {"gate": 0.0, "applied": 1.0}
    mem.close()


def test_importance_breaks_a_near_tie(reverie_home):
    mem = open_mem(NONE)
    write(mem, "MEMORY.md", "# Memory\n\n- kayak rental deposit paid at the pier office <!-- importance: 8 -->\n")
    write(mem, "memory/2026-11-29.md", "- kayak rental deposit paid at the pier office\n")
    mem.sync()
    out = search(mem, "kayak rental deposit", explain=True)
    assert out["results"][0]["path"] == "MEMORY.md"
    assert out["results"][0]["explain"]["boost"]["gate"] == 1.0
    mem.close()


def test_cli_search_prints_the_lines_each_snippet_shows(reverie_home):
    import os
    import subprocess
    import sys

    mem = open_mem(NONE)
    write(mem, "memory/2026-11-20.md", "# 2026-11-20\n\n- Bought bread.\n- The zeppelin tickets are booked.\n")
    mem.sync()
    mem.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(reverie_home), REVERIE_TIMEZONE="UTC")
    proc = subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", "search", "zeppelin",
                           "--set", 'memory.search.provider="none"'], env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "memory/2026-11-20.md#L1-L4" in proc.stdout
    assert "L4: - The zeppelin tickets are booked." in proc.stdout
