"""The everyday situations a request for help is about, and the personal facts that matter in each.

"What should I watch out for when ordering at the sushi place?" is answered by "The user is
allergic to shrimp": no word in common, only the situation (a meal) and a fact that matters in it
(an allergy). Such facts are short notes, stated once and long ago, that a keyword search can only
find by their own words: an allergy or a diet for a meal, a bad knee for a hike, a budget for a
purchase, a standing Thursday pick-up for a meeting request, a passport's expiry for a trip abroad,
who feeds the cat for a business trip. This is a small hand-written lexicon of those situations,
each with two sets of words in English and Chinese:

* cue words, which show that a question is about the situation (:func:`situations_of`);
* concern words, which show that a stored note states something that matters in it
  (:func:`concerns_of`), kept also as plain words to add to a keyword query
  (:func:`concern_words`).

A concern word is picked to be rare in notes that do not matter: "allergic", 过敏, 忌口, "passport",
驾照, never 吃, "like" or 每天, which half of all notes hold. A word may serve several situations
(过敏: a meal, cooking, a doctor's visit, a pet). English: whole words (a trailing ``*``: any ending,
only where every ending is the same thing; an entry holding ``(`` is a regular expression, for the
few words that need their neighbours, as "moving" in "moving to Berlin" but not in "moving on").
Concern words are whole words only, so that each is its own plain query word. Chinese: regular
expressions matched as written, some with look-arounds that keep a word from its other senses
(猫 but not 熊猫 "panda"; 不吃 but not 不吃亏 "not lose out"); a concern expression is a plain word
plus look-arounds only, and its plain word is what :func:`concern_words` gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .cjk import LazyPattern

# Shared by the situations where what one may eat is the point (a meal out, cooking, a gift): a diet,
# an allergy, and a stomach that reacts without a medical word ("喝牛奶就拉肚子", "一吃辣就胃疼").
_DIET_EN = ("allergic allergy allergies intolerant intolerance vegetarian vegetarians vegan vegans pescatarian "
            "diabetic diabetes celiac coeliac gluten lactose dairy halal kosher shellfish peanut peanuts nuts "
            "stomach bloated bloating diarrhea diarrhoea ibs crohn reflux heartburn gerd ulcer indigestion")
_DIET_ZH = ("过敏|不耐受|忌口|吃素|素食|不吃(?![亏苦惊力醋消])|不能吃|清真|穆斯林|乳糖|麸质|糖尿病|血糖|痛风|尿酸|"
            "海鲜|花生|坚果|吃不了(?!兜)|不碰(?![面头])|拉肚子|闹肚子|腹泻|肚子胀|胀气|肚子疼|胃疼|胃胀|反胃|反酸|"
            "烧心|胃溃疡|肠易激|克罗恩|起疹子|起红疹|荨麻疹|吃了就|喝了就|吃完就|喝完就|"
            "一吃(?=[^。，；,;]{1,8}就)|一喝(?=[^。，；,;]{1,8}就)")

# Places abroad named in a Chinese question; not before 菜/料理/面 (日本料理, 意大利面: a meal here).
_PLACES_ZH = "|".join(
    f"{place}(?![菜料面餐式风])" for place in (
        "日本 韩国 泰国 新加坡 马来西亚 越南 印尼 巴厘岛 欧洲 美国 英国 法国 德国 意大利 西班牙 瑞士 希腊 土耳其 埃及 "
        "冰岛 澳洲 澳大利亚 新西兰 加拿大 迪拜 东京 大阪 京都 首尔 曼谷 巴黎 伦敦 纽约 香港 澳门 东南亚").split())

# Facts shared by several situations (each a plain word, or one kept from its other senses by
# look-arounds). The animals at home: 猫 but not 熊猫 "panda", 夜猫子 "night owl", 猫眼 "peephole",
# 猫腻 "a shady deal"; 狗 but not 热狗 "hot dog", 单身狗 "a single", 舔狗, 狗仔 "paparazzo".
_PETS_EN = "pet pets cat cats dog dogs kitten kittens puppy puppies"
_PETS_ZH = "宠物|养猫|养狗|(?<![夜熊])猫(?![子眼腻])|(?<![热身舔属])狗(?!仔)"
# The body's injuries and limits: for a hike, a gym, a ride, a seat for hours. Not "broke"/"broken"
# (broke up, I'm broke, a broken phone), "back" or "hip" (hip-hop).
_INJURY_EN = ("injury injured injuries fracture fractured fractures sprain sprained dislocated ligament acl "
              "meniscus tendon tendonitis achilles cartilage wrist wrists elbow shoulder knee knees ankle ankles "
              "leg legs spine spinal lumbar herniated sciatica whiplash crutches physiotherapy arthritis surgery")
_INJURY_ZH = ("骨折|摔断|摔伤|扭伤|拉伤|崴脚|脱臼|韧带|半月板|跟腱|膝盖|膝关节|脚踝|手腕|腱鞘炎|肩周炎|网球肘|"
              "腰椎|颈椎|椎间盘|腰间盘|腰伤|腰不好|腰疼|腰痛|闪了腰|腰肌劳损|老寒腿|关节炎|滑膜炎|骨质疏松|石膏(?!像)|"
              "拐杖|旧伤|受伤|手术|康复")
# Conditions and devices that a strain, a thrill, a dive or the heat can set off.
_HEART_EN = ("heart cardiac pacemaker stent arrhythmia hypertension epilepsy epileptic seizure seizures asthma "
             "asthmatic")
_HEART_ZH = "心脏|起搏器|心脏支架|搭桥|心律|早搏|房颤|高血压|低血压|癫痫|哮喘|晕厥|低血糖|贫血"
# Who cannot walk far or climb.
_MOBILITY_EN = "wheelchair mobility crutches disabled disability"
_MOBILITY_ZH = "腿脚|行动不便|走不了远路|走不远|轮椅|拐杖|助行器|瘫痪|残疾|卧床|偏瘫|中风"
# Fears and sicknesses of motion.
_PHOBIA_EN = ("heights acrophobia vertigo phobia phobic claustrophobic claustrophobia carsick carsickness seasick "
              "seasickness airsick airsickness motion nausea")
_PHOBIA_ZH = "恐高|怕高|幽闭|恐惧症|怕黑|怕水|恐水|深海恐惧|晕车|晕船|晕机|晕眩|眩晕"
# Whether the owner can swim.
_SWIM_EN = "swim swimmer swimming nonswimmer drowned drowning"
_SWIM_ZH = "不会游泳|游泳不好|学游泳|学习游泳|旱鸭子|怕水|恐水|溺水|呛水|(?<!不)会游泳"
# Light sleep and a need for quiet: for a flat, a hotel, building work, guests.
_NOISE_EN = "insomnia insomniac sleeper noise migraine migraines tinnitus"
_NOISE_ZH = "浅眠|睡眠浅|睡眠不好|失眠|易醒|神经衰弱|怕吵|怕噪音|对声音(?=[^。，,]{0,3}敏感)|怕光|耳鸣|偏头痛"
# Who at home is frail: to keep an illness, the dust or the noise from.
_FRAIL_EN = "pregnant birth postpartum newborn infant baby elderly chemo chemotherapy immunocompromised transplant"
_FRAIL_ZH = ("孕|怀孕|宝宝|婴儿|新生儿|月子|老人|化疗|免疫力|(?<=器官|骨髓)移植|(?<=[肾肝心肺])移植|"
             "移植(?=手术)")
# Money: what can be spent, what is owed.
_MONEY_EN = "budget budgets afford savings debt debts loan loans mortgage overdraft frugal owe owes owed"
_MONEY_ZH = ("预算|手头紧|存款|积蓄|负债|欠款|欠债|贷款|房贷|车贷|月供|花呗|借呗|信用卡|网贷|逾期|征信|月光|省钱|"
             "攒钱|还欠|欠了|欠着|欠钱")
# How high the home is ("住在6楼", "家住十二楼"; not "办公室在12楼").
_FLOOR_ZH = "|".join(f"(?<={at}{digits})楼" for at in ("住", "住在", "家在")
                     for digits in ("[0-9一二三四五六七八九十]", "[0-9一二三四五六七八九十]{2}"))
# Dates that a plan may collide with.
_DATES_EN = "birthday birthdays anniversary anniversaries exam exams recital tournament wedding graduation"
_DATES_ZH = "生日|大寿|纪念日|忌日|祭日|考试|高考|中考|考研|答辩|比赛日|预产期|婚礼|婚期|伴娘|伴郎"
# Standing commitments.
_COMMIT_EN = ("weekly biweekly fortnightly mondays tuesdays wednesdays thursdays fridays saturdays sundays "
              "weekday weekdays recurring volunteer volunteering choir rehearsal rehearsals church lessons shifts "
              "nightshift pickup")
_COMMIT_ZH = ("每周|每星期|每个星期|每礼拜|每逢|隔周|单周|双周|每两周|每个月|每月|固定|雷打不动|志愿者|志愿服务|义工|"
              "接孩子|送孩子|接送|值班|轮班|倒班|夜班|兼职|做家教|当家教|排练|教会(?![了我你他她它们孩学会])|做礼拜|有比赛|参赛")
# Where the owner comes from, or is sent: not 空调调到26度, 音量调到最小.
_PLACE_EN = "hometown relocated relocating expat"
_PLACE_ZH = ("老家|家乡|故乡|户籍|籍贯|外派|驻外|常驻|异地|搬到|"
             "(?<![空音])(?<!空调)(?<!音量)调到(?![0-9一二三四五六七八九十两]+度|静音|最)")
# The sign of the zodiac (a taboo at a wedding, a birth year's gift); 属狗 is no dog.
_ZODIAC_ZH = "属鼠|属牛|属虎|属兔|属龙|属蛇|属马|属羊|属猴|属鸡|属狗|属猪"
# Languages spoken or not, reading.
_LANG_EN = "fluent fluency bilingual mandarin cantonese illiterate"
_LANG_ZH = "英语|英文|日语|韩语|法语|德语|西班牙语|俄语|外语|粤语|普通话|不识字|不认字|文盲|听不懂(?=[英日韩法德粤外方普])"
# What the owner can do, at what level: "考过N1", "学了十年钢琴", "会弹吉他" (not 不会弹).
_SKILL_EN = "certified certificate fluent piano guitar violin"
_SKILL_ZH = ("考过|证书|资格证|考级|过级|学了(?=[0-9一二三四五六七八九十两几半多]+年)|(?<!不)会弹|(?<![不晚宴])会唱歌|"
             "(?<!不)会跳舞|(?<!不)会拉(?=小提琴|二胡|大提琴|手风琴)|(?<!不)会吹(?=笛|萨克斯|口琴|葫芦丝)|"
             "(?<!不)会说(?=[英日韩法德西俄粤]|外语|方言)|学过|钢琴(?!曲)|吉他|古筝|小提琴|二胡")


def _zh(*parts: str) -> str:
    return "|".join(parts)


def _en(*parts: str) -> str:
    return " ".join(parts)


# situation -> (English cue words, Chinese cue expressions, English concern words, Chinese concern
# expressions). Cue words need not be rare in notes (they are only read in questions); concern words
# must be, as each becomes a query word of its own.
SITUATIONS: dict[str, tuple[str, str, str, str]] = {
    # eating out, ordering, a dinner: what the owner (or a companion) cannot or will not eat
    "meal": (
        "restaurant* dinner dinners lunch lunches brunch breakfast supper menu menus dish dishes cuisine* "
        "takeout takeaway* diner diners bistro* buffet* eatery eateries dine dining dined eat eating meal meals "
        "food foodie sushi sashimi omakase ramen pizza* steakhouse* bbq barbecue* hotpot izakaya tapas seafood "
        "noodle* curry dessert* appetizer* michelin cafe cafes café "
        r"hot\s+pot order(?:ing)?(?=\s+(?:food|takeout|takeaway|dinner|lunch)\b)",
        "餐厅|饭店|饭馆|餐馆|菜馆|馆子|点菜|点餐|菜单|菜品|聚餐|吃饭|约饭|晚饭|午饭|早饭|晚餐|午餐|早餐|宵夜|夜宵|"
        "火锅|外卖|日料|日本料理|寿司|烧烤|烤肉|撸串|自助餐|西餐|中餐|川菜|粤菜|湘菜|韩料|泰国菜|小吃|美食|探店|"
        "吃什么|吃点什么|好吃|大排档|食堂|拉面|披萨|牛排|甜品|下午茶|年夜饭|料理店|去吃(?![药亏苦])|吃顿|订位|订座|"
        "包间|请客",
        _DIET_EN + " cholesterol gout diet dieting keto fasting ramadan sodium dentures",
        _DIET_ZH + "|不喝(?!彩)|胆固醇|高血脂|减肥|节食|控糖|低盐|少盐|胃病|胃炎|胃不好|肠胃|怕辣|不能吃辣|斋月|"
        "假牙|牙口|牙套|智齿"),
    # cooking for guests or the family: the same diets, and what the kitchen has
    "cooking": (
        "cook cooks cooking cooked cookery recipe* bake bakes baking baked roast roasting grill grilling fry "
        "frying stew stews braise* marinade* marinate* ingredient* potluck* homemade cookbook* kitchen "
        "dumpling* casserole* thanksgiving",
        "做饭|做菜|下厨|烧菜|煮饭|炒菜|菜谱|食谱|烹饪|烘焙|烤蛋糕|做蛋糕|包饺子|炖|煲汤|煮|红烧|凉拌|食材|买菜|"
        "厨房|做一桌|家宴|掌勺|几道菜|拿手菜|年夜饭|招待",
        _DIET_EN + " oven stove induction microwave",
        _DIET_ZH + "|烤箱|电磁炉|燃气灶|微波炉|空气炸锅|厨艺|不会做饭"),
    # drinks, a party, a dinner with clients: whether the owner can drink at all
    "drinks": (
        "drink drinks drinking drunk booze alcohol alcoholic bar bars pub pubs cocktail* wine wines beer beers "
        "whisky whiskey sake soju baijiu champagne vodka tequila liquor liquors brewery breweries nightclub* "
        r"karaoke banquet* party parties celebration* happy\s+hour with\s+(?:(?:a|the|my|our|some)\s+)?clients?\b "
        r"clients?(?=\s+(?:dinner|lunch|meal|drinks|banquet|party)\b)",
        "喝酒|喝一杯|喝两杯|酒局|饭局|应酬|敬酒|劝酒|干杯|酒吧|清吧|酒会|宴会|宴请|请客|陪客户|客户吃饭|商务宴|"
        "聚会|团建|年会|派对|(?<![a-z0-9])KTV(?![a-z0-9])|唱K|(?<![a-z0-9])K歌|白酒|啤酒|红酒|葡萄酒|洋酒|鸡尾酒|夜店|酒席|喜酒|婚宴|庆功|寿宴|满月酒|"
        "升学宴|谢师宴",
        "alcohol sober sobriety teetotal teetotaler teetotaller abstain abstains liver hepatitis gout "
        "antibiotic antibiotics flush pregnant breastfeeding ulcer gastritis medication medications "
        "antidepressants hypertension",
        "不喝酒|不能喝酒|不会喝酒|滴酒不沾|戒酒|酒精过敏|喝酒脸红|酒量|肝病|肝炎|乙肝|丙肝|脂肪肝|抗抑郁|肝功能|转氨酶|痛风|尿酸|"
        "头孢|怀孕|孕|备孕|哺乳|酒驾|胃病|胃炎|胃溃疡|高血压|心脏|服药|吃药|喝醉|断片|喝酒就|"
        "一喝(?=[^。，；,;]{1,8}就)"),
    # a trip to another country: papers and their dates, the language, the leave
    "abroad": (
        "abroad overseas international foreign visa visas customs immigration embassy consulate passport jetlag "
        "japan tokyo kyoto osaka korea seoul thailand bangkok bali vietnam singapore europe paris london italy "
        "rome spain barcelona france germany berlin greece iceland turkey egypt dubai canada australia mexico",
        "出国|国外|海外|境外|出境|入境|签证|护照|外币|换汇|跨境|外派|驻外|出国玩|" + _PLACES_ZH,
        _en("passport passports visa visas expire expires expired expiry expiration citizenship citizen nationality "
            "residency vaccination vaccinated vaccine insurance medication insulin budget greencard speak speaks",
            _LANG_EN),
        _zh("护照|签证|过期|到期|有效期|通行证|港澳通行证|台胞证|回乡证|绿卡|国籍|入籍|居留|永居|工签|学签|疫苗|保险|"
            "拒签|外币|银联|信用卡|年假|请假|预算|晕机|长期服用|正在服用|胰岛素|外派", _LANG_ZH)),
    # going by air, sea, rail or coach: what the body makes of the ride, the papers, who comes along
    "transport": (
        "flight flights fly flying flew plane planes airplane* airport* airline* layover* boarding luggage "
        "baggage cruise cruises ferry ferries boat boats sailing yacht* trains railway* bus buses "
        r"(?:by|take|taking|took|catch|catching|the|a|night|bullet)\s+train\b "
        r"train(?=\s+(?:ticket|station|ride|journey)s?\b) "
        "cabin redeye",
        "飞机|航班|坐飞机|机票|机场|转机|登机|值机|托运|行李|邮轮|游轮|轮船|坐船|出海|渡轮|轮渡|高铁|动车|火车|"
        "卧铺|大巴|长途汽车|坐车|航空|红眼航班|经济舱|商务舱|靠窗|车票|火车票|长途飞行",
        _en("seasick seasickness airsick airsickness carsick carsickness motion nausea claustrophobic claustrophobia "
            "vertigo phobia pacemaker sinus sinusitis thrombosis pregnant wheelchair mobility crutches knee knees "
            "surgery passport expired infant toddler precheck", _PETS_EN),
        _zh("晕船|晕机|晕车|晕眩|眩晕|恐高|幽闭|恐飞|怕坐飞机|耳压|中耳炎|鼻窦炎|起搏器|怀孕|孕|轮椅|血栓|腿脚|"
            "行动不便|膝盖|骨折|石膏(?!像)|拐杖|坐不了|腰椎|颈椎|腰不好|手术|身份证|护照|宝宝|婴儿|预产期|常旅客|里程(?!碑)", _PETS_ZH)),
    # a long drive, a road trip, a rental car: whether and how the owner may drive, and in what
    "driving": (
        "drive drives driving drove road roads roadtrip* highway* freeway* motorway* car cars rental rentals "
        "suv suvs carpool* petrol fuel gasoline parking traffic toll tolls chauffeur motorbike* motorcycle*",
        "开车|自驾|驾车|长途驾驶|高速公路|上高速|走高速|租车|拼车|顺风车|停车|加油站|充电桩|新能源车|电动车|汽车|"
        "长途(?!汽车|电话)|买车|提车|路况|堵车|限行|限号|驾驶|代驾|过路费|服务区|国道|摩托",
        "license licence licenses licences licensed learner epilepsy seizure seizures narcolepsy myopia "
        "nearsighted cataracts glaucoma speeding accident whiplash colorblind dui ev evs hybrid tesla "
        "automatic unlicensed drive",
        "驾照|驾驶证|驾龄|新手|实习期|扣分|吊销|近视|夜盲|散光|白内障|青光眼|癫痫|车祸|(?<!线上)(?<!生产)(?<!医疗)(?<!安全)事故|自动挡|手动挡|晕车|"
        "腰椎|颈椎|车险|不会开车|换证|色盲|色弱|酒驾|醉驾|违章|电动车|新能源|纯电|混动|续航|充电桩|充电站|充电难|特斯拉|比亚迪|"
        "蔚来|小鹏|路痴|方向感"),
    # outdoor sport, a hike, a run, a team-building day: what the body allows
    "exercise": (
        "hike hikes hiking hiker hikers trek* climb climbing mountain mountains running jog jogging marathon* "
        "cycling bike biking ski skiing snowboard* surf surfing kayak* canoe* rafting camping camp sport sports "
        "exercise exercising fitness tennis football soccer basketball badminton golf volleyball rugby trail "
        "trails scuba diving teambuilding skating",
        "徒步|爬山|登山|远足|露营|跑步|晨跑|夜跑|马拉松|越野|骑行|骑车|单车|滑雪|冲浪|潜水|漂流|攀岩|划船|皮划艇|"
        "运动|锻炼|打球|篮球|足球|羽毛球|网球|乒乓|高尔夫|排球|团建|户外|踢球|健走|拓展|滑冰|溜冰|骑马|射箭|"
        "蹦床|攀登|爬(?=[^，。？！,.?! ]{1,3}山)|登(?=[^，。？！,.?! ]{1,3}山)",
        _en(_INJURY_EN, _HEART_EN, "hernia concussion osteoporosis overweight obese obesity pregnant dizziness "
            "fainted nonswimmer"),
        _zh(_INJURY_ZH, _HEART_ZH, "伤病|腰伤|恐高|中暑|怕热|剧烈运动|痛风|体重|肥胖|超重|怀孕|孕|哺乳|"
            "不会游泳|旱鸭子|怕水|头晕")),
    # a gym, a class, a pool: injuries, skin and ears, whether the owner can swim
    "gym": (
        "gym gyms swim swims swimming swimmer swimmers pool pools yoga pilates crossfit weightlifting weights "
        "treadmill* sauna* workout* aerobics zumba boxing kickboxing taekwondo karate judo trainer bodybuilding "
        "squat* deadlift*",
        "健身|健身房|游泳|泳池|游泳馆|泳馆|瑜伽|普拉提|撸铁|举铁|力量训练|私教|跑步机|动感单车|桑拿|汗蒸|拳击|搏击|"
        "跆拳道|柔道|空手道|深蹲|卧推|增肌|减脂|有氧|健身卡|泳衣|泳镜",
        _en(_INJURY_EN, "hernia rotator asthma eczema psoriasis chlorine eardrum otitis pregnant hypertension "
            "heart pacemaker epilepsy drowned drowning nonswimmer"),
        _zh(_INJURY_ZH, "肩膀|哮喘|湿疹|皮肤过敏|中耳炎|耳朵|隐形眼镜|例假|经期|生理期|怀孕|高血压|心脏|"
            "起搏器|癫痫|低血糖|低血压|伤口|脚气", _SWIM_ZH)),
    # a doctor, a symptom, a medicine: allergies to drugs, what is already taken, long-standing conditions
    "medical": (
        "doctor doctors hospital* clinic* medicine* medication* pill pills prescription* pharmacy pharmacies "
        "painkiller* ibuprofen paracetamol aspirin antibiotic* checkup* dentist* dental vaccine* vaccination* "
        "flu fever cough* headache* symptom* sick sickness illness gp nurse treatment* therapy therapist* "
        "physio* supplement* vitamin*",
        "医院|看病|看医生|就医|挂号|门诊|急诊|体检|吃药|用药|药物|药品|药店|处方|感冒|发烧|发热|咳嗽|头疼|头痛|"
        "胃疼|拉肚子|腹泻|止痛药|布洛芬|消炎药|抗生素|打针|输液|疫苗|牙医|看牙|拔牙|补牙|复诊|手术|保健品|维生素|"
        "中药|症状|不舒服",
        "allergic allergy allergies penicillin sulfa warfarin thinners insulin metformin statins chronic "
        "diabetic diabetes hypertension asthma epilepsy pregnant breastfeeding kidney kidneys liver insurance "
        "insured hiv pacemaker stent thyroid anemia anemic depression anxiety cancer chemo chemotherapy dialysis "
        "gout cholesterol surgery lactose celiac antidepressant antidepressants ssri medication medications "
        "arrhythmia fainting",
        "过敏|青霉素|头孢|磺胺|长期服用|正在服用|降压药|胰岛素|二甲双胍|阿司匹林|华法林|抗凝|糖尿病|高血压|哮喘|"
        "癫痫|慢性|肾|肝病|乙肝|丙肝|肝炎|抗抑郁|怀孕|哺乳|备孕|医保|保险|病史|血型|心脏|起搏器|心脏支架|搭桥|甲亢|甲减|甲状腺|透析|"
        "抑郁|焦虑|贫血|失眠|癌症|肿瘤|化疗|放疗|胃病|胃炎|胃溃疡|痛风|尿酸|高血脂|胆固醇|过敏史|家族史|骨折|"
        "晕针|晕血|低血压|低血糖|乳糖不耐|心律|房颤"),
    # buying a device, an appliance, anything dear: the budget, what it must work with, where it goes
    "purchase": (
        "buy buying bought purchase* shop shopping upgrade upgrading laptop* phone phones smartphone* iphone* "
        "android tablet* ipad* computer* pc tv tvs television* headphone* earbud* camera* appliance* "
        "fridge* refrigerator* washer dryer dishwasher* vacuum* microwave* console* printer* gadget* mattress* "
        "furniture sofa sofas couch couches desk desks discount* deal deals",
        "买(?![单菜通])|购买|入手|剁手|下单|选购|换手机|换电脑|手机|电脑|笔记本|平板|耳机|相机|电视|冰箱|洗衣机|"
        "烘干机|洗碗机|扫地机|吸尘器|空调|热水器|微波炉|烤箱|路由器|显示器|键盘|鼠标|音箱|家电|数码|值不值|性价比|"
        "家具|沙发|床垫|书桌|优惠|打折|双十一|(?<![a-z0-9])618(?![a-z0-9])|团购",
        _en("budget budgets afford savings debt debts loan loans installments overdraft salary paycheck frugal "
            "iphone android macbook mac windows linux samsung battery cracked renting renter landlord "
            "lefthanded rsi carpal", _PETS_EN),
        _zh("预算|以内|不超过|存款|积蓄|负债|欠款|贷款|分期|花呗|信用卡|手头紧|省钱|攒钱|月薪|收入|安卓|苹果手机|"
            "华为|小米|租的|打孔|租房|合租|房东|旧手机|老手机|电池|续航|电量|型号|老款|小户型|平米|左撇子|腱鞘炎|"
            "睡眠浅|浅眠|怕吵|猫毛|狗毛", _PETS_ZH)),
    # something brought to the door: where the home is and when someone is in
    "delivery": (
        "delivery deliveries shipment shipments courier couriers "
        "parcel parcels doorstep amazon fedex usps dhl installer* postman mailman "
        "groceries",
        "快递|送货|送到家|送上门|上门|配送|派送|包邮|发货|收货|签收|代收|物流|顺丰|京东|淘宝|网购|安装|跑腿|闪送|"
        "同城|驿站|快递柜|寄快递|寄到|邮寄",
        "address addresses floor elevator elevators stairs staircase walkup doorman concierge buzzer intercom "
        "gated locker lockers dorm dormitory campus landlord renting nightshift",
        _zh("地址|住址|收货地址|楼层|电梯|楼梯|爬楼|顶楼|门卫|保安|门禁|小区|物业|快递柜|驿站|宿舍|校区|"
            "白天不在家|家里没人|不在家|房东|租房|打孔|搬到|搬家|夜班|宝宝", _FLOOR_ZH)),
    # renting, buying or choosing a flat, moving house: the lease, the commute, the noise, the stairs,
    # the animals, the means
    "moving": (
        "rent rents renting renter renters lease leases leasing sublet* apartment* condo* housing relocat* "
        "movers roommate* flatmate* housemate* neighborhood* neighbourhood* realtor* tenancy tenant* mortgage* "
        "downpayment landlord flat flats flatshare viewing viewings "
        r"\d+(?:st|nd|rd|th)\s+floor "
        r"mov(?:e|es|ed|ing)(?=\s+(?:to|out|in|into|house|home|apartment|flat|abroad|city|cities)\b)",
        "租房|房租|租金|合租|整租|找房|看房|搬家|搬到|搬去|搬出|搬进|换房|买房|购房|房子|二手房|新房|中介|房东|租约|"
        "续租|退租|押金|首付|房贷|学区房|公寓|住处|住哪|临街|朝向|采光|户型|楼层|几楼|高层|低层|电梯房|步梯|"
        "南北通透|房源|选房|隔音",
        _en("lease leases landlord landlady deposit commute commuting mortgage budget expires wheelchair roommate "
            "elevator stairs knee knees elderly wfh nightshift asthma piano credit savings",
            _PETS_EN, _NOISE_EN),
        _zh("房东|租约|合同到期|到期|押金|房租|通勤|房贷|首付|公积金|户口|预算|学区|轮椅|腿脚|膝盖|行动不便|"
            "爬楼|电梯|恐高|老人|宝宝|(?<=孩子|儿子|女儿)上学|幼儿园|上小学|上初中|转学|高考|中考|在家办公|居家办公|夜班|倒班|鼻炎|哮喘|风湿|怕冷|怕热|"
            "采光|西晒|朝北|临街|噪音|钢琴(?!曲)|名下|首套|二套|社保|征信|贷款|存款|积蓄|合租|室友|车位|电动车",
            _PETS_ZH, _NOISE_ZH)),
    # building work at home, or the neighbours': who cannot bear the noise or the dust, whether it may be done
    "renovation": (
        "renovation renovations renovate renovating remodel* refurbish* redecorat* repaint* plumber* "
        "electrician* carpenter* tiling tiles flooring drywall contractor* builder* construction drill drilling "
        "noise noisy soundproof* decorating",
        "装修|翻新|改造|施工|刷墙|铺地板|吊顶|水电|瓷砖|打孔|电钻|噪音|噪声|吵(?![架嘴])|隔音|装修公司|工长|软装|"
        "硬装|油漆|厨卫|防水|开荒|保洁",
        _en("sleeper insomnia migraine migraines newborn infant baby pregnant asthma asthmatic landlord tenant "
            "renting tinnitus formaldehyde nightshift elderly exam exams budget allergic allergies birth postpartum",
            _PETS_EN),
        _zh("浅眠|睡眠浅|失眠|神经衰弱|偏头痛|耳鸣|怕吵|婴儿|宝宝|新生儿|月子|怀孕|孕|哮喘|鼻炎|甲醛|过敏|租的|"
            "租房|合租|房东|在家办公|居家办公|夜班|倒班|老人|心脏|高考|中考|考研|备考|考试|预算|房贷", _PETS_ZH)),
    # pets and other animals: allergies and fears, the animals already at home, whether the home allows one,
    # who is there to look after it
    "pets": (
        "pet pets dog dogs doggy puppy puppies cat cats kitty kitten kittens hamster* rabbit* bunny bunnies "
        "parrot* budgie* tortoise* turtle* lizard* aquarium* vet vets veterinar* kennel* groomer* grooming "
        "leash* adopt adopting adoption animal animals zoo",
        "宠物|(?<![热身舔属])狗(?!仔)|(?<![夜熊])猫(?![子眼腻])|仓鼠|兔子|鹦鹉|乌龟|金鱼|鱼缸|水族|爬宠|撸猫|猫咖|"
        "遛狗|铲屎|宠物医院|兽医|领养|收养|狗粮|猫粮|猫砂|绝育|动物",
        _en("allergic allergy allergies dander asthma bitten phobia landlord landlady lease roommate "
            "immunocompromised pregnant toxoplasmosis eczema newborn baby toddler renting", _PETS_EN),
        _zh(_PETS_ZH, "猫毛|狗毛|毛发过敏|过敏|哮喘|怕狗|怕猫|被狗咬|被猫抓|狂犬|房东|不让养|不许养|室友|怀孕|"
            "弓形虫|湿疹|鼻炎|经常出差|出差|租房|合租|宝宝|婴儿|老人|小户型|预算")),
    # family or friends staying over: where they sleep, what they can climb, how they sleep, what they
    # cannot be near
    "guests": (
        "guest guests guestroom houseguest* visitor visitors visiting relatives in-laws sleepover* overnight "
        "hosting housewarming reunion "
        r"stay(?:s|ing)?(?=\s+(?:with\s+(?:us|me)|over|the\s+night|at\s+(?:our|my))\b) "
        r"(?:come|comes|coming|came)(?=\s+(?:over|to\s+stay|to\s+visit|visit)\b)",
        "来住|住几天|住一段|住一阵|来我家|来家里|到家里|家里来|住我家|住我们家|借住|留宿|过夜|做客|客人|来访|探亲|"
        "亲戚|招待|接待|过来住|小住|串门|"
        "(?:婆婆|公婆|岳父|岳母|丈母娘|老丈人|爸妈|父母|我妈|我爸|老妈|老爸)(?:要|下周|周末|过年|明天|下个月)?来",
        _en("guestroom bedroom bedrooms studio sofabed futon airbed couch wheelchair mobility stairs elevator snore "
            "snores snoring insomnia sleeper allergic allergy roommate roommates flatmate newborn baby elderly birth",
            _PETS_EN),
        _zh("客房|次卧|沙发床|气垫床|折叠床|一居室|一室|单间|开间|小户型|行动不便|轮椅|腿脚|膝盖|爬楼|没电梯|打呼|"
            "打鼾|失眠|作息|早睡|怕冷|睡眠浅|浅眠|怕吵|过敏|合租|室友|房东|宝宝|婴儿|月子|孕|老人|忌口|吃素|"
            "热水器", _PETS_ZH, _FLOOR_ZH)),
    # time away from home (a business trip, a holiday, a hospital stay): who looks after what is left,
    # and what the dates collide with
    "away": (
        "trip trips itinerary travel travels traveling travelling traveled travelled vacation* holiday holidays "
        "conference* offsite* retreat retreats secondment* sabbatical* getaway* honeymoon* "
        r"away(?=\s+for\b) out\s+of\s+town",
        "出差|行程|外派|驻外|出远门|出门几天|不在家|离家|回老家|回家过年|旅游|旅行|度假|出游|出国|住院|远行|长假|休假|"
        "年假|假期|蜜月|国庆|春节|五一",
        _en("sitter petsitter babysitter babysitters nanny daycare neighbor neighbour neighbors neighbours "
            "plants houseplants caregiver hamster fish aquarium parrot rabbit tortoise turtle elderly pregnant "
            "pto volunteer", _PETS_EN, _DATES_EN),
        _zh(_PETS_ZH, "喂猫|遛狗|铲屎|寄养|托管|保姆|阿姨|邻居|照看|接孩子|带孩子|老人|浇花|花草|植物|钥匙|鱼缸|金鱼|"
            "乌龟|鹦鹉|仓鼠|兔子|父母|行动不便|轮椅|卧床|宝宝|孕|年假|请假|每周|值班|志愿者|接送|快递", _DATES_ZH)),
    # a meeting, overtime, an invitation at a time: the standing commitments, the dates already taken
    "schedule": (
        "meeting meetings schedule schedules scheduling reschedule* calendar appointment* overtime deadline* "
        "availability available slot slots invite invitation* standup* sync webinar* monday tuesday wednesday "
        "thursday friday saturday sunday weekend weekends evening evenings tonight",
        "开会|会议|例会|约个时间|约时间|安排时间|什么时候有空|有空|有时间吗|加班|值班|排班|调休|周[一二三四五六日末]|"
        "星期[一二三四五六日天]|礼拜[一二三四五六日天]|下班后|今晚|明晚|约见|面谈|日程|档期|哪天|定在|几号",
        _en("timezone curfew dialysis daycare therapy physio chemo", _COMMIT_EN, _DATES_EN),
        _zh(_COMMIT_ZH, "每晚|放学|例会|时差|透析|复诊|康复|理疗|化疗|兴趣班|补习班", _DATES_ZH)),
    # a new job, an offer, a transfer, a job on the side: what the current contract and life tie the owner to
    "job": (
        r"(?:new|dream|full-time|part-time|day|summer)\s+jobs?\b job(?=\s+(?:offer|hunt|hunting|search|interview)s?\b) "
        "career careers resign resigning resignation recruiter* headhunter* hiring interview interviews "
        "interviewing cv linkedin promotion promotions layoff* employer employers startup startups internship* "
        "workplace coworker* colleague* boss counteroffer* freelance* moonlight* "
        r"offer(?=\s+letters?\b) "
        r"side\s+(?:job|hustle|gig) quit(?:ting)?(?=\s+(?:my|the|this)\s+job\b) "
        r"transfer(?:s|red|ring)?(?=\s+(?:me|us|to)\b)",
        "换工作|跳槽|辞职|离职|找工作|求职|面试|(?<![a-z0-9])offer(?![a-z0-9])|猎头|入职|转行|升职|加薪|裁员|被裁|简历|招聘|实习|职业|岗位|"
        "创业|考公|考编|新工作|工作机会|调岗|轮岗|外派|驻外|调动|调职|派驻|借调|转岗|内推|新公司|谈薪|薪资|待遇|"
        "签约|三方|背调|兼职|副业|接私活|外包|调去|调往",
        _en("noncompete non-compete notice probation contract sponsorship visa equity vesting bonus severance "
            "pension 401k h1b tenure nda confidentiality greencard spouse pregnant maternity mortgage commute "
            "degree certified", _PLACE_EN),
        _zh("竞业|竞业协议|试用期|劳动合同|期权|股票|年终奖|社保|公积金|户口|落户|签证|房贷|服务期|违约金|"
            "培训协议|提前一个月|合同(?=[^。，,]{0,8}到期)|兼职|保密协议|工签|居住证|编制|事业编|合同到期|父母|老人|(?<=孩子|儿子|女儿)上学|高考|中考|配偶|"
            "怀孕|孕|产假|哺乳|学历|证书|资格证|通勤|车贷|存款|积蓄|不会说英语|英语不好", _PLACE_ZH)),
    # paying, saving, spending: the budget, the debts, when money comes in
    "money": (
        "pay paying payment* bill bills invoice* tax taxes bank banks banking money finance* financial invest* "
        "stock* crypto* fund funds refund* subscription* fee fees expense* spending spend insurance transfer "
        "transfers",
        "付款|支付|缴费|交费|账单|还款|还钱|转账|汇款|信用卡|银行|理财|投资|基金|股票|存钱|攒钱|花钱|开销|开支|报销|"
        "退款|订阅|会员费|水电费|物业费|(?<![免])税|保险|记账|预算|借钱|贷款",
        "budget debt debts loan loans mortgage overdraft payday salary paycheck income savings credit autopay "
        "bankruptcy frugal allowance pension tuition owe owes owed unemployed",
        "预算|负债|欠款|欠债|贷款|房贷|车贷|花呗|借呗|信用卡|还款日|账单日|发工资|工资|月薪|收入|存款|积蓄|月光|"
        "省钱|公积金|社保|学费|生活费|零花钱|还欠|欠了|欠着|欠钱|名下|首付|月供|网贷|逾期|征信|助学贷款|养老金|退休金|失业"),
    # a present for someone close: their dates, their sizes, what they must not eat or drink
    "gifts": (
        "gift gifts gifting presents birthday* anniversar* christmas xmas valentine* souvenir* bouquet* flowers "
        "surprise wedding* graduation housewarming hamper* retirement",
        "礼物|送礼|礼品|送什么|生日|纪念日|周年|情人节|七夕|母亲节|父亲节|圣诞|年货|伴手礼|手信|红包|惊喜|鲜花|花束|"
        "婚礼|满月|孝敬|心意|送给",
        "birthday anniversary size sizes allergic allergy allergies diabetic diabetes vegan vegetarian teetotal "
        "sober fragrance colorblind pregnant",
        _ZODIAC_ZH + "|生日|大寿|纪念日|尺码|鞋码|码数|(?<=[SMLXsmlx])码|(?<=[0-9]{2})码|过敏|糖尿病|血糖|戒烟|"
        "戒酒|不喝酒|吃素|忌讳|生肖|属相|色盲|忌口|身高|"
        "体重|怕冷|老花|怀孕|孕|宝宝|不会用"),
    # children and school (a class event, a party, the snacks): their health, their school, who has them when
    "children": (
        "kid kids child children son sons daughter daughters toddler* school schools schooling kindergarten* "
        "preschool* nursery homework teacher teachers classroom parenting tutoring tutor tutors playdate* "
        "playground* recess teen teens teenager* classmate* pta "
        r"field\s+trips? sports\s+day bake\s+sale summer\s+camp parent-teacher "
        r"snacks?(?=\s+for\s+(?:the\s+)?(?:class|school|kids|team)\b) "
        r"(?:class|school)\s+(?:party|parties|trip|trips|event|events|outing|picnic)",
        "孩子|小孩|儿子|女儿|娃(?!娃)|幼儿园|小学|初中|高中|学校|上学|放学|作业|老师|家长会|班主任|辅导班|补习|兴趣班|"
        "早教|托班|升学|中考|高考|小升初|学区|育儿|带娃|亲子|班级|班上|带零食|分享零食|带点零食|带些零食|庆生|春游|秋游|运动会|开放日|"
        "研学|夏令营|游学|生日会|家委会|文艺汇演|毕业典礼|开学|军训|寄宿",
        "adhd autism autistic dyslexia dyslexic asthma allergic allergy allergies epipen peanut peanuts nuts "
        "gluten dairy lactose halal kosher vegetarian diabetic custody myopia nearsighted eczema carsick shy "
        "birthday",
        "多动症|注意力|自闭|孤独症|阅读障碍|哮喘|过敏|近视|湿疹|抚养权|离婚|单亲|学区|户口|年级|接送|接孩子|早产|"
        "花生|坚果|麸质|乳糖|清真|忌口|糖尿病|晕车|不会游泳|怕水|胆小|内向|怕生|体弱|生日|蛀牙|龋齿|身高"),
    # expecting, or a baby at home: the stage, and what the doctor said
    "pregnancy": (
        "pregnancy pregnant baby babies newborn* infant* breastfeeding diaper* nappy nappies stroller* pram "
        "crib* trimester* prenatal postnatal postpartum maternity paternity midwife obstetric* ob-gyn "
        "ultrasound ivf conceive conceiving fertility",
        "怀孕|孕期|孕妇|孕早期|孕中期|孕晚期|备孕|试管|产检|预产期|待产|生孩子|生娃|坐月子|月子|产后|母乳|喂奶|哺乳|"
        "奶粉|纸尿裤|尿不湿|婴儿|新生儿|宝宝|产假|陪产假|胎儿|胎教|二胎",
        "pregnant pregnancy trimester gestational miscarriage miscarriages c-section cesarean caesarean "
        "preeclampsia breastfeeding ivf anemia anemic placenta postpartum twins bedrest",
        "怀孕|孕|备孕|预产期|孕周|妊娠|流产|剖腹产|顺产|早产|哺乳|母乳|试管|先兆|贫血|胎位|产后|双胞胎|高龄|血糖|"
        "糖耐|甲减|前置|保胎|卧床"),
    # giving up a habit (smoking, drink): how deep it goes, what was tried
    "quitting": (
        "smoke smoking smoker smokers cigarette* cigar* vape vapes vaping nicotine tobacco e-cigarette* sobriety "
        "sober withdrawal relapse* craving* addiction* addicted rehab detox "
        r"quit(?:s|ting)?(?=\s+(?:smoking|drinking|alcohol|vaping|cigarettes|caffeine|coffee|sugar)\b)",
        "戒烟|戒酒|戒掉|抽烟|吸烟|香烟|烟瘾|电子烟|尼古丁|二手烟|戒断|复吸|酒瘾|上瘾|成瘾|戒糖|戒咖啡|戒奶茶|戒游戏|"
        "戒网瘾",
        "smoker smokes smoked smoking cigarettes cigarette vape vaping nicotine relapsed relapse sober sobriety "
        "alcoholic anxiety depression",
        "戒烟|戒酒|抽烟|吸烟|烟龄|一天一包|烟瘾|电子烟|复吸|戒过|戒了|酒瘾|酗酒|焦虑|抑郁|失眠|发胖"),
    # learning something, sitting an exam: the owner's level, dates and limits
    "study": (
        "exam exams examination* ielts toefl gre gmat lsat mcat jlpt hsk cpa cfa certification* course courses "
        "lesson lessons study studying learn learning degree masters phd mba bootcamp* university "
        "college thesis semester* enroll* enrol* duolingo vocabulary grammar",
        "考试|备考|考证|考研|考公|雅思|托福|四级|六级|(?<![a-z0-9])GRE(?![a-z0-9])|(?<![a-z0-9])GMAT(?![a-z0-9])|"
        "(?<![a-z0-9])CPA(?![a-z0-9])|注会|法考|教资|学英语|学日语|学外语|学编程|"
        "学钢琴|自学|网课|课程|报班|培训|学习|复习|刷题|背单词|学位|研究生|留学|毕业论文|论文|证书|考级",
        _en("beginner beginners intermediate fluent fluency dyslexia dyslexic adhd score scores scored ielts toefl "
            "gre jlpt hsk certified major majored degree native toeic n1 n2 n3", _SKILL_EN),
        _zh("零基础|基础差|基础薄弱|入门|分数|考了|成绩|学历|本科|专科|硕士|雅思|托福|四级|六级|阅读障碍|注意力|报名|"
            "准考证|考点|母语|口语", _SKILL_ZH, _LANG_ZH)),
    # sleep, rest, a late night: what keeps the owner awake
    "sleep": (
        "sleep sleeping slept asleep sleepy nap naps napping bedtime insomnia melatonin jetlag mattress* pillow* "
        "wake waking woke awake tired fatigue* caffeine coffee espresso",
        "睡觉|睡眠|失眠|入睡|睡不着|睡不好|熬夜|早睡|早起|午睡|午觉|打盹|犯困|好困|很困|安眠药|褪黑素|助眠|枕头|床垫|"
        "作息|倒时差|咖啡|浓茶",
        "insomnia insomniac sleeper apnea snore snores snoring caffeine nightshift shifts melatonin narcolepsy "
        "cpap restless noise roommate newborn baby",
        "失眠|浅眠|睡眠浅|入睡困难|易醒|早醒|打鼾|打呼|呼吸暂停|咖啡因|不能喝咖啡|夜班|倒班|安眠药|褪黑素|神经衰弱|"
        "焦虑|怕吵|怕光|对声音(?=[^。，,]{0,3}敏感)|宝宝|婴儿|夜奶|室友|合租|临街|噪音|腰椎|颈椎|腰间盘|腰不好"),
    # sightseeing, an attraction, a theme park, a trip at home: what the body, the fears and the papers allow
    "sightseeing": (
        "sightseeing sightsee attraction* rollercoaster* coaster* rides zipline* skywalk* museum* disneyland "
        "disney gondola cablecar landmark* tour tours tourist* excursion* daytrip* safari canyon* waterfall* "
        "viewpoint* cliff* trip trips travel traveling travelling vacation* holiday holidays itinerary "
        r"(?:theme|amusement|water|national)\s+parks? roller\s+coasters? glass\s+bridge cable\s+car "
        r"observation\s+deck old\s+town day\s+trip universal\s+studios",
        "景点|景区|玻璃栈道|栈道|游乐园|游乐场|主题公园|迪士尼|环球影城|欢乐谷|方特|长隆|过山车|跳楼机|摩天轮|海盗船|"
        "蹦极|高空|索道|缆车|观光|游览|古镇|古城|公园|爬山|登山|一日游|两日游|周边游|门票|博物馆|动物园|海洋馆|"
        "水族馆|溶洞|峡谷|悬崖|观景台|寺庙|故宫|长城|旅游|旅行|出游|度假|自由行|跟团|报团|旅行团|去哪玩|"
        "去哪儿玩|(?:哪里|哪儿|什么地方)好玩|出去玩|去玩|逛逛|游玩|高原|西藏|旅游攻略|旅行攻略|做攻略|"
        "去[^，。？！,.?! ]{1,6}玩(?![具手游])|玩[几两一三四五]天|爬(?=[^，。？！,.?! ]{1,3}山)|"
        "登(?=[^，。？！,.?! ]{1,3}山)",
        _en(_PHOBIA_EN, _HEART_EN, _MOBILITY_EN, _INJURY_EN, "pregnant altitude "
            "heatstroke sunburn pollen hayfever height stroller budget"),
        _zh(_PHOBIA_ZH, _HEART_ZH, _MOBILITY_ZH, _INJURY_ZH, "怀孕|孕|高原反应|高反|怕热|中暑|怕冷|紫外线过敏|光敏|"
            "花粉|身高|坐不了|宝宝|婴儿|不会开车|身份证|年假|预算")),
    # games and outings with friends (an escape room, KTV, a party): fears, the voice, the drink, the curfew
    "outing": (
        "party parties karaoke bowling paintball trampoline* arcade* outing* hangout "
        r"escape\s+rooms? laser\s+tag board\s+games? game\s+night haunted\s+house go-?karts? "
        r"hang(?:ing)?\s+out",
        "密室|密室逃脱|剧本杀|狼人杀|桌游|(?<![a-z0-9])KTV(?![a-z0-9])|唱K|(?<![a-z0-9])K歌|聚会|派对|轰趴|鬼屋|蹦迪|蹦床|卡丁车|真人CS|团建|"
        "朋友约(?=我)|同学聚会|同事聚会|出去玩|夜店|酒吧|电玩城|"
        "(?:和|跟|约|陪)(?:朋友|闺蜜|同学|同事|哥们|兄弟|室友)们?(?=[^，。？！,.?!]{0,4}(?:去|出去|玩|聚|唱|逛))",
        _en("claustrophobic claustrophobia phobia heart epilepsy seizures photosensitive asthma pregnant sober "
            "teetotal shy introvert introverted anxiety curfew budget tinnitus smoker carsick"),
        _zh("幽闭|怕黑|胆小|怕鬼|心脏|高血压|癫痫|哮喘|孕|怀孕|不喝酒|酒精过敏|滴酒不沾|五音不全|不会唱歌|"
            "嗓子|声带|社恐|内向|怕生|门禁|宵禁|早睡|作息|耳鸣|夜盲|预算|手头紧|晕车|恐高|腿脚|膝盖|烟味|二手烟|"
            "鼻炎|光敏")),
    # a wedding, a funeral, a birthday banquet: the money, the dates, the drink, the performance asked,
    # the taboos
    "celebration": (
        "wedding weddings funeral funerals memorial bridesmaid* groomsman groomsmen christening baptism "
        "ceremony ceremonies reception "
        r"engagement\s+party (?:give|giving|make|making)\s+(?:a\s+)?(?:toast|speech) "
        r"best\s+man baby\s+shower bridal\s+shower bar\s+mitzvah bat\s+mitzvah",
        "婚礼|婚宴|喜酒|参加婚礼|伴娘|伴郎|随礼|随份子|份子钱|礼金|出节目|表演节目|才艺|致辞|寿宴|大寿|过寿|祝寿|"
        "满月酒|百日宴|周岁宴|抓周|升学宴|谢师宴|乔迁|暖房|葬礼|丧礼|追悼会|白事|红白事|吊唁|奔丧|出殡|守灵|"
        "上坟|扫墓|祭祖|订婚|提亲|见家长|喜宴",
        _en("budget savings debt sober teetotal allergic vegan vegetarian pregnant mourning widowed passed shy "
            "introvert anxiety stutter", _SKILL_EN, _DATES_EN),
        _zh(_ZODIAC_ZH, "预算|手头紧|欠款|存款|伴娘|伴郎|守孝|孝期|去世|过世|离世|丧事|不喝酒|酒精过敏|滴酒不沾|"
            "忌口|吃素|怀孕|孕|属相|生肖|忌讳|怯场|社恐|口吃|结巴|五音不全|不会唱歌|不会跳舞|值班|轮椅|行动不便|晕车", _SKILL_ZH, _DATES_ZH)),
    # a hot spring, a spa, the beach, water sports: whether the owner can swim, and what the water or the
    # heat is bad for
    "water": (
        "beach beaches seaside snorkel* scuba diving surf surfing rafting kayak* spa spas onsen "
        "waterpark* jetski* paddleboard* jacuzzi hottub sunbathe* swim swimming snorkeling "
        r"hot\s+springs? water\s+parks? water\s+sports?",
        "温泉|泡温泉|泡汤|汤泉|海边|海滩|沙滩|浮潜|潜水|深潜|漂流|冲浪|水上乐园|水上项目|游泳|戏水|玩水|游艇|帆船|"
        "摩托艇|桨板|划船|皮划艇|(?<![a-z0-9])SPA(?![a-z0-9])|桑拿|汗蒸|澡堂|洗浴|泡澡|海岛|赶海|出海",
        _en(_SWIM_EN, _HEART_EN, "pregnant tattoo tattoos eczema psoriasis sunburn eardrum otitis seasick "
            "claustrophobic padi certified surgery"),
        _zh(_SWIM_ZH, _HEART_ZH, "怀孕|孕|经期|例假|生理期|(?<=来)大姨妈|大姨妈(?=来了|期间)|纹身|刺青|湿疹|皮肤过敏|皮肤敏感|晒伤|光敏|"
            "紫外线过敏|中耳炎|耳朵进水|鼓膜|隐形眼镜|伤口|手术|骨折|石膏(?!像)|晕船|幽闭|鼻窦炎|潜水证|怕冷|糖尿病")),
    # the car itself (a service, a repair, charging, insurance): which car, how old, what is covered
    "car": (
        "mechanic* servicing garage tyre tyres tire tires dealership* mot "
        r"oil\s+change "
        r"(?:car|vehicle)\s+(?:\w+\s+)?(?:service|servicing|maintenance|wash|insurance|repair|repairs|inspection) "
        r"charging\s+(?:station|stations|point|points|port|at\s+home) (?:ev|car)\s+charg\w*",
        "保养|4S店|修车|汽修|维修厂|修理厂|换机油|机油|轮胎|换胎|补胎|洗车|年检|年审|车检|验车|车险|续保|充电桩|"
        "充电站|换电|刹车片|电瓶|爱车|车子",
        "ev evs hybrid tesla toyota honda corolla camry prius bmw audi mercedes volkswagen subaru nissan mazda "
        "hyundai kia mileage odometer warranty leased insurance accident",
        "电动车|新能源|纯电|混动|插混|油车|续航|里程(?!碑)|车龄|保修|质保|延保|车险|车贷|驾照|年检|(?<!线上)(?<!生产)(?<!医疗)(?<!安全)事故|刮蹭|剐蹭|车位|"
        "停车位|充电桩|特斯拉|比亚迪|蔚来|小鹏|丰田|本田|日产|宝马|奔驰|奥迪|卡罗拉|凯美瑞|雅阁|轩逸|思域"),
    # visiting someone ill, in hospital or with a newborn: what the visitor may bring in with them
    "visiting": (
        "newborn* hospitaliz* hospitalis* maternity "
        r"visit(?:s|ing)?(?=\s+(?:\w+\s+){0,4}(?:hospital|newborn|baby|sick|ill|recovering)\b) "
        r"(?:had|has|having)\s+(?:a|her|their|his)\s+baby gave\s+birth new\s+baby get\s+well "
        r"in\s+(?:the\s+)?hospital",
        "探望|看望|探病|探视|慰问|去医院看|到医院看|住院|坐月子|月子中心|月子会所|刚生|生孩子|满月|看宝宝|看新生儿|"
        "做手术|动手术|病房|生了(?=[个一两]|宝宝|孩子|儿子|女儿|娃)",
        _en("flu fever cough contagious shingles herpes chickenpox smoker smokes smoking perfume allergic allergy "
            "vaccinated vaccine unvaccinated pertussis pregnant", _PETS_EN),
        _zh("感冒|发烧|咳嗽|流感|嗓子|传染|带状疱疹|疱疹|水痘|抵抗力|免疫力|抽烟|吸烟|烟味|香水|过敏|花粉|猫毛|狗毛|"
            "疫苗|百日咳|鼻炎|孕|怀孕|晕车|腿脚|行动不便|轮椅|晕血|晕针", _PETS_ZH)),
    # being ill oneself (a cold, the flu, a fever): whom to keep away from, what one is due at
    "contagion": (
        "flu influenza covid fever feverish cough coughing contagious infectious strep norovirus chickenpox "
        "measles "
        r"(?:i'?m|i\s+am|feeling|feel|got|getting|been)\s+sick "
        r"(?:have|has|got|caught|catching|getting)\s+a\s+cold sore\s+throat stomach\s+bug coming\s+down\s+with",
        "感冒|发烧|发热|咳嗽|流感|甲流|乙流|新冠|阳了|中招|传染|嗓子疼|喉咙痛|流鼻涕|鼻塞|生病|病了|水痘|诺如|"
        "手足口|肺炎|支原体|红眼病|疱疹",
        _en(_FRAIL_EN, "asthma copd roommate roommates flatmate flatmates nursing daycare volunteer volunteering "
            "grandmother "
            "grandfather grandma grandpa"),
        _zh(_FRAIL_ZH, "孕妇|哮喘|慢阻肺|心脏|糖尿病|同住|室友|合租|幼儿园|托班|接孩子|值班|每周|志愿者|养老院|"
            "敬老院")),
    # a hotel, a homestay, a berth for the night: how the owner sleeps, what the room must have
    "lodging": (
        "hotel* hostel* airbnb motel* resorts inn inns bnb accommodation* lodging campsite* tent tents "
        r"(?<!last\s)resort(?!\s+to\b)",
        "酒店|宾馆|旅馆|民宿|住宿|订房|青旅|客栈|旅店|房型|大床房|双床房|标间|(?<![这一那两几])套房(?!子)|帐篷|上铺|下铺|住哪",
        _en(_NOISE_EN, "snore snoring heights claustrophobic allergic allergy allergies mites feathers smoker "
            "smoking wheelchair mobility stairs knee knees infant baby pregnant budget loyalty marriott hilton "
            "hyatt ihg bonvoy", _PETS_EN),
        _zh(_NOISE_ZH, "打呼|打鼾|恐高|幽闭|过敏|尘螨|羽毛(?!球)|鼻炎|哮喘|烟味|二手烟|抽烟|吸烟|轮椅|行动不便|腿脚|膝盖|"
            "爬楼|宝宝|婴儿|孕|预算|万豪|希尔顿|洲际|凯悦|华住|亚朵|洁癖|怕冷|怕热|腰椎|腰不好|颈椎", _PETS_ZH)),
    # a festival (New Year, Mid-Autumn, fireworks): where to spend it, the animals and the frail at home,
    # who is on duty, who is in mourning
    "festival": (
        "christmas xmas thanksgiving hanukkah diwali easter eid halloween fireworks firecracker* "
        r"new\s+year lunar\s+new\s+year new\s+year's",
        "春节|过年|年三十|除夕|大年|拜年|年夜饭|团圆|回家过年|中秋|国庆|端午|元宵|清明|重阳|元旦|跨年|鞭炮|"
        "放鞭炮|烟花|放烟花|爆竹|春联|守岁|压岁钱|黄金周|五一|圣诞|感恩节",
        _en(_PETS_EN, "fireworks parents in-laws inlaws mourning passed funeral birth postpartum asthma newborn baby "
            "pregnant budget sober "
            "teetotal diabetic shifts custody divorced", _PLACE_EN),
        _zh(_PETS_ZH, "怕鞭炮|怕烟花|怕打雷|父母|老人|婆家|娘家|公婆|岳父|岳母|丈母娘|值班|轮班|"
            "守孝|孝期|去世|过世|离世|丧事|哮喘|鼻炎|心脏|宝宝|婴儿|月子|孕|晕车|车票|抢票|年假|预算|手头紧|"
            "不喝酒|忌口|糖尿病|血糖|离婚|单亲|抚养权", _PLACE_ZH)),
    # buying for, or choosing for, a member of the family: their sizes, their bodies, what they can use
    "family": (
        r"(?:buy|buying|get|getting|pick|picking|choose|choosing|order|ordering|find|finding|shop|shopping)"
        r"(?=\s+(?:\w+\s+){0,4}for\s+(?:my\s+)?(?:mom|mum|mother|dad|father|parents|grandma|grandpa|grandmother|"
        r"grandfather|son|daughter|kids?|children|wife|husband|baby|toddler|sister|brother|partner|girlfriend|"
        r"boyfriend)\b)",
        "(?:给|帮|为|替)(?:我)?(?:妈|爸|妈妈|爸爸|老妈|老爸|爸妈|父母|老人|奶奶|爷爷|外婆|外公|姥姥|姥爷|孩子|儿子|"
        "女儿|宝宝|娃|老婆|老公|媳妇|女朋友|男朋友|对象|婆婆|公公|岳母|岳父|丈母娘|弟弟|妹妹|哥哥|姐姐|家里人|"
        "家人)(?:们)?(?=买|挑|选|订|准备|换|配|找|报|添|置办)",
        "size sizes petite diabetic allergic allergy allergies colorblind lefthanded deaf dentures arthritis "
        "knee knees wheelchair mobility eczema smartphone",
        "尺码|鞋码|码数|(?<=[SMLXsmlx])码|(?<=[0-9]{2})码|身高|体重|腰围|胸围|老花|花眼|视力|听力|耳背|助听器|白内障|假牙|牙口|不会用|智能手机|老人机|"
        "不识字|不认字|腿脚|行动不便|轮椅|膝盖|腰椎|颈椎|腰不好|糖尿病|血糖|高血压|心脏|过敏|怕冷|手脚冰凉|色盲|"
        "左撇子|近视|年级|湿疹|皮肤敏感|忌口|吃素|戒烟|戒酒"),
}


# Whole English words are bounded by ASCII letters and digits, not by ``\b``: a Chinese note writes
# "用户用iPhone", where the Han letter next to "i" is a word character and ``\b`` finds no edge.
_EDGE_BEFORE, _EDGE_AFTER = "(?<![a-z0-9_])", "(?![a-z0-9_])"


def _english(words: str) -> str:
    bodies = []
    for word in words.split():
        if "(" in word or "\\" in word:  # a regular expression, for a word that needs its neighbours
            bodies.append(word)
        elif word.endswith("*"):
            bodies.append(re.escape(word[:-1]) + "[a-z0-9_]*")
        else:
            bodies.append(re.escape(word))
    return _EDGE_BEFORE + "(?:" + "|".join(bodies) + ")" + _EDGE_AFTER


def _pattern(en: str, zh: str) -> str:
    """One alternation: the English words whole (``*``: any ending), the Chinese expressions as written."""
    return "|".join(part for part in (_english(en) if en else "", f"(?:{zh})" if zh else "") if part)


def _alternatives(expr: str) -> list[str]:
    """The top-level alternatives of a regular expression (a ``|`` inside a group or a class is not one)."""
    parts, depth, start, i, in_class = [], 0, 0, 0, False
    while i < len(expr):
        ch = expr[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(expr[start:i])
            start = i + 1
        i += 1
    parts.append(expr[start:])
    return [part for part in parts if part]


_LOOKAROUND = re.compile(r"\(\?<?[=!][^()]*\)")
_SYNTAX = set(".^$*+?{}[]()|\\")


def _plain_words(name: str, en: str, zh: str) -> tuple[str, ...]:
    """The concern words as plain query words: the English words, each Chinese expression without its
    look-arounds. Anything else (a class, a group, ``*``) is a slip in the table above, caught here
    at import rather than sent to the search engine as a query word."""
    words = []
    for word in en.split() + [_LOOKAROUND.sub("", alt) for alt in _alternatives(zh)]:
        if _SYNTAX.intersection(word):
            raise ValueError(f"concern {word!r} of {name!r} is not a plain word")
        if word not in words:
            words.append(word)
    return tuple(words)


_CUES = {name: LazyPattern(_pattern(en, zh), re.I) for name, (en, zh, _, _) in SITUATIONS.items()}
_CONCERNS = {name: LazyPattern(_pattern(en, zh), re.I) for name, (_, _, en, zh) in SITUATIONS.items()}
_PLAIN = {name: _plain_words(name, en, zh) for name, (_, _, en, zh) in SITUATIONS.items()}


@lru_cache(maxsize=1024)
def situations_of(text: str) -> frozenset[str]:
    """The situations ``text`` (a question) names by its cue words."""
    return frozenset(name for name, pattern in _CUES.items() if pattern.search(text))


@lru_cache(maxsize=4096)
def concerns_of(text: str, among: frozenset[str] | None = None) -> frozenset[str]:
    """The situations in which ``text`` (a stored note) states something that matters; only those
    ``among`` when given (a search asks of a few situations, and each pattern costs about 10 µs a
    character of a text)."""
    names = _CONCERNS if among is None else [name for name in among if name in _CONCERNS]
    return frozenset(name for name in names if _CONCERNS[name].search(text))


def concern_words(situations: Iterable[str]) -> str:
    """The concern words of ``situations`` as one space-separated keyword query (each word once, in
    the order of :data:`SITUATIONS`, so the same situations give the same query; an unknown name
    gives nothing)."""
    return _concern_words(frozenset(situations))


@lru_cache(maxsize=256)
def _concern_words(situations: frozenset[str]) -> str:
    words: dict[str, None] = {}
    for name, plain in _PLAIN.items():
        if name in situations:
            words.update(dict.fromkeys(plain))
    return " ".join(words)
