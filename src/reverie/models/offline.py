"""The ``offline`` chat model: needs no service, no download, no network.

It is not a language model and says so. A normal turn searches memory first (a ``memory_search``
tool call with the user's words) and then answers by quoting the best snippets with their
citations, or says it checked memory and found nothing. Maintenance turns are deterministic
extraction, labelled as such:

* the pre-compaction flush appends the user's statements that look like decisions, preferences,
  facts, todos or dates (any language: ``决定``, ``记得``, ``remember``, ``decided``, ``prefer`` ...)
  through the one append tool the flush offers, or answers ``NO_REPLY``;
* a compaction summary keeps those statements plus the gist of each user message, newest first
  within the token budget;
* a session slug is built from the first user message's words.

The request formats shared with the runtime (the summary request, the turn markers) live here so
the offline model and the code that builds the requests cannot drift apart.
"""

from __future__ import annotations

import json
import re
import uuid

from ..text.boilerplate import model_talk
from ..text.cjk import CJK_RUN_RE, LazyPattern, estimate_tokens, has_cjk, similarity_tokens
from ..text.focus import focus_of, focus_words, names_focus
from .base import ChatMessage, ChatModel, ChatResponse, ToolCall, Usage
from .offline_dreams import CONSOLIDATION_SYSTEM_PREFIX, DIARY_SYSTEM_PREFIX, HEARTBEAT_PROMPT_PREFIX, PROPOSE_TOOL

# Turn markers: every maintenance request starts its system prompt with one of these.
FLUSH_SYSTEM_PREFIX = "Pre-compaction memory flush turn."
FLUSH_PROMPT_PREFIX = "Pre-compaction memory flush."
COMPACTION_SYSTEM_PREFIX = "Compaction summary turn."
SLUG_SYSTEM_PREFIX = "Session slug turn."
ACTIVE_MEMORY_SYSTEM_PREFIX = "Active Memory recall turn."
RECALL_QUERY_LABEL = "Search query:"
RECALL_LATEST_LABEL = "Latest message:"
# Answers that mean "nothing recalled" (reference §10.3), compared case-insensitively
NO_RECALL = frozenset({"none", "no_reply", "nothing useful", "no relevant memory", "timeout", "[]", "{}", "null",
                       "n/a", "no recall", "nothing", "none."})
# the offline recall pass: the relevance a hit needs, by prompt style
RECALL_BARS = {"recall-heavy": 0.3, "balanced": 0.4, "contextual": 0.4, "preference-only": 0.4, "strict": 0.5,
               "precision-heavy": 0.55}
_PREFERENCE = LazyPattern(r"\b(?:prefer\w*|always|never|likes?|loves?|hates?|dislikes?|favou?rite|usually)\b|"
                         r"喜欢|偏好|讨厌|习惯|总是|从不|不要", re.IGNORECASE)
NO_REPLY = "NO_REPLY"
OFFLINE_SUMMARY_LABEL = "(extractive summary by the offline model: selected sentences, not a model-written summary)"

# -- statements worth keeping -----------------------------------------------------------------------
_SALIENT = LazyPattern("|".join([
    # decisions
    r"\bdecid\w*", r"\bdecision\b", r"\bwe(?:'ll| will) go with\b", r"\bgoing with\b", r"\bchose\b", r"\bchoose\b",
    r"\bsettled on\b", r"\bagreed\b", r"决定", r"定了", r"选了", r"就这么", r"決め", r"결정",
    # preferences
    r"\bprefer\w*", r"\bfavou?rite\b", r"\bi (?:really )?(?:like|love|hate|dislike|enjoy)\b", r"\bdon'?t like\b",
    r"\balways\b", r"\bnever\b", r"喜欢", r"偏好", r"讨厌", r"习惯", r"最爱", r"不要", r"好き", r"嫌い", r"좋아", r"싫어",
    # remember / notes
    r"\bremember\w*", r"\bnote that\b", r"\bdon'?t forget\b", r"\bkeep in mind\b", r"记得", r"记住", r"别忘", r"覚え",
    r"기억",
    # todos
    r"\btodo\b", r"\bto-do\b", r"\bneed to\b", r"\bmust\b", r"\bhave to\b", r"\bremind\w*", r"\bdeadline\b",
    r"\bdue\b", r"需要", r"待办", r"提醒", r"必须", r"要做", r"截止",
    # facts about the user
    r"\bmy name is\b", r"\bi live\b", r"\bi work\b", r"\bbirthday\b", r"\baddress\b", r"\bphone\b", r"\bemail\b",
    r"我叫", r"我住", r"生日", r"电话", r"地址", r"邮箱", r"预算", r"\bbudget\b",
    # dates and times
    r"\b\d{4}-\d{2}-\d{2}\b", r"\b\d{1,2}/\d{1,2}\b", r"\b\d{1,2}:\d{2}\b",
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b",
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next week)\b",
    r"\d+月\d+[日号]", r"明天", r"后天", r"下周", r"周[一二三四五六日天末]", r"星期", r"今晚",
]), re.IGNORECASE)
# (not after a title: "Dr. Alvarez" is one sentence)
_SENTENCE_SPLIT = LazyPattern(r"(?<=[.!?;])(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bSt\.)(?<!\bMrs\.)(?<!\bProf\.)"
                             r"(?<!\be\.g\.)(?<!\bi\.e\.)\s+|(?<=[。！？；])|\n+")
