"""Recall intent: does a message ask about the past? (reference §10.1, Active Memory's ``escalate``).

A fixed list of case-insensitive patterns on the whitespace-collapsed message. English and Spanish
patterns decide alone; the Chinese, Japanese, Korean and German families count only when the
message has no *future* marker ("明天", "tomorrow") unless it also has a *retrospective* one ("上次",
"yesterday"), so "remind me tomorrow" style requests stay quiet.
"""

from __future__ import annotations

import re

from ..text.cjk import LazyPattern

_NUM = r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|a few|several)"
_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december|"
          r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)")
_WHO = r"(?:we|you|i)"
_VERB = r"(?:decide|decided|choose|chose|chosen|discuss|discussed|agree|agreed|say|said|mention|mentioned|talk|talked|use|used|do|did|pick|picked|settle|settled)"

ENGLISH = [
    r"\b(?:previously|earlier|last time|used to)\b",
    r"\b(?:do|can|could|would) you (?:still )?(?:remember|recall)\b",
    r"\b(?:remember|recall) (?:when|what|which|who|where|why|how|that|the)\b",
    rf"\b{_WHO} (?:already )?(?:discussed|decided|agreed|said|talked about|chose|picked|settled on|mentioned)\b",
    r"\b(?:previous|earlier|past|last) (?:decision|conversation|chat|discussion|session|meeting)s?\b",
    r"\b(?:yesterday|the other day|last (?:week|month|year|night|weekend))\b",
    rf"\b{_NUM} (?:days?|weeks?|months?|years?) ago\b",
    rf"\bwhat (?:did|have|had) {_WHO}\b",
    r"\bwhat do i usually\b|\bwhat did i usually\b",
    rf"\b(?:what|which|when|where|why|how|who) (?:did|have|had) {_WHO} (?:\w+ )?{_VERB}\b",
    rf"\b(?:did|have|had) {_WHO} (?:ever |already )?{_VERB}\b",
    rf"\b(?:conversation|chat|discussion)s? (?:from|in|during) (?:{_MONTH}|\d{{4}})\b",
    r"\b(?:summari[sz]e|review|find|search)(?: (?:my|our|the))? (?:past|previous|earlier|old) (?:conversation|chat|discussion)s?\b",
    r"\bremind (?:me|us) (?:what|which|who|where|when|why|how|of)\b",
]
SPANISH = [
    r"\bqu[ée] (?:decidimos|hablamos|dijimos|acordamos)\b", r"\brecuerdas\b", r"\brecordar\b",
    r"\banteriormente\b", r"\bayer\b", r"\b[úu]ltima vez\b",
]
# localized families: (intent patterns, future markers, retrospective markers)
CHINESE = ([r"[记記]得.{0,6}(?:上次|之前|以前|那次|我们|我們)", r"(?:我们|我們).{0,8}(?:聊|讨论|討論|决定|決定|说过|說過|谈|談)",
            r"(?:上次|之前|以前|那次|前几天|前幾天|上周|上週|上个月|上個月|昨天|前天)", r"[找查搜翻].{0,6}(?:记录|記錄|聊天|对话|對話)",
            r"(?:总结|總結|回顾|回顧).{0,8}(?:对话|對話|聊天|讨论|討論)", r"[还還]?[记記]得.{0,10}[吗嗎么麼]",
            # "你还记得…吗" however long what it asks ("你还记得我下午三点以后喝不喝咖啡吗？"), asked of the
            # assistant and ending the sentence (not the 么 of 怎么样 after "我还记得小时候…")
            r"[你您][还還]?[记記]得.{0,40}[吗嗎](?=\s*(?:[？?。！!]|$))"],
           # (以后 after a time is "after": 三点以后, 下班以后; not the future)
           [r"明天", r"后天", r"後天", r"下周", r"下週", r"下个月", r"下個月", r"(?<![点點时時天号號班课課])以[后後]", r"待会",
            r"待會", r"将来", r"將來"],
           [r"上次", r"之前", r"以前", r"昨天", r"前天", r"我们.{0,4}(?:聊|讨论|决定)", r"我們.{0,4}(?:聊|討論|決定)"])
JAPANESE = ([r"覚えて(?:い|る|ます)", r"前回", r"以前", r"この前", r"昨日", r"先週", r"話した", r"決めた"],
            [r"明日", r"来週", r"あとで", r"後で"], [r"前回", r"昨日", r"先週", r"話した", r"決めた"])
KOREAN = ([r"기억(?:나|해|하)", r"지난번", r"전에", r"어제", r"지난주", r"얘기했", r"결정했"],
          [r"내일", r"다음 주", r"나중에"], [r"지난번", r"어제", r"지난주", r"얘기했", r"결정했"])
GERMAN = ([r"\berinnerst du dich\b", r"\bletztes mal\b", r"\bgestern\b", r"\bhaben wir (?:besprochen|entschieden)\b",
           r"\bfrüher\b", r"\bvorhin\b"],
          [r"\bmorgen\b", r"\bnächste woche\b", r"\bspäter\b"], [r"\bgestern\b", r"\bletztes mal\b", r"\bbesprochen\b"])

_PLAIN = LazyPattern("|".join(ENGLISH + SPANISH), re.IGNORECASE)
_FAMILIES = [tuple(LazyPattern("|".join(group), re.IGNORECASE) for group in fam)
             for fam in (CHINESE, JAPANESE, KOREAN, GERMAN)]


def has_recall_intent(message: str) -> bool:
    text = " ".join((message or "").split())
    if not text:
        return False
    if _PLAIN.search(text):
        return True
    for intent, future, retro in _FAMILIES:
        if intent.search(text) and (not future.search(text) or retro.search(text)):
            return True
    return False
