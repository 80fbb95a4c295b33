"""Secrets in text: what memory must never use on its own (issue 29, docs/trust.md "Secrets").

One question, :func:`find_secrets`: where does this text hold something that looks like a secret?
Everything automatic asks it -- Dreaming never stages or promotes such a line, the recall lanes
never inject it (a startup note's line is replaced by :data:`LINE_MARKER`), and text sent to a
reranker or a remote model has the values replaced by :data:`PLACEHOLDER` (:func:`mask`). The
owner's explicit search still finds the line, marked ``sensitive``.

What counts, in English and Chinese:

* ``credential`` -- a value stated after a password / passcode / PIN / door, gate or locker code /
  密码 / 门禁码 keyword ("the wifi password at the cabin is sunflower99", "门禁密码是 4471"), or
  before one ("4471 is the door code");
* ``key`` -- API keys and tokens by their well-known shapes (``sk-``, ``ghp_``, ``xoxb-``,
  ``AKIA``, ``AIza``, JWTs, PEM private keys, ``Bearer`` tokens, credentials in a URL);
* ``entropy`` -- a long token that is random-looking (letters and digits mixed, high Shannon
  entropy) and not a path, identifier, UUID or commit hash;
* ``card`` -- 13-19 digits that pass the Luhn check with a card-network first digit;
* ``id`` -- a Chinese resident ID (18 digits, a real date, its ISO 7064 check character), an IBAN
  (mod 97), a US SSN, a passport / 身份证 / 护照 number stated after its keyword.

Patterns are tuned so that dates, prices, times, room and flight numbers, versions and
measurements in ordinary sentences are not flagged (``benchmarks/secrets.py`` measures both sides).
Only the program decides: nothing in the text can declare itself safe.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from ..text.cjk import LazyPattern

PLACEHOLDER = "[secret withheld]"
LINE_MARKER = "[sensitive line withheld: ask to search]"
KINDS = ("credential", "key", "entropy", "card", "id")


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int  # the secret value's span in the text
    end: int

    def as_dict(self) -> dict:
        return {"kind": self.kind, "start": self.start, "end": self.end}


# -- credentials stated in words ---------------------------------------------------------------
_EN_KEY = (r"(?:pass(?:word|code|phrase)|passwd|pwd|pin(?:\s*(?:code|number|no\.?))?|"
           r"(?:door|gate|garage|locker|lock|alarm|safe|access|entry|entrance|building|keypad|unlock|security|"
           r"verification|wi-?fi|router|network|disarm|arming|one[\s-]time|2fa|two[\s-]factor|login|sms|"
           r"recovery|backup)\s+(?:code|codes|key|pin|password|combination|combo)|combination|combo|keypad|otp|"
           r"cvv|cvc|secret(?:\s+key)?|api[\s_-]?key|access[\s_-]?token|auth[\s_-]?token|private[\s_-]?key)")
# words allowed between the keyword and its verb ("for the wifi at the cabin")
# ("for the raspberry pi in the garage": eight at most)
_EN_BRIDGE = r"(?:\s+(?!is\b|are\b|was\b)[\w'’-]+){0,8}?"
# ("my PIN's 4471", "password's Harbor.Lights.1987": the verb cut to 's)
_EN_VERB = (r"(?:\s*[:=]\s*|\s+(?:is|are|was|=)(?:\s+(?:now|still|just|actually))?(?:\s+(?:changed|set|updated)\s+to)?\s+"
            r"|['’]s\s+|\s+(?:changed|set|updated|reset)\s+to\s+|\s*[-–—]>?\s*)")
_VALUE = r"[\"'“‘`]?(?P<value>[^\s\"'“”‘’`,;，。；、]{1,128})"
# (a quote may close the keyword: JSON and YAML, '"password": "hunter2"')
_EN_STATED = LazyPattern(rf"\b(?P<key>{_EN_KEY})\b[\"']?{_EN_BRIDGE}{_EN_VERB}{_VALUE}", re.I)

_ZH_KEY = (r"(?:密码|口令|密钥|暗码|门禁码|开门码|门锁码|锁码|储物柜码|柜子码|取件码|验证码|安全码|撤防码|布防码|"
           r"解锁码|开锁码|恢复码|备用码|动态码|(?:PIN|pin|Pin)\s*码?|(?:CVV|CVC|cvv|cvc)\s*码?|支付码|密碼|門禁碼)")
_ZH_VERB = r"(?:\s*(?:是|为|為|：|:|=|改成了?|改为|改為|换成了?|設為|设为|设置为|设成|就是)\s*)"
_ZH_VALUE = r"[\"'“‘`「]?(?P<value>[A-Za-z0-9#*@!$%^&_+.-]{1,128})"
_ZH_STATED = LazyPattern(rf"(?P<key>{_ZH_KEY})[^，。；,;\n]{{0,4}}?{_ZH_VERB}{_ZH_VALUE}")
# "4471 is the door code", "sunflower99 is our wifi password", "4471 是门禁密码"
# "password hunter2!" with no verb: only a value that looks made up (letters with digits or symbols)
_EN_BARE = LazyPattern(r"\b(?P<key>pass(?:word|code)|passwd|pwd)\s+(?P<value>(?=[^\s]{0,128}[A-Za-z])(?=[^\s]{0,128}[\d!@#$%^&*])"
                      r"[A-Za-z0-9!@#$%^&*_+.-]{4,128})")
# "locker code 3318", "PIN 0451": a code keyword followed straight by digits; a combination's may
# come in dashes ("combination 22-07-41")
_EN_CODE_DIGITS = LazyPattern(rf"\b(?P<key>{_EN_KEY})\s*#?\s*(?P<value>\d{{1,3}}(?:-\d{{1,3}}){{2,3}}(?![\d-])|\d{{3,}}(?!\d)[#*]?)"
                              rf"(?![\d.,:/-]\d|\s*(?:%|kg|km|mb|gb|ms|px|[a-z]))", re.I)
# "pw: qL7#vWm2!pz", "vpn pass = Orchid_Falcon_31": short words for a password, only when assigned a
# made-up value (a bus pass "is" 30 dollars; "test pass = true")
_EN_SHORT = LazyPattern(r"\b(?P<key>pw|pass|pwd)(?:\s*[:=]\s*|(?<!pass)\s+is\s+)[\"'“‘`]?"
                        r"(?P<value>(?=[^\s]{0,64}[A-Za-z])(?=[^\s]{0,64}[\d!@#%^&*_])[^\s\"'“”‘’`,;，。；、$]{6,64})", re.I)
# "Router admin login is admin / Ng8$kd2Lq0", "netflix login: me@example.com / Popcorn#Night77"
_LOGIN_PAIR = LazyPattern(r"\b(?P<key>login|log-in|credentials?|creds|sign[\s-]?in)\b[^/\n]{0,24}?(?:\s+is|\s+are|\s*[:=])\s*"
                          r"[^\s/]{2,64}\s*/\s*(?P<value>[^\s,;，。；]{4,64})", re.I)
# "the code they just texted me is 714209": a code that came by text or mail
_SENT_CODE = LazyPattern(r"(?<!zip )(?<!area )(?<!promo )(?<!postal )(?<!coupon )(?<!discount )(?<!error )(?<!status )"
                         r"\b(?P<key>code)\b(?:\s+[\w'’]+){0,3}?\s+(?:texted|sent|emailed|messaged|sms'?d)\s+(?:to\s+)?"
                         r"(?:me|us|my\s+phone)\b(?:\s+[\w'’]+){0,2}?\s+(?:is|was|:)\s*(?P<value>\d{4,8})\b"
                         r"(?!\s*(?:lines?|%|kb|mb|gb|ms|px|bytes?|words?|characters?)\b)", re.I)
# "my wallet seed phrase is canyon velvet orbit …", "助记词：ocean timber …": twelve to twenty-four words
_SEED = LazyPattern(r"(?P<key>\bseed(?:\s+phrase|\s+words)?|\brecovery\s+(?:phrase|words)|\bmnemonic(?:\s+phrase)?|助记词|助記詞)"
                    r"[^\n:：=]{0,24}?(?:\s+is|\s+are|\s*[:：=]|是)\s*(?P<value>(?:[a-z]{3,8}[\s,]+){11,23}[a-z]{3,8})\b", re.I)
# "token: 9f8e…", "key=…": a generic word with an assignment and a long made-up value
_ASSIGNED = LazyPattern(r"(?<![A-Za-z0-9_])(?P<key>token|key|secret|apikey|client[_-]?secret)\s*[:=：]\s*[\"']?"
                       r"(?P<value>(?=[^\s]{0,256}\d)[A-Za-z0-9_+/=.-]{12,256})", re.I)
_ZH_BARE = LazyPattern(rf"(?P<key>{_ZH_KEY}|门禁(?!卡))\s*(?:[:：]\s*)?(?P<value>(?=[^\s，。]{{0,64}}\d)[A-Za-z0-9#*@!$%^&_+-]{{3,64}})")
_EN_BEFORE = LazyPattern(rf"(?P<value>(?<![\w#*@!$%^&+-])[A-Za-z0-9#*@!$%^&_+-]{{3,64}})\s+(?:is|was)\s+(?:the|my|our|your|his|her|their)"
                        rf"(?:\s+[\w'’-]+)?\s+(?P<key>{_EN_KEY})\b", re.I)
_ZH_BEFORE = LazyPattern(rf"(?P<value>(?<![A-Za-z0-9#*@!$%^&_+-])[A-Za-z0-9#*@!$%^&_+-]{{3,64}})\s*(?:是|就是)[^，。；,;\n]{{0,6}}?(?P<key>{_ZH_KEY})")

_TICKET = LazyPattern(r"\b(?:bus|season|boarding|day|week|ski|train|metro|subway|hall|event|festival|park|gym|backstage|"
                      r"press|guest|travel|mountain|free|rail|transit|museum|visitor)\s*$", re.I)
# keys whose value is digits: a combination ("36-12-58", "22-07-41"), a keypad's code ("5519#")
_DIGITS_ONLY_KEYS = LazyPattern(r"^(?:combo|combination|keypad)$|\s(?:combo|combination)$", re.I)
_COMBO_VALUE = LazyPattern(r"(?=[\d -]*\d\d)\d{1,2}(?:[- ]\d{1,2}){2,3}|\d{3,8}[#*]?")  # (not a boxer's 1-2-3)

# values that follow "password is" in ordinary talk about passwords, not a password
_NOT_VALUES = frozenset("""
a an the my your our his her their its this that these those it one same different new old
wrong right correct incorrect invalid valid required needed missing empty blank expired weak strong
long short too very not no never still also just only now here there written saved stored kept
changed reset updated set case-sensitive sensitive protected encrypted hashed hidden shown visible
secure insecure unknown known forgotten lost easy hard simple complex good bad fine ok okay
in on at for to of by with from into as and or but if when where what which who how why
below above following attached enclosed same-as printed taped on-file
""".split())
# keywords after which a plain word can be the value ("the wifi password is sunflower"); after
# "combination", "secret" or "PIN" a plain word is talk ("the secret is patience")
_WORD_VALUE_KEYS = LazyPattern(r"pass|pwd|wi-?fi|router|network|密码|口令|密碼", re.I)


def _plausible_value(value: str, key: str) -> bool:
    v = value.strip(".!?:)}>")
    if v.startswith(("[", "<", "(")):  # a placeholder or a pointer ("[redacted]", "<see vault>"), not the value
        return False
    if len(v) < 3 or v.lower() in _NOT_VALUES:
        return False
    if re.fullmatch(r"[\u4e00-\u9fff]+", v):  # "密码是我的生日": a hint, not the value
        return False
    if re.fullmatch(r"\d{1,2}[:.]\d{2}(?:am|pm)?", v, re.I):  # a time ("the code changes at 10:30")
        return False
    if re.fullmatch(r"[A-Za-z]+", v):
        # a plain word: only after a password keyword, and not a participle or adverb
        # ("the password was rejected", "password is expiring")
        return (len(v) >= 4 and bool(_WORD_VALUE_KEYS.search(key))
                and not re.search(r"(?:ed|ing)$", v, re.I))
    return bool(re.search(r"[A-Za-z0-9]", v))


# Every English credential pattern holds a keyword with one of these in it (pass, pwd, pin, code,
# key, ..., token): a text with none of them is not read by those patterns at all. They cost ~2 ms
# per 2.7 kB note, and every search result, recall entry and Dreaming candidate is asked.
_EN_STEMS = ("pass", "pwd", "pw", "pin", "code", "key", "combination", "combo", "cvv", "cvc", "secret", "token",
             "login", "log-in", "credential", "creds", "otp", "seed", "mnemonic", "recovery")
_ID_WORDS = ("passport", "ssn", "social security", "national id", "id card", "driver", "tax id")


def _folded(text: str) -> str:
    """``text`` as the patterns' IGNORECASE sees it, for the word checks before them: casefold
    (the long s and the Kelvin sign match s and k there), and the two Turkish i's match i."""
    low = text.casefold()
    if "ı" in low or "\u0307" in low:
        low = low.replace("ı", "i").replace("\u0307", "")
    return low