_REMEMBER_REQUEST = LazyPattern(r"^\s*(?:please\s+)?(?:remember|note)\b[\s:,]*(?:that\s+)?|^\s*(?:请)?(?:记住|记下|帮我记)[\s:：,，]*",
                               re.IGNORECASE)
MAX_STATEMENT_CHARS = 300


def split_sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT.split(text or "") if s and s.strip()]


def _content_tokens(text: str) -> set[str]:
    """Words that carry meaning: ASCII words of 3+ letters that are not stop words, CJK bigrams."""
    return {t for t in similarity_tokens(text)
            if (t.isascii() and len(t) > 2 and t not in _SLUG_STOP) or (not t.isascii() and len(t) == 2)}


# "Do you remember ...", "remind me ...", "你还记得 ... 吗": the asking, not what is asked about
_RECALL_FRAMING = LazyPattern(
    r"^\s*(?:(?:hey|so|and|ok(?:ay)?)[,\s]+)?(?:do|did|can|could) you (?:still )?(?:remember|recall)(?: (?:that|what|when|where|who|"
    r"which|how))?\s+|^\s*(?:remind me|tell me again)(?: (?:of|about|what|when|where|who|which|how))?\s+|"
    r"^\s*(?:你|您)?还?记得(?:我(?!们))?(?:说过|提过|讲过)?|^\s*(?:提醒我|告诉我)|[吗呢吧]?\s*[?？]\s*$", re.I)
# A conversation hit (cross-conversation recall) is scored against its own session's messages, on
# another scale than a note: it may count below the style's bar when it shares the question's words.
SESSION_BAR = 0.2


def _without_recall_framing(text: str) -> str:
    return _RECALL_FRAMING.sub("", _RECALL_FRAMING.sub("", text or "")).strip()


# "Which hotel…", "哪家酒店", "什么车型": the thing the question asks the name of. A hit that names it
# answers "which" better than one that only shares the question's other words ("我们在杭州最后订的是哪家
# 酒店": "我们搬家了，现在住在杭州西湖区" is about Hangzhou, not a hotel) when the two are about as
# relevant: within FOCUS_MARGIN of the first's score (the month's hotel question: 0.529 and 0.522)
FOCUS_MARGIN = 0.02


def _names_focus(hit: dict, words: tuple[str, ...]) -> bool:
    return names_focus(str(hit.get("snippet") or ""), words)


_NOT_A_NAME_ZH = "的了是在和也就都而及与一这那个家间所座位辆本部款台种只条些大小新旧好"
_DETERMINERS = r"(?!(?:The|A|An|This|That|These|Those|Our|My|Your|Their|His|Her|Its|Which|What|Any|Some|New|Old)\b)"


def _names_one(hit: dict, focus: str, words: tuple[str, ...]) -> bool:
    """Whether a hit names one particular such thing: a member of the kind ("the cello"), or the word
    with a name to it ("湖滨酒店", "the Lakeside Hotel", "Hotel Sacher"), not the thing in general ("the
    city is lovely in spring", 住在城市里, 一家酒店)."""
    if _names_focus(hit, words[1:]):
        return True
    text = str(hit.get("snippet") or "")
    if not focus.isascii():
        return re.search(f"[\u4e00-\u9fff](?<![{_NOT_A_NAME_ZH}]){re.escape(focus)}", text) is not None
    word = f"(?i:{re.escape(focus.rstrip('s'))}(?:s|es)?)"
    return re.search(rf"\b{_DETERMINERS}[A-Z][\w'-]+\s+{word}\b|\b{word}\s+[A-Z][a-z]", text) is not None


