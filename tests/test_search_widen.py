"""The later part of a long result list is opened to more notes when it spans fewer than five
(search/results.py ``widen``): an aggregate question's best hits cluster in the note that matches
it best, and twenty results could cover three sessions. The leading results and their order never
change."""

from __future__ import annotations

from types import SimpleNamespace

from reverie import Memory
from reverie.search.results import NOTES_WANTED, WIDEN_AFTER, Passage, widen

from workspace_helpers import write


def _p(path: str, i: int) -> Passage:
    return Passage([SimpleNamespace(path=path, source="memory", text=f"{path}#{i}")])


def _names(found: list[Passage]) -> list[str]:
    return [p.lead.text for p in found]


def test_a_clustered_tail_gives_way_to_notes_not_shown_and_nothing_is_lost():
    found = [_p("a", 1), _p("a", 2), _p("a", 3), _p("b", 1), _p("a", 4), _p("a", 5), _p("a", 6), _p("b", 2),
             _p("a", 7), _p("a", 8), _p("c", 1), _p("a", 9), _p("c", 2), _p("d", 1), _p("e", 1)]
    found += [_p("f", 1)]
    out = widen(found, 10)
    assert _names(out[:WIDEN_AFTER]) == _names(found[:WIDEN_AFTER])  # the leading results as ranked
    # five notes shown (a, b and the three best below the cut); f, sixth, stays below
    assert _names(out[:10]) == ["a#1", "a#2", "a#3", "b#1", "a#4", "a#5", "a#6", "c#1", "d#1", "e#1"]
    assert _names(out[10:]) == ["b#2", "a#7", "a#8", "a#9", "c#2", "f#1"]  # what gave way, just after the cut
    assert sorted(_names(out)) == sorted(_names(found))


def test_the_default_count_and_varied_results_are_left_as_ranked():
    found = [_p("a", i) for i in range(1, 12)] + [_p("b", 1)]
    assert _names(widen(found, WIDEN_AFTER)) == _names(found)  # the default count: the ranking's own
    varied = [_p(n, 1) for n in "aaaaabbcde"] + [_p("f", 1)]
    assert _names(widen(varied, 10)) == _names(varied)  # five notes already: nothing to open
    assert _names(widen(found[:8], 10)) == _names(found[:8])  # fewer than asked for: all shown anyway


def test_a_search_for_many_results_reaches_the_sessions_below_the_best_one(reverie_home):
    """One long session talks about swimming all day; six other days mention a swim once. Twelve
    results keep the long session's best passages first and reach every other day."""
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    filler = ["The printer jammed again at the office.", "Dinner was leftovers tonight.",
              "The bus was late twice this week.", "I backed up my photos to the external drive."]
    swims = ["At the swimming pool my coach timed each swim lap.", "The swimming pool opened early so I could swim.",
             "I learned to swim butterfly in the deep swimming pool.", "My swim cap tore at the swimming pool today.",
             "The swimming pool water was cold but the swim felt great.", "A swim meet at the swimming pool was loud.",
             "I bought goggles at the swimming pool shop before my swim.", "Swimming pool lanes were full, a slow swim.",
             "After the swim I sat in the swimming pool sauna.", "The lifeguard at the swimming pool praised my swim.",
             "I swim faster in the outdoor swimming pool.", "My friend joined my swim at the city swimming pool.",
             "Kids crowded the swimming pool during my evening swim.", "Rain fell on the swimming pool, a quiet swim."]
    long_day = []
    for i, line in enumerate(swims):
        long_day.append(f"- {line}")
        long_day += [f"- {filler[(i + k) % 4]} ({i}.{k})" for k in range(6)]
    write(mem, "memory/2026-03-01.md", "\n".join(long_day) + "\n")
    for d in range(2, 8):
        write(mem, f"memory/2026-03-{d:02d}.md", f"- {filler[d % 4]}\n- Went for a swim after work.\n")
    mem.sync()
    few = mem.search("swimming pool swim", 6, 0.0, record_signals=False)["results"]
    many = mem.search("swimming pool swim", 12, 0.0, record_signals=False)["results"]
    mem.close()
    assert [r["path"] for r in few] == ["memory/2026-03-01.md"] * 6  # the best session fills six
    assert [(r["path"], r["startLine"]) for r in many[:WIDEN_AFTER]] == [(r["path"], r["startLine"]) for r in few]
    days = [r["path"] for r in many]
    assert len(set(days)) == NOTES_WANTED and days.count("memory/2026-03-01.md") >= WIDEN_AFTER
