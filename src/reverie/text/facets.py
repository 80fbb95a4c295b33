"""Facets of one's everyday life, each named in several ways: what links two statements of one fact
that share no word.

"Which pharmacy do I use?" is answered first by "I get all my prescriptions filled at the CVS on Oak
Ave", and now by "Hartwell Drugs … has all my refills now"; "我一般几点睡觉？" by "我基本每天晚上十二点以后
才睡" and now by "最近强迫自己十点半上床". The later statement holds no word of the question nor of the
earlier one, so the newest-first order (search/newest.py) could not tell that it speaks of the
same matter: of the updates written apart from the code (benchmarks/updates_fresh_data*.py), about
half of those it missed were such pairs. This is a small hand-written lexicon of the facets people
keep facts about and change — sleep, waking, meals, the commute, weight, eyesight, hair, the pet's
vet, therapists, one's doctor, where one lives, a roommate, rent, the landlord, pay, a job title, one's
manager, where one works, calories, groceries, childcare, an allowance, a choir's part, a dose, taxes,
volunteering, coffee, drink and smoke — each a set of the ways people name it, in English and Chinese,
as a question asks about it and as a statement says it in passing.

A facet counts only where a question asking what holds names it too: its plain words are asked of
the keyword index, so that the later line is found at all (search/keyword.py ``expand_facets``:
"新房东是个年轻人" for "Who's my landlord?"), and it links two statements for the pair reading of
search/newest.py, which also wants both found near the top of one search and the later one saying
a change of it; a coarse facet errs little there. Words that name another matter as often are left
out ("renewal": of a lease as of a gym; "prescription": of glasses as of pills, unless filled; 上班 alone:
where one works as much as how one gets there; "bass": a fish, a guitar; "gym", 健身: a climbing gym
and a fitness one are two; "noon", "income", "lease", "contacts", "bus"), or kept from the words
around them that give them another sense (睡 but not 睡衣, 斤 but not a price's 一斤, "sitter" but not a
dog sitter, "alto" but not Palo Alto, "glasses" but not wine glasses, 中午 only said of eating, "to
work" only of going there: a fresh-eyes review found each in lines about other things). So are the
names of shops and makes: "Walgreens now has a drive-thru" names a pharmacy and changes none of one's
own (text/kinds.py reads who takes a make).

English words match as written, in the singular or the plural, phrases as their words in a row
(text/kinds.py ``surface``), an entry starting with ``re:`` as a pattern (a dose: "50mg"), one
starting with ``re[word]:`` as a pattern that also says where the keyword index's ``word`` names the
facet ("my boss", not the final boss of a game); Chinese words as patterns, most as written (a
substring), some kept from the words that hold them in another sense (工资 but not 工资卡, a bank card).
"""

from __future__ import annotations

import re
from functools import lru_cache

from .cjk import has_cjk

# a rank and a job's name: a job title ("a senior engineer", "staff accountant"), not "a senior citizen"
_RANK = r"(?:senior|junior|lead|staff|principal|chief|head|associate|assistant|deputy)"
_JOB = (r"(?:engineer|developer|designer|analyst|manager|director|scientist|architect|consultant|accountant|"
        r"partner|editor|writer|producer|nurse|counsel|attorney|lawyer|researcher|specialist|officer|"
        r"administrator|technician|programmer|strategist|planner|recruiter|buyer|underwriter|auditor|"
        r"economist|pharmacist|physician|surgeon|resident|professor|lecturer|teacher|librarian|paralegal)s?\b")