def _stated(text: str, digits: bool, folded: str) -> list[Finding]:
    out = []
    # A pattern that needs a Chinese character or a digit is not run (nor compiled: ~10 ms of a
    # cold hook) on a text without one; the Chinese keys include "PIN 码", which an ASCII text meets.
    cjk = not text.isascii() or "pin" in folded
    english = any(stem in folded for stem in _EN_STEMS)
    # (the patterns of one shape each run only where their words are: each costs a scan of the text)
    shapes = {"login": "/" in text and any(w in folded for w in ("login", "log-in", "credential", "creds", "sign")),
              "sent": digits and "code" in folded and any(w in folded for w in ("text", "sent", "mail", "messag", "sms")),
              "seed": any(w in folded for w in ("seed", "mnemonic", "recovery", "助记", "助記")),
              "short": any(w in folded for w in ("pw", "pass", "pwd"))}
    for rx, needs in ((_EN_STATED, "en"), (_ZH_STATED, "cjk"), (_EN_BARE, "en"), (_EN_CODE_DIGITS, "digit"),
                      (_ASSIGNED, "en"), (_ZH_BARE, "cjk"), (_EN_BEFORE, "en"), (_ZH_BEFORE, "cjk"), (_EN_SHORT, "short"),
                      (_LOGIN_PAIR, "login"), (_SENT_CODE, "sent"), (_SEED, "seed")):
        if (needs == "cjk" and not cjk) or (needs == "digit" and not (digits and english)) or \
                (needs == "en" and not english) or (needs in shapes and not shapes[needs]):
            continue
        for m in rx.finditer(text):
            value = m.group("value")
            if rx is not _SEED and not _plausible_value(value, m.group("key")):
                continue
            if _DIGITS_ONLY_KEYS.search(m.group("key")) and not _COMBO_VALUE.fullmatch(value.rstrip(".!?)")):
                continue  # "The combo is $12.99", "Best combo: Ctrl+Shift+T"
            if rx is _EN_SHORT and _TICKET.search(text[max(0, m.start() - 16):m.start()]):
                continue  # "bus pass: route_12", "Season pass = $399": a pass one travels or enters with
            if rx is _EN_STATED and re.search(r"['’]s\s+$", text[m.end("key"):m.start("value")]) \
                    and not re.search(r"[\d!@#$%^&*_]", value):
                continue  # "The password's length must be 12": a possessive, not "password is"
            if rx in (_EN_BEFORE, _ZH_BEFORE) and not re.search(r"\d", value) and len(value) < 6:
                continue  # "this is the password policy": a value before the keyword needs a digit
            end = m.end("value")
            while end > m.start("value") and text[end - 1] in ".!?)]}>":
                end -= 1
            out.append(Finding("credential", m.start("value"), end))
    return out


