"""An everyday thing named in the other language, by keyword (search/keyword.py ``expand_across``,
text/bilingual.py): a Chinese question finds an English note and the reverse without vectors; a note in
the question's own language that says as much still leads; a verb of the lexicon is the thing only after
a word saying which. On a real SQLite index."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie.search.keyword import ACROSS_CREDIT, QueryTerms, _query_tokens_of, expand_across
from workspace_helpers import local_memory

NOW = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
NOTES = {
    "memory/2026-10-02.md": "- Yoga is on Monday evenings at the Pure studio, bring my own mat.\n",
    "memory/2026-10-04.md": "- 女儿的钢琴课在周六上午，老师姓王。\n",
    "memory/2026-10-06.md": "- Lunch with Sam was fun, we talked about his new puppy.\n",
    "memory/2026-10-08.md": "- 今天天气不错，去公园走了走。\n",
    "memory/2026-10-10.md": "- 我的瑜伽垫太薄了，想换一块厚一点的。\n",
    "memory/2026-10-12.md": "- The hotel in Porto was lovely, right by the river.\n",
}


@pytest.fixture(scope="module")
def kw(tmp_path_factory):
    m = local_memory(tmp_path_factory.mktemp("across-kw"), NOTES, 'memory.search.provider="none"')
    yield m
    m.close()


def _paths(mem, query: str) -> list[str]:
    out = mem.search(query, 6, 0.0, now=NOW, record_signals=False)
    assert out["mode"] != "hybrid"
    return [r["path"] for r in out["results"]]


def test_a_chinese_question_finds_the_english_note(kw):
    # (the Chinese yoga-mat line holds 瑜伽 itself and leads; the English class note comes next)
    assert _paths(kw, "我的瑜伽课是星期几？")[:2] == ["memory/2026-10-10.md", "memory/2026-10-02.md"]


def test_an_english_question_finds_the_chinese_note(kw):
    assert _paths(kw, "piano lessons on saturday?")[0] == "memory/2026-10-04.md"


def test_a_note_in_the_questions_language_saying_more_of_it_leads(kw):
    # both name yoga; the English note holds the question's other words too
    paths = _paths(kw, "which evening is yoga?")
    assert paths[0] == "memory/2026-10-02.md" and "memory/2026-10-10.md" in paths


def _terms(question: str) -> QueryTerms:
    tokens = _query_tokens_of(question, "cjk")
    return QueryTerms(tokens, [1.0] * len(tokens), None)


def test_a_question_naming_no_such_thing_asks_nothing_across():
    qt = _terms("the river in Porto")
    assert expand_across(qt, "the river in Porto", "cjk") == [] and not qt.across


def test_a_thing_named_in_the_other_language_is_held_at_part_credit():
    qt = _terms("我的牙医是谁？")
    assert expand_across(qt, "我的牙医是谁？", "cjk")
    held = qt.mask("My dentist is Dr Patel on Elm Street", "cjk")
    assert held[qt.tokens.index("牙医")] == ACROSS_CREDIT and 0 < ACROSS_CREDIT < 1
    assert qt.mask("我的牙医是李医生", "cjk")[qt.tokens.index("牙医")] is True


@pytest.mark.parametrize("question, word, thing, verb", [
    ("我的房租多少钱？", "房租", "Our rent went up to 1450 this month", "I'll rent a car for the trip to Porto"),
    ("我的手机是什么牌子？", "手机", "The phones at the office are always dead", "I'll phone the plumber, he phones back late"),
])
def test_a_verb_of_the_lexicon_is_the_thing_only_after_a_word_saying_which(question, word, thing, verb):
    qt = _terms(question)
    members = expand_across(qt, question, "cjk")
    at = qt.tokens.index(word)
    assert qt.mask(thing, "cjk")[at] and not qt.mask(verb, "cjk")[at]
    # (and the index is asked for the thing after such a word, not for the verb alone)
    assert members and all(m.fts.startswith('"my ') for m in members)


def test_a_verb_alone_brings_no_note(keyword_memory):
    m = keyword_memory({"memory/2026-10-02.md": "- 上周去招商开了个户。\n",
                        "memory/2026-10-04.md": "- Can't bank on the weather this weekend.\n",
                        "memory/2026-10-06.md": "- My bank is Chase, the branch on Elm Street.\n"})
    paths = [r["path"] for r in m.search("我在哪个银行开户？", 6, 0.0, now=NOW, record_signals=False)["results"]]
    assert "memory/2026-10-06.md" in paths and "memory/2026-10-04.md" not in paths


def test_explain_says_which_word_held_the_question_s(kw):
    out = kw.search("我的瑜伽课是星期几？", 6, 0.0, now=NOW, record_signals=False, explain=True)
    row = next(r for r in out["results"] if r["path"] == "memory/2026-10-02.md")
    assert row["explain"]["keyword"]["members"] == {"瑜伽": "yoga"}
    assert row["explain"]["keyword"]["allTerms"] is False  # (it holds one word of the question, and across)


def test_a_lexical_fill_never_leads_a_match_it_updates(keyword_memory):
    # the Chinese line is later and says a change of the yoga class, but holds the question's words only
    # across languages: under minScore it is the lexical fill, after the match, which it still marks
    m = keyword_memory({"memory/2026-10-02.md": "- My yoga class is on Monday evenings.\n",
                        "memory/2026-10-20.md": "- 瑜伽课改到周三晚上了。\n"})
    runs = {n: m.search("yoga class monday", n, 0.9, now=NOW, record_signals=False) for n in (1, 20)}
    assert [r["path"] for r in runs[1]["results"]] == ["memory/2026-10-02.md"]
    assert [r["path"] for r in runs[20]["results"]] == ["memory/2026-10-02.md", "memory/2026-10-20.md"]
    assert runs[20]["debug"]["selection"] == "strict+lexical"
    assert runs[20]["results"][0].get("supersededBy") == runs[20]["results"][1]["citation"]