# facet -> "English words and phrases (``_`` joins a phrase's words) | Chinese words"
FACETS: dict[str, str] = {
    "sleep": "sleep sleeping slept asleep bedtime go_to_bed going_to_bed went_to_bed in_bed_by lights_out "
             "| 睡(?!衣|袋|裤|裙) 上床 熬夜 就寝 关灯 作息",
    "waking": r"wake_up waking_up woke_up wake_me get_up getting_up got_up "
              r"re:(?<!car\s)(?<!fire\s)(?<!smoke\s)\balarms?\b | 起床 闹钟 (?<![提清苏觉])醒 早起",
    "breakfast": "breakfast breakfasts brekkie | 早饭 早餐 早上(?:改|都|就|只|一般)?吃(?!药)",
    "lunch": "lunch lunches | 午饭 午餐 中饭 带饭 中午(?:一般|都|就|只|基本|常)?(?:在|去|点|吃|带)",
    "dinner": "dinner dinners supper | 晚饭 晚餐",
    "commute": r"commute commuting subway metro re:\b(?:get|gets|getting|got|go|goes|going|went|drive|drives|driving|"
               r"drove|bike|bikes|biking|biked|cycle|cycles|cycling|walk|walks|walking|walked|ride|rides|riding|rode|take|"
               r"takes|taking|took|way)\s+(?:\S+\s+){0,3}?(?:to|into)\s+(?:work|the\s+office)\b "
               "| 通勤 去上班 上班路上 地铁 公交 班车 (?:开车|骑车|坐车|打车|走路|步行)去?(?:上班|公司|单位) 上班怎么[去走来]",
    "weight": r"weigh weighs weighed weighing weight lbs kilos re:\d\s*(?:kg|lbs?)\b "
              r"re:\b(?:the|my|bathroom)\s+scale\b|\bscale\s+(?:says|said|shows|showed|reads|read)\b "
              "| 体重 公斤 称重 上秤 称了一下 (?<![一每])斤",
    "eyesight": r"eyesight nearsighted short-sighted myopia eye_exam contact_lenses lenses optometrist optician "
                r"re:(?<!wine\s)(?<!shot\s)(?<!drinking\s)(?<!beer\s)\bglasses\b | 近视 度数 眼镜 散光 视力 验光",
    "pharmacy": r"pharmacy pharmacies drugstore chemist pharmacist "
                r"re:\b(?:my|prescription)\s+refills?\b "
                r"re:\btransferred\s+(?:all\s+)?my\s+(?:prescriptions?|meds|medications?)\b"
                r"|\b(?:moved|switched)\s+(?:all\s+)?my\s+prescriptions?\s+(?:over\s+)?to\b "
                r"re:\brefill(?:ed)?\s+(?:all\s+)?my\s+(?:prescriptions?|meds|medications?) "
                r"re:\bprescriptions?\s+(?:are\s+|get\s+)?(?:re)?filled "
                r"re:\bfill(?:ed)?\s+(?:all\s+)?my\s+prescriptions? "
                "| 药店 药房 拿药 配药 取药 处方药",
    "hair": "haircut haircuts hairdresser barber barbershop hair_stylist hair_salon cut_my_hair cuts_my_hair "
            "does_my_hair clippers | 剪头 理发 剪发 发型师 理发店 剪(?!辑|纸|刀|枝|彩|贴|影|裁|指|掉|断|开)",
    "vet": "vet vets veterinarian veterinary animal_hospital animal_clinic | 兽医 宠物医院 动物医院 宠物诊所 动物诊所",
    "therapist": "therapist therapists therapy counsellor counselor counselling counseling psychologist "
                 "| 心理咨询 咨询师 心理医生 心理治疗",
    "physio": "physio physios physiotherapist physiotherapy physical_therapist physical_therapy rehab "
              "| 理疗 康复科 康复中心 康复训练 治疗师 复健",
    "dentist": "dentist dentists dental | 牙医 牙科 齿科 口腔 [洗看补拔][完了过]?牙",
    # (who the landlord is and what the rent is are two facts: "新房东是个年轻人" changes no rent of $1,650;
    # a landlord raising it speaks of the rent)
    "rent": r"rent rents tenancy re:\blandlords?\s+(?:just\s+|finally\s+|has\s+|is\s+)?(?:raised|raises|raising|"
            r"hiked|hikes|hiking|bumped|bumps|bumping|upped|increased|jacked)\b"
            r"|\blandlords?\s+(?:just\s+|finally\s+|has\s+|is\s+)?(?:put|puts|putting)\s+(?:it|the\s+rent)\s+up\b "
            r"| 房租 租金 续租 租约 房东(?:又|说要)?(?:涨|加租|加价)",
    "landlord": "landlord landlady landlords | 房东",
    "pay": r"salary salaries paycheck paychecks take-home wage wages "
           r"re:\bhow\s+much\s+(?:do|does)\s+(?:i|we|my\s+\w+)\s+(?:make|earn)\b"
           r"(?=\s*(?:now\b|these\s+days|at\b|a\s+(?:year|month|week|hour)|per\b|an\s+hour|[?？.!]|$))"
           r"|\b(?:i|we)\s+(?:now\s+)?(?:make|earn)\s+(?:about\s+|around\s+|like\s+)?"
           r"(?:[$£€¥]\s?\d|\d[\d,.]*\s*(?:k\b(?!\s+(?:steps|miles|points|followers|views|words))|grand\b"
           r"|(?:a|an|per)\s+(?:year|month|week|hour)\b|/\s*(?:yr|year|hr|hour|mo)\b)) "
           "| 工资(?!卡|条) 薪水 月薪 年薪 薪资 涨薪 调薪 加薪",
    "job title": r"job_title re:\b(?:my|official|new)\s+(?:job\s+)?title\b "
                 r"re:\bgot\s+(?:the\s+|a\s+|my\s+)?promotion\b "
                 r"re:\b(?:i|i've|i\s+was|i\s+got|just\s+got|finally\s+got)\s+promoted\b|\bmy\s+promotion\b "
                 r"re:(?:\bi'm|\bi\s+am|\bi\s+work\s+as|(?<!'s\s)(?<!’s\s)(?<!is\s)\bofficially)\s+(?:now\s+)?(?:an?\s+|the\s+)?"
                 + _RANK + r"\s+(?:[a-z]+\s+)?" + _JOB
                 + r"|\bpromoted\s+to\s+(?:an?\s+|the\s+)?(?:" + _RANK + r"\s+)?(?:[a-z]+\s+)?(?:" + _JOB + r"|vp\b) "
                 "| 职位 职称 头衔 升职 晋升",
    # (one's own: "my boss", "I report to"; not the final boss of a game, a store's or a password manager,
    # "report to gate 12", 领导力; nor 老板, as often a shop's: "面馆的新老板是四川人")
    "manager": r"line_manager re[boss]:\b(?:my|our)\s+(?:new\s+|old\s+|current\s+)?boss(?:es)?\b "
               r"re[manager]:\b(?:my|our)\s+(?:new\s+|old\s+|current\s+|direct\s+|line\s+)?managers?\b "
               r"re[supervisor]:\b(?:my|our)\s+(?:new\s+|old\s+|current\s+|direct\s+)?supervisors?\b "
               r"re[report]:\b(?:i|we)(?:'m|\s+am|'re|\s+are)?\s+(?:now\s+|directly\s+|still\s+)?report(?:s|ing)?\s+"
               r"(?:directly\s+)?to\b "
               r"| (?<![店馆厅铺])(?<!店的)(?<!馆的)领导(?!力) 上司 我[^，。！？\s]{0,4}汇报给",
    # where one works: one's employer, a job held ("I'm a line cook at Olive Garden", 我在阿里做前端), a job
    # taken or left ("accepted the offer from Fabrikam", "first week at Netflix", 离职, 跳槽); not working out,
    # an offer on a house, nor a time ("started at 9")
    "workplace": r"re[employer]:\b(?:my|our)\s+(?:new\s+|old\s+|current\s+)?employer\b "
                 r"re[work]:\b(?:where|who)\s+(?:do|does)\s+(?:i|we|my\s+\w+)\s+work\b|\bwhere\s+am\s+i\s+working\b"
                 r"|\bi\s+(?:now\s+|still\s+)?work(?!\s+out)\s+(?:\S+\s+){0,5}?(?:at|for)\b "
                 r"re[company]:\b(?:what|which)\s+company\s+(?:am|do)\s+i\b|\bmy\s+(?:new\s+|old\s+)?company\b "
                 r"re[offer]:\baccepted\s+(?:the\s+|an?\s+|their\s+)?(?:job\s+)?offer\s+(?:from|at|with)\b"
                 r"|\b(?:accepted|took|got)\s+(?:the\s+|an?\s+)?job\s+offer\b "
                 r"re[job]:\bnew\s+job\b|\b(?:quit|left)\s+my\s+job\b "
                 r"re:\b(?:i'm|i\s+am)\s+(?:now\s+)?(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:at|for)\s+"
                 r"(?!home\b|night\b|the\s+moment\b|least\b|times\b|once\b|first\b|all\b|\d) "
                 r"re:\b(?:first|last)\s+(?:day|week|shift)\s+(?:at|with)\b|\blaid\s+off\b|\bresigned\b|\bjumped\s+ship\b"
                 r"|\b(?:started|starting)\s+(?:at|with)\s+(?!\d|the\s+(?:top|bottom|beginning))"
                 r"|\bleft\s+(?:\S+\s+){1,3}(?:and|to)\s+join(?:ed)?\b "
                 r"| 入职 跳槽 新公司 离职 辞职 裸辞 被裁 创业 雇主 公司叫 在哪(?:个|家)公司 在哪(?:个|家)?(?:公司)?(?:上班|工作) "
                 r"我在[^，。！？\s]{1,12}(?:上班|工作) 接了[^，。！？\s]{0,6}offer "
                 r"在(?!家)[^，。！？\s]{1,8}[做当][^，。！？\s]{0,6}(?:师|员|工|经理|主管|总监|专员|运营|前端|后端|测试|开发|设计|产品|"
                 r"销售|采购|文案|美术|维护|理赔|供应链|HR|hr|行政|财务|客服|老师|医生|护士|厨师|会计)",
    # where one lives: a home and a move of it ("We moved to Berlin last month", "Moved into a new apartment on
    # Cedar Lane", 上个月搬家了, 我们新家离西湖很近); not live music or a live show, a meeting, a day, a desk, a shift, a
    # plan or a tool moved to ("the standup moved to 10am", "we moved to Thursdays", "moved to a standing desk",
    # "moved to the Pro plan", "we moved to Slack at work"), a stay at a hotel (住在…酒店), a moving company, a
    # department, a sofa or a chat group moved (我们部门搬到5楼, 我把沙发搬到阳台), a pet's new home, new furniture
    # (新家具), an email address
    "home": r"re[live]:\bwhere\s+(?:do|does|did)\s+(?:i|we)\s+(?:now\s+|currently\s+)?live\b"
            r"|\b(?:which|what)\s+(?:city|town|neighbou?rhood|area|street|suburb|country)\s+(?:do|does)\s+(?:i|we)\s+"
            r"(?:now\s+|currently\s+)?live\b"
            r"|\b(?:i|we)\s+(?:now\s+|still\s+|currently\s+)?(?:live|lived)\s+(?:in|on|at|near|off|by)\b"
            r"|\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:now\s+|still\s+)?living\s+(?:in|on|at|near|off|by)\b "
            r"re[moved]:(?:\b(?:i|we)(?:'ve|\s+have|\s+just|\s+finally|\s+officially|\s+recently)*|(?:^|[.!?:]\s+)"
            r"(?:just\s+|finally\s+|officially\s+)?)\s*(?:moved|relocated)\s+(?:(?:back|over|out)\s+)?(?:in)?to\s+"
            r"(?!(?:a|an|the|my|our)\b(?!\s+(?:new\s+|bigger\s+|smaller\s+|little\s+)?(?:place|apartment|flat|home|"
            r"studio|city|town|neighbou?rhood|suburbs?|countryside|village)\b)"
            r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|weekends?\b|mornings?\b|evenings?\b|\d"
            r"|[^.!?;]*\b(?:at|for)\s+work\b)"
            r"|\bmoved\s+house\b "
            r"re:\b(?:my|our|the|a)\s+new\s+(?:apartment|flat|place|home)\b(?!\s+(?:for|to\s+eat))"
            r"|\b(?:my|our)\s+(?:new\s+|home\s+)?address\b(?!\s+(?:is\s+)?\S*@) "
            r"| (?<![奶爷姥外他她])住在(?![^，。！？\s]{0,8}(?:酒店|宾馆|民宿|旅馆|客栈|医院)) (?<![奶爷姥外他她])住哪 (?:我|我们)家在哪"
            r" (?:我们|我|全家|一家人?)(?:家)?(?:已经|上个月|上周|上周末|刚刚?|终于|也|都|就|前几天|昨天|今天)?"
            r"搬(?:家|到|去|进|来) 搬家(?!公司) (?<![个了])新家(?![具电伙]) (?:家庭|新家的?|家的)地址 住址",
    "roommate": "roommate roommates flatmate flatmates housemate housemates | 室友 舍友 合租",
    "calories": "calorie calories kcal | 热量 卡路里 大卡 千卡",
    "groceries": "groceries grocery weekly_shop food_shopping supermarket | 买菜 生鲜 超市",
    "childcare": r"babysitter babysitters babysitting nanny nannies childminder au_pair childcare "
                 r"re:(?<!teach\s)(?<!teaches\s)(?<!teaching\s)(?<!taught\s)\b(?:preschools?|pre-?k|nursery\s+schools?)\b"
                 r"(?!\s+teachers?) "
                 r"re:(?<!doggy\s)(?<!doggie\s)(?<!dog\s)(?<!pet\s)(?<!adult\s)(?<!senior\s)\bdaycares?\b"
                 r"|\b(?:picks?|picking|picked)\s+(?:up\s+the\s+kids(?!['’])|the\s+kids\s+up)\b|\bschool\s+run\b(?!\s+by)"
                 r"|\bafter-?school\s+(?:program|programme|care|club)\b "
                 r"re:(?<!dog\s)(?<!cat\s)(?<!pet\s)(?<!house\s)(?<!plant\s)\bsitters?\b "
                 r"| 保姆 育儿嫂 托班 托育 (?<![好难])(?:带孩子|带娃|看孩子)(?![去出写玩的逛看打])"
                 r" 接送孩子 孩子[^，。！？\s]{0,4}谁(?:带|看|接)(?!过) 托儿所 幼儿园(?!老师|园长|上班|工作|水平|级别|当老师|的老师|的水平)",
    "allowance": r"re:(?<!baggage\s)(?<!luggage\s)(?<!data\s)\ballowances?\b | 生活费",
    "choir": r"choir choirs chorus soprano baritone voice_part re:(?<!palo\s)\baltos?\b re:\btenors?\b(?!\s+of) "
             "| 合唱 声部 [男女][高中低]音 唱[男女]?[高中低] [高中低]音(?:组|部)",
    "dose": r"dosage re:\bdos(?:e|es)\b(?!\s+of\s+(?:reality|fresh|humou?r|common|sanity|nostalgia)) re:\d\s*mg\b "
            "| 剂量 药量 毫克 加量 减量",
    "taxes": "taxes tax_return accountant accounting_firm cpa tax_preparer bookkeeper | 报税 会计 个税",
    "volunteering": "volunteer volunteers volunteering | 志愿者 义工 做志愿",
    "drinking": "alcohol booze beer wine whisky whiskey sober sobriety | 喝酒 酒精 白酒 啤酒 红酒 戒酒 滴酒",
    "coffee": "coffee coffees espresso latte lattes americano caffeine decaf | 咖啡 (?:冰|热|杯)美式|美式咖啡 拿铁",
    "doctor": "gp physician primary_care family_doctor | 家庭医生 全科 签约医生",
    "smoking": "smoke smoking smoker cigarette cigarettes vape vaping | 抽烟 吸烟 戒烟 电子烟",
}


