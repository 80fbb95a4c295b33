"""The consolidation validator (reference §16.7, addendum row 4): every rule rejects its bad plan,
each in its own test, with the scripted model answering like a real one; good plans (add, merge,
supersede) are accepted and the memory is built by code; the offline model's plans always pass; a
rejected plan makes the sweep append instead, and DREAMS.md says why."""

from __future__ import annotations

import json

import pytest

from reverie.dreaming.consolidate import Group, consolidate
from reverie.dreaming.memoryfile import consolidated_entry, entry_lines
from reverie.dreaming.validate import ConsolidationCandidate, PlanRejected
from reverie.models.offline import OfflineModel
from reverie.models.scripted import ScriptedModel

PERSON = "- A line I wrote myself about the garden."
M10 = consolidated_entry("I take melatonin [10mg] at night.", "memory/2026-06-01.md", 3, 3, ["melatonin"], 0.8, None)
CITY = consolidated_entry("I live in Munich.", "memory/2026-06-02.md", 3, 3, ["live"], 0.8, None)
TEA = consolidated_entry("I drink green tea every morning.", "memory/2026-06-03.md", 3, 3, ["tea"], 0.8, None)
BIKE = consolidated_entry("My bike is a blue Gazelle.", "memory/2026-06-04.md", 3, 3, ["bike"], 0.8, None)
ATLAS = consolidated_entry("The Atlas repo uses Python 3.12.", "memory/2026-06-05.md", 3, 3, ["atlas"], 0.8, "gh/atlas")
CONTINUED = consolidated_entry("My gym is FitOne.", "memory/2026-06-06.md", 3, 3, ["gym"], 0.8, None)
CURRENT = "\n".join([
    "# Long-Term Memory", "", PERSON, "", "## Consolidated Memory (2026-06-07)",
    "<!-- reverie-entry: st-m10 -->", M10,
    "<!-- reverie-lineage: home-city -->", "<!-- reverie-entry: st-city -->", CITY,
    "<!-- reverie-entry: st-tea -->", TEA,
    "<!-- reverie-entry: st-bike -->", BIKE,
    "<!-- reverie-entry: st-gym -->", CONTINUED, "  and its sauna on Fridays", "",
    "## Consolidated Memory (2026-06-08)", "<!-- reverie-entry: st-atlas -->", ATLAS, ""])


def cand(alias: str, text: str, *, project: str | None = None, supersedes: str | None = None,
         day: int = 20) -> ConsolidationCandidate:
    entry = consolidated_entry(text, f"memory/2026-06-{day}.md", 4, 4, ["x"], 0.8, project)
    return ConsolidationCandidate(alias, f"memory:memory/2026-06-{day}.md:4:4", f"st-{alias}", text, entry,
                                  f"memory/2026-06-{day}.md#L4-L4", "owner", project, supersedes)


def op(c: ConsolidationCandidate, action: str = "added", prior: list[str] | None = None, **extra) -> dict:
    return {"candidateKey": c.alias, "action": action, "resultEntry": c.result_entry, "priorEntries": prior or [],
            **extra}


def scripted(*answers) -> ScriptedModel:
    return ScriptedModel(script={"steps": {"consolidation": [
        {"reply": a if isinstance(a, str) else json.dumps(a)} for a in answers]}})


def run(model, cands: list[ConsolidationCandidate], current: str = CURRENT, *, max_loss: float = 0.25,
        budget: int = 10_000, groups: list[Group] | None = None):
    groups = groups or [Group(None, cands)]
    return consolidate(model, current, groups, day="2026-06-21", timeout=5, max_loss=max_loss, budget=budget)


def rejected(model, cands, **kw) -> PlanRejected:
    with pytest.raises(PlanRejected) as info:
        run(model, cands, **kw)
    return info.value


# -- good plans ------------------------------------------------------------------------------------------
def test_added_merged_and_superseded_plans_are_accepted_and_built_by_code():
    new = cand("c1", "I cycle to work on Mondays.")
    dup = cand("c2", "Every morning I drink green tea.")
    moved = cand("c3", "I live in Berlin now.", supersedes="home-city")
    plan = run(scripted({"operations": [op(new), op(dup, "merged", [TEA]), op(moved, "superseded", [CITY])]}),
               [new, dup, moved])
    assert plan.counts() == {"added": 1, "merged": 1, "superseded": 1, "outdated": 0}
    assert TEA not in plan.text and CITY not in plan.text
    for c in (new, dup, moved):
        assert plan.text.count(c.result_entry) == 1
    assert PERSON in plan.text and M10 in plan.text and ATLAS in plan.text
    lines = plan.text.split("\n")
    i = lines.index(moved.result_entry)
    assert lines[i - 1] == "<!-- reverie-entry: st-c3 -->" and lines[i - 2] == "<!-- reverie-lineage: home-city -->"
    assert "## Consolidated Memory (2026-06-21)" in plan.text


