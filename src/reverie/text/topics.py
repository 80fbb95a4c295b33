"""The everyday topics a request for a recommendation is about, in English and Chinese.

"What kind of holiday should I book this summer?" is answered by "I hate crowded beaches, I prefer
quiet mountain villages": no word in common, only the topic (travel). With the embedder on, the
vector leg judges such a taste; without it, a keyword-only search had nothing to judge by and
showed the owner's tastes for 1 request in 8 (docs/search.md §17, "Tastes without vectors"). This
is a small hand-written lexicon of the topics people ask advice about — food and drink, travel,
reading, listening, watching, making things, sport, games, clothes, devices, the home, pets,
learning — each a set of English words (a trailing ``*`` matches any ending; a leading ``~``: not
right after "I", "we", "to" or a modal verb, where it is a verb) and Chinese words (matched as
substrings). A word may name two topics ("hiking": sport and travel).

Only what is asked and what is stated as a taste are matched against each other (both short and
both already recognised as such), so a coarse topic errs little: the question "Can you suggest a
new hobby?" names the leisure topics (:data:`LEISURE`), any of which a stated taste may answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .cjk import LazyPattern

# topic -> (English words, Chinese words). Chinese single characters only where no common word
# holds them in another sense (not 花, as in 花钱 "spend money"; not 酒 alone, as in 酒店 "hotel").
TOPICS: dict[str, tuple[str, str]] = {
    "food": (
        "food* foodie* eat eating ate meal* dinner* lunch* breakfast* brunch* supper* restaurant* cafe* café* "
        "bistro* diner diners cuisine* dish dishes recipe* cook* bake* baking snack* dessert* spicy sweets "
        "savo* vegetarian* vegan* meat* seafood sushi pizza* pasta noodle* curry curries burger* bbq barbecue* "
        "takeaway* takeout* menu* flavo* chef* grill* steak* salad* soup* coffee* tea teas wine* beer* "
        "cocktail* juice* whisk* latte* espresso* bakery bakeries",
        "吃 餐 饭 菜 食 厨 烹 烤 辣 甜点 吃素 素食 肉 面条 火锅 烧烤 零食 口味 美食 料理 小吃 外卖 咖啡 茶 喝酒 "
        "红酒 啤酒 葡萄酒 白酒 鸡尾酒 饮料 奶茶 甜品 蛋糕"),
    "travel": (
        "holiday* vacation* trip trips travel* journey* getaway* tour tours touring tourist* destination* beach* "
        "mountain* village* island* resort* hotel* hostel* camp* cruise* flight* sightsee* countryside abroad "
        "backpack* roadtrip* seaside coast* lake lakes hik* trek* city cities town towns",
        "旅行 旅游 假期 度假 出游 出行 景点 海滩 海边 沙滩 山 村 岛 酒店 民宿 露营 游轮 出国 自驾 背包 古镇 城市 "
        "湖 徒步 乡下 乡村"),
    "reading": (
        # "~": not as a verb ("should I book", "to book a table" is no book)
        "~book books novel* read reading reads author* fiction nonfiction "
        "memoir* biograph* poem* poetry literature kindle ebook* audiobook* comic* manga",
        "书 小说 阅读 读 作家 传记 诗 文学 漫画 有声书"),
    "listening": (
        "podcast* audiobook* radio music* musician* song* album* band bands playlist* concert* gig gigs jazz "
        "rock pop classical opera* orchestra* symphon* singer* vinyl",
        "播客 有声书 电台 音乐 歌 专辑 乐队 乐团 演唱会 音乐会 爵士 摇滚 古典 歌剧 交响"),
    "watching": (
        "movie* film* cinema* show shows series tv television documentar* anime drama* sitcom* comedy comedies "
        "thriller* horror netflix streaming episode* watch*",
        "电影 影院 电视 剧 纪录片 动漫 动画 综艺 看片 追剧 喜剧 恐怖片"),
    "making": (
        "craft* woodwork* pottery ceramic* knit* sew sewing paint* draw drawing drawings sketch* photograph* "
        "garden* diy handmade hands build* making model* origami calligraph* embroider* crochet* carpent*",
        "手工 木工 陶艺 陶瓷 编织 织毛衣 画画 绘画 素描 摄影 园艺 动手 书法 刺绣 手作 模型 做东西"),
    "sport": (
        "sport* exercis* workout* gym* fitness run running runner* jog* swim* cycl* bike* biking yoga pilates hik* "
        "climb* tennis football soccer basketball badminton ski skiing snowboard* surf* marathon* danc* "
        "martial boxing golf",
        "运动 锻炼 健身 跑步 游泳 骑车 骑行 瑜伽 徒步 爬山 登山 攀岩 网球 足球 篮球 羽毛球 滑雪 冲浪 马拉松 跳舞 "
        "舞蹈 拳击 高尔夫"),
    "games": (
        "game* gaming gamer* puzzle* chess boardgame* console* nintendo playstation xbox",
        "游戏 桌游 棋 拼图 电玩"),
    "clothes": (
        "clothes clothing outfit* dress* shirt* shoe* sneaker* jacket* coat* fashion* style* wear* jewel* "
        "accessor* colour* color*",
        "衣服 穿 鞋 裙 外套 时尚 风格 首饰 配饰 颜色"),
    "devices": (
        "phone* smartphone* laptop* computer* tablet* app apps gadget* camera* lens* lenses headphone* "
        "earbud* keyboard* software tech device*",
        "手机 电脑 笔记本 平板 耳机 相机 镜头 键盘 软件 数码 设备"),
    "home": (
        "furniture* decor* interior* sofa* couch* plant* flower* kitchen* bedroom* apartment* houseplant*",
        "家具 装修 装饰 沙发 植物 花草 鲜花 养花 厨房 卧室 客厅"),
    "pets": ("pet pets dog* puppy puppies cat cats kitten*", "宠物 狗 猫"),
    "learning": (
        "course* class classes lesson* learn* language* study* studying tutorial* skill*",
        "课 学习 学会 语言 教程 技能 培训"),
}

# a request for a pastime names every topic a pastime may be (a taste in any of them answers it)
_LEISURE_WORDS = ("hobby hobbies pastime* leisure spare free-time", "爱好 消遣 业余 闲暇 空闲")
LEISURE = frozenset({"making", "sport", "games", "reading", "listening", "watching"})


_NOT_A_VERB = "".join(rf"(?<!\b{w} )" for w in ("i", "we", "you", "to", "should", "shall", "can", "could", "will"))


def _pattern(words: tuple[str, str]) -> str:
    """One alternation: English words whole (``*``: any ending), Chinese words as substrings."""
    en, zh = words
    latin = []
    for word in en.split():
        lead = ""
        if word.startswith("~"):
            lead, word = _NOT_A_VERB, word[1:]
        body = re.escape(word[:-1]) + r"\w*" if word.endswith("*") else re.escape(word) + r"\b"
        latin.append(lead + body)
    parts = []
    if latin:
        parts.append(r"\b(?:" + "|".join(latin) + ")")
    if zh.split():
        parts.append("|".join(map(re.escape, zh.split())))
    return "|".join(parts)


_PATTERNS = {name: LazyPattern(_pattern(words), re.I) for name, words in TOPICS.items()}
_LEISURE = LazyPattern(_pattern(_LEISURE_WORDS), re.I)


@lru_cache(maxsize=1024)
def topics_of(text: str) -> frozenset[str]:
    """The topics ``text`` names; a pastime names every :data:`LEISURE` topic."""
    low = text.lower()
    found = {name for name, pattern in _PATTERNS.items() if pattern.search(low)}
    if _LEISURE.search(low):
        found |= LEISURE
    return frozenset(found)
