"""The everyday topics a request for a recommendation is about, in English and Chinese.

"What kind of holiday should I book this summer?" is answered by "I hate crowded beaches, I prefer
quiet mountain villages": no word in common, only the topic (travel). With the embedder on, the
vector leg judges such a taste; without it, a keyword-only search had nothing to judge by and
showed the owner's tastes for 1 request in 8 (docs/search.md §17, "Tastes without vectors"). This
is a small hand-written lexicon of the topics people ask advice about — food and drink, travel,
reading, listening, watching, making things, sport, games, clothes, devices, the home, pets,
learning — each a set of English words (a trailing ``*`` matches any ending; a leading ``~``: not
right after "I", "we", "you", "to" or a modal verb, where it is a verb) and Chinese words (matched
as written, some with the characters around them that would give them another sense). A word may
name two topics ("hiking": sport and travel).

Only what is asked and what is stated as a taste are matched against each other (both short and
both already recognised as such), so a coarse topic errs little: the question "Can you suggest a
new hobby?" names the leisure topics (:data:`LEISURE`), any of which a stated taste may answer.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .cjk import LazyPattern

# topic -> (English words, Chinese words). English: whole words; ``*`` only where every ending is
# the same thing (not "latte*": "latter"; not "camp*": "campaign"; not "author*": "authorization").
# Chinese: regular expressions, each a word or a character kept from the words that hold it in
# another sense (狗 but not 热狗 "hot dog"; 吃 but not 吃力 "strenuous"; not 花, as in 花钱 "spend
# money"; not 酒 alone, as in 酒店 "hotel").
TOPICS: dict[str, tuple[str, str]] = {
    "food": (
        "food foods foodie foodies eat eating ate meal meals dinner dinners lunch lunches breakfast brunch supper "
        "restaurant* cafe cafes café cafés bistro* diner diners cuisine* dish dishes recipe* cook cooks cooking "
        "cooked bake baked baking snack* dessert* spicy sweets savory savoury vegetarian* vegan* meat meats "
        "seafood sushi pizza* pasta noodle* curry curries burger* bbq barbecue* takeaways takeout menu menus "
        "flavour* flavor* chef chefs grill grilled steak* salad* soup* coffee* tea teas wine wines beer beers "
        "cocktail* juice juices whisky whiskey latte lattes espresso* bakery bakeries",
        "吃(?![力亏惊])|餐|饭|(?<!鸟)菜(?!鸟)|食|厨|烹饪|烤|辣|甜点|吃素|素食|(?<!肌)肉|面条|火锅|烧烤|零食|口味|美食|料理|"
        "小吃|外卖|咖啡|茶|喝酒|红酒|啤酒|葡萄酒|白酒|鸡尾酒|饮料|奶茶|甜品|蛋糕"),
    "travel": (
        "holiday holidays vacation* trip trips travel traveling travelling journey journeys getaway* tour tours "
        "touring tourist* destination* beach beaches mountain mountains village villages island islands resorts "
        "hotel hotels hostel hostels camp camps camping campsite* cruise cruises flight flights sightseeing "
        "countryside abroad backpacking roadtrip* seaside coast coastal lake lakes hike hikes hiking trek* city "
        "cities town towns",
        "旅行|旅游|假期|度假|出游|出行|景点|海滩|海边|沙滩|山(?!寨)|(?<!上)村(?!上)|岛|酒店|民宿|露营|游轮|出国|"
        "自驾|背包|古镇|城市|湖(?![南北])|徒步|乡下|乡村"),
    "reading": (
        # "~": not as a verb ("should I book", "to book a table" is no book)
        "~book books novel novels read reading reads author authors fiction nonfiction memoir* biography "
        "biographies poem poems poetry literature kindle ebook* audiobook* comic comics manga",
        "(?<![秘证明请])书(?!法)|小说|阅读|读书|看书|作家|传记|诗|文学|漫画|有声书"),
    "listening": (
        "podcast* audiobook* radio music musical musician* song songs album albums band bands playlist* concert* "
        "gig gigs jazz classical opera operas orchestra orchestras symphony symphonies singer singers vinyl",
        "播客|有声书|电台|音乐|歌(?!颂)|专辑|乐队|乐团|演唱会|音乐会|爵士|摇滚|古典|歌剧|交响"),
    "watching": (
        "movie movies film films cinema* series tv television documentar* anime drama dramas sitcom* comedy "
        "comedies thriller* horror netflix streaming episode episodes",
        "电影|影院|电视|(?<![急加作悲])剧(?!烈|痛)|纪录片|动漫|动画|综艺|看片|追剧|喜剧|恐怖片"),
    "making": (
        "craft crafts crafting woodwork* pottery ceramic* knit knitting sew sewing painting paintings paint "
        "drawing drawings sketch* photography photographs gardening diy handmade hands origami calligraphy "
        "embroidery crochet* carpentry",
        "手工|木工|陶艺|陶瓷|编织|织毛衣|画画|绘画|素描|摄影|园艺|动手|书法|刺绣|手作|做东西"),
    "sport": (
        "sport sports exercise exercising workout* gym gyms fitness running runner runners jog jogging swim "
        "swimming cycling bike bikes biking yoga pilates hike hikes hiking climbing tennis football soccer "
        "basketball badminton ski skiing snowboard* surf surfing surfer* marathon* dance dancing martial "
        "boxing golf",
        "运动|锻炼|健身|跑步|游泳|骑车|骑行|瑜伽|徒步|爬山|登山|攀岩|网球|足球|篮球|羽毛球|滑雪|冲浪|马拉松|跳舞|舞蹈|拳击|高尔夫"),
    "games": (
        "game games gaming gamer gamers puzzle puzzles chess boardgame* nintendo playstation xbox",
        "游戏|桌游|下棋|象棋|围棋|拼图|电玩"),
    "clothes": (
        "clothes clothing outfit outfits dress dresses shirt shirts shoe shoes sneaker* jacket jackets coat coats "
        "fashion jewellery jewelry accessories",
        "衣服|穿搭|鞋|裙|外套|时尚|首饰|配饰"),
    "devices": (
        "phone phones smartphone* laptop* computer computers tablet tablets app apps gadget* camera cameras lens "
        "lenses headphone* earbud* keyboard keyboards",
        "手机|电脑|平板|耳机|相机|镜头|键盘|数码"),
    "home": (
        "furniture decor decorating interior sofa sofas couch couches plant plants flower flowers kitchen "
        "bedroom apartment houseplant*",
        "家具|装修|装饰|沙发|植物|花草|鲜花|养花|厨房|卧室|客厅"),
    "pets": ("pet pets dog dogs puppy puppies cat cats kitten kittens", "宠物|(?<![热身])狗|(?<![夜熊])猫(?!子)"),
    "learning": (
        "courses class classes lesson lessons learn learning languages study studying tutorial* skill skills",
        "课程|上课|学习|学会|外语|教程|技能|培训"),
}

# a request for a pastime names every topic a pastime may be (a taste in any of them answers it)
_LEISURE_WORDS = ("hobby hobbies pastime pastimes leisure", "爱好|消遣|业余|闲暇|空闲")
LEISURE = frozenset({"making", "sport", "games", "reading", "listening", "watching"})


_NOT_A_VERB = "".join(rf"(?<!\b{w} )" for w in ("i", "we", "you", "me", "us", "to", "should", "shall", "can",
                                                  "could", "will", "please", "let's"))


def _pattern(words: tuple[str, str]) -> str:
    """One alternation: English words whole (``*``: any ending), the Chinese expressions as written."""
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
    if zh:
        parts.append(zh)
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
