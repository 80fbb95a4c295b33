"""Needs (search/needs.py, text/concerns.py): a request for counsel in a situation ("点菜的时候我需要
特别交代厨房什么吗？" after "想去吃泰国菜", "Should I sign up for the company hike?") lifts the owner's
stated concerns for that kind of situation ("对花生严重过敏", "knee surgery"), with the real bundled
embedder: the concern shares no word with the question, and notes that share one lead without it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from reverie import Memory
from reverie.search import needs
from reverie.text.concerns import concern_words, concerns_of, situations_of

from workspace_helpers import hybrid_results, local_memory_fixture, write

pytestmark = pytest.mark.semantic

NOW = datetime(2026, 6, 3, 12, 0, tzinfo=timezone.utc)
ALLERGY, THAI = "memory/2026-05-02.md", "memory/2026-05-05.md"
KNEE, HIKE_PHOTOS = "memory/2026-04-02.md", "memory/2026-04-06.md"
NOTES = {
    ALLERGY: "- 用户对花生严重过敏，吃了会起疹子。\n",
    THAI: "- 用户上周去了一家新开的泰国菜馆，冬阴功汤很地道，厨房是开放式的。\n",
    "memory/2026-05-08.md": "- 用户的女朋友在银行上班，周末才有空。\n",
    "memory/2026-05-11.md": "- 用户家厨房的水龙头漏水，周末要找人来修。\n",
    "memory/2026-05-14.md": "- 用户喜欢听周杰伦的老歌。\n",
    KNEE: "- I had knee surgery in March; the doctor said no running or stairs for a year.\n",
    HIKE_PHOTOS: "- The company hike last autumn went up the coast trail; the photos are on the shared drive.\n",
    "memory/2026-04-09.md": "- Signed up for the company newsletter about the new office.\n",
    "memory/2026-04-12.md": "- My sister is training for a marathon in October.\n",
    "memory/2026-04-15.md": "- Booked a dentist appointment for Friday afternoon.\n",
}
THAI_DIALOGUE = "用户：周末想带女朋友去吃泰国菜。\n助手：好呀，泰国菜酸辣开胃。\n用户：点菜的时候我需要特别交代厨房什么吗？"
HIKE = "Should I sign up for the company hike next month?"


mem = local_memory_fixture("needs-home", NOTES)


def ranked(mem: Memory, query: str, **kw) -> list[dict]:
    return hybrid_results(mem, query, NOW, **kw)


def places(mem: Memory, query: str, path: str) -> int:
    found = [r["path"] for r in ranked(mem, query)]
    return found.index(path) if path in found else len(found)


@pytest.mark.parametrize("query, answer, within, without", [(THAI_DIALOGUE, ALLERGY, 1, 3), (HIKE, KNEE, 3, 5)])
def test_a_request_for_counsel_finds_the_concern_of_its_situation(mem, monkeypatch, query, answer, within, without):
    assert places(mem, query, answer) < within
    monkeypatch.setattr(needs, "NEED_BOOST", 1.0)  # without the lift, the notes sharing the words lead
    assert places(mem, query, answer) >= without


def test_explain_names_the_lift_and_a_question_of_fact_has_none(mem):
    rows = ranked(mem, THAI_DIALOGUE, explain=True)
    lifted = next(r for r in rows if r["path"] == ALLERGY)["explain"]["need"]
    assert "meal" in lifted["situations"] and "meal" in lifted["states"] and lifted["multiplier"] > 1.0
    other = next(r for r in rows if r["path"] == THAI)["explain"]["need"]
    assert other["multiplier"] == 1.0 and other["states"] == []
    # what was said about the restaurant is asked, not what to do there: nothing is lifted
    fact = ranked(mem, "我上周去的那家泰国菜馆叫什么名字？", explain=True)
    assert fact[0]["path"] == THAI and "need" not in fact[0]["explain"]


def test_keyword_only_lifts_nothing(tmp_path):
    m = Memory(home=tmp_path, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"'])
    m.init()
    for rel, text in NOTES.items():
        write(m, rel, text)
    m.sync()
    try:
        rows = m.search(HIKE, 10, 0.0, now=NOW, record_signals=False, explain=True)["results"]
        assert rows and all("need" not in r["explain"] for r in rows)
    finally:
        m.close()


@pytest.mark.parametrize("question", [
    "Should I sign up for the company hike?", "Is it a good idea to take the night train?",
    "What do I need to bring to the dinner?", "Any tips for the flight?", "Which one should I pick?",
    "点菜的时候我需要特别交代厨房什么吗？", "我要不要答应他？", "你觉得这套两居室值得租吗？", "下水前我需要注意点什么？",
    "布艺的和皮的，你觉得选哪种好？", "他们选了个恐怖主题的，你觉得我去不去？", "寒假坐高铁还是飞机好？",
    "帮我列一个采购清单吧。", "来杯冰美式提提神怎么样？", "Which restaurant would be best for our anniversary?",
    "Can you help me draft a message declining the invitation?", "带女朋友去吃泰国菜，点什么好？", "跳槽前我需要考虑哪些问题？",
    "我朋友下周来，你有什么建议？", "Can you recommend a hotel?", "上次去那家店吃坏了肚子，这次还要不要去？",
    "I did the hike last year and my knee hurt; should I do it again?", "名额这周就要报，你说我去还是不去？",
    "What would you recommend for my knee?", "Do you have any advice for the trip?", "Would it be a good idea to go skiing this weekend?",
    # ... and beside a habit, a plain request for counsel stays one
    "我平时去哪家店剪头发比较好？", "我平时周末都去爬山，这周末下雨要不要改室内？", "孩子发烧了去哪家医院？",
])
def test_what_asks_for_counsel(question):
    assert needs.asks_counsel(question), question


@pytest.mark.parametrize("question", [
    "When does my passport expire?", "What did I order at the sushi place?", "Where do I work now?",
    "我上次点的什么菜？", "我们家的宽带是哪家的？", "我叫什么名字？", "差不多就行。", "他去不去的我不管。",
    # a time, a habit, what the notes hold as best
    "When can I pick up more allergy medicine?", "我每天早上吃什么维生素？", "城里哪家饺子最好吃？",
    # advice someone gave, or the assistant gave before: a fact in the notes
    "What did the vet recommend?", "Which restaurant did my boss recommend?", "医生对我的维生素水平有什么建议？",
    "你推荐过我哪种记账方法？", "What should I have brought to the meeting, according to Tom?",
    "What advice does Caroline give for getting started with adoption?", "What dish does Dave recommend in Tokyo?",
    "How does Jolene plan to involve local engineers in her idea of teaching STEM?",
    # what was, in a form of counsel
    "我上次体检结果怎么样？", "上周末爬山天气怎么样？", "我是不是已经交过房租了？", "Which one of the gyms did I join?",
    "我们上次团建去哪家吃的？", "我们要交多少物业费？",
    # where one goes as a habit, or now: 去哪家 asks where to go too, but not beside 平时 / 每周 / 现在去
    "我现在去哪家店剪头发？", "我现在每周去哪家超市买菜？", "我平时去哪家医院看牙？", "周末一般都去哪家健身房？",
])
def test_what_asks_a_question_of_fact(question):
    assert not needs.asks_counsel(question), question


def test_situations_come_from_the_dialogue_before_a_request_for_counsel():
    assert "meal" in needs.situations("点菜的时候我需要特别交代厨房什么吗？", "周末想带女朋友去吃泰国菜。")
    assert needs.situations("我上次点的什么菜？", "周末想带女朋友去吃泰国菜。") == frozenset()


def test_the_lexicon_names_situations_and_concerns_in_both_languages():
    assert "meal" in situations_of("What should I watch out for when ordering at the sushi place?")
    assert "meal" in concerns_of("The user is allergic to shrimp.") and "meal" in concerns_of("用户对花生过敏。")
    for plain in ("the weather is nice today", "今天天气不错", "用户喜欢周杰伦的歌。", "I like jazz."):
        assert not situations_of(plain) and not concerns_of(plain), plain
    # Latin letters among the Chinese words stand alone: GRE is no "great", SPA no "space"
    assert "study" in situations_of("准备GRE考试") and not situations_of("Should I use Postgres or SQLite?")
    assert not situations_of("Should I take the space heater?") and "outing" in situations_of("周末去KTV唱歌")
    # a program's words are no situation of life: the client, training a model, installing a package
    for code in ("Should I install the package globally?", "How should I handle the client timeout?",
                 "Should I train the model longer?", "Which monitor setup is best for the dashboard?"):
        assert not situations_of(code), code
    assert "drinks" in situations_of("I have a dinner with clients on Friday, any tips?")
    assert "transport" in situations_of("Should I take the night train to Vienna?")
    words = concern_words({"meal"}).split()  # plain words, one query token each
    assert "过敏" in words and "allergic" in words and all(not set(w) & set("()|?*[]\\") for w in words)