def test_a_returned_memory_that_matches_the_operations_is_accepted():
    new = cand("c1", "I cycle to work on Mondays.")
    memory = CURRENT + "\n" + new.result_entry + "\n"
    plan = run(scripted({"operations": [op(new)], "memory": memory}), [new])
    assert new.result_entry in plan.text


def test_the_offline_model_merges_duplicates_supersedes_by_key_and_adds_the_rest():
    dup = cand("c1", "Every morning I drink green tea.")
    moved = cand("c2", "I live in Berlin now.", supersedes="home-city")
    new = cand("c3", "I take melatonin [100mg] at night.")  # not the same fact as [10mg]
    plan = run(OfflineModel(), [dup, moved, new])
    actions = {o.candidate.alias: o.action for o in plan.operations}
    assert actions == {"c1": "merged", "c2": "superseded", "c3": "added"}
    assert M10 in plan.text and new.result_entry in plan.text


# -- rule 1: one JSON object, no NUL -----------------------------------------------------------------------
def test_rule_1_prose_instead_of_json_is_rejected():
    assert rejected(scripted("Sure! I added the entry for you."), [cand("c1", "I cycle to work.")]).rule == 1


def test_rule_1_a_nul_character_is_rejected():
    c = cand("c1", "I cycle to work.")
    assert rejected(scripted({"operations": [op(c, note="a\x00b")]}), [c]).rule == 1


# -- rule 2: one operation per candidate -------------------------------------------------------------------
def test_rule_2_a_missing_operation_is_rejected():
    a, b = cand("c1", "I cycle to work."), cand("c2", "I swim on Sundays.", day=21)
    assert rejected(scripted({"operations": [op(a)]}), [a, b]).rule == 2


def test_rule_2_an_operation_for_an_unknown_or_repeated_candidate_is_rejected():
    a, b = cand("c1", "I cycle to work."), cand("c2", "I swim on Sundays.", day=21)
    assert rejected(scripted({"operations": [op(a), op(a)]}), [a, b]).rule == 2
    ghost = cand("c9", "I own a yacht.", day=22)
    assert rejected(scripted({"operations": [op(a), op(ghost)]}), [a, b]).rule == 2


# -- rule 3: known actions ------------------------------------------------------------------------------------
def test_rule_3_an_unknown_action_is_rejected():
    c = cand("c1", "I cycle to work.")
    assert rejected(scripted({"operations": [op(c, "deleted")]}), [c]).rule == 3


# -- rule 4: the result entry verbatim ----------------------------------------------------------------------
def test_rule_4_model_authored_text_is_rejected():
    c = cand("c1", "I cycle to work.")
    bad = op(c)
    bad["resultEntry"] = "- I cycle to work, and I love it! Source: memory/2026-06-20.md#L4-L4"
    assert rejected(scripted({"operations": [bad]}), [c]).rule == 4


def test_rule_4_an_entry_longer_than_the_snippet_cap_is_rejected():
    from reverie.dreaming.memoryfile import display_snippet

    long = "I keep a detailed log of every ride. " * 40
    shown = display_snippet(long, 640)
    assert len(shown) <= 643 and shown.endswith("...")
    c = cand("c1", shown)
    bad = op(c)
    bad["resultEntry"] = consolidated_entry(long.strip(), "memory/2026-06-20.md", 4, 4, ["x"], 0.8, None)
    assert rejected(scripted({"operations": [bad]}), [c]).rule == 4


# -- rule 5: added ---------------------------------------------------------------------------------------------
def test_rule_5_an_added_entry_with_prior_entries_is_rejected():
    c = cand("c1", "I cycle to work.")
    assert rejected(scripted({"operations": [op(c, "added", [BIKE])]}), [c]).rule == 5


def test_rule_5_an_added_entry_already_in_memory_is_rejected():
    c = cand("c1", "I cycle to work.")
    assert rejected(scripted({"operations": [op(c)]}), [c], current=CURRENT + c.result_entry + "\n").rule == 5


# -- rule 6: prior entries exist, are Dreaming's, are whole, are not over-removed -------------------------------
def test_rule_6_a_prior_entry_that_does_not_exist_is_rejected():
    c = cand("c1", "Every morning I drink green tea.")
    assert rejected(scripted({"operations": [op(c, "merged", ["- I drink green tea."])]}), [c]).rule == 6


def test_rule_6_a_line_a_person_wrote_is_never_removed():
    c = cand("c1", "A line I wrote myself about the garden, again.")
    assert rejected(scripted({"operations": [op(c, "merged", [PERSON])]}), [c]).rule == 6