# an English entry that is a pattern, and the index word it may name ("re[boss]:…")
_RE_ENTRY = re.compile(r"re(?:\[([a-z ]+)\])?:")


def _english(word: str) -> str:
    """The pattern of an English entry: as written (``re:``, ``re[word]:``), or as text/kinds.py
    ``surface`` reads a word."""
    m = _RE_ENTRY.match(word)
    if m:
        return word[m.end():]
    from .kinds import surface

    return surface(word.replace("_", " ")).pattern


def _sides(facet: str) -> tuple[list[str], list[str]]:
    """A facet's English entries and its Chinese ones (:data:`FACETS`: " | " parts them, for a
    pattern may hold a "|" of its own)."""
    en, bar, zh = FACETS[facet].partition(" | ")
    assert bar and en.strip() and zh.strip(), facet  # (an empty side would match every text)
    return en.split(), zh.split()


@lru_cache(maxsize=1)
def _parsed() -> tuple[tuple[str, re.Pattern, re.Pattern], ...]:
    """Each facet as (its name, one pattern of its English entries, one of its Chinese ones): a text
    is read once per facet and language (texts are lower-cased before)."""
    out = []
    for facet in FACETS:
        en, zh = _sides(facet)
        out.append((facet, re.compile("|".join(f"(?:{_english(w)})" for w in en)), re.compile("|".join(zh))))
    return tuple(out)


