"""Kinds and their members: what a question that gathers names, and what the notes say instead.

"How many different doctors did I see this year?" is answered by "I saw a dermatologist about the
rash", "Went to the dentist for a filling", "Saw my GP about the cough": none says "doctor". A
question that counts or gathers names a *kind* (doctors, concerts, plants, what was spent); each
note names one *member* of it, in passing. Keyword search found 0 to 1 of those notes (the long
histories' counting questions, keyword-only). This is a small hand-written lexicon of the kinds
people count in their own lives, each with its head words (as a question names the kind) and its
members (as a note names one), in English and Chinese: health visits and appointments, shows,
plants, bikes, cars, swimming, running and hiking, reading, films, trips, pets, sport,
restaurants, cuisines, instruments, clothes, jewellery, luxuries, furniture, relatives, parties,
exhibitions, classes, languages, games, devices, fruit, baking, drinks, money spent; for a
question about now, one's employer and one's home; and the things one has one at a time, named by
a make or a provider (a car, a phone, a bank, home internet, a mobile carrier, a streaming service,
a diet, a pharmacy, one's boss: ``ONE_AT_A_TIME``).

A member stands for its head in a counting question and in a question about what holds now
("What car do I drive now?": "I bought a used Toyota Corolla"), and, with vectors to judge the
lines it finds, in a lookup of a thing one has one at a time ("Which bank do I use?": "Moved all my
accounts to Redwood Credit Union"); not in another lookup ("Who is my dentist?" asks for one note,
which its own words find) nor in a question that only says when ("Which movie did I see the week
before my trip?": the days asked find the film of that week).
English members are matched as written, in the singular or the plural (the stem alone is not
enough: "training" is stemmed as "train"), a phrase only as its words in a row ("brake pads");
Chinese members as written (a substring), under the default ``cjk`` tokenizer (the
``trigram`` one takes no kinds). A Chinese head must be a word of two or more characters (a single
character is the loose leg's, search/loose.py). Members that name something else as often as the
kind are left out: "ran" (ran out of milk), "cycle" (the washing machine's), "tablet" (a pill),
"palm" (of a hand), "阿姨" (the cleaner as often as an aunt), "pool" (the pool near my place is
closed: no swim); some heads count only in a question that means them (``only_if``: "spend" in
"how much … spend", not "how many hours did I spend"; "book" as a noun).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .cjk import LazyPattern, has_cjk

# a question about money spent: "how much … spend / cost / pay", 多少钱, 花了多少 (not "how much time /
# effort", 花了多少(个)小时 / 时间 / 精力), 开销 (lower-cased)
MONEY_ASKED = (r"\bhow\s+much\b(?!\s+(?:time|effort|energy|work|weight)\b)[^?.!\n]{0,40}"
               r"\b(?:spen[dt]|spending|cost|costs|paid|pay|money)\b"
               r"|多少钱|(?:花了|花费了?|用了)多少(?!个?(?:时间|小时|钟头|分钟|天|周|星期|月|年|次|精力|功夫|心思|力气))|开销|花销")

# (head words, member words[, only_if]): each "English words | Chinese words", whitespace-separated;
# "_" joins the words of an English phrase ("eye_doctor"); ``only_if``: a pattern the question
# must match for the kind to count (lower-cased)
KINDS: list[tuple[str, ...]] = [
    ("doctor doctors physician physicians medic specialist specialists | 医生 大夫 看病 就医",
     "gp general_practitioner dermatologist dentist orthodontist optician optometrist ophthalmologist "
     "eye_doctor physiotherapist physio chiropractor osteopath allergist cardiologist neurologist "
     "gynaecologist gynecologist obstetrician paediatrician pediatrician psychiatrist psychologist therapist "
     "counsellor counselor surgeon oncologist urologist dermatology podiatrist nutritionist dietitian "
     "| 全科 皮肤科 牙医 牙科 眼科 理疗 康复 过敏科 心内科 神经科 妇科 儿科 精神科 心理医生 心理咨询 外科 骨科 "
     "中医 耳鼻喉 专科 门诊"),
    ("concert concerts show shows gig gigs performance performances | 演出 音乐会 演唱会 表演",
     "gig gigs recital opera ballet musical comedy_show stand-up_comedy orchestra symphony philharmonic "
     "theatre theater jazz cabaret choir live_music concert "
     "| 音乐剧 脱口秀 交响 歌剧 芭蕾 话剧 相声 音乐节 演唱会 音乐会 乐队 独奏 戏剧 剧院 演出 合唱",
     # not TV shows, "show up late", a performance review
     r"^(?!.*\b(?:tv|television|netflix|streaming)\b)(?!.*电视)(?!.*\bshow(?:s|ed)?\s+up\b)"
     r"(?!.*\bperformance\s+(?:review|issue|test|problem)s?\b)"),
    ("plant plants houseplant houseplants | 植物 盆栽 花草 绿植",
     "monstera succulent succulents cactus cacti fern pothos snake_plant spider_plant peace_lily orchid bonsai "
     "fiddle_leaf_fig ficus rubber_plant aloe_vera basil_plant rosemary_plant palm_tree begonia calathea "
     "philodendron houseplant | 绿萝 多肉 仙人掌 龟背竹 琴叶榕 虎尾兰 吊兰 兰花 发财树 富贵竹 盆景 芦荟 君子兰 文竹"),
    ("bike bikes bicycle bicycles cycling | 自行车 单车",
     "bike bicycle cycling cyclist derailleur handlebar handlebars brake_pads inner_tube "
     "| 自行车 单车 骑车 骑行 链条 刹车片 车圈 打气筒 车胎"),
    ("swim swimming swims | 游泳",
     "swam swim swimming laps breaststroke backstroke front_crawl | 游泳 游了泳 蛙泳 自由泳 仰泳"),
    ("run runs running jog jogging | 跑步 慢跑",
     "jog jogged jogging marathon half_marathon parkrun 5k 10k | 跑步 慢跑 马拉松"),
    ("book books reading novel novels | 读书 书籍 看书",
     "novel novels biography autobiography memoir memoirs anthology short_stories graphic_novel comic comics manga "
     "poetry poems audiobook ebook cookbook paperback hardback book | 小说 传记 回忆录 诗集 漫画 有声书 散文 读完",
     r"(?<!\bi )(?<!\bwe )(?<!\byou )(?<!\bto )(?<!\bme )\bbooks?\b|\bread|\bnovel|书"),
    ("movie movies film films | 电影",
     "cinema documentary screening film movie thriller animated | 影院 纪录片 动画片 大片 院线 电影"),
    ("trip trips travel holiday holidays vacation vacations | 旅行 旅游 出游 度假",
     "getaway cruise road_trip roadtrip backpacking camping flew flight weekend_away trip "
     "| 自驾游 出游 度假 旅行 旅游 飞往 机票 露营"),
    ("pet pets animal animals | 宠物 动物",
     "dog dogs puppy cat cats kitten hamster rabbit bunny parrot budgie goldfish tortoise turtle guinea_pig lizard "
     "guppy guppies tetra tetras betta | 狗狗 小狗 猫咪 小猫 仓鼠 兔子 鹦鹉 金鱼 乌龟 热带鱼"),
    ("exercise exercises workout workouts sport sports fitness | 运动 锻炼 健身",
     "gym jog jogging swim swam cycling yoga pilates hike hiking rock_climbing bouldering tennis football soccer "
     "basketball badminton ski skiing crossfit spin_class weightlifting | 跑步 游泳 瑜伽 健身房 爬山 骑车 羽毛球 篮球 "
     "网球 足球 滑雪 攀岩"),
    ("restaurant restaurants eatery | 餐厅 饭店 馆子 餐馆",
     "bistro diner cafe café pizzeria steakhouse trattoria brasserie sushi_bar ramen tapas restaurant "
     "| 面馆 饭馆 火锅店 烧烤店 餐馆 酒楼 西餐厅 餐厅"),
    ("instrument instruments | 乐器",
     "piano guitar violin cello drums ukulele flute saxophone trumpet harp clarinet | 钢琴 吉他 小提琴 大提琴 架子鼓 "
     "尤克里里 长笛 萨克斯 古筝 二胡"),
    ("clothes clothing outfit outfits garment garments | 衣服 服装",
     "shirt t-shirt jeans trousers pants dress skirt jacket coat sweater jumper hoodie shoes sneakers trainers "
     "boots blouse | 衬衫 牛仔裤 裤子 裙子 外套 夹克 毛衣 卫衣 鞋子 靴子 西装 短裤 羽绒服"),
    ("relative relatives family | 亲戚 家人",
     "mum mom mother dad father parents sister brother grandma grandmother grandpa grandfather aunt uncle cousin "
     "niece nephew | 妈妈 爸爸 父母 爸妈 姐姐 妹妹 哥哥 弟弟 奶奶 爷爷 外婆 外公 姑姑 舅舅 叔叔 表哥 表姐 表妹 表弟"),
    ("museum museums exhibition exhibitions gallery galleries | 博物馆 展览",
     "gallery exhibition exhibit art_show museum | 美术馆 画展 展馆 科技馆 博物馆 展览"),
    ("course courses class classes lesson lessons | 课程 上课",
     "workshop seminar tutorial training lecture webinar bootcamp lesson class course | 培训 讲座 工作坊 网课 "
     "研讨会 上课 课程",
     # not a program's classes
     r"^(?!.*\b(?:refactor\w*|code|coding|python|java|typescript|css|method|methods|function|functions)\b)"),
    ("game games | 游戏",
     "chess board_game boardgame video_game puzzle card_game poker | 桌游 象棋 围棋 扑克 拼图"),
    ("gadget gadgets device devices electronics | 电子产品 数码",
     "smartphone laptop ipad headphones earbuds camera smartwatch bluetooth_speaker e-reader kindle "
     "| 手机 电脑 平板 耳机 相机 手表 音箱 显示器"),
    ("appointment appointments checkup checkups | 预约 看诊",
     "dentist doctor gp vet haircut physio interview therapist | 牙医 医生 兽医 理发 体检 面试 复诊"),
    ("hike hikes hiking | 徒步 爬山 登山",
     "trail trails trek summit | 山路 登顶 山顶 步道 爬山"),
    # (models too, as people name the car they drive: "买了一辆二手卡罗拉"; not those that name something
    # else as often: golf / 高尔夫, polo, focus, leaf, jazz, fit, superb, 天籁)
    ("car cars vehicle vehicles | 汽车 车子",
     "toyota honda ford bmw audi tesla volkswagen vw skoda nissan hyundai kia mazda subaru volvo mercedes "
     "sedan suv hatchback corolla camry prius rav4 civic accord octavia passat jetta tiguan qashqai fiesta "
     "jeep rivian lexus chevy chevrolet "
     "| 丰田 本田 大众 特斯拉 宝马 奔驰 比亚迪 奥迪 轿车 卡罗拉 凯美瑞 雷凌 汉兰达 思域 雅阁 飞度 明锐 速派 朗逸 速腾 "
     "迈腾 帕萨特 宝来 捷达 途观 轩逸 逍客 奇骏 英朗 君威 科鲁兹 福克斯 蒙迪欧 蔚来 小鹏 极氪 问界"),
    ("fruit fruits | 水果",
     "apple apples orange oranges banana bananas grape grapes strawberry strawberries blueberries mango mangoes pear "
     "peach lemon lemons lime limes grapefruit kiwi cherry cherries watermelon pineapple "
     "| 苹果 橙子 香蕉 葡萄 草莓 蓝莓 芒果 梨子 桃子 柠檬 西柚 猕猴桃 樱桃 西瓜 菠萝"),
    ("bake bakes baking | 烘焙 烤了",
     "cake cakes bread loaf cookies biscuits muffin muffins pie brownies sourdough croissant scones "
     "| 蛋糕 面包 饼干 松饼 布朗尼 司康"),
    ("drink drinks beverage beverages | 饮料 喝的",
     "coffee latte cappuccino tea beer wine cocktail cocktails juice smoothie | 咖啡 拿铁 奶茶 啤酒 红酒 果汁 鸡尾酒"),
    ("furniture | 家具",
     "sofa couch table chair chairs desk bed wardrobe bookshelf bookcase dresser armchair | 沙发 桌子 椅子 床垫 衣柜 "
     "书架 书桌 柜子"),
    ("party parties celebration celebrations event events | 聚会 派对 活动",
     "wedding birthday_party housewarming baby_shower barbecue bbq reunion graduation_party picnic fundraiser "
     "gala charity_run | 婚礼 生日会 喜酒 乔迁 同学会 毕业典礼 野餐 义卖 慈善"),
    ("jewelry jewellery | 首饰 珠宝",
     "necklace necklaces ring rings bracelet bracelets earrings pendant brooch anklet | 项链 戒指 手镯 手链 耳环 吊坠 胸针"),
    ("cuisine cuisines | 菜系",
     "italian thai mexican indian japanese chinese korean french ethiopian vietnamese greek spanish lebanese "
     "| 川菜 粤菜 湘菜 日料 韩餐 泰国菜 意大利菜 西餐 法餐 越南菜"),
    ("luxury | 奢侈品",
     "handbag designer_bag designer_watch jewelry jewellery cashmere perfume | 名牌 包包 名表 香水"),
    ("language languages | 语言 外语",
     "spanish french german japanese mandarin italian korean portuguese russian arabic "
     "| 西班牙语 法语 德语 日语 韩语 意大利语 英语 俄语"),
    # where one works and lives: what a question about now most often asks of one's own life ("Where do
    # I work now?": "I started my new job at…", "I left … and joined…"). Only a question about the
    # employer or the home: not "work out", "how many hours did I work", "which day do I work" (我现在
    # 哪天上班), an email or web address, live music. Members that say the employer or the home
    # changed or began, not the workplace's everyday (公司楼下新开了一家咖啡店) nor any move ("we moved
    # the standup to 10am")
    ("work works job jobs employer employers workplace | 工作 上班 公司 单位",
     "job jobs employer joined hired new_job | 入职 离职 跳槽 加入了 新工作",
     r"\b(?:where|who)\b[^?.!]{0,40}\bwork(?:s|ing)?\b(?!\s+(?:out|on)\b)|\b(?:employers?|workplace)\b"
     r"|\b(?:what|which)\s+(?:company|firm|job|employer)\b|\bwhat(?:\s+is|'s)\s+my\s+(?:job|company|employer)\b"
     r"|\bhow\s+many\b[^?.!]{0,20}\b(?:jobs|employers|companies)\b"
     r"|哪(?!天|几天|个时间|一天)[^？?。]{0,4}(?:上班|工作)|(?:什么|哪家|哪个)(?:公司|单位)|(?:工作|公司|单位)是(?:什么|哪)"
     r"|几(?:份|个)工作|几家公司"),
    ("live lives living home address | 居住 住在 住址 地址 住哪",
     "moved_to moved_into moved_house relocated new_apartment new_flat new_place new_house new_home "
     "| 搬到 搬家 搬去 新家",
     r"^(?!.*(?:e-?mail|\bip\b|\bweb|\burl\b|邮箱|邮件|网址|网站))"
     r"(?:.*\bwhere\b[^?.!]{0,40}\bliv(?:e|es|ing)\b(?!\s+(?:music|show|shows|stream|concert|band|gig)s?\b)"
     r"|.*\baddress\b|.*\bhow\s+many\b[^?.!]{0,20}\b(?:homes|places)\b|.*(?:住在?哪|住址|地址|住在什么))"),
    # what one has one of at a time and names by a make, a provider or a shop (ONE_AT_A_TIME below): a
    # phone, a bank, home internet, a mobile carrier, a video streaming service, a diet, a pharmacy.
    # Each only in a question that means it: not a phone number, a bank holiday, a river bank, the
    # internet in general, a carrier bag, "streaming" a game, a diet soda. Makes and providers as
    # people name them, and "… Credit Union"; not those naming something else as often (honor, max,
    # mate, nationwide, galaxy, citi, fiber, wireless, mobile, drugs, prescriptions, boots, 理想, B站,
    # 光纤, 汇报: a fresh-eyes review found each in everyday lines about other things)
    ("phone phones smartphone smartphones cellphone cellphones | 手机",
     "iphone pixel samsung huawei xiaomi oneplus oppo vivo motorola nokia redmi "
     "| 苹果手机 华为 小米 荣耀 三星 一加 红米 iphone",
     r"\b(?:what|which)\s+(?:kind\s+of\s+|model\s+of\s+|brand\s+of\s+)?(?:cell\s*|mobile\s+|smart)?phones?\b"
     r"(?!\s+(?:number|plan|bill|case|carrier|provider|company|charger|contract))"
     r"|\b(?:my|our)\s+(?:current\s+)?(?:cell\s*|mobile\s+|smart)?phone\s*\??$"
     r"|(?:什么|哪(?:款|个|部|种)?)(?:牌子的?)?手机(?!号|套餐|卡|壳|膜|费|话费)|手机(?:是|用的是?)(?:什么|哪)"),
    ("bank banks | 银行",
     "chase wells_fargo bank_of_america citibank hsbc barclays lloyds natwest santander monzo revolut starling "
     "ally ally_bank sofi schwab capital_one credit_union us_bank pnc td_bank halifax "
     "| 招商银行 工商银行 建设银行 农业银行 中国银行 交通银行 邮储 邮政储蓄 招行 工行 建行 农行 中行 交行 浦发 民生银行 兴业银行 "
     "中信银行 光大银行 平安银行 微众银行",
     r"\b(?:which|what)\s+bank\b|\bbank\s+(?:do|did|am|are|is)\b|\bmy\s+bank\s*\??$|\bbank\s+with\b"
     r"|哪(?:家|个)银行|什么银行|银行是"),
    ("internet broadband isp | 宽带",
     "comcast xfinity verizon_fios fios at&t spectrum cox google_fiber starlink frontier centurylink optimum "
     "bt_broadband virgin_media sky_broadband | 电信 联通 移动宽带 长城宽带 广电宽带",
     r"\b(?:internet|broadband|isp|wi-?fi)\s+(?:provider|company|service|plan)s?\b"
     r"|\b(?:who|which|what)\b[^?.!]{0,30}\b(?:internet|broadband|isp)\b|宽带"),
    # (移动, 联通, 电信 alone are as often home broadband: 电信宽带)
    ("carrier carriers cell_provider mobile_provider phone_plan cell_plan | 运营商 手机套餐 话费套餐 套餐",
     "verizon at&t t-mobile sprint mint_mobile visible cricket boost_mobile us_cellular google_fi ee vodafone o2 "
     "giffgaff mint | 中国移动 中国联通 中国电信 携号转网",
     r"\b(?:carriers?|cell\s+(?:provider|plan|service|company)|mobile\s+(?:provider|carrier|plan|network)"
     r"|phone\s+(?:plan|carrier|provider|company))\b(?!\s+bag)|运营商|(?:手机|话费|流量)[^？?]{0,4}套餐|套餐[^？?]{0,4}(?:手机|话费|流量)"),
    ("streaming | 视频会员 视频平台",
     "netflix hulu disney disney_plus hbo prime_video peacock paramount paramount_plus youtube_premium "
     "crunchyroll iqiyi youku tencent_video | 爱奇艺 优酷 腾讯视频 芒果tv",
     r"\bstreaming\s+(?:service|services|platform|subscription|subscriptions|app)\b"
     r"|\b(?:which|what)\s+streaming\b|视频(?:会员|平台)"),
    ("diet diets dietary | 饮食 忌口",
     "vegan vegetarian pescatarian pescetarian keto ketogenic paleo gluten-free halal kosher low-carb carnivore "
     "intermittent_fasting whole30 dairy-free plant-based mediterranean | 素食 吃素 纯素 生酮 清真 低碳饮食 轻断食 断食 无麸质 "
     "蛋奶素 地中海饮食",
     r"\b(?:my|our|what|which|any)\s+(?:\w+\s+)?diet(?:ary|s)?\b(?!\s+(?:soda|coke|pepsi|drink))|饮食|忌口"),
    ("pharmacy pharmacies drugstore chemist | 药店 药房",
     "cvs walgreens rite_aid superdrug duane_reade | 大参林 老百姓大药房 益丰 海王星辰 一心堂",
     r"\b(?:which|what)\s+(?:\w+\s+)?(?:pharmacy|drugstore|chemist)\b|\bmy\s+(?:pharmacy|drugstore|chemist)\b"
     r"|哪(?:家|个)(?:药店|药房)|(?:药店|药房)是(?:哪|什么)"),
    # the one a person reports to ("I report to Tom Becker now" after "My manager is Priya Nair"): only
    # one's own ("my boss", "who do I report to"), not a restaurant's manager or a project manager
    ("boss bosses manager managers supervisor report_to | 领导 上司 组长 主管 老板",
     "report_to reporting_to reports_to line_manager",
     r"\b(?:my|our)\s+(?:new\s+|current\s+)?(?:boss|manager|supervisor|line\s+manager|team\s+lead)\b"
     r"|\b(?:i|we)\s+report\s+to\b|(?:我|我们)(?:现在)?的?(?:领导|上司|组长|主管|老板)"),
    ("spend spent spending cost costs expense expenses money | 花钱 开销 花费 花了",
     "paid cost costs charged dollars euros pounds bucks yuan | 块钱 付了 收了 花了 十块 百块 千块 万块 十元 百元 千元 万元",
     MONEY_ASKED),
]


# A Chinese question may name a kind by one character, which is no head (a lone character is the
# loose leg's): "我现在开的是什么车？", "我一共读完了几本书？". Right after a word asking which or how
# many, and before no other character of a word (什么车票, 几本书架 name something else), it names the
# kind, and the question is read as naming the kind's head too (search/pipeline.py).
_ONE_CHARACTER = {"车": "汽车", "书": "书籍"}
_ONE_CHARACTER_ASKED = LazyPattern(
    r"(?:什么|哪一?[辆本部款台种]?|几[辆本部台]|多少[辆本部台])(车|书)(?![\u4e00-\u9fff](?<![吗呢了的啊呀吧]))", 0)


# kinds of which one has one at a time, each named by its first head: a later statement that one's
# thing of the kind changed, naming another member, updates the earlier one that named its member
# ("我把车换了，现在开一辆蓝色的比亚迪海豹" after "我开的是一辆白色的丰田卡罗拉"). Not pets, instruments,
# devices, doctors: a new one joins the others
ONE_AT_A_TIME = ("car", "phone", "bank", "internet", "carrier", "streaming", "diet", "pharmacy", "boss")


def one_character_heads(head: str) -> tuple[str, ...]:
    """The one-character names of the kind whose head is ``head`` ("汽车": 车), as a text may say it."""
    return tuple(c for c, h in _ONE_CHARACTER.items() if h == head)


def with_heads_named(question: str) -> str:
    """``question`` with the head of each kind it names by one character after it ("什么车": 汽车)."""
    heads = [_ONE_CHARACTER[m.group(1)] for m in _ONE_CHARACTER_ASKED.finditer(question)]
    return " ".join([question, *dict.fromkeys(heads)]) if heads else question


# Members that a word alone would overreach, as a pattern: "游了" is a swim in "今晚游了二十个来回" but a
# trip in "旅游了一周"; said with laps or a distance, it is a swim. (a head of the kind -> (the
# pattern, the words the index is asked for, as explain shows them))
PATTERN_MEMBERS = {
    "游泳": (r"游了[\d一二两三四五六七八九十百千几半]+\s*(?:个来回|来回|圈|米|千米|公里|趟)", "游了…"),
}


def _word_pattern(word: str) -> str:
    """An English word as written, in the singular or the plural ("lily": "lilies"; "pads": "pad")."""
    w = re.escape(word)
    if word.endswith("y") and len(word) > 2:
        return w[:-1] + "(?:y|ies)"
    if word.endswith("s") and len(word) > 3:
        return w + "?"
    return w + "(?:s|es)?"


@lru_cache(maxsize=4096)
def surface(word: str) -> "str | re.Pattern":
    """How a (lower-cased) text names ``word``, a head or a member of a kind: a Chinese word as
    written (a substring); an English word or phrase ("brake pads", "stand-up comedy") as its words
    in a row, the last in the singular or the plural (the stem alone is not enough: "training" is
    stemmed as "train", "shorts" as "short"), not inside a word of letters or digits (Chinese text
    may touch it: "去看了stand-up comedy")."""
    if has_cjk(word):
        return word.lower()
    words = re.findall(r"\w+", word.lower())
    phrase = r"\W+".join([*map(re.escape, words[:-1]), _word_pattern(words[-1])])
    return re.compile(r"(?<![a-z0-9])" + phrase + r"(?![a-z0-9])")


def names(low: str, word: str) -> bool:
    """Whether the lower-cased text ``low`` names ``word`` (:func:`surface`)."""
    s = surface(word)
    return s in low if isinstance(s, str) else s.search(low) is not None


def _split(side: str) -> tuple[list[str], list[str]]:
    en, _, zh = side.partition("|")
    return [w.replace("_", " ") for w in en.split()], zh.split()


@dataclass(frozen=True)
class Kind:
    heads: tuple[str, ...]  # English and Chinese
    members: tuple[str, ...]
    only_if: LazyPattern | None  # the (lower-cased) question must match it for the kind to count

    def asked_in(self, question: str) -> bool:
        return self.only_if is None or self.only_if.search(question.lower()) is not None


def _parsed() -> list[Kind]:
    out = []
    for heads, members, *cond in KINDS:
        h_en, h_zh = _split(heads)
        m_en, m_zh = _split(members)
        out.append(Kind(tuple(h_en + h_zh), tuple(m_en + m_zh), LazyPattern(cond[0]) if cond else None))
    return out


KIND_LIST = _parsed()
