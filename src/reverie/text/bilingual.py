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
three characters is listed by the bigram that says it: 幼儿 of 幼儿园); English words are matched by
the stem search keeps (text/concepts.py ``stem``). A word of two senses is left out ("class": a
lesson and a group; 医院 is kept, "hospital" is one thing).
"""

from __future__ import annotations

from functools import lru_cache

from .concepts import content_words, stem

# key -> (English words, Chinese words)
_THINGS: dict[str, tuple[str, str]] = {
    "teacher": ("teacher teachers", "老师 教师"),
    "tutor": ("tutor tutors tutoring", "家教"),
    "coach": ("coach coaches", "教练"),
    "doctor": ("doctor doctors gp physician", "医生 大夫"),
    "dentist": ("dentist dentists", "牙医"),
    "vet": ("vet vets veterinarian", "兽医"),
    "physio": ("physio physiotherapist physiotherapy", "理疗 康复"),
    "therapist": ("therapist counsellor counselor", "心理"),
    "hospital": ("hospital", "医院"),
    "clinic": ("clinic", "诊所"),
    "pharmacy": ("pharmacy chemist", "药店 药房"),
    "yoga": ("yoga", "瑜伽"),
    "pilates": ("pilates", "普拉"),
    "gym": ("gym gyms", "健身"),
    "swimming": ("swimming swim", "游泳"),
    "piano": ("piano", "钢琴"),
    "guitar": ("guitar", "吉他"),
    "violin": ("violin", "小提"),
    "dance": ("dance dancing", "跳舞 舞蹈"),
    "painting": ("painting drawing", "画画 绘画"),
    "english": ("english", "英语 英文"),
    "chinese": ("chinese mandarin", "中文 汉语"),
    "japanese": ("japanese", "日语 日文"),
    "french": ("french", "法语"),
    "spanish": ("spanish", "西语"),
    "math": ("math maths", "数学"),
    "school": ("school", "学校"),
    "kindergarten": ("kindergarten nursery preschool", "幼儿"),
    "choir": ("choir", "合唱"),
    "rent": ("rent", "房租 租金"),
    "landlord": ("landlord", "房东"),
    "mortgage": ("mortgage", "房贷"),
    "salary": ("salary paycheck wage wages", "工资 薪水"),
    "insurance": ("insurance insurer", "保险"),
    "bank": ("bank", "银行"),
    "bus": ("bus buses", "公交 巴士"),
    "subway": ("subway metro underground tube", "地铁"),
    "bike": ("bike bicycle cycling", "单车 自行"),
    "car": ("car", "汽车"),
    "parking": ("parking", "停车 车位"),
    "phone": ("phone mobile", "手机"),
    "internet": ("internet broadband wifi", "宽带 网络"),
    "electricity": ("electricity", "电费"),
    "gas": ("gas", "燃气 煤气"),
    "cleaner": ("cleaner", "保洁"),
    "nanny": ("nanny babysitter", "保姆"),
    "hairdresser": ("hairdresser barber haircut", "理发 发型"),
    "supermarket": ("supermarket", "超市"),
    "office": ("office", "办公"),
    "company": ("company employer", "公司"),
    "startup": ("startup", "创业"),
    "team": ("team", "团队"),
    "manager": ("manager boss", "领导 经理 上司"),
    "colleague": ("colleague coworker", "同事"),
    "neighbour": ("neighbour neighbor", "邻居"),
    "dog": ("dog dogs puppy", "狗狗 小狗"),
    "cat": ("cat cats kitten", "猫咪 小猫"),
    "medicine": ("medicine medication meds", "药物"),
    "dose": ("dose dosage", "剂量"),
    "allergy": ("allergy allergic", "过敏"),
    "weight": ("weight", "体重"),
    "password": ("password", "密码"),
    "address": ("address", "地址"),
    "apartment": ("apartment", "公寓"),
    "city": ("city", "城市"),
    "commute": ("commute commuting", "通勤"),
    "deadline": ("deadline", "截止"),
    "meeting": ("meeting meetings", "会议 开会"),
    "birthday": ("birthday", "生日"),
    "wedding": ("wedding", "婚礼"),
    "flight": ("flight flights", "航班"),
    "hotel": ("hotel", "酒店"),
    "restaurant": ("restaurant", "餐厅 饭店"),
    "coffee": ("coffee", "咖啡"),
}

MARK = "="  # a key among a text's words starts with it: no word does


@lru_cache(maxsize=1)
def _keys() -> dict[str, str]:
    out: dict[str, str] = {}
    for key, (en, zh) in _THINGS.items():
        for w in content_words(en, matching=True) + content_words(zh, matching=True):
            out.setdefault(w, MARK + key)
    return out


def key_of(word: str) -> str | None:
    """The one key of a content word as matching reads it (a stem, a Chinese bigram; an English word
    as written is stemmed first), or None."""
    table = _keys()
    key = table.get(word)
    if key is None and word.isascii() and word[:1].isalpha():
        key = table.get(stem(word.lower()))
    return key


def keys_of(words) -> frozenset[str]:
    """The keys of the everyday things ``words`` (content words, as matching reads them) name."""
    table = _keys()
    return frozenset(table[w] for w in words if w in table)
