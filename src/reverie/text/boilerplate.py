"""What a conversation holds that is never memory: role prefixes, transcript framing, model talk.

A session note (``user: …`` / ``assistant: …`` lines), the session corpus and the offline model's
replies carry text that only frames what was said:

* **role prefixes** -- ``user:``, ``assistant:``, ``**User**:``, ``[assistant]``, ``用户：``, ``助手：``;
* **transcript framing** -- citations (``[MEMORY.md#L4-L4]``, ``[memory/2026-07-01.md:3-5]``),
  list numbering and quote marks around a quoted search hit (``1. “…” [path#L1-L2]``);
* **model talk** -- the offline model introducing itself and its search (``I am the offline model
  …``, ``我是离线模型（未配置语言模型），只能根据记忆回答…``, ``Memory search for … found:``), any
  model's refusals and disclaimers (``I can't help with that``, ``As an AI …``, ``I don't have
  access …``, ``抱歉，我无法…``, ``作为一个人工智能…``), and pleasantries (``You're welcome!``,
  ``还有什么可以帮您的吗？``).

:func:`model_talk` tells whether a message *is* such talk (its opening sentence, or every sentence,
is): such a message is never a memory candidate. :func:`drop_pleasantries` removes the sentences
that are only pleasantries from a message that also says something. :func:`strip_framing` removes
role prefixes, citations, numbering and wrapping quotes. The session note and Dreaming use them.
"""

from __future__ import annotations

import re

from .cjk import LazyPattern

# A session note's metadata: sessions/hook.py writes these three lines, in this order, right below the
# note's "# Session: <time>" heading. They say where a conversation came from (its key, its random id,
# the host), never what was said: not indexed, not a Dreaming candidate.
SESSION_META = ("- **Session Key**: ", "- **Session ID**: ", "- **Source**: ")


def session_meta_lines(lines: list[str]) -> frozenset[int]:
    """The 1-based numbers of a session note's metadata lines in ``lines``: reverie's own three, in
    order, within two lines below a ``# Session:`` heading (a user's "- **Source**: …" elsewhere is
    not)."""
    out: set[int] = set()
    k = len(SESSION_META)
    for i, line in enumerate(lines):
        if (line.startswith(SESSION_META[0]) and i + k <= len(lines)
                and all(lines[i + j].startswith(p) for j, p in enumerate(SESSION_META))
                and any(ln.startswith("# Session: ") for ln in lines[max(0, i - 2):i])):
            out.update(range(i + 1, i + k + 1))
    return frozenset(out)


ROLE_WORDS = ("user", "assistant", "human", "ai", "bot", "model", "system", "tool", "用户", "助手", "助理", "系统",
              "模型")
ROLE_PREFIX = LazyPattern(r"^\s*(?:\*\*|__)?\[?(?:" + "|".join(ROLE_WORDS) + r")\]?(?:\*\*|__)?\s*[:：]\s*", re.I)
# a role marker in the middle of a text (a paragraph that ran several messages together)
ROLE_INSIDE = LazyPattern(r"(?:(?<=\s)|(?<=^))(?:user|assistant|用户|助手)\s*[:：]\s+", re.I)
CITATION = LazyPattern(r"\s*\[(?:[^\[\]\s]+#L\d+(?:-L\d+)?|[^\[\]\s]+\.md(?::\d+(?:-\d+)?)?)\]")
SOURCE_TAIL = LazyPattern(r"\s+Source:\s+\S+#L\d+-L\d+\s*$")
NUMBERING = LazyPattern(r"^\s*(?:\d{1,3}[.)、]|[-*+•])\s+")
_QUOTES = {"“": "”", '"': '"', "「": "」", "『": "』", "‘": "’", "'": "'", "«": "»"}
_SENTENCE = LazyPattern(r"(?<=[.!?;])\s+|(?<=[。！？；])")

# The opening of a message that is model talk through and through: the offline model's own replies,
# refusals, disclaimers. A message that starts like this says nothing of the owner's.
_MODEL_TALK = LazyPattern("|".join([
    # the offline model (models/offline.py) in both languages
    r"\bI(?:'m| am) the offline model\b", r"\bno language model is configured\b", r"^Memory search for\b",
    r"^I checked memory\b", r"^Nothing was saved\b", r"^I could not save that note\b",
    r"^Noted in \S+ \(offline model", r"我是离线模型", r"未配置语言模型", r"只能根据记忆回答", r"^记忆搜索",
    r"^我查了记忆", r"^没有保存：", r"^HEARTBEAT_OK\b", r"^NO_REPLY\b",
    # refusals and disclaimers of any model
    r"^(?:I'm|I am) sorry,?\s+(?:but\s+)?I\s+(?:can(?:no|')?t|cannot|am unable|'m unable|won't|am not able)\b",
    r"^(?:Sorry|Unfortunately),?\s+(?:but\s+)?I\s+(?:can(?:no|')?t|cannot|am unable|'m unable|won't)\b",
    r"^I\s+(?:can(?:no|')?t|cannot|am unable to|'m unable to|am not able to|won't be able to)\s+"
    r"(?:help|assist|do that|provide|comply|access|browse|fulfil|complete)",
    r"\bAs an AI\b", r"\bas an? (?:large )?(?:AI )?language model\b", r"\bI(?:'m| am) (?:just )?an AI\b",
    r"^I (?:don'?t|do not) have (?:access|the ability|personal|real-time|feelings|opinions|a way)\b",
    r"^(?:抱歉|对不起|很抱歉)[，,]?\s*我(?:无法|不能|没办法|做不到)", r"^我(?:无法|不能)(?:帮|完成|提供|访问|回答)",
    r"作为(?:一个|一名)?(?:人工智能|AI|ai|语言模型)", r"^我没有(?:访问|权限|个人|实时)",
]), re.I)

