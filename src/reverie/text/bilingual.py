"""Everyday words of a person's life in English and Chinese, one key for each thing however said.

An owner writes one note in English and the next in Chinese ("我的瑜伽课在Pure Yoga上" and, two weeks
later, "Started going to Yoga Barn near the new office"), and asks in either. The bundled embedder
links such lines weakly (issue 30: a Chinese question scores English notes below Chinese ones
whatever they say), and the rules that read two lines as an earlier fact and its update
(search/newest.py) compare their words: with no word in common across the languages, an update in
the other language was never read as one. This lexicon gives each everyday thing one key, so that
瑜伽 and "yoga", 家教 and "tutor", 牙医 and "dentist" are one word when two lines are compared.

Small and hand-written: nouns of the matters people keep in a personal memory (people's roles,
lessons and their subjects, health, home, money, getting about, services, pets). Chinese words are
the two-character words content_words reads (a run of Chinese is read as its bigrams, so a word of
three characters is listed by the bigram that says it: 幼儿 of 幼儿园); English words are matched whole,
each form listed. A word of two senses is left out ("class": a lesson and a group; "coach": a trainer
and a bus; "gas": a fuel for the house and for the car; "cleaner": a person and a machine), and a word
that is a verb too ("phone", "bank", "rent", "dance") names the thing only after a word saying which
("my phone", "the bank": "I'll phone the plumber" names none). Lines in one language are compared by
their own words (search/newest.py reads these keys only between a Chinese line and another).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .concepts import content_words

# key -> (English words, Chinese words). English: whole words as written, every form listed (no stems: a
# stem of six letters would make "internship" the internet and "care" a car); Chinese: two-character words,
# none that is also the start of a common phrase (小提 of 小提醒, 保险 of 保险起见, 心理 of 心理准备)
_THINGS: dict[str, tuple[str, str]] = {
    "teacher": ("teacher teachers", "老师 教师"),
    "tutor": ("tutor tutors", "家教"),
    "doctor": ("doctor doctors physician", "医生 大夫"),
    "dentist": ("dentist dentists", "牙医"),
    "vet": ("vet vets veterinarian", "兽医"),
    "physio": ("physio physiotherapist", "理疗"),
    "therapist": ("therapist counsellor counselor", ""),
    # doctors of one part of medicine: each another doctor than one's GP and than each other
    "dermatologist": ("dermatologist dermatologists", "肤科"),
    "cardiologist": ("cardiologist cardiologists", "心内"),
    "allergist": ("allergist allergists", ""),
    "neurologist": ("neurologist neurologists", ""),
    "orthopedist": ("orthopedist orthopaedist orthopedists orthopaedists", "骨科"),
    "gynecologist": ("gynecologist gynaecologist gynecologists gynaecologists obgyn ob-gyn", "妇科"),
    "urologist": ("urologist urologists", ""),
    "endocrinologist": ("endocrinologist endocrinologists", ""),
    "gastroenterologist": ("gastroenterologist gastroenterologists", ""),
    "psychiatrist": ("psychiatrist psychiatrists", ""),
    "ophthalmologist": ("ophthalmologist ophthalmologists optometrist optometrists", "眼科"),
    "podiatrist": ("podiatrist podiatrists", ""),
    "rheumatologist": ("rheumatologist rheumatologists", ""),
    "oncologist": ("oncologist oncologists", ""),
    "pediatrician": ("pediatrician paediatrician pediatricians paediatricians", "儿科"),
    "orthodontist": ("orthodontist orthodontists", "正畸"),
    "chiropractor": ("chiropractor chiropractors", ""),
    "surgeon": ("surgeon surgeons", ""),
    "hospital": ("hospital", "医院"),
    "clinic": ("clinic", "诊所"),
    "pharmacy": ("pharmacy", "药店 药房"),
    "yoga": ("yoga", "瑜伽"),
    "gym": ("gym gyms", "健身"),
    "swimming": ("swimming", "游泳"),
    "piano": ("piano", "钢琴"),
    "guitar": ("guitar", "吉他"),
    "homeroom": ("homeroom", "班主"),  # (班主任, the class teacher: a teacher of no one lesson)
    "dance": ("~dance dancing", "跳舞 舞蹈"),
    "english": ("english", "英语 英文"),
    "chinese": ("chinese mandarin", "中文 汉语"),
    "japanese": ("japanese", "日语 日文"),
    "french": ("french", "法语"),
    "math": ("math maths", "数学"),
    "school": ("school", "学校"),
    "kindergarten": ("kindergarten preschool", "幼儿"),
    "choir": ("choir", "合唱"),
    "rent": ("~rent", "房租 租金"),
    "landlord": ("landlord landlady", "房东"),
    "mortgage": ("mortgage", "房贷"),
    "salary": ("salary paycheck wage wages", "工资 薪水"),
    "insurance": ("insurance insurer", "车险 医保"),
    "bank": ("~bank", "银行"),
    "bus": ("bus buses", "公交 巴士"),
    "subway": ("subway metro", "地铁"),
    "bike": ("bike bikes bicycle", "单车"),
    "car": ("car cars", "汽车"),
    "parking": ("parking", "停车 车位"),
    "phone": ("~phone phones", "手机"),
    "internet": ("internet broadband wifi", "宽带"),
    "electricity": ("electricity", "电费"),
    "nanny": ("nanny babysitter", "保姆"),
    "hairdresser": ("hairdresser barber haircut", "理发"),
    "supermarket": ("supermarket", "超市"),
    "company": ("company employer", "公司"),
    "team": ("team", "团队"),
    "manager": ("manager boss", "领导 经理 上司"),
    "colleague": ("colleague colleagues coworker coworkers", "同事"),
    "neighbour": ("neighbour neighbor neighbours neighbors", "邻居"),
    "dog": ("dog dogs puppy", "狗狗 小狗"),
    "cat": ("cat cats kitten", "猫咪 小猫"),
    "medicine": ("medicine medication meds", "药物"),
    "dose": ("dose dosage", "剂量"),
    "weight": ("weight", "体重"),
    "password": ("password", "密码"),
    "apartment": ("apartment", "公寓"),
    "city": ("city", "城市"),
    "commute": ("commute", "通勤"),
    "deadline": ("deadline", "截止"),
    "birthday": ("birthday", "生日"),
    "wedding": ("wedding", "婚礼"),
    "flight": ("flight flights", "航班"),
    "hotel": ("hotel", "酒店"),
    "restaurant": ("restaurant", "餐厅 饭店"),
    "coffee": ("coffee", "咖啡"),
}

MARK = "="  # a key among a text's words starts with it: no word does
# lessons and their subjects: one of them is another thing of its kind than another ("数学老师" is not
# "my Chinese teacher")
SUBJECTS = frozenset(MARK + k for k in "english chinese japanese french math piano guitar dance swimming yoga homeroom".split())
# the parts of medicine, each with its own doctor: a dermatologist is another doctor than one's GP, a dentist
# than a physiotherapist ("Got referred to a new dermatologist, Dr. Nguyen" is no new primary care doctor)
SPECIALTIES = frozenset(MARK + k for k in (
    "dentist physio therapist dermatologist cardiologist allergist neurologist orthopedist gynecologist urologist "
    "endocrinologist gastroenterologist psychiatrist ophthalmologist podiatrist rheumatologist oncologist "
    "pediatrician orthodontist chiropractor surgeon").split())
DOCTOR = MARK + "doctor"

_LATIN = re.compile(r"[A-Za-z][A-Za-z'’-]*")
# a word saying which thing comes before it: "my phone", "the bank", "a new phone", "our rent" (a pattern
# to put before a verb of the lexicon: :func:`words_of`)
WHICH_WORDS = ("my", "our", "your", "his", "her", "their", "the", "a", "an", "new", "old", "this", "that", "same",
               "mobile", "cell", "home")
WHICH_BEFORE = r"\b(?:" + "|".join(WHICH_WORDS) + r"|[a-z]+['’]s)\s+"
_WHICH_BEFORE = re.compile(WHICH_BEFORE + "$", re.I)


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    en: dict[str, str] = {}
    zh: dict[str, str] = {}
    verbs = set()  # (an English word that is a verb too: a thing only after a word saying which)
    for key, (words_en, words_zh) in _THINGS.items():
        for w in words_en.split():
            if w.startswith("~"):
                w = w[1:]
                verbs.add(w)
            en.setdefault(w, MARK + key)
        for w in words_zh.split():
            zh.setdefault(w, MARK + key)
    return en, zh, frozenset(verbs)


def words_of(key: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The English and the Chinese words of a key (as :func:`keys_in` gives it, or bare), and those of
    the English ones that are verbs too (the thing only after a word saying which: :data:`WHICH_BEFORE`)."""
    en, zh = _THINGS.get(key.removeprefix(MARK), ("", ""))
    words = en.split()
    return (tuple(w.removeprefix("~") for w in words), tuple(zh.split()),
            tuple(w[1:] for w in words if w.startswith("~")))


def key_of(word: str) -> str | None:
    """The one key of a word: an English word as written (any case), a Chinese two-character word; or
    None. (A stem names no key: "intern" is of "internship" as much as of "internet".)"""
    en, zh, _ = _tables()
    return zh.get(word) if not word.isascii() else en.get(word.lower())


@lru_cache(maxsize=4096)
def keys_in(text: str) -> dict[str, str]:
    """The everyday things ``text`` names: {the content word as matching reads it (a stem, a Chinese
    bigram): its key}."""
    en, zh, verbs = _tables()
    out: dict[str, str] = {}
    for m in _LATIN.finditer(text):
        word = m.group(0).lower().rstrip("'’")
        if word.endswith(("'s", "’s")):
            word = word[:-2]
        key = en.get(word)
        if key is not None and word in verbs and not _WHICH_BEFORE.search(text, 0, m.start()):
            continue  # ("I'll phone the plumber", "can't bank on the bus": no phone, no bank)
        if key is not None:
            for w in content_words(word, matching=True):
                out[w] = key
    for w in content_words(text, matching=True):
        if not w.isascii() and w in zh:
            out[w] = zh[w]
    return out
