"""Generated memory notes in real words, for benchmarks that need real embeddings.

perf.py's generator draws Zipf-distributed made-up words: right for keyword statistics, but an
embedding model sees noise in them, and vectors of noise do not have the neighbourhoods of a real
memory (notes on one trip, one project, one person lie close together). This one writes short
notes from templates over real vocabulary in English and Chinese (with some mixed), about twenty
topics (travel, a release, a doctor's visit, the rent, ...) with their own objects, people, places
and times, so that the bundled embedder gives vectors with real structure.

``note(i)`` is a pure function of ``i``: the first 10,000 notes of a 100,000 run are the 10,000
of a 10,000 run, and cached vectors (``pg_vectors.py``) serve every size.
"""

from __future__ import annotations

import random

PEOPLE_EN = ("Alice", "Bob", "Carol", "Dan", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Oscar",
             "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Wendy", "my manager", "the landlord", "my sister",
             "the new intern", "our client", "Dr. Chen", "Mom")
PEOPLE_ZH = ("小王", "老李", "张经理", "陈医生", "妈妈", "姐姐", "房东", "新来的实习生", "客户", "刘老师", "小赵", "同事阿杰",
             "老板", "表哥", "室友")
TIMES_EN = ("Yesterday", "This morning", "On Monday", "Last week", "Before lunch", "Tonight", "On Friday",
            "After the standup", "Over the weekend", "In March", "Two days ago", "At 9 pm")
TIMES_ZH = ("昨天", "今天上午", "周一", "上周", "午饭前", "今晚", "周五", "站会之后", "周末", "三月份", "前天", "晚上九点")

