"""Result lists for the order's pairs past the first eight (search/newest.py), written blind by a fresh-eyes
review of reverie: 23 updates said far down a list (ranks 8-15) that should lead, and 26 traps that must not
(someone else's facet, a wish or a question, another sense of the word, an older line far down, a first
result that already is the newest); 15 in Chinese. Each case: (question, rows as (date, text) best first,
the index a careful reader wants first, a note)."""
import random

EN_FILL = [
    "How's it going today?", "Ok cool", "Pretty good, thanks for asking!",
    "Can you remind me to water the plants tonight?", "The weather is so nice today",
    "I watched Dune again last night", "Need to buy milk and eggs",
    "assistant: Sure, I've set a reminder for 7pm.", "Lol that's funny",
    "Made pasta for dinner, turned out great", "My knee hurts a little after the run",
    "Any good podcast recommendations?", "We're going hiking on Saturday",
    "assistant: Here are three podcasts you might like: Radiolab, 99% Invisible, Hidden Brain.",
    "Thanks!", "The Warriors lost again ugh", "Remind me to call mom on Sunday",
    "Finished reading Project Hail Mary, loved it", "It rained all day",
    "Ordered a new lamp for the living room", "Haha yeah", "What's a good recipe for banana bread?",
]
ZH_FILL = [
    "今天天气不错", "好的谢谢", "哈哈哈哈", "晚上吃火锅去", "提醒我明天给妈妈打电话",
    "周末想去爬山", "assistant: 好的，已经帮你设置了提醒。", "最近在追《繁花》，挺好看的",
    "膝盖有点疼", "买了一盏新台灯", "下了一整天雨", "今天好累啊", "推荐几本书吧",
    "猫咪今天吐了一次", "快递终于到了", "嗯嗯", "assistant: 为你推荐《三体》《活着》《长安的荔枝》。",
    "晚饭做了番茄炒蛋",
]


def _u(t):
    return t if t.startswith("assistant:") else "user: " + t


def build(seed, lang, n, placed):
    rnd = random.Random(seed)
    pool = list(EN_FILL if lang == "en" else ZH_FILL)
    rnd.shuffle(pool)
    rows = []
    k = 0
    for i in range(n):
        if i in placed:
            d, t = placed[i]
            rows.append((d, _u(t)))
        else:
            m = rnd.choice([8, 9, 10, 11])
            day = rnd.randint(1, 30 if m in (9, 11) else 31)
            rows.append((f"2026-{m:02d}-{day:02d}", _u(pool[k % len(pool)])))
            k += 1
    return rows


