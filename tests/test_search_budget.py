"""A reading budget (``maxTokens``): the results that fit in that many tokens of snippets, in
ranked order, rather than a count (docs/search.md §10, issue 30 "enough to read")."""

from __future__ import annotations

import json

import pytest

from cli_helpers import cli, ok, one_error
from reverie.errors import UserError
from reverie.search.reading import cost, spent
from reverie.tools.base import ToolError
from reverie.tools.memory import memory_tools
from workspace_helpers import open_mem, write

SWIMS = ["the public pool before work", "the lake with friends", "the leisure centre with the kids",
         "the hotel pool on the trip", "the river after the heat", "the sea at dawn"]


@pytest.fixture
def mem():
    """Forty days, each note one passing mention of a swim among other talk, and a long note."""
    m = open_mem('memory.search.provider="none"')
    for day in range(1, 41):
        where = SWIMS[day % len(SWIMS)]
        write(m, f"memory/2026-03-{day:02d}.md" if day <= 31 else f"memory/2026-04-{day - 31:02d}.md",
              f"# day {day}\n\n- Went swimming at {where}, lap {day}.\n- Paid the electricity bill, number {day}.\n")
    write(m, "memory/2026-05-02.md", "- The Zanzibar ferry timetable changes in June.\n")
    write(m, "memory/2026-05-01.md", "# a long day\n\n" + " ".join(
        f"Swimming plan item {i}: warm up slowly, count the strokes, breathe every third stroke." for i in range(9)))
    m.sync()
    yield m
    m.close()


def test_a_budget_fills_with_results_in_ranked_order_and_says_what_it_used(mem):
    ranked = mem.search("went swimming", 200, record_signals=False)["results"]
    out = mem.search("went swimming", max_tokens=600, record_signals=False)
    got, budget = out["results"], out["budget"]
    assert len(got) > 6  # more than the default count: a budget is filled, not counted
    assert budget["maxTokens"] == 600 and budget["tokens"] == spent(got) <= 600
    assert budget["more"] is True
    # the next result would not have fitted: the list stops at the first that passes the budget
    nxt = ranked[len(got)]
    assert spent(got) + cost(nxt["snippet"], nxt["citation"]) > 600
    assert [(r["path"], r["snippetStartLine"]) for r in got] == \
        [(r["path"], r["snippetStartLine"]) for r in ranked[:len(got)]]
    # a larger budget reads on where the smaller one stopped
    more = mem.search("went swimming", max_tokens=1200, record_signals=False)["results"]
    assert len(more) > len(got) and spent(more) <= 1200
    assert [r["citation"] for r in more[:len(got)]] == [r["citation"] for r in got]


def test_the_first_result_comes_whole_even_past_a_small_budget(mem):
    out = mem.search("swimming plan strokes breathe", max_tokens=20, record_signals=False)
    assert len(out["results"]) == 1
    first = out["results"][0]
    assert first["path"] == "memory/2026-05-01.md" and first["snippet"].count("Swimming plan item") >= 3
    assert out["budget"]["tokens"] == spent(out["results"]) > 20


def test_with_a_count_too_whichever_comes_first(mem):
    few = mem.search("went swimming", 3, max_tokens=5000, record_signals=False)
    assert len(few["results"]) == 3 and few["budget"]["tokens"] == spent(few["results"])
    assert few["budget"]["more"] is False  # the count ended the list, not the budget
    tight = mem.search("went swimming", 40, max_tokens=120, record_signals=False)
    assert 1 <= len(tight["results"]) < 40 and spent(tight["results"]) <= 120


def test_a_budget_that_holds_every_match_says_nothing_more_matched(mem):
    out = mem.search("Zanzibar ferry timetable", max_tokens=5000, record_signals=False)
    assert [r["path"] for r in out["results"]] == ["memory/2026-05-02.md"]
    assert out["budget"] == {"maxTokens": 5000, "tokens": spent(out["results"]), "more": False}


def test_without_a_budget_nothing_changes(mem):
    out = mem.search("went swimming", record_signals=False)
    assert "budget" not in out and len(out["results"]) == 6


@pytest.mark.parametrize("bad", [0, -5, 100_001, 2.5, True, "300"])
def test_a_bad_budget_is_one_clear_error(mem, bad):
    with pytest.raises(UserError, match="maxTokens must be a whole number between 1 and 100000"):
        mem.search("went swimming", max_tokens=bad)


def test_the_memory_search_tool_takes_max_tokens(mem):
    search = next(t for t in memory_tools(mem) if t.name == "memory_search")
    assert "maxTokens" in search.schema["properties"]
    out = search.call({"query": "went swimming", "maxTokens": 400})
    assert out["budget"]["tokens"] <= 400 and len(out["results"]) > 6
    with pytest.raises(ToolError, match="at least 50"):
        search.call({"query": "went swimming", "maxTokens": 10})


def test_the_command_line_takes_max_tokens(reverie_home, tmp_path):
    home = tmp_path / "cli-home"
    ok(cli(home, "init"))
    for day in range(1, 16):
        note = home / "workspace" / "memory" / f"2026-03-{day:02d}.md"
        note.write_text(f"- Went swimming at the pool, lap {day}.\n", encoding="utf-8")
    data = json.loads(ok(cli(home, "search", "went swimming", "--max-tokens", "150", "--json")).stdout)
    assert data["budget"]["maxTokens"] == 150 and spent(data["results"]) <= 150 and len(data["results"]) > 6
    human = ok(cli(home, "search", "went swimming", "--max-tokens", "150"))
    assert f"({len(data['results'])} results in about {data['budget']['tokens']} of 150 tokens" in human.stderr
    assert "--max-tokens" in one_error(cli(home, "search", "went swimming", "--max-tokens", "0"))