# topic -> (English objects, English verbs, Chinese objects, Chinese verbs)
TOPICS = {
    "travel": (("the hotel booking in Hangzhou", "a lake view room", "the return train ticket", "the flight to Tokyo",
                "the travel budget", "our luggage allowance", "the visa appointment", "a car rental in Kyoto"),
               ("booked", "cancelled", "compared prices for", "asked about", "changed"),
               ("杭州的酒店", "湖景房", "返程车票", "去东京的航班", "旅行预算", "行李额度", "签证预约", "高铁票"),
               ("订了", "取消了", "比较了", "问了", "改签了")),
    "release": (("the v2 release", "the rollback plan", "the database migration", "the search index rebuild",
                 "the staging deploy", "the release notes", "the feature flag for dark mode", "the canary rollout"),
                ("reviewed", "postponed", "approved", "tested", "shipped"),
                ("新版本上线", "回滚方案", "数据库迁移", "索引重建", "预发布部署", "发布说明", "灰度发布", "功能开关"),
                ("评审了", "推迟了", "批准了", "测试了", "完成了")),
    "incident": (("the latency alert", "a memory leak in the worker", "the disk full incident", "the outage report",
                  "the on-call rotation", "a flaky test in CI", "the cache miss spike", "the broken login page"),
                 ("debugged", "escalated", "wrote up", "fixed", "investigated"),
                 ("延迟告警", "内存泄漏", "磁盘满的故障", "故障报告", "值班安排", "不稳定的测试", "缓存命中率下降", "登录页面的问题"),
                 ("排查了", "上报了", "整理了", "修复了", "跟进了")),
    "health": (("the annual checkup", "the blood test results", "a dentist appointment", "my knee injury",
                "the allergy medicine", "the physiotherapy plan", "a new running routine", "the eye exam"),
               ("scheduled", "discussed", "got", "started", "worried about"),
               ("年度体检", "验血结果", "牙医预约", "膝盖受伤", "过敏药", "康复计划", "跑步计划", "眼科检查"),
               ("预约了", "讨论了", "拿到了", "开始了", "担心")),
    "money": (("the rent increase", "the insurance renewal", "my salary review", "the tax return", "an expense report",
               "the electricity bill", "the mortgage rate", "the shared grocery budget"),
              ("paid", "negotiated", "filed", "disputed", "split"),
              ("房租上涨", "保险续费", "工资调整", "报税", "报销单", "电费账单", "房贷利率", "买菜的预算"),
              ("交了", "谈了", "提交了", "质疑了", "分摊了")),
    "family": (("the school pickup", "my daughter's homework", "the birthday party", "grandma's visit",
                "the piano lessons", "the summer camp signup", "the parent teacher meeting", "the new puppy"),
               ("planned", "forgot", "organised", "talked about", "signed up for"),
               ("接孩子放学", "女儿的作业", "生日派对", "奶奶来访", "钢琴课", "夏令营报名", "家长会", "新养的小狗"),
               ("安排了", "忘了", "组织了", "聊了", "报名了")),
    "food": (("the Sichuan restaurant downtown", "a vegetarian menu", "the coffee subscription", "dinner reservations",
              "the dumpling recipe", "a peanut allergy at dinner", "the team lunch", "the new bakery"),
             ("tried", "recommended", "booked", "cooked", "complained about"),
             ("市中心的川菜馆", "素食菜单", "咖啡订阅", "晚餐预订", "饺子的做法", "花生过敏", "团队午餐", "新开的面包店"),
             ("尝了", "推荐了", "预订了", "做了", "抱怨了")),
    "hiring": (("the backend interview", "a candidate's resume", "the offer letter", "the onboarding checklist",
                "the team headcount", "the referral bonus", "the design exercise", "the reference check"),
               ("ran", "read", "sent", "updated", "questioned"),
               ("后端面试", "候选人的简历", "录用通知", "入职清单", "团队编制", "内推奖金", "设计题", "背景调查"),
               ("安排了", "看了", "发出了", "更新了", "质疑了")),
    "home": (("the leaking kitchen tap", "moving to the new flat", "the broken heater", "the internet contract",
              "the furniture delivery", "a noisy neighbour", "the lease renewal", "the washing machine repair"),
             ("reported", "arranged", "fixed", "cancelled", "measured"),
             ("厨房漏水的水龙头", "搬家", "坏了的暖气", "宽带合同", "家具送货", "吵闹的邻居", "续租", "洗衣机维修"),
             ("报修了", "安排了", "修好了", "退掉了", "量了")),
    "learning": (("the Japanese course", "a book on distributed systems", "the guitar practice", "the ML reading group",
                  "the online statistics class", "the Rust tutorial", "the public speaking workshop", "the chess club"),
                 ("started", "finished", "skipped", "enjoyed", "paused"),
                 ("日语课", "分布式系统的书", "吉他练习", "机器学习读书会", "统计学网课", "Rust 教程", "演讲培训", "象棋俱乐部"),
                 ("开始了", "读完了", "跳过了", "喜欢上了", "暂停了")),
    "agents": (("the memory search ranking", "the embedding cache", "the prompt for the support bot",
                "the context window budget", "the vector index recall", "the keyword fallback for Chinese",
                "the agent's daily notes", "the evaluation on LoCoMo"),
               ("tuned", "measured", "rewrote", "benchmarked", "simplified"),
               ("记忆检索的排序", "向量缓存", "客服机器人的提示词", "上下文预算", "向量索引召回率", "中文关键词检索", "每日笔记", "评测结果"),
               ("调了", "测了", "重写了", "压测了", "简化了")),
    "weather": (("the typhoon warning", "a rainy weekend", "the heatwave", "the snow on the pass", "the air quality",
                 "the hiking forecast", "the flooded underpass", "the first frost"),
                ("checked", "complained about", "prepared for", "noticed", "avoided"),
                ("台风预警", "下雨的周末", "高温天气", "山口的雪", "空气质量", "登山天气", "积水的地道", "初霜"),
                ("看了", "抱怨了", "准备了", "注意到", "避开了")),
}
TAILS_EN = ("and decided to wait until next month", "because the price went up by {n} percent",
            "and it should be done by {d}", "but nobody followed up", "and wrote it in the shared doc",
            "which cost about {n}0 dollars", "and we agreed to revisit it on {d}", "and it was better than expected",
            "so remind me in {n} days", "and the answer was no", "with a budget of {n}00", "and it went fine")
