"""Preferences (search/taste.py): a question asking for advice lifts the entries where the owner
stated a taste, with the real bundled embedder (the taste rarely shares the question's words)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.search import taste

from workspace_helpers import filler_days, hybrid_results, local_memory_fixture, write

pytestmark = pytest.mark.semantic

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
NOTES = {
    "memory/2026-05-04.md": "- I'm vegetarian and I really love spicy Sichuan food.\n",
    "memory/2026-05-09.md": "- Dinner was leftovers tonight.\n",
    "memory/2026-05-14.md": "- My mum called about the family dinner next month.\n",
    "memory/2026-05-20.md": "- The team lunch was at the noodle place near the office.\n",
    "memory/2026-05-22.md": "- My brother's birthday party was loud and fun.\n",
    "memory/2026-05-25.md": "- I cooked stuffed peppers for dinner, first time trying the recipe.\n",
    "memory/2026-04-03.md": "- 我一直喜欢动手做东西，比如木工和陶艺。\n",
    "memory/2026-04-10.md": "- 冬天的暖气费比去年贵多了。\n",
    "memory/2026-04-18.md": "- 新买的羽绒服很暖和。\n",
    "memory/2026-04-26.md": "- 同事最近迷上了滑雪。\n",
}


mem = local_memory_fixture("taste-home", NOTES)


def ranked(mem: Memory, query: str, **kw) -> list[dict]:
    return hybrid_results(mem, query, NOW, **kw)


@pytest.mark.parametrize("query, answer", [
    ("Any ideas for a restaurant for my birthday dinner?", "memory/2026-05-04.md"),
    ("能推荐一个冬天的新爱好吗？", "memory/2026-04-03.md"),
])
def test_a_request_for_advice_finds_the_stated_taste(mem, monkeypatch, query, answer):
    assert ranked(mem, query)[0]["path"] == answer
    monkeypatch.setattr(taste, "TASTE_BOOST", 1.0)  # without the lift, a note sharing a word leads
    assert ranked(mem, query)[0]["path"] != answer


def test_explain_names_the_taste_lift_and_plain_questions_have_none(mem):
    rows = ranked(mem, "Any ideas for a restaurant for my birthday dinner?", explain=True)
    liked = next(r for r in rows if r["path"] == "memory/2026-05-04.md")["explain"]["taste"]
    assert liked["stated"] and liked["multiplier"] > 1.0
    other = next(r for r in rows if r["path"] == "memory/2026-05-09.md")["explain"]["taste"]
    assert other == {"stated": False, "multiplier": 1.0}
    assert "taste" not in ranked(mem, "what did I have for dinner", explain=True)[0]["explain"]


def test_what_asks_for_advice_and_what_states_a_taste():
    assert taste.asks_for_advice("Can you recommend a podcast for my commute?")
    assert taste.asks_for_advice("能推荐一个冬天的新爱好吗？")
    assert not taste.asks_for_advice("Where do I work now?")
    assert not taste.asks_for_advice("我现在开的是什么车？")
    # "should I" / "我该" ask for a choice with a what, which or where; asked how, no taste answers them
    for choice in ("What kind of holiday should I book this summer?", "What do you think I should cook tonight?",
                   "Where should I go on holiday?", "Which one should we pick?", "今年夏天我该订什么样的假期？",
                   "周末我该去哪儿玩？"):
        assert taste.asks_for_advice(choice), choice
    for how in ("How should I reply to my manager?", "Should I book the hotel again?", "到时候敬酒我该怎么应付？",
                "我该怎么回复领导？"):
        assert not taste.asks_for_advice(how), how
    assert taste.states_taste("I hate crowded beaches, I prefer quiet villages.")
    assert taste.states_taste("我一直喜欢动手做东西")
    assert not taste.states_taste("The printer at work jammed again.")


FILLER = ["The printer at work jammed again this morning.", "My manager wants the quarterly slides by Friday.",
          "The heating makes a strange clicking noise.", "The bus was late twice this week.",
          "I made a big pot of soup for the week.", "My brother is busy with his new baby.",
          "I cancelled a streaming subscription I never use.", "The weather is finally warmer.",
          "My laptop battery drains really fast.", "I backed up my photos to an external drive.",
          "Traffic was terrible on the way home.", "The supermarket was out of oat milk again.",
          "We argued about the new ticket system.", "I finally cleaned the windows in the living room.",
          "The tests pass locally but fail in CI.", "Rent is due next week."]


def test_the_taste_leg_brings_a_taste_that_shares_no_word_into_reach(reverie_home, store_backend, monkeypatch, tmp_path):
    # on both engines: each asks its own index for the taste words
    m = Memory(home=tmp_path / "h", overrides=['memory.search.provider="local"'])  # (env= would hide the engine)
    m.init()
    filler_days(m, FILLER)
    (m.workspace / "memory/2026-02-10.md").write_text(
        "- I've always enjoyed working with my hands, like woodwork and pottery.\n", encoding="utf-8")
    m.sync()
    try:
        query = "Can you suggest a new hobby for the winter?"
        assert m.search(query, 3, 0.0, now=NOW, record_signals=False)["debug"]["backend"] == store_backend
        assert [r["path"] for r in ranked(m, query)[:3]].count("memory/2026-02-10.md") == 1
        monkeypatch.setattr(taste, "LEG_LIMIT", 0)  # without the leg it is not even a candidate
        assert "memory/2026-02-10.md" not in [r["path"] for r in ranked(m, query)]
    finally:
        m.close()


def _lifts(lines: list[str]) -> list[tuple[str, float]]:
    """(line, the taste multiplier it got) for a request for Roman-history podcasts, keyword-only,
    over a memory of one line a day."""
    mem = Memory(overrides=['memory.search.provider="none"'])
    mem.init()
    for day, line in enumerate(lines, 1):
        write(mem, f"memory/2026-05-0{day}.md", f"- {line}\n")
    mem.sync()
    res = mem.search("Can you recommend podcasts about Roman history and emperors?", 6, 0.0, record_signals=False,
                     explain=True, now=NOW)
    mem.close()
    return [(r["snippet"][2:], r["explain"]["taste"]["multiplier"]) for r in res["results"]]


def test_an_advice_question_lifts_only_the_tastes_that_best_match_it(reverie_home):
    """Three stated tastes hold every word of the question, a fourth fewer: only two are lifted
    (lifting every "I love…" put tastes about other things above the fact that answered)."""
    tastes = ["I love podcasts about Roman history and emperors.", "I love long podcasts about Roman history and emperors.",
              "I love podcasts on Roman history and emperors, daily.", "I love podcasts."]
    lifted = dict(_lifts(tastes + ["The podcast app crashed on Roman history again."]))
    assert len(lifted) == 5
    assert sorted(lifted[t] for t in tastes[:3]) == [1.0, taste.TASTE_BOOST, taste.TASTE_BOOST]  # two of three
    assert lifted["I love podcasts."] == 1.0 and lifted["The podcast app crashed on Roman history again."] == 1.0


def test_the_same_taste_in_two_notes_is_lifted_once(reverie_home):
    lifted = _lifts(["I love podcasts about Roman history and emperors.",
                     "I love podcasts about Roman history and emperors.",
                     "I love long podcasts about Roman history and emperors."])
    assert sorted(m for _, m in lifted) == [1.0, taste.TASTE_BOOST, taste.TASTE_BOOST]
    assert ("I love long podcasts about Roman history and emperors.", taste.TASTE_BOOST) in lifted


@pytest.mark.parametrize("past", [
    "Which budgeting method did you recommend?", "What stretching routine did you suggest for my back?",
    "What was the book you recommended last week?", "Have you ever suggested a podcast to me?",
    "你推荐过我哪种记账方法？", "你之前建议我做什么伸展动作缓解腰痛？", "上次你推荐的那本书叫什么？"])
def test_a_question_about_advice_given_before_asks_what_was_said_not_for_advice(past):
    assert not taste.asks_for_advice(past)


def test_advice_given_before_is_found_over_the_owners_tastes(mem):
    extra = mem.workspace / "memory/2026-05-28.md"
    extra.write_text("- user: I never know where my money goes.\n"
                     "- assistant: Try the envelope budgeting method: cash for each spending category.\n",
                     encoding="utf-8")
    try:
        mem.sync()
        got = ranked(mem, "Which budgeting method did you recommend?", explain=True)
        assert got[0]["path"] == "memory/2026-05-28.md"
        assert not any((r["explain"] or {}).get("taste") for r in got)  # no taste lifted for it
    finally:
        extra.unlink()
        mem.sync()
