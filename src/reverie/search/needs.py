"""Needs: a question asking how to go about a situation ("点菜的时候我需要特别交代厨房什么吗？",
"Should I sign up for the company hike?", "我妈下周来住，要准备什么？") lifts the owner's stated concerns
for that kind of situation ("用户对花生严重过敏", "I had knee surgery last spring, no running").

Such a question and the fact that answers it share no word and, for a small embedder, little
meaning: a meal is about dishes, an allergy about the body. What links them is a step an assistant
takes without thinking (eating out: what can't they eat?). text/concerns.py holds that step as a
hand-written lexicon, the situations people ask help with (a meal, a trip abroad, a hike, a purchase,
a meeting request) and the words of the personal facts that matter for each (allergic, 过敏, 不喝酒,
knee, 护照, 预算, every Thursday…). For a question naming a situation:

* the keyword index is asked for the concern words of the situations named, and the statements
  found join the candidates (the vector leg judges them like any other);
* of the candidates stating a concern for a situation named, the :data:`NEEDS_LIFTED` most relevant
  to the question are lifted by :data:`NEED_BOOST` (one per wording), gated by relevance on a band
  wider than a taste's (in full from 60 % of the best result's relevance, nothing below 40 %): the
  embedder sees little of the link the lexicon makes, so a concern that matters scores well below
  the notes sharing the question's words ("I had knee surgery" at 64 % of "the company hike last
  autumn" for "Should I sign up for the company hike?"); one far below them stays where it was.

The question must ask for counsel (:func:`asks_counsel`: "should I", "what do I need to", "要不要",
"需要注意什么", "适合我吗"…): a question of fact ("When is my passport's expiry?", "我上次点的什么菜？")
asks for what was said, and concerns lifted there would bury it; so does a question about what was
(:data:`_PAST`) or about advice someone gave. With vectors and keywords both: keyword-only, nothing
judges which of the concerns found is relevant, and a lexicon's step is too coarse to trust alone.
"""

from __future__ import annotations

import re

from ..text.cjk import LazyPattern
from .rescore import band
from .results import wording
from .taste import past_advice

NEED_BOOST = 1.5
NEEDS_LIFTED = 3
GATE_NONE = 0.40  # below this share of the best relevance, no lift
GATE_FULL = 0.60  # from this share on, all of it (a taste's band is 0.65-0.80: search/taste.py)
LEG_LIMIT = 64  # concern statements made candidates (their vectors then judge them), shared by the situations
LEG_SHARE_MIN = 16  # ... but at least this many for each