# -- keys and tokens by shape -------------------------------------------------------------------
_KEY_SHAPES = LazyPattern("|".join([
    r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}",
    r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}", r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\bhf_[A-Za-z0-9]{30,}", r"\bnpm_[A-Za-z0-9]{36}",
    r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
    r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----(?:[\s\S]*?-----END (?:[A-Z]+ )*PRIVATE KEY-----)?",
    r"(?i:\bbearer)\s+[A-Za-z0-9._~+/=-]{20,}",
    r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:[^\s/@]{3,}@",
]))


# what each shape above starts with (case as written; "bearer" in any case): a text holding none
# of them is not read by the alternation (1.5 ms per 2.7 kB note: it tries every word start)
_KEY_LITERALS = ("sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox",
                 "AKIA", "ASIA", "AIza", "hf_", "npm_", "eyJ", "-----BEGIN", "://")


# -- random-looking tokens ----------------------------------------------------------------------
_TOKEN = LazyPattern(r"[A-Za-z0-9_+/=-]{20,}")
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = LazyPattern(r"[0-9a-fA-F]+")
_WORDY = LazyPattern(r"(?:[a-z]+|[A-Z][a-z]+|[A-Z]+|\d{1,4})")


def entropy(s: str) -> float:
    """Shannon entropy of ``s`` in bits per character."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _reference_part(p: str) -> bool:
    """A part of a path or identifier: a word, a CamelCase run, a short number, or a hash."""
    if len(p) >= 7 and _HEX.fullmatch(p):
        return True
    return (len(p) <= 16 and bool(re.fullmatch(rf"{_WORDY.pattern}+", p))
            and not re.search(r"[a-z]\d+[a-z]", p, re.I))


def _random_looking(tok: str) -> bool:
    core = tok.strip("=-_/+")
    if len(core) < 20 or _UUID.fullmatch(core) or _HEX.fullmatch(core):
        return False  # ids and hashes (commits, checksums) are references, not secrets
    if not (re.search(r"\d", core) and re.search(r"[A-Za-z]", core)):
        return False
    parts = [p for p in re.split(r"[/_+=.-]", core) if p]
    # paths and identifiers: every part a word, a CamelCase run or a short number
    if len(parts) > 1 and all(_reference_part(p) for p in parts):
        return False
    case_mix = bool(re.search(r"[a-z]", core)) + bool(re.search(r"[A-Z]", core)) + bool(re.search(r"\d", core))
    switches = len(re.findall(r"(?<=[A-Za-z])\d|(?<=\d)[A-Za-z]|(?<=[a-z])[A-Z]", core))
    bar = 4.0 if len(core) < 32 else 3.8
    return case_mix >= 2 and switches >= 4 and entropy(core) >= bar


# -- numbers with a checksum ------------------------------------------------------------------------
_CARD = LazyPattern(r"(?<![\d.,-])(?:\d[ -]?){12,18}\d(?![\d.,]\d)")
_CN_ID = LazyPattern(r"(?<!\d)[1-8]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?![\dA-Za-z])")
_IBAN = LazyPattern(r"\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b")
_SSN = LazyPattern(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_ID_STATED = LazyPattern(
    r"(?:\b(?:passport|ssn|social security|national id|id card|driver'?s? licen[cs]e|tax id)(?:\s+(?:number|no\.?|#))?"
    r"(?:\s+(?:is|was))?\s*[:#]?\s*|(?:护照|身份证|驾驶证|驾照|社保卡|社会保障)(?:号码|号)?\s*(?:是|为|：|:)?\s*)"
    r"(?P<value>[A-Z]{0,2}\d(?:-?[A-Z0-9]){5,17})\b", re.I)
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


# a number said to be a card's ("my visa is 4539 7812 0043 6615", "卡号6228-…"): flagged whatever its check
# digit, which a number typed from memory or made up for an example need not pass
_CARD_WORDS = LazyPattern(r"(?:\b(?:card|visa|mastercard|master\s+card|amex)(?:\s+(?:number|no\.?|#))?"
                          r"(?:\s+(?:is|was))?|(?:银行卡|銀行卡|信用卡|储蓄卡|借记卡)?(?:卡号|卡號)(?:码|是|为)?|(?:银行卡|銀行卡|信用卡|储蓄卡|借记卡)"
                          r"(?:号码|号|是)?)\s*[:：#]?\s*$", re.I)


def _said_card(text: str, at: int) -> bool:
    """Whether the number at ``at`` is said to be a card's: the words right before it are "card
    number", "my visa is", 卡号, 银行卡… (not "Visa appointment confirmation", "信用卡账单的流水号是")."""
    return _CARD_WORDS.search(text[max(0, at - 30):at]) is not None


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def cn_id_ok(number: str) -> bool:
    """A Chinese resident ID's check character (ISO 7064 MOD 11-2)."""
    if len(number) != 18 or not number[:17].isdigit():
        return False
    s = sum(int(c) * w for c, w in zip(number[:17], _CN_ID_WEIGHTS))
    return "10X98765432"[s % 11] == number[17].upper()