# Sentences that are only pleasantries or offers of help: dropped, the rest of the message kept.
_PLEASANTRY = LazyPattern("|".join([
    r"^(?:you're|you are) (?:very )?welcome\b", r"^(?:let me know|feel free|is there anything|anything else|"
    r"how can I (?:help|assist)|happy to help|glad (?:I could|to) help|hope (?:this|that) helps)\b",
    r"^(?:sure|of course|certainly|great|okay|ok|got it|no problem|thanks|thank you)[!.]?$",
    r"^(?:不客气|没问题|好的|当然|希望对你有帮助|希望对您有帮助)", r"还有什么(?:可以|需要)",
]), re.I)


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


def role_of(text: str) -> tuple[str | None, str]:
    """(the role word a line opens with, lower-cased, or None; the text without it)."""
    m = ROLE_PREFIX.match(text or "")
    if not m:
        return None, text or ""
    word = re.sub(r"[\[\]*_:：\s]", "", m.group(0)).lower()
    return word, (text or "")[m.end():]


ASSISTANT_ROLES = frozenset({"assistant", "ai", "助手"})
_BULLET = re.compile(r"^\s*[-*]\s+")


def line_role(text: str) -> tuple[str | None, str]:
    """A note's line (a list bullet aside) as (its role word or None, the words said)."""
    return role_of(_BULLET.sub("", text or "", count=1))


def said_by_assistant(text: str) -> bool:
    """Whether a note's line is the assistant's turn: ``assistant:``, ``AI:``, ``**Assistant**:``,
    ``助手：``."""
    return line_role(text)[0] in ASSISTANT_ROLES


def model_talk(text: str) -> bool:
    """Whether a message (role prefix aside) is model talk: it opens with a refusal, a disclaimer
    or the offline model's framing, or every sentence of it is a pleasantry."""
    _, body = role_of(text)
    body = body.strip()
    if not body:
        return False
    sentences = split_sentences(body)
    if _MODEL_TALK.search(sentences[0] if sentences else body):
        return True
    return bool(sentences) and all(_PLEASANTRY.search(s) for s in sentences)


_DATA_KEY = LazyPattern(r'"[^"\n]{1,40}"\s*:')


def looks_like_data(text: str) -> bool:
    """Serialized data (a tool's JSON echoed into a reply), not a statement: two or more quoted keys
    (``"path": ..., "score": ...``), which people's sentences do not hold."""
    return '"' in text and len(_DATA_KEY.findall(text)) >= 2


def drop_pleasantries(text: str) -> str:
    kept = [s for s in split_sentences(text) if not _PLEASANTRY.search(s) and not _MODEL_TALK.search(s)]
    return " ".join(kept) if kept else ""


def unquote(text: str) -> str:
    t = text.strip()
    while len(t) >= 2 and t[0] in _QUOTES and t.endswith(_QUOTES[t[0]]):
        t = t[1:-1].strip()
    return t


def strip_framing(text: str) -> str:
    """``text`` without role prefixes, citations, ``Source:`` tails, numbering and wrapping quotes."""
    t = SOURCE_TAIL.sub("", CITATION.sub("", text or ""))
    for _ in range(3):  # "1. “user: …”" peels in layers
        before = t
        t = NUMBERING.sub("", t)
        t = unquote(t)
        t = role_of(t)[1]
        if t == before:
            break
    return " ".join(t.split())


_QUOTED_HIT = LazyPattern(r"^\s*(?:\d{1,3}[.)、]\s*)?[“\"「].*[”\"」]\s*\[[^\[\]\s]+\]\s*$")


def quoted_hit(line: str) -> bool:
    """A line that quotes a search hit with its citation: ``1. “…” [memory/2026-07-01.md#L3-L3]``."""
    return bool(_QUOTED_HIT.match(line or ""))


def debris(line: str) -> bool:
    """A line that is framing and nothing else (``2. ” [MEMORY.md#L4-L4]``, a lone quote mark): no
    letter or digit is left once the framing is gone."""
    rest = strip_framing(line)
    rest = re.sub(r"[\s\"'“”‘’「」『』«».,;:!?。，；：！？、()（）\[\]-]+", "", rest)
    return not rest
