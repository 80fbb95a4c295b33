"""The text a promotion writes: a fact in the owner's words, without the conversation around it.

A candidate's snippet is what the note holds: a daily-note entry as the owner wrote it, or a line
of a session note or the session corpus (``user: Remember that the cabin has a wood stove.``).
:func:`fact_text` turns it into what ``MEMORY.md`` gets, or ``None`` when nothing in it is a fact:

1. a text that runs several messages together (``user: … assistant: …``) is cut into them;
2. a message that is model talk (:func:`reverie.text.boilerplate.model_talk`: the offline model's
   replies, refusals, ``As an AI…``, pleasantries) is dropped whole, and so is a question;
3. a message of a conversation (a role prefix, or a line of the session corpus) must say something
   worth keeping -- a decision, preference, remember-request, fact about the owner, date
   (:func:`reverie.models.offline.is_salient`, the flush's own test), or a name or number; chit-chat
   ("Just tired, long week.", ``今天好累啊``) is not memory;
4. role prefixes, citations, ``Source:`` tails, numbering, wrapping quotes, the request framing
   (``Remember that``, ``Note that``, ``By the way``, ``记住：``, ``对了，``) and pleasantry sentences go;
5. what is left must hold two content words (or six CJK characters); its first letter is raised.

The owner's language is kept: nothing is translated or reworded beyond removing the framing. Rehydration
and claim hashes still use the note's own words (:mod:`.candidates`): only the written text is cleaned.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..text.boilerplate import (ROLE_INSIDE, drop_pleasantries, looks_like_data, model_talk, role_of, split_sentences,
                                strip_framing)
from ..text.cjk import CJK_RUN_RE
from ..text.concepts import content_words

_REQUEST = re.compile(
    r"^(?:(?:ok(?:ay)?|so|oh|and|also|btw|by the way|fyi|just so you know|for the record)[,:]?\s+)*"
    r"(?:(?:please\s+)?(?:remember|note|don'?t forget|keep in mind|make a note)(?!\s+to\b)(?:\s+that)?[\s:,]+)?", re.I)
_REQUEST_ZH = re.compile(r"^(?:对了|顺便说一下|顺便说|另外)?[，,：:\s]*(?:请)?(?:记住|记下|记一下|记得|帮我记(?:一下|住)?|备忘)?"
                         r"[，,：:\s]*")
_PROPER = re.compile(r"(?<=[\w,;:] )[A-Z][a-z]+|\d")
_QUESTION_END = ("?", "？")


def _messages(snippet: str) -> list[tuple[str | None, str]]:
    """(role, body) of each message a snippet holds; one (None, text) for a plain entry."""
    text = snippet or ""
    cuts = [m.start() for m in ROLE_INSIDE.finditer(text)]
    if not cuts:
        role, body = role_of(text)
        return [(role, body)]
    parts = [text[:cuts[0]]] if cuts[0] > 0 else []
    parts += [text[a:b] for a, b in zip(cuts, cuts[1:] + [len(text)])]
    out = []
    for p in parts:
        role, body = role_of(p)
        if body.strip():
            out.append((role, body))
    return out


def _worth_keeping(body: str) -> bool:
    from ..models.offline import is_salient  # the flush's test of what a conversation holds

    return is_salient(body) or bool(_PROPER.search(body))


def _clean(body: str) -> str:
    t = strip_framing(body)
    t = _REQUEST_ZH.sub("", _REQUEST.sub("", t, count=1), count=1).strip()
    t = strip_framing(t)
    kept = [s for s in split_sentences(drop_pleasantries(t)) if not s.endswith(_QUESTION_END)]
    t = " ".join(kept).strip(" ,;:，；：")
    if t and t[0].isalpha() and t[0].islower() and t[0].isascii():
        t = t[0].upper() + t[1:]
    return t


def _enough(text: str) -> bool:
    cjk = sum(len(m.group(0)) for m in CJK_RUN_RE.finditer(text))
    return cjk >= 6 or len(content_words(text)) >= 2


@lru_cache(maxsize=4096)
def fact_text(snippet: str, conversation: bool = False) -> str | None:
    """The promoted text of a snippet, or None when it holds no fact (see the module text).
    ``conversation``: the snippet is a line of a conversation even without a role prefix (the
    session corpus)."""
    facts = []
    for role, body in _messages(snippet):
        body = body.strip()
        if not body or model_talk(body) or looks_like_data(body):
            continue
        if body.rstrip().endswith(_QUESTION_END) and len(split_sentences(body)) <= 1:
            continue
        if (role is not None or conversation) and not _worth_keeping(body):
            continue
        t = _clean(body)
        if t and _enough(t):
            facts.append(t)
    if not facts:
        return None
    return " ".join(facts)


def is_candidate(snippet: str, conversation: bool = False) -> bool:
    return fact_text(snippet, conversation) is not None