# a question asking what to do, whether to, or what to mind: the owner is about to act and the
# assistant should weigh what it knows of them. "Can I" asks so only at the head of a sentence ("Can I
# bring the dog?"); "When can I pick up the medicine?" asks a time
_COUNSEL = LazyPattern(
    r"\b(?:should|shall)\s+(?:i|we)\b"
    r"|(?:^|[.?!;]\s+)(?:(?:so|and|but|then|ok|okay),?\s+)?(?:can|could|may)\s+(?:i|we)\b"
    r"|\b(?:i|we)\s+(?:should|ought\s+to)\b"
    r"|\bis\s+it\s+(?:ok|okay|fine|safe|wise|smart|a\s+good\s+idea|worth)\b"
    r"|\b(?:would|will)\s+it\s+be\s+(?:ok|okay|fine|safe|wise|a\s+good\s+idea)\b"
    r"|\b(?:do|would)\s+(?:i|we)\s+need\b|\bwhat\s+(?:do|would|will)\s+(?:i|we)\s+need\b"
    r"|\bwhat\s+(?:to|should\s+i|do\s+i)\s+(?:bring|pack|prepare|watch|mind|avoid|know|tell|mention|ask)\b"
    r"|\b(?:watch\s+out|be\s+careful|keep\s+in\s+mind|look\s+out)\b|\bany(?:thing)?\s+(?:tips?|advice)\b"
    r"|\b(?:good|right|suitable|ok|okay|safe)\s+(?:idea\s+)?for\s+me\b"
    r"|\bhow\s+(?:should|do|can)\s+(?:i|we)\s+(?:handle|deal|plan|prepare|get|go|reply|answer|respond|say)\b"
    r"|\bwhat\s+do\s+you\s+(?:think|reckon)\b|\b(?:any|some|got|give\s+me)\s+ideas?\b|\bideas?\s+(?:for|on)\b"
    r"|\bwhich\s+(?:one|should|would|is\s+better)\b"
    r"|\bhelp\s+me\s+(?:plan|pick|choose|decide|write|draft|list|figure|prepare|find)\b"
    r"|\bbest\s+(?:way|place|option|choice|time)\b|\bwould\s+be\s+(?:best|better)\b"
    r"|\ba\s+good\s+(?:choice|option|fit)\b"
    r"|要不要|该不该|能不能|可不可以|可以吗|行不行|行吗|好不好|合适吗|合不合适|适合|值得|靠谱吗|"
    r"需要注意|要注意|注意(?:什么|点|些|哪)|要准备|需要准备|准备(?:什么|些|哪)|带(?:什么|些|哪)|"
    r"交代|提醒|(?:我|咱们|我们)(?:该|应该|得)|怎么(?:办|应付|安排|回复|回答|说|过去|去|弄|处理|沟通|选)|"
    r"会(?:不会)?有(?:什么)?(?:问题|影响|风险)|需要担心|担心吗|"
    # choosing and asking an opinion: "选哪种好", "定哪天比较好", "去不去", "你觉得…", "帮我想想/列一下"
    # (not "哪家饺子最好吃", "我每天早上吃什么维生素": what the notes say is best, what one does)
    r"哪(?:种|个|款|套|家|天|条|些|一)[^。？！?!\n]{0,10}(?:好|合适|划算|靠谱)(?![吃看听玩喝用])|比较好|好一些|更好|"
    r"(?!是)([\u4e00-\u9fff])不\1(?![\u4e00-\u9fff]{0,2}的)|你(?:觉得|说(?!过)|帮我)|什么好(?![吃看听玩喝用的])|"
    r"考虑(?:哪些|什么)|留意|帮(?:我|忙)(?:想|列|看|选|挑|安排|规划|出|写|拟|准备|参谋)|"
    r"(?:说|问|带|办|注意)(?:些)?(?:什么|哪些)|有(?:什么|哪些)(?:要|需要|该)?(?:注意|讲究|办法)|"
    r"还(?:去|要|能)[^。？！?!\n]{0,6}吗|"
    r"还是[^。？！?!\n]{0,10}(?:好|呢)|怎么样|(?:规划|计划|安排)(?:什么|些|哪|一下)|需要[^。？！?!\n]{0,10}吗|"
    r"(?:我|咱们|我们)(?:要|能|可以)[^。？！?!\n]{0,12}吗|我能[^。？！?!\n]{0,6}多少|"
    # a recommendation asked of the assistant: "你有什么建议", "推荐一下", "can you suggest"
    r"你[^。？！?!\n]{0,4}(?:建议|推荐)|(?:推荐|建议)(?:一下|个|些|点|吗|呢)|"
    # "…可以吧？", "拿铁和美式，我点哪个？", "该怎么跟他说", "帮我排个行程", "有什么点子"
    r"(?:可以|行)吧|(?:选|挑|点|买|订|去|要|报)哪(?:个|一个|家|种)|该怎么|帮我排|点子"
    r"|\b(?:can|could|would|will|do)\s+you\s+(?:\w+\s+)?(?:recommend|suggest)", re.M)
# a request for a recommendation counts only when asked of the assistant, now: "医生对我的维生素水平有
# 什么建议？" and "What did the vet recommend?" ask what someone advised (a fact in the notes), as do
# the questions about advice given before that search/taste.py knows
_OPINION = LazyPattern(r"\b(?:recommend\w*|suggest\w*|advice|advise)\b|推荐|建议|有什么好", 0)
_THEIR_ADVICE = LazyPattern(
    r"\b(?:doctor|dentist|gp|vet|nurse|teacher|coach|trainer|lawyer|accountant|advisor|adviser|he|she|they)"
    r"(?:'s)?\s+(?:\w+\s+){0,2}(?:recommend|suggest|advise|propos)\w*"
    # anyone named: "What advice does Caroline give…", "What dish does Dave recommend…", "has Evan given"
    r"|\b(?:does|did|do|has|have|had|would|will)\s+(?!you\b|i\b|we\b)[a-z]+(?:\s+[a-z]+)?\s+"
    r"(?:give|given|recommend|suggest|advise|propose|offer)\w*"
    r"|(?:医生|大夫|医师|护士|兽医|老师|教练|律师|会计|顾问|专家|领导|老板|同事|朋友|他们|她们|他|她)[^。？！?!\n]{0,16}(?:推荐|建议)", 0)


