"""The blind review's result lists (far_update_cases.py) through the order of search/newest.py: an update
said far down leads, a trap far down never does."""

from __future__ import annotations

import pytest

from far_update_cases import CASES
from reverie.search.newest import ANSWERS, prefer_newest

# where the order still differs from the careful reader (docs/search.md, "Farther down"): an internet
# provider named by no member the kind knows ("Switched our internet to Sonic fiber"), a gym in two languages
# (no facet: a climbing gym and a fitness one are two), and one ambiguous trap ("Our team's new manager for
# the project site in Lisbon", taken to replace "My manager is Priya" as it was near the top before)
STILL_DIFFERS = {5, 10, 22, 37}


def _rows(rows: list[tuple[str, str]]) -> list[dict]:
    out, seen = [], {}
    for i, (day, text) in enumerate(rows):
        seen[day] = seen.get(day, 0) + 1
        path = f"memory/{day}{'' if seen[day] == 1 else f'-{seen[day]}'}.md"
        out.append({"path": path, "snippet": text, "score": round(0.70 - 0.012 * i, 4), "startLine": 7,
                    "citation": f"{path}#L7-L9", "rank": i})
    return out


@pytest.mark.parametrize("case", [i for i in range(len(CASES)) if i not in STILL_DIFFERS])
def test_a_far_update_leads_and_a_far_trap_does_not(case: int):
    query, rows, wanted, note = CASES[case]
    first = prefer_newest(_rows(rows), query)[0]["rank"]
    if note.startswith("TRUE"):
        assert first == wanted, (note, rows[first])
    else:  # a trap: no line from past the first answers goes first unless it is the one wanted
        assert first == wanted or first < ANSWERS, (note, rows[first])


def test_the_set_holds_both_kinds_of_case():
    notes = [note for _, _, _, note in CASES]
    assert sum(n.startswith("TRUE") for n in notes) == 23 and sum(n.startswith("TRAP") for n in notes) == 26