def _by_focus(hits: list[dict], focus: str | None) -> list[dict]:
    """``hits`` (those that may answer, in order) with the first that names one such thing as the
    question asks for (:func:`_names_one`) moved first, when the first names no such thing at all
    and it is within :data:`FOCUS_MARGIN` of the first's score (never a hit a later one updates)."""
    if not focus or not hits:
        return hits
    words = focus_words(focus)
    if _names_focus(hits[0], words):
        return hits
    top = float(hits[0].get("score") or 0)
    for i, h in enumerate(hits[1:], 1):
        if float(h.get("score") or 0) < top - FOCUS_MARGIN:
            continue
        if not (h.get("supersededBy") or h.get("status") == "superseded") and _names_one(h, focus, words):
            return [h, *hits[:i], *hits[i + 1:]]
    return hits


def _recall_order(hits: list[dict]) -> list[dict]:
    """Notes as ranked, then what the owner said in a conversation before what was answered: the
    owner's statement is the memory; the assistant's reply only repeats (or misses) it. A fact that
    a later one updates (search marks it ``supersededBy``; Dreaming marks an entry ``status:
    superseded``) comes after every other: it is history, and recalling it would bring back the
    old value ("我开的是一辆白色的丰田卡罗拉" when the owner has since said they drive a BYD)."""
    return sorted(hits, key=lambda h: (bool(h.get("supersededBy")) or h.get("status") == "superseded",
                                       h.get("source") == "sessions" and h.get("role") != "user"))


# a line's marks before what it says: a heading, a list mark, a number, a time of day
_LINE_MARKS = re.compile(r"^(?:#+\s.*|[-*+]\s+|\d+[.)]\s+|\[?\d{1,2}:\d{2}\]?\s*)+")


def _clears_bar(hit: dict, bar: float, want: set[str]) -> bool:
    score = float(hit.get("score") or 0)
    if score >= bar:
        return True
    if hit.get("source") != "sessions" or score < SESSION_BAR:
        return False
    shared = want & _content_tokens(str(hit.get("snippet") or ""))
    return len(shared) >= 2 and 3 * len(shared) >= len(want)


def is_no_recall(answer: str) -> bool:
    return " ".join((answer or "").split()).strip().lower().rstrip(".") in NO_RECALL or not (answer or "").strip()


def is_salient(sentence: str) -> bool:
    return _SALIENT.search(sentence) is not None


def salient_statements(text: str) -> list[str]:
    """The sentences of ``text`` that look like decisions, preferences, facts, todos or dates."""
    out = []
    for s in split_sentences(text):
        if s.startswith("/") or not is_salient(s):
            continue
        out.append(s if len(s) <= MAX_STATEMENT_CHARS else s[:MAX_STATEMENT_CHARS - 1] + "…")
    return out


def _first_sentence(text: str, limit: int = 160) -> str:
    parts = split_sentences(text)
    s = parts[0] if parts else ""
    return s if len(s) <= limit else s[:limit - 1] + "…"


# -- the summary request (rendered by the runtime, parsed here) ----------------------------------------
def render_summary_request(previous: str | None, entries: list[tuple[str, str]], instructions: str | None) -> str:
    """The user message of a compaction turn: the previous summary and the older messages."""
    parts = []
    if previous:
        parts += ["<previous-summary>", previous.strip(), "</previous-summary>"]
    parts.append("<conversation>")
    for role, text in entries:
        lines = (text or "").strip().splitlines() or [""]
        parts.append(f"[{role}] {lines[0]}")
        parts.extend(f"  {ln}" for ln in lines[1:])
    parts.append("</conversation>")
    if instructions and instructions.strip():
        parts.append(f"Additional instructions from the user: {instructions.strip()}")
    return "\n".join(parts)


def parse_summary_request(text: str) -> tuple[str | None, list[tuple[str, str]]]:
    prev = None
    m = re.search(r"<previous-summary>\n(.*?)\n</previous-summary>", text, re.S)
    if m:
        prev = m.group(1)
    entries: list[tuple[str, str]] = []
    m = re.search(r"<conversation>\n(.*?)\n?</conversation>", text, re.S)
    for line in (m.group(1).splitlines() if m else []):
        head = re.match(r"^\[([^\]]+)\] ?(.*)$", line)
        if head:
            entries.append((head.group(1), head.group(2)))
        elif entries and line.startswith("  "):
            role, body = entries[-1]
            entries[-1] = (role, body + "\n" + line[2:])
    return prev, entries