# a question about what was, said or done: "我上次体检结果怎么样？", "上周末爬山天气怎么样？", "Which
# restaurant did my boss recommend?", "What should I have brought, according to Tom?", "妈妈说过…来着"
# ask for a fact in the notes, whatever form of counsel they borrow; only a plain request for counsel
# (:data:`_STRONG`) stays one beside them ("上次去那家店吃坏了肚子，这次还要不要去？")
_PAST = LazyPattern(
    r"\b(?:what|which|where|who|when|how)\s+(?:\S+\s+){0,5}?(?:did|was|were|had)\b"
    r"|\b(?:did|has|have|had)\s+(?:\S+\s+){0,3}?(?:say|said|tell|told|recommend|suggest|advise|decide|mention)\w*"
    r"|\bshould\s+(?:i|we)\s+have\b|\baccording\s+to\b|\bended\s+up\b|(?<!you\s)\b(?:recommended|suggested|advised)\b"
    r"|上次|上回|那次|当时|上周|上个月|去年|昨天|前天|之前|以前|来着|记得|说过|提醒过|建议过|是不是已经|结果|"
    r"(?:去|吃|买|住|点|订)的(?:是|哪)", 0)
_STRONG = LazyPattern(
    r"\b(?:should|shall)\s+(?:i|we)\b(?!\s+have)|\bis\s+it\s+(?:ok|okay|safe|wise|a\s+good\s+idea)\b|\bany\s+tips\b"
    r"|要不要|该不该|需要注意|要注意|适合我|(?:我|我们)(?:该|应该)|可以吧|还(?:去|要|能)[^。？！?!\n]{0,6}吗", 0)

# a question about what one does as a habit or now ("我现在每周去哪家超市买菜？", "我平时去哪家店剪头发？")
# asks for a fact in the notes, though 去哪家 also asks where to go; only a plain request for counsel
# (:data:`_STRONG`, "…比较好", "…合适") stays one beside it
_HABIT = LazyPattern(r"平时|一般|通常|经常|每(?:周|天|次|个?月|星期|礼拜)|都(?:去|在|用|找)"
                     r"|(?:现在|目前)[^，。！？,\s]{0,4}(?:去|在|用|找)哪", 0)
_GOOD = LazyPattern(r"好|合适|划算|靠谱", 0)

SAID_CHARS = 2000  # a long pasted text is read from its end, as the dialogue before it is


def asks_counsel(query: str) -> bool:
    low = query[-SAID_CHARS:].lower()
    if past_advice(low):  # "你推荐过我哪种…": what was said
        return False
    if _COUNSEL.search(low) is None and (_OPINION.search(low) is None or _THEIR_ADVICE.search(low) is not None):
        return False
    if _STRONG.search(low) is not None:
        return True
    if _PAST.search(low) is not None:
        return False
    said = low.rsplit("\n", 1)[-1]  # (the question asked, not the dialogue before it)
    return not (_HABIT.search(said) is not None and _GOOD.search(said) is None)


def situations(said: str, context: str) -> frozenset[str]:
    """The situations named by a request for counsel (``said``: the question, or a dialogue's last
    turn) and the dialogue before it (``context``); none if ``said`` asks no counsel."""
    if not asks_counsel(said):
        return frozenset()
    # (here: the lexicon's 35 situations take about 12 ms to import, which a search asking no counsel,
    # and every keyword-only one, need not pay)
    from ..text.concerns import situations_of

    return situations_of(said[-SAID_CHARS:]) | situations_of(context[-SAID_CHARS:])


def legs(named: frozenset[str]) -> list[tuple[str, int]]:
    """(the concern words of one situation, how many statements to take) for each situation named:
    one query each, as a keyword query keeps only its rarest words present (24), and one query for
    all would keep those of one situation (a meal's "celiac" and "乳糖" before a schedule's
    "Thursdays")."""
    from ..text.concerns import concern_words

    share = max(LEG_SHARE_MIN, LEG_LIMIT // max(1, len(named)))
    return [(concern_words({name}), share) for name in sorted(named)]


def lifted(pool: list, named: frozenset[str]) -> set[int]:
    """The ids of the candidates a counsel question lifts: the :data:`NEEDS_LIFTED` statements of a
    concern for one of the ``named`` situations most relevant to it (one per wording)."""
    chosen: dict[str, int] = {}
    # from the most relevant down, until enough are found: a text is read only as far as needed
    for c in sorted((c for c in pool if not c.specificity), key=lambda c: -c.content):
        if len(chosen) == NEEDS_LIFTED:
            break
        if states(c.text, named):
            chosen.setdefault(wording(c.text), id(c))
    return set(chosen.values())


def states(text: str, named: frozenset[str]) -> frozenset[str]:
    """The situations among ``named`` for which ``text`` states a concern."""
    from ..text.concerns import concerns_of

    return concerns_of(text, named)


def gate(content: float, best: float) -> float:
    return band(content, best, GATE_NONE, GATE_FULL)
