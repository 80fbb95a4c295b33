"""1,000 ordinary messages (500 English, 500 Chinese) for measuring trigger false fires.

Made from templates and word lists written for this benchmark -- a different set from the
background sample Dreaming checks triggers against at promotion time
(``src/reverie/dreaming/background.py``), so the figure is not graded on the data that shaped it.
They are the everyday requests an assistant gets, and on purpose they use the same everyday nouns
the scripted facts use (cabin, stove, hotel, gym, piano, dentist, wine, bike, 酒店, 钢琴, 牙医, 茶,
停车 …) in ordinary sentences: a trigger made of a single common word would fire on them.
"""

from __future__ import annotations

import random

EN_TEMPLATES = [
    "Can you help me {task}?", "I need to {task} before {when}.", "Do you know how to {task}?",
    "What's the best way to {task}?", "Remind me to {task} {when}.", "I forgot to {task} again.",
    "Is it hard to {task}?", "My {person} asked me to {task}.", "We should {task} {when}.",
    "The {thing} is broken, any ideas?", "Where can I buy a cheap {thing}?", "Our {thing} makes a weird noise.",
    "How long does a {thing} usually last?", "My {person} wants a new {thing} for {when}.",
    "The {place} was really busy {when}.", "Any good {place} near the station?", "Is the {place} open {when}?",
    "I'm meeting my {person} at the {place} {when}.", "What should I wear to the {place}?",
    "The {place} raised its prices again.", "I'm {feeling} about {event}.", "How do I prepare for {event}?",
    "Can we talk about {event} later?", "What did you think of {event}?", "Write a short note about {event}.",
    "I read that {topic} is getting popular.", "Explain {topic} in simple words.", "Give me three facts about {topic}.",
    "What's new in {topic} this year?", "My {person} is into {topic} lately.",
]
EN_SLOTS = {
    "task": ["book a hotel", "fix the wifi", "reset my password", "clean the stove", "pay the power bill",
             "water the plants", "renew my insurance", "call the dentist", "return a parcel", "plan a trip",
             "change a bike tyre", "tune a piano", "choose a wine", "find a parking spot", "update the app",
             "write a cover letter", "sort the photos", "defrost the freezer", "book a vet visit", "learn to climb",
             "order groceries", "back up my phone", "paint the fence", "fill in a tax form", "cancel a flight"],
    "thing": ["stove", "boiler", "laptop", "bike", "printer", "router", "kettle", "fridge", "car", "phone",
              "washing machine", "piano", "window", "heater", "vacuum", "toaster", "lamp", "camera"],
    "person": ["mom", "dad", "sister", "brother", "boss", "neighbour", "friend", "partner", "son", "daughter",
               "colleague", "landlord", "teacher", "cousin"],
    "place": ["gym", "hotel", "cafe", "library", "cabin", "dentist", "clinic", "museum", "market", "park",
              "airport", "office", "pool", "bakery", "cinema", "station", "restaurant", "school"],
    "when": ["tomorrow", "tonight", "on Friday", "next week", "this weekend", "in March", "after lunch",
             "on Tuesday", "before the holidays", "in the morning"],
    "feeling": ["excited", "worried", "unsure", "happy", "nervous", "curious"],
    "event": ["the team dinner", "the school play", "the interview", "the wedding", "the move", "the migration",
              "the quarterly review", "the concert", "the marathon", "the launch", "the trip to the lake"],
    "topic": ["electric cars", "home workouts", "sourdough", "climbing", "tea", "budget travel", "gardening",
              "machine learning", "jazz", "chess", "wine tasting", "cycling", "podcasts", "meditation"],
}
ZH_TEMPLATES = [
    "帮我{task}好吗？", "我得在{when}之前{task}。", "你知道怎么{task}吗？", "{task}有什么好办法？",
    "提醒我{when}{task}。", "我又忘了{task}。", "{person}让我{task}。", "我们{when}应该{task}。",
    "{thing}坏了，怎么办？", "哪里能买到便宜的{thing}？", "家里的{thing}有怪声。", "{thing}一般能用几年？",
    "{person}想{when}买个新{thing}。", "{place}{when}人特别多。", "{place}{when}开门吗？", "我{when}和{person}在{place}见面。",
    "去{place}穿什么合适？", "{place}又涨价了。", "我对{event}有点{feeling}。", "{event}要怎么准备？",
    "{event}的事晚点再聊吧。", "你觉得{event}怎么样？", "听说{topic}最近很火。", "用简单的话讲讲{topic}。",
    "说三个关于{topic}的知识。", "{person}最近迷上了{topic}。", "今天{feeling2}，{when}想去{place}。",
    "我们决定{when}去{place}。", "记得{when}{task}。", "用户说{thing}用不了。",
]
ZH_SLOTS = {
    "task": ["订酒店", "修无线网", "重置密码", "清洗灶台", "交电费", "给花浇水", "续保险", "给牙医打电话", "退快递",
             "做旅行计划", "换自行车胎", "调钢琴", "挑一瓶红酒", "找停车位", "更新应用", "写简历", "整理照片",
             "带猫去打疫苗", "学攀岩", "买菜", "备份手机", "交学费", "取消航班", "泡茶", "预约体检"],
    "thing": ["灶台", "热水器", "笔记本电脑", "自行车", "打印机", "路由器", "水壶", "冰箱", "汽车", "手机", "洗衣机",
              "钢琴", "窗户", "暖气", "吸尘器", "相机", "台灯"],
    "person": ["妈妈", "爸爸", "姐姐", "哥哥", "老板", "邻居", "朋友", "老公", "老婆", "儿子", "女儿", "同事", "房东",
               "老师"],
    "place": ["健身房", "酒店", "咖啡店", "图书馆", "小木屋", "牙科诊所", "医院", "博物馆", "菜市场", "公园", "机场",
              "办公室", "游泳馆", "面包店", "电影院", "火车站", "餐厅", "学校", "商场", "西湖边"],
    "when": ["明天", "今晚", "周五", "下周", "这个周末", "三月", "午饭后", "周二", "放假前", "早上"],
    "feeling": ["期待", "担心", "没把握", "紧张", "好奇"],
    "feeling2": ["天气不错", "有点累", "心情很好", "下雨了", "好冷"],
    "event": ["团队聚餐", "学校演出", "面试", "婚礼", "搬家", "系统迁移", "季度总结", "演唱会", "马拉松", "产品发布",
              "去湖边旅行"],
    "topic": ["电动车", "居家健身", "烘焙", "攀岩", "喝茶", "穷游", "园艺", "机器学习", "爵士乐", "围棋", "品酒", "骑行",
              "播客", "冥想"],
}


def _fill(rng: random.Random, template: str, slots: dict) -> str:
    out = template
    for name, words in slots.items():
        while "{" + name + "}" in out:
            out = out.replace("{" + name + "}", rng.choice(words), 1)
    return out


def messages(n_each: int = 500, seed: int = 29) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    for templates, slots in ((EN_TEMPLATES, EN_SLOTS), (ZH_TEMPLATES, ZH_SLOTS)):
        seen: set[str] = set()
        while len(seen) < n_each:
            m = _fill(rng, rng.choice(templates), slots)
            if m not in seen:
                seen.add(m)
                out.append(m)
    return out