_SPEC = [
    # ---------------- TRUE updates: later line far down should lead ----------------
    ("What's my job title?", "en", 12, {
        0: ("2026-10-25", "How's it going today?"), 1: ("2026-10-25", "Ok cool"),
        2: ("2026-10-25", "Pretty good, thanks for asking!"),
        3: ("2026-10-12", "I'm a senior engineer on the payments team."),
        8: ("2026-10-22", "Got the promotion!! Officially Staff Engineer as of this week.")},
     8, "TRUE: motivating example"),
    ("Where do I work now?", "en", 14, {
        1: ("2026-08-15", "I work at Stripe on the billing team."),
        11: ("2026-10-03", "Started my new job at Datadog today! New badge and everything")},
     11, "TRUE: new employer"),
    ("What's my salary?", "en", 14, {
        2: ("2026-08-20", "My salary is $95k, not amazing but ok"),
        12: ("2026-10-30", "HR confirmed my raise, my salary is now $108k")},
     12, "TRUE: new number"),
    ("Which pharmacy do I use?", "en", 12, {
        0: ("2026-08-10", "I pick up my prescriptions at the CVS pharmacy on Main St"),
        9: ("2026-09-25", "Switched my prescriptions to the Walgreens pharmacy near work, way shorter lines")},
     9, "TRUE: switched to"),
    ("Who's my dentist?", "en", 16, {
        3: ("2026-08-05", "My dentist is Dr. Patel on Elm Street"),
        14: ("2026-10-14", "My new dentist is Dr. Kim, way gentler than Dr. Patel")},
     14, "TRUE: new dentist at rank 14"),
    ("What gym am I going to these days?", "en", 13, {
        1: ("2026-08-12", "My gym is Planet Fitness, $10 a month"),
        10: ("2026-10-01", "Cancelled Planet Fitness and joined the Movement climbing gym, that's my gym now")},
     10, "TRUE: gym change"),
    ("Who is my phone carrier?", "en", 15, {
        2: ("2026-08-03", "I'm on T-Mobile, the unlimited plan"),
        13: ("2026-09-18", "Ported my number yesterday, my carrier is now Verizon")},
     13, "TRUE: carrier switched"),
    ("How much is my rent?", "en", 12, {
        0: ("2026-08-01", "My rent is $1,850 a month for the one-bedroom"),
        8: ("2026-10-20", "Landlord raised the rent, it's $1,975 starting November")},
     8, "TRUE: rent new number"),
    ("Who's my manager?", "en", 16, {
        4: ("2026-08-22", "My manager is Priya, she's great"),
        15: ("2026-10-06", "Reorg happened, my new manager is Tom")},
     15, "TRUE: new manager at rank 15"),
    ("What's my commute like now?", "en", 13, {
        1: ("2026-08-09", "My commute is 45 minutes on the 38 bus"),
        11: ("2026-10-11", "Since the move I bike to work now, commute is 15 minutes")},
     11, "TRUE: commute change"),
    ("What internet provider do I have?", "en", 12, {
        3: ("2026-08-14", "Our internet is Comcast Xfinity and it drops every evening"),
        9: ("2026-10-02", "Switched our internet to Sonic fiber, 1 gig symmetric")},
     9, "TRUE: internet provider"),
    ("What car do I drive?", "en", 14, {
        2: ("2026-08-07", "I drive a 2012 Honda Civic"),
        12: ("2026-11-02", "Traded in the Civic, my car now is a used 2021 RAV4")},
     12, "TRUE: new car"),
    ("What's my sleep schedule these days?", "en", 12, {
        0: ("2026-08-18", "My sleep schedule is pretty regular, 11pm to 7am"),
        10: ("2026-10-25", "New sleep schedule since the night shift: I sleep 9am to 4pm now")},
     10, "TRUE: sleep schedule"),
    ("Who's my hairdresser?", "en", 16, {
        5: ("2026-08-11", "My hairdresser is Lena at Studio 9"),
        14: ("2026-10-09", "Found a new hairdresser, Marco at Cutters, going to him from now on")},
     14, "TRUE: hairdresser"),
    ("Who's our vet?", "en", 13, {
        2: ("2026-08-16", "Our vet is Dr. Alvarez at Pine Animal Hospital"),
        10: ("2026-10-13", "We moved Mochi to a new vet, Dr. Nguyen at Bayview, much closer")},
     10, "TRUE: vet"),
    ("What diet am I on?", "en", 14, {
        1: ("2026-08-02", "I'm on a keto diet, day 12"),
        12: ("2026-10-15", "Quit keto, my diet is vegetarian now")},
     12, "TRUE: diet"),
    ("我现在在哪家公司上班？", "zh", 13, {
        1: ("2026-08-16", "我在腾讯上班，做后端开发"),
        10: ("2026-10-08", "今天正式入职字节跳动了，新工作第一天！")},
     10, "TRUE zh: new employer"),
    ("我的工资现在是多少？", "zh", 14, {
        2: ("2026-08-21", "我现在工资是月薪两万"),
        12: ("2026-10-28", "涨薪了！工资现在是月薪两万四")},
     12, "TRUE zh: salary number"),
    ("孩子现在在哪个幼儿园？", "zh", 12, {
        0: ("2026-08-25", "孩子在阳光幼儿园上小班"),
        9: ("2026-09-30", "孩子转到星星幼儿园了，今天第一天去")},
     9, "TRUE zh: kindergarten"),
    ("我现在用的是哪家运营商？", "zh", 14, {
        3: ("2026-08-04", "我的手机运营商是中国移动"),
        11: ("2026-10-17", "携号转网到中国联通了，现在运营商是联通，套餐便宜多了")},
     11, "TRUE zh: carrier"),
    ("我的家庭医生是谁？", "zh", 15, {
        4: ("2026-08-13", "我的家庭医生是王医生"),
        13: ("2026-10-19", "换了家庭医生，现在是李医生")},
     13, "TRUE zh: doctor"),
    ("我现在的职位是什么？", "zh", 12, {
        2: ("2026-08-26", "我的职位是产品经理"),
        8: ("2026-10-24", "升职了！现在职位是高级产品经理")},
     8, "TRUE zh: job title"),
    ("我现在去哪个健身房？", "zh", 13, {
        3: ("2026-08-19", "我在乐刻健身房办了年卡"),
        10: ("2026-10-22", "健身房换到超级猩猩了，现在每周去三次")},
     10, "TRUE zh: gym"),

    # ---------------- TRAPS: far-down line must NOT lead ----------------
    ("What's my job title?", "en", 12, {
        0: ("2026-10-25", "How's it going today?"),
        3: ("2026-10-12", "I'm a senior engineer on the payments team."),
        9: ("2026-10-22", "My sister got promoted to Director of Marketing!! So proud of her")},
     3, "TRAP other person: sister's promotion"),
    ("Who's my dentist?", "en", 14, {
        1: ("2026-08-05", "My dentist is Dr. Patel on Elm Street"),
        12: ("2026-10-15", "My husband switched to a new dentist, Dr. Okafor")},
     1, "TRAP other person: husband's dentist"),
    ("What daycare does my son go to?", "en", 13, {
        2: ("2026-08-19", "Leo goes to Little Sprouts daycare, Mon-Fri"),
        11: ("2026-10-10", "My coworker's daughter Emma just switched to Bright Horizons daycare")},
     2, "TRAP other person: Emma's daycare"),
    ("What does my husband do for work?", "en", 12, {
        0: ("2026-08-23", "Dan works as an accountant at Deloitte"),
        10: ("2026-10-26", "I got promoted to team lead today!")},
     0, "TRAP reverse: question about husband, far line is my own job change"),
    ("Who's my manager?", "en", 15, {
        2: ("2026-08-22", "My manager is Priya, she's great"),
        13: ("2026-10-07", "My colleague Raj got promoted to manager of the data team")},
     2, "TRAP other person: colleague became manager of another team"),
    ("Who is my phone carrier?", "en", 12, {
        1: ("2026-08-03", "I'm on T-Mobile, the unlimited plan"),
        10: ("2026-10-05", "If I switched to Verizon I'd get better coverage at the cabin, hmm")},
     1, "TRAP hypothetical: if I switched"),
    ("What's my salary?", "en", 14, {
        0: ("2026-08-20", "My salary is $95k, not amazing but ok"),
        12: ("2026-10-29", "Thinking about asking for a raise to $110k next month")},
     0, "TRAP plan: thinking about asking for raise"),
    ("Who's my dentist?", "en", 12, {
        3: ("2026-08-05", "My dentist is Dr. Patel on Elm Street"),
        9: ("2026-10-16", "Should I change dentists? Dr. Patel's office keeps rescheduling me")},
     3, "TRAP question: should I change dentists (still Patel)"),
    ("我现在在哪家公司上班？", "zh", 13, {
        2: ("2026-08-16", "我在腾讯上班，做后端开发"),
        11: ("2026-10-09", "要是换工作的话，我想去阿里试试")},
     2, "TRAP zh hypothetical: 要是换工作的话"),
    ("我的工资现在是多少？", "zh", 12, {
        1: ("2026-08-21", "我现在工资是月薪两万"),
        10: ("2026-10-27", "听说隔壁组的小张涨薪了，工资现在三万")},
     1, "TRAP zh other person: colleague's raise"),
    ("What's my job title?", "en", 14, {
        1: ("2026-10-12", "I'm a senior engineer on the payments team."),
        12: ("2026-10-22", "Their new album's title track is now on repeat all day")},
     1, "TRAP other sense: album title track"),
    ("How much do I make?", "en", 12, {
        2: ("2026-08-20", "My salary is $95k, not amazing but ok"),
        9: ("2026-10-18", "I make 3 loaves of sourdough every Sunday now")},
     2, "TRAP other sense: make loaves"),
    ("What daycare does Leo go to?", "en", 13, {
        0: ("2026-08-19", "Leo goes to Little Sprouts daycare, Mon-Fri"),
        11: ("2026-10-12", "Signed Biscuit up for the new doggy daycare, Wag Town, he goes Tuesdays now")},
     0, "TRAP other sense: doggy daycare (dog)"),
    ("Which bank do I use?", "en", 12, {
        1: ("2026-08-08", "I bank with Chase, checking and savings"),
        10: ("2026-08-30", "Bank holiday weekend plans changed, now we're going to Brighton instead")},
     1, "TRAP other sense: bank holiday"),
    ("Who's my manager?", "en", 13, {
        2: ("2026-08-22", "My manager is Priya, she's great"),
        10: ("2026-10-08", "Our team's new manager for the project site in Lisbon was announced today: Carlos")},
     2, "TRAP ambiguous: Lisbon site manager (arguably not my line manager)"),
    ("What health insurance do I have?", "en", 13, {
        1: ("2026-08-27", "My health insurance is Blue Shield PPO through work"),
        11: ("2026-10-31", "assistant: If you switch to Kaiser during open enrollment, your premium would drop to $210 a month.")},
     1, "TRAP assistant hypothetical about switching insurance"),
    ("Who is Leo's teacher?", "en", 13, {
        2: ("2026-08-28", "Leo's teacher this year is Ms. Rivera"),
        10: ("2026-10-14", "I have a new pottery teacher now, Hana, she's lovely")},
     2, "TRAP other person: my pottery teacher vs son's teacher"),
    ("Where do I work now?", "en", 13, {
        0: ("2026-10-03", "Started my new job at Datadog today! New badge and everything"),
        10: ("2026-08-15", "I work at Stripe on the billing team.")},
     0, "TRAP older far line: top already newest"),
    ("What gym am I going to these days?", "en", 14, {
        1: ("2026-10-01", "Cancelled Planet Fitness and joined the Movement climbing gym, that's my gym now"),
        12: ("2026-08-12", "Signed up at Planet Fitness, that's my gym now, $10 a month")},
     1, "TRAP older far line with 'now'"),
    ("How much is my rent now?", "en", 13, {
        0: ("2026-10-20", "Landlord raised the rent, it's $1,975 starting November"),
        3: ("2026-08-01", "My rent is $1,850 a month for the one-bedroom"),
        11: ("2026-09-01", "Paid September rent, $1,850 sent to the landlord")},
     0, "TRAP first result already newest; far line between"),
    ("我的银行卡是哪家银行的？", "zh", 12, {
        2: ("2026-08-09", "我的工资卡是招商银行的"),
        11: ("2026-10-11", "今天路过银行门口，发现旁边新开了一家奶茶店，现在天天排长队")},
     2, "TRAP zh other sense: passing by a bank"),
    ("我的牙医是谁？", "zh", 14, {
        1: ("2026-08-06", "我的牙医是陈医生，在人民路那家诊所"),
        12: ("2026-10-13", "我老公换了个牙医，现在去的是周医生那里")},
     1, "TRAP zh other person: husband's dentist"),
    ("我老婆现在在哪里上班？", "zh", 12, {
        0: ("2026-08-17", "老婆在华为上班，做硬件测试"),
        9: ("2026-10-21", "我跳槽到美团了，下周一入职")},
     0, "TRAP zh reverse: question about wife, far line is my job change"),
    ("我现在的职位是什么？", "zh", 13, {
        0: ("2026-10-24", "升职了！现在职位是高级产品经理"),
        10: ("2026-08-26", "我的职位是产品经理")},
     0, "TRAP zh older far line"),
    ("我现在用的是哪家运营商？", "zh", 15, {
        1: ("2026-08-04", "我的手机运营商是中国移动"),
        13: ("2026-10-23", "如果换成电信的话每个月能省三十块，要不要换呢")},
     1, "TRAP zh hypothetical carrier"),
    ("我现在几点睡觉？", "zh", 13, {
        1: ("2026-08-14", "我作息挺规律的，一般十一点睡觉"),
        11: ("2026-10-26", "室友最近作息变了，现在每天凌晨两点才睡觉")},
     1, "TRAP zh other person: roommate's sleep"),
]

CASES = []
for _i, (_q, _lang, _n, _placed, _exp, _note) in enumerate(_SPEC):
    CASES.append((_q, build(1000 + _i, _lang, _n, _placed), _exp, _note))
