"""Other people, named by their relation to the owner ("my sister", "the neighbours", 我妹妹, 领导):
a line that has one of them as its subject tells their news or doings, not the owner's. One list
for every reader (search's counting questions and its newest-first order), so that what counts as
"someone else" is the same wherever it is asked; a reader's own additions are named where it uses
the list."""

from __future__ import annotations

import re
from functools import lru_cache

WORDS_EN = ("mother-in-law", "father-in-law", "in-law",  # (before "mother": "my mother-in-law" is no mother)
            "sister", "brother", "mum", "mom", "mother", "dad", "father", "parent", "wife", "husband", "partner",
            "girlfriend", "boyfriend", "hubby", "friend", "colleague", "coworker", "co-worker", "neighbour", "neighbor", "boss",
            "manager", "supervisor", "son", "daughter", "cousin", "uncle", "aunt", "grandma", "grandpa", "grandparent",
            "kid", "children", "roommate", "flatmate", "housemate", "classmate", "teammate", "niece", "nephew")
# (in-laws first: 岳父母 is no 父母, 公公 no 爷爷)
WORDS_ZH = ("岳父母", "岳父", "岳母", "公婆", "公公", "婆婆", "丈母娘", "老丈人",
            "妹妹", "姐姐", "哥哥", "弟弟", "妈妈", "爸爸", "爸妈", "父母", "母亲", "父亲", "老婆", "老公", "妻子", "丈夫",
            "朋友", "同事", "邻居", "老板", "领导", "上司", "经理", "儿子", "女儿", "闺女", "表妹", "表哥", "表姐", "表弟", "奶奶",
            "爷爷", "老爸", "老妈", "哥们", "姐夫", "妹夫", "弟媳", "嫂子", "媳妇", "室友", "闺蜜", "侄子", "侄女", "外甥")

# regex alternations: one of the words, in English with a plural "s" ("the neighbours")
RELATIONS_EN = "(?:" + "|".join(re.escape(w) for w in WORDS_EN) + ")s?"
RELATIONS_ZH = "|".join(WORDS_ZH)
# one of them said short after 我 as speech does ("我爸把朗逸卖了"; not 我哥们, a friend, nor 我姐夫, a
# sister's husband: words of the list of their own); the person is group 1
SHORT_ZH = "我们?(?!" + RELATIONS_ZH + ")([爸妈]|[哥姐弟妹](?![们夫媳儿]))"


# the owner speaking of themselves ("I", "we", 我, not 我 of 我妈妈): a line of another person's news
# that says it is the owner's too ("My husband and I moved to Denver")
OWNER = re.compile(r"\b(?:i|i'm|i've|i'd|me|we|we're|we've|us)\b|我(?!们?的?(?:" + RELATIONS_ZH + "|[爸妈哥姐弟妹]))", re.I)

# a person said short (SHORT_ZH) or as 老爸: the same person as the whole word
_WHOLE_ZH = {"爸": "爸爸", "妈": "妈妈", "哥": "哥哥", "姐": "姐姐", "弟": "弟弟", "妹": "妹妹", "老爸": "爸爸", "老妈": "妈妈"}
_PEOPLE = re.compile(r"\b(" + RELATIONS_EN + r")\b|(" + RELATIONS_ZH + ")|" + SHORT_ZH, re.I)


@lru_cache(maxsize=4096)  # a search asks it of one text in several pairs
def people_in(text: str) -> frozenset[str]:
    """The owner's people a text names, by relation ("my sister", 爸妈), each as the list's word."""
    out = set()
    for m in _PEOPLE.finditer(text or ""):
        if m.group(3):
            out.add(_WHOLE_ZH[m.group(3)])
            continue
        word = (m.group(1) or m.group(2)).lower()
        word = _WHOLE_ZH.get(word, word)
        out.add(word[:-1] if m.group(1) and word.endswith("s") and word[:-1] in WORDS_EN else word)
    return frozenset(out)


# one person named in either language ("Dad" and 我爸, "my wife" and 老婆): the same key, so that a line
# naming them in English is no other person's news after one naming them in Chinese
_KIN = {w: key for key, words in {
    "father": "dad father 爸爸 父亲 老爸", "mother": "mom mum mother 妈妈 母亲 老妈",
    "parents": "parent 爸妈 父母", "wife": "wife 老婆 妻子 媳妇", "husband": "husband hubby 老公 丈夫",
    "son": "son 儿子", "daughter": "daughter 女儿 闺女", "friend": "friend 朋友 闺蜜 哥们",
    "colleague": "colleague coworker co-worker 同事", "neighbour": "neighbour neighbor 邻居",
    "boss": "boss manager supervisor 老板 领导 上司 经理",  # (one's boss is one's manager)
    "grandmother": "grandma 奶奶", "grandfather": "grandpa 爷爷",
    "roommate": "roommate flatmate housemate 室友", "nephew": "nephew 侄子 外甥", "niece": "niece 侄女",
    "sister": "sister 姐姐 妹妹", "brother": "brother 哥哥 弟弟", "cousin": "cousin 表妹 表哥 表姐 表弟",
    "kid": "kid children", "father-in-law": "father-in-law 岳父 公公 老丈人",
    "mother-in-law": "mother-in-law 岳母 婆婆 丈母娘", "in-law": "in-law 岳父母 公婆",
}.items() for w in words.split()}


@lru_cache(maxsize=1024)
def kin(person: str) -> str:
    """One key for a person however named: a word of :data:`WORDS_EN` or :data:`WORDS_ZH`, or the stem
    search keeps of an English one ("daught", "husban"): "dad", 爸爸 and 父亲 are one father, "daught"
    and 女儿 one daughter. (A sister is 姐姐 or 妹妹, either of them.)"""
    low = person.lower()
    if low in _KIN:
        return _KIN[low]
    if low.isascii() and len(low) >= 3:
        for word, key in _KIN.items():
            if word.isascii() and word.startswith(low):
                return key
    return low