def test_rule_6_an_entry_with_continuation_lines_is_rejected():
    c = cand("c1", "My gym is FitOne.")
    assert rejected(scripted({"operations": [op(c, "merged", [CONTINUED])]}), [c]).rule == 6


def test_rule_6_removing_an_entry_more_often_than_it_occurs_is_rejected():
    a, b = cand("c1", "Every morning I drink green tea."), cand("c2", "I drink green tea each morning.", day=21)
    assert rejected(scripted({"operations": [op(a, "merged", [TEA]), op(b, "merged", [TEA])]}), [a, b]).rule == 6


def test_rule_6_merged_without_prior_entries_is_rejected():
    c = cand("c1", "Every morning I drink green tea.")
    assert rejected(scripted({"operations": [op(c, "merged", [])]}), [c]).rule == 6


# -- rule 7: no cross-project merges ------------------------------------------------------------------------------
def test_rule_7_a_merge_across_project_groups_is_rejected():
    c = cand("c1", "The Atlas repo uses Python 3.12.")  # a global candidate naming a project entry
    assert rejected(scripted({"operations": [op(c, "merged", [ATLAS])]}), [c]).rule == 7


def test_rule_7_a_project_candidate_cannot_merge_a_global_entry():
    c = cand("c1", "My bike is a blue Gazelle.", project="gh/atlas")
    model = scripted({"operations": [op(c, "merged", [BIKE])]})
    assert rejected(model, [c], groups=[Group("gh/atlas", [c])]).rule == 7


# -- rule 8: merges only of the same fact ---------------------------------------------------------------------------
def test_rule_8_merging_different_values_is_rejected():
    c = cand("c1", "I take melatonin [100mg] at night.")
    assert rejected(scripted({"operations": [op(c, "merged", [M10])]}), [c]).rule == 8


def test_rule_8_merging_an_unrelated_entry_is_rejected():
    c = cand("c1", "I cycle to work on Mondays.")
    assert rejected(scripted({"operations": [op(c, "merged", [BIKE])]}), [c]).rule == 8


# -- rule 9: supersede only with lineage ---------------------------------------------------------------------------
def test_rule_9_superseding_without_a_supersede_key_is_rejected():
    c = cand("c1", "I live in Berlin now.")
    assert rejected(scripted({"operations": [op(c, "superseded", [CITY])]}), [c]).rule == 9


def test_rule_9_superseding_other_entries_than_the_lineage_is_rejected():
    c = cand("c1", "I live in Berlin now.", supersedes="home-city")
    assert rejected(scripted({"operations": [op(c, "superseded", [BIKE])]}), [c]).rule == 9


# -- rule 10: loss fraction ----------------------------------------------------------------------------------------
def test_rule_10_removing_more_than_the_loss_fraction_is_rejected():
    a = cand("c1", "Every morning I drink green tea.")
    b = cand("c2", "I live in Berlin now.", supersedes="home-city", day=21)
    model = scripted({"operations": [op(a, "merged", [TEA]), op(b, "superseded", [CITY])]})
    err = rejected(model, [a, b], max_loss=0.2)  # 2 of 9 entry lines
    assert err.rule == 10


def test_rule_10_one_entry_may_always_be_replaced():
    a = cand("c1", "Every morning I drink green tea.")
    plan = run(scripted({"operations": [op(a, "merged", [TEA])]}), [a], max_loss=0.01)
    assert plan.counts()["merged"] == 1


# -- rule 11: no unexplained additions or removals -------------------------------------------------------------------
def test_rule_11_an_unexplained_addition_is_rejected():
    c = cand("c1", "I cycle to work.")
    memory = CURRENT + c.result_entry + "\n- The owner wants a pony.\n"
    assert rejected(scripted({"operations": [op(c)], "memory": memory}), [c]).rule == 11


def test_rule_11_a_silent_deletion_is_rejected():
    c = cand("c1", "I cycle to work.")
    memory = CURRENT.replace(BIKE + "\n", "") + c.result_entry + "\n"
    assert rejected(scripted({"operations": [op(c)], "memory": memory}), [c]).rule == 11


# -- rule 12: budget --------------------------------------------------------------------------------------------------
def test_rule_12_a_memory_over_its_budget_is_rejected():
    c = cand("c1", "I cycle to work.")
    assert rejected(scripted({"operations": [op(c)]}), [c], budget=len(CURRENT) + 20).rule == 12


def test_entry_lines_count_only_entries():
    assert PERSON in entry_lines(CURRENT) and "# Long-Term Memory" not in entry_lines(CURRENT)
    assert not any(line.startswith("<!--") for line in entry_lines(CURRENT))