def iban_ok(value: str) -> bool:
    v = value.replace(" ", "")
    if not 15 <= len(v) <= 34:
        return False
    moved = v[4:] + v[:4]
    try:
        return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1
    except ValueError:
        return False


_DIGIT = re.compile(r"\d")


def _numbers(text: str, digits: bool, folded: str) -> list[Finding]:
    out: list[Finding] = []
    if not digits:  # every one of them is digits
        return out
    count = len(_DIGIT.findall(text))  # any script's digits, as the patterns' \d reads them (fullwidth too)
    if count >= 13:  # an ID card number holds 17 digits, a card number 13 or more
        for m in _CN_ID.finditer(text):
            if cn_id_ok(m.group()):
                out.append(Finding("id", m.start(), m.end()))
        for m in _CARD.finditer(text):
            digits = re.sub(r"\D", "", m.group())
            if 13 <= len(digits) <= 19 and ((digits[0] in "3456" and luhn_ok(digits)) or _said_card(text, m.start())):
                out.append(Finding("card", m.start(), m.end()))
    for m in _IBAN.finditer(text):
        if iban_ok(m.group()):
            out.append(Finding("id", m.start(), m.end()))
    if count >= 9 and "-" in text:
        for m in _SSN.finditer(text):
            out.append(Finding("id", m.start(), m.end()))
    if not text.isascii() or any(w in folded for w in _ID_WORDS):
        for m in _ID_STATED.finditer(text):
            out.append(Finding("id", m.start("value"), m.end("value")))
    return out