def extractive_summary(previous: str | None, entries: list[tuple[str, str]], max_tokens: int = 2000) -> str:
    """Salient statements and the gist of each user message, the newest kept when over budget."""
    bullets: list[tuple[int, str]] = []  # (priority, line)
    for line in (previous or "").splitlines():
        line = line.strip()
        if line.startswith("- "):
            bullets.append((2, line))
    for role, text in entries:
        if role not in ("user", "assistant"):
            continue
        found = salient_statements(text)
        for s in found:
            bullets.append((2, f"- {role}: {s}"))
        if role == "user" and not found and text.strip() and not text.strip().startswith("/"):
            bullets.append((1, f"- user asked: {_first_sentence(text)}"))
    seen: set[str] = set()
    unique = []
    for prio, line in bullets:
        if line not in seen:
            seen.add(line)
            unique.append((prio, line))
    header = f"Summary of the earlier conversation {OFFLINE_SUMMARY_LABEL}:"
    budget = max(16, max_tokens) - estimate_tokens(header) - 4
    kept = list(unique)
    # over budget: drop low-priority lines oldest first, then anything oldest first
    for prio in (1, 2):
        i = 0
        while sum(estimate_tokens(l) + 1 for _, l in kept) > budget and i < len(kept):
            if kept[i][0] == prio:
                kept.pop(i)
            else:
                i += 1
    if not kept:
        return header + "\n- (nothing in the older messages looked like a decision, fact, preference, todo or date)"
    return "\n".join([header, *(l for _, l in kept)])


_SLUG_STOP = frozenset("a an the and or to of in on for with is are was be it i you we my me our this that what "
                       "please can could would should do does let lets hi hello hey".split())


def slug_from(texts: list[str], max_words: int = 4) -> str:
    """A path-safe slug from the first words that carry meaning (CJK runs kept, up to 8 characters)."""
    words: list[str] = []
    for text in texts:
        for tok in re.findall(rf"[A-Za-z0-9]+|{CJK_RUN_RE.pattern}", text or ""):
            low = tok.lower()
            if low in _SLUG_STOP or (tok.isascii() and len(tok) < 3):
                continue
            words.append(low[:8] if has_cjk(low) else low[:20])
            if len(words) >= max_words:
                return "-".join(words)
    return "-".join(words)


# -- the model ------------------------------------------------------------------------------------
def _call_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


def _tool_names(tools: list[dict] | None) -> list[str]:
    return [t.get("function", {}).get("name", "") for t in tools or []]