TAILS_ZH = ("，决定下个月再说", "，价格涨了百分之{n}", "，{d}之前要搞定", "，但是没人跟进", "，已经写进共享文档",
            "，大概花了{n}百块", "，约好{d}再看", "，比预想的好", "，{n}天后提醒我", "，结果被拒了", "，预算{n}千", "，一切顺利")
DAYS_EN = ("Monday", "Tuesday", "Friday", "the 15th", "the end of the month", "next week")
DAYS_ZH = ("周一", "周二", "周五", "十五号", "月底", "下周")
PREFS_EN = ("{p} prefers {o}", "{p} does not like {o}", "Remember that {p} asked about {o}",
            "Note: {p} is responsible for {o}")
PREFS_ZH = ("{p}更喜欢{o}", "{p}不喜欢{o}", "记住{p}问过{o}", "备注：{o}由{p}负责")

_TOPIC_NAMES = sorted(TOPICS)


def note(i: int, seed: int = 17) -> str:
    """Note ``i``: one to three sentences, English (50%), Chinese (35%) or mixed (15%)."""
    rng = random.Random(seed * 1_000_003 + i)
    topic = TOPICS[_TOPIC_NAMES[int(rng.paretovariate(1.2)) % len(_TOPIC_NAMES)]]
    lang = rng.choices(("en", "zh", "mix"), (50, 35, 15))[0]
    out = []
    for _ in range(rng.choices((1, 2, 3), (55, 35, 10))[0]):
        if rng.random() < 0.25:  # a second topic in the same note, as real days mix
            topic = TOPICS[rng.choice(_TOPIC_NAMES)]
        out.append(_sentence(rng, topic, lang if lang != "mix" else rng.choice(("en", "zh"))))
    return " ".join(out)


def _sentence(rng: random.Random, topic, lang: str) -> str:
    o_en, v_en, o_zh, v_zh = topic
    n, k = rng.randint(2, 9), rng.randrange(len(o_en))
    if lang == "en":
        tail = rng.choice(TAILS_EN).format(n=n, d=rng.choice(DAYS_EN))
        if rng.random() < 0.2:
            return rng.choice(PREFS_EN).format(p=rng.choice(PEOPLE_EN), o=o_en[k]) + f" {tail}."
        return f"{rng.choice(TIMES_EN)} {rng.choice(PEOPLE_EN)} {rng.choice(v_en)} {o_en[k]} {tail}."
    tail = rng.choice(TAILS_ZH).format(n=n, d=rng.choice(DAYS_ZH))
    if rng.random() < 0.2:
        return rng.choice(PREFS_ZH).format(p=rng.choice(PEOPLE_ZH), o=o_zh[k]) + f"{tail}。"
    return f"{rng.choice(TIMES_ZH)}{rng.choice(PEOPLE_ZH)}{rng.choice(v_zh)}{o_zh[k]}{tail}。"


def queries(count: int, seed: int = 23) -> list[str]:
    """Short questions as people ask them of their memory: an object alone, a person and an
    object, a question in words, in English, Chinese and mixed."""
    rng = random.Random(seed)
    out = []
    for j in range(count):
        o_en, _, o_zh, _ = TOPICS[rng.choice(_TOPIC_NAMES)]
        k = rng.randrange(len(o_en))
        kind = j % 6
        if kind == 0:
            out.append(o_zh[k])
        elif kind == 1:
            out.append(o_en[k].removeprefix("the ").removeprefix("a ").removeprefix("my "))
        elif kind == 2:
            out.append(f"what did {rng.choice(PEOPLE_EN)} say about {o_en[k]}")
        elif kind == 3:
            out.append(f"{rng.choice(PEOPLE_ZH)}{o_zh[k]}怎么样了")
        elif kind == 4:
            out.append(f"{o_en[k].split()[-1]} {o_zh[k]}")
        else:
            out.append(f"when is {o_en[k]} due")
    return out