# -- the question -----------------------------------------------------------------------------------
def find_secrets(text: str) -> list[Finding]:
    """Every secret-looking span of ``text``, in order, overlapping spans merged."""
    if not text:
        return []
    digits = _DIGIT.search(text) is not None
    folded = _folded(text)
    found = _stated(text, digits, folded) + _numbers(text, digits, folded)
    if any(lit in text for lit in _KEY_LITERALS) or "bearer" in folded:
        found += [Finding("key", m.start(), m.end()) for m in _KEY_SHAPES.finditer(text)]
    found += [Finding("entropy", m.start(), m.end()) for m in _TOKEN.finditer(text) if _random_looking(m.group())]
    found.sort(key=lambda f: (f.start, -f.end))
    merged: list[Finding] = []
    for f in found:
        if merged and f.start < merged[-1].end:
            last = merged[-1]
            if f.end > last.end:
                merged[-1] = Finding(last.kind, last.start, f.end)
            continue
        merged.append(f)
    return merged


def holds_secret(text: str | None) -> bool:
    return bool(text) and bool(find_secrets(text))


def kinds_in(text: str) -> list[str]:
    return sorted({f.kind for f in find_secrets(text)})


def mask(text: str, placeholder: str = PLACEHOLDER) -> str:
    """``text`` with every secret value replaced by ``placeholder`` (the words around it stay, so a
    reranker or a model still sees what the line is about)."""
    found = find_secrets(text)
    if not found:
        return text
    out, at = [], 0
    for f in found:
        out += [text[at:f.start], placeholder]
        at = f.end
    out.append(text[at:])
    return "".join(out)