# a Chinese entry's lookarounds (what may not stand before or after its word), and what makes an entry
# a pattern rather than a word
_LOOKAROUND = re.compile(r"\(\?<?[=!][^()]*\)")
_PATTERN = re.compile(r"[\\\[\](){}|?*+.^$]")


@lru_cache(maxsize=1)
def index_words() -> dict[str, tuple[tuple[str, str], ...]]:
    """Each facet's entries a keyword index can be asked for, as (the word, the pattern that says
    where a text names it, or "" where the word as written says it): the English words and
    phrases, the patterns that name their word (``re[boss]:``), the Chinese words, and the Chinese
    words kept from a sense by what stands beside them (工资 of ``工资(?!卡|条)``). Not the other
    patterns ("50mg", [洗看补拔]牙): they name no one word."""
    out = {}
    for facet in FACETS:
        en, zh = _sides(facet)
        entries = []
        for w in en:
            m = _RE_ENTRY.match(w)
            if m is None:
                entries.append((w.replace("_", " "), ""))
            elif m.group(1):
                entries.append((m.group(1), w[m.end():]))
        for w in zh:
            core = _LOOKAROUND.sub("", w)
            if core and not _PATTERN.search(core):
                entries.append((core, "" if core == w else w))
        out[facet] = tuple(entries)
    return out


@lru_cache(maxsize=8192)
def facets_of(text: str) -> frozenset[str]:
    """The facets ``text`` names (:data:`FACETS`)."""
    return _named(text, None)


@lru_cache(maxsize=8192)
def facets_named(text: str, among: frozenset[str]) -> frozenset[str]:
    """Those of ``among`` that ``text`` names: :func:`facets_of` reading only their patterns (a search
    weighs the lines it ranks against the one or two facets its question names, not all of them)."""
    return _named(text, among) if among else frozenset()


def _named(text: str, among: frozenset[str] | None) -> frozenset[str]:
    """The facets ``text`` names, of ``among`` (None: of all)."""
    low = text.lower()
    cjk = has_cjk(low)
    return frozenset(facet for facet, en, zh in _parsed()
                     if (among is None or facet in among) and (en.search(low) or (cjk and zh.search(low))))