class OfflineModel(ChatModel):
    provider = "offline"
    offline = True
    context_window = 200_000

    def __init__(self, name: str = "", settings=None):
        self.model = name or "offline"
        window = getattr(settings, "context_window", 0) or 0
        if window:
            self.context_window = window

    def complete(self, messages: list[ChatMessage], tools: list[dict] | None = None, *,
                 timeout: float | None = None, max_tokens: int | None = None) -> ChatResponse:
        system = messages[0].content if messages and messages[0].role == "system" else ""
        if system.startswith(FLUSH_SYSTEM_PREFIX):
            msg = self._flush(messages, tools)
        elif system.startswith(COMPACTION_SYSTEM_PREFIX):
            prev, entries = parse_summary_request(messages[-1].content if messages else "")
            msg = ChatMessage("assistant", extractive_summary(prev, entries, max_tokens or 2000))
        elif system.startswith(ACTIVE_MEMORY_SYSTEM_PREFIX):
            msg = self._recall(system, messages)
        elif system.startswith(SLUG_SYSTEM_PREFIX):
            msg = ChatMessage("assistant", slug_from([m.content for m in messages[1:] if m.role == "user"]) or "session")
        elif system.startswith((CONSOLIDATION_SYSTEM_PREFIX, DIARY_SYSTEM_PREFIX)):
            from .offline_dreams import offline_consolidation, offline_diary

            request = messages[-1].content if messages else ""
            answer = offline_consolidation if system.startswith(CONSOLIDATION_SYSTEM_PREFIX) else offline_diary
            msg = ChatMessage("assistant", answer(request))
        else:
            msg = self._turn(messages, tools)
        usage = Usage(sum(estimate_tokens(m.content) + 4 for m in messages), estimate_tokens(msg.content))
        return ChatResponse(msg, usage, "tool_calls" if msg.tool_calls else "stop", self.model)

    # Active Memory: search with the query, then the best sentence of the best hit above the bar.
    def _recall(self, system: str, messages: list[ChatMessage]) -> ChatMessage:
        last = messages[-1]
        if last.role != "tool":
            lines = last.content.splitlines()
            query = next((ln[len(RECALL_QUERY_LABEL):].strip() for ln in lines if ln.startswith(RECALL_QUERY_LABEL)),
                         last.content)
            asked = next((ln[len(RECALL_LATEST_LABEL):].strip() for ln in lines if ln.startswith(RECALL_LATEST_LABEL)), "")
            if len(_content_tokens(asked)) >= 2:  # a message that stands on its own is searched as it is
                query = _without_recall_framing(asked) or asked
            return ChatMessage("assistant", "", tool_calls=[ToolCall(_call_id(), "memory_search",
                                                                     {"query": query[:480], "maxResults": 8})])
        style = re.search(r"Prompt style: ([a-z-]+)", system)
        bar = RECALL_BARS.get(style.group(1) if style else "balanced", 0.4)
        query = ""
        for m in messages:
            for c in m.tool_calls:
                query = str(c.arguments.get("query") or query)
        # the fact must bear on the latest message (recent turns only widen the search)
        asked = next((ln[len(RECALL_LATEST_LABEL):].strip() for m in messages if m.role == "user"
                      for ln in m.content.splitlines() if ln.startswith(RECALL_LATEST_LABEL)), "")
        try:
            data = json.loads(last.content)
        except ValueError:
            return ChatMessage("assistant", "NONE")
        want = _content_tokens(_without_recall_framing(asked) or asked) or _content_tokens(query)
        hits = data.get("results") or []
        cited = {str(h.get("citation") or h.get("path")): h for h in hits}
        asking = _without_recall_framing(asked) or asked or query
        for hit in _by_focus(_recall_order(hits), focus_of(asking)):
            if hit.get("untrusted") or not _clears_bar(hit, bar, want):
                continue  # outside content is never summarised into the context
            newer = cited.get(str(hit.get("supersededBy")))
            updated = newer is not None and not newer.get("untrusted")
            if updated:
                hit = newer  # what updates it, found beside it, answers instead (below the bar or not)
            text = re.sub(r"<!--.*?-->", " ", str(hit.get("snippet") or ""), flags=re.S)
            if model_talk(text):
                continue  # a model's own reply (this one's "I checked memory..." above all) recalls nothing
            # (an earlier question, often the same one, answers nothing)
            said = [t for t in (_LINE_MARKS.sub("", x).strip() for x in split_sentences(text))
                    if t and not t.endswith(("?", "？"))]
            best, best_overlap = "", 0
            for t in said:
                overlap = len(want & _content_tokens(t))
                if overlap > best_overlap:
                    best, best_overlap = t, overlap
            if not best and updated and said:
                # (an update may share no word with the question: said in the other language, "我们搬家了，现在
                # 住在杭州西湖区" for "Do you remember which city we live in now?"; the line it updates did)
                best = said[0]
            if best and (style is None or style.group(1) != "preference-only" or _PREFERENCE.search(best)):
                return ChatMessage("assistant", best)
        return ChatMessage("assistant", "NONE")

    # A flush: append each salient user statement in the context through the offered append tool.
    def _flush(self, messages: list[ChatMessage], tools: list[dict] | None) -> ChatMessage:
        if messages[-1].role == "tool":
            return ChatMessage("assistant", NO_REPLY)
        names = _tool_names(tools)
        append = next((n for n in names if "append" in n), names[0] if names else None)
        statements: list[str] = []
        for m in messages[1:]:
            if m.role != "user" or m.content.startswith(FLUSH_PROMPT_PREFIX):
                continue
            for s in salient_statements(m.content):
                if s not in statements:
                    statements.append(s)
        if not statements or append is None:
            return ChatMessage("assistant", NO_REPLY)
        calls = [ToolCall(_call_id(), append, {"text": s}) for s in statements[:20]]
        return ChatMessage("assistant", "", tool_calls=calls)

    def _turn(self, messages: list[ChatMessage], tools: list[dict] | None) -> ChatMessage:
        names = _tool_names(tools)
        last = messages[-1] if messages else ChatMessage("user", "")
        if last.role == "user":
            text = last.content.strip()
            if text.startswith(HEARTBEAT_PROMPT_PREFIX) and PROPOSE_TOOL in names:
                from .offline_dreams import offline_heartbeat_proposals

                picked = offline_heartbeat_proposals(text)
                if not picked:
                    return ChatMessage("assistant", "HEARTBEAT_OK: nothing in the recent notes to propose.")
                return ChatMessage("assistant", "", tool_calls=[ToolCall(_call_id(), PROPOSE_TOOL, {"entries": picked})])
            asks = text.endswith(("?", "？"))
            if _REMEMBER_REQUEST.match(text) and not asks:
                if "memory_append" not in names:  # memory is read-only here: never pretend to have saved
                    return ChatMessage("assistant", self._say(
                        text, "Nothing was saved: memory cannot be written in this conversation (the workspace "
                              "is read-only).", "没有保存：本次对话无法写入记忆（工作区是只读的）。"))
                note = _REMEMBER_REQUEST.sub("", text, count=1).strip() or text
                return ChatMessage("assistant", "", tool_calls=[ToolCall(_call_id(), "memory_append", {"text": note})])
            if "memory_search" in names and text:
                return ChatMessage("assistant", "", tool_calls=[ToolCall(_call_id(), "memory_search", {"query": text[:4096]})])
            return ChatMessage("assistant", self._say(text, "I am the offline model (no language model is configured) "
                                                      "and can only answer from memory, but memory search is not "
                                                      "available here.", "我是离线模型（未配置语言模型），只能根据记忆回答，但这里无法搜索记忆。"))
        # answer from the tool results of the last round
        calls: dict[str, ToolCall] = {}
        for m in messages:
            for c in m.tool_calls:
                calls[c.id] = c
        replies = []
        i = len(messages) - 1
        results = []
        while i >= 0 and messages[i].role == "tool":
            results.insert(0, messages[i])
            i -= 1
        for r in results:
            call = calls.get(r.tool_call_id or "")
            name = r.name or (call.name if call else "")
            try:
                data = json.loads(r.content)
            except ValueError:
                data = {"error": r.content}
            if name == "memory_search":
                replies.append(self._answer_search((call.arguments.get("query") if call else "") or "", data))
            elif name == "memory_append":
                if data.get("error"):
                    replies.append(f"I could not save that note: {data['error']}")
                else:
                    replies.append(f"Noted in {data.get('path', 'today’s note')} (offline model: saved your words as written).")
            else:
                replies.append(f"{name}: {json.dumps(data, ensure_ascii=False)[:500]}")
        return ChatMessage("assistant", "\n\n".join(replies) or NO_REPLY)

    @staticmethod
    def _say(query: str, en: str, zh: str) -> str:
        return zh if has_cjk(query) else en

    def _answer_search(self, query: str, data: dict) -> str:
        query = " ".join(query.split())
        query = query if len(query) <= 80 else query[:79] + "…"
        if data.get("error") or data.get("unavailable") or data.get("disabled"):
            why = data.get("error") or data.get("warning") or "unavailable"
            return self._say(query, f"I am the offline model and answer only from memory, but memory search is not "
                                    f"working right now: {why}",
                             f"我是离线模型，只能根据记忆回答，但记忆搜索现在不可用：{why}")
        hits = data.get("results") or []
        if not hits:
            return self._say(query, f"I am the offline model (no language model is configured), so I answer only from "
                                    f"memory. I checked memory for “{query}” and found nothing that matches.",
                             f"我是离线模型（未配置语言模型），只能根据记忆回答。我查了记忆中关于“{query}”的内容，没有找到匹配的记录。")
        lines = [self._say(query, f"I am the offline model (no language model is configured), so I answer only from "
                                  f"memory. Memory search for “{query}” found:",
                           f"我是离线模型（未配置语言模型），只能根据记忆回答。记忆搜索“{query}”找到：")]
        for n, hit in enumerate(hits[:3], 1):
            snippet = " ".join(str(hit.get("snippet", "")).split())
            snippet = re.sub(r"^#+ \S+ ?", "", snippet)  # drop a leading date heading
            if len(snippet) > 240:
                snippet = snippet[:239] + "…"
            lines.append(f"{n}. “{snippet}” [{hit.get('citation') or hit.get('path')}]")
        return "\n".join(lines)