def mask_value(value):
    """A tool result or request body (dicts, lists, strings) with every string's secrets masked, and
    each dict whose text held one marked ``"sensitive": true`` -- what a model or service not asked by
    the owner gets to read."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, list):
        return [mask_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(mask_value(v) for v in value)
    if isinstance(value, dict):
        out = {k: mask_value(v) for k, v in value.items()}
        if any(isinstance(v, str) and v != out[k] for k, v in value.items()):
            out["sensitive"] = True
        return out
    return value


_BULLET = LazyPattern(r"^(\s*(?:[-*+]\s+|\d+[.)]\s+)?)")


def withhold_lines(text: str, marker: str = LINE_MARKER) -> tuple[str, int]:
    """``text`` with each line that holds (part of) a secret replaced by ``marker``, its list bullet
    kept; returns the text and how many lines were withheld. For automatic context: the model
    learns a line is there and can ask for it, and never reads it unasked. A secret spanning lines
    (a PEM block) withholds every line it covers."""
    found = find_secrets(text) if text else []
    if not found:
        return text, 0
    lines = text.split("\n")
    out, at, n, i = [], 0, 0, 0
    for line in lines:
        end = at + len(line)
        while i < len(found) and found[i].end <= at:
            i += 1
        if any(f.start <= end and f.end > at for f in found[i:i + 4]):
            out.append(_BULLET.match(line).group(1) + marker)
            n += 1
        else:
            out.append(line)
        at = end + 1
    return "\n".join(out), n


__all__ = ["Finding", "KINDS", "LINE_MARKER", "PLACEHOLDER", "cn_id_ok", "entropy", "find_secrets", "holds_secret",
           "iban_ok", "kinds_in", "luhn_ok", "mask", "mask_value", "withhold_lines"]
