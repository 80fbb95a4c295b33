"""Fresh Chinese dialogue-recall data written for reverie's benchmarks.

This data was written by hand for reverie's benchmarks. It was written blind,
without looking at the existing benchmark sets or at the code it will be used
to test. Nothing here comes from a published data set.

CASES: 40 pairs of (memory, [user turn, assistant turn, user turn]).  Each
memory is a stored fact about the user.  The last user message of the
conversation needs that memory to be answered well, but shares few or no
words with it: the link is a step of everyday inference.

OTHERS: 30 further memories about the same kind of user that answer none of
the 40 conversations.  More than half of them are standing constraints or
sensitivities (allergies, health conditions, fears, budgets, fixed weekly
commitments, document expiry dates, work rules) so that "this memory states a
constraint" is not enough to pick the right answer.
"""

CASES = [
    # 1. health: old injury -> snowboarding lesson
    ("用户去年摔断过右手腕。",
     ["下个月想和朋友去崇礼滑雪，玩三天。",
      "崇礼一月份的雪况一般都不错，你们是住雪场附近还是住张家口市区？",
      "住雪场附近。朋友说单板比双板酷，你觉得我要不要报个单板入门课？"]),

    # 2. family: wife's new hobby -> anniversary gift
    ("用户的妻子最近在学烘焙。",
     ["下周六是我和老婆的结婚纪念日。",
      "恭喜！今年打算怎么过？",
      "想送她一件礼物，预算两千左右，你帮我推荐几个？"]),

    # 3. diet: lactose intolerance -> quick breakfast
    ("用户喝牛奶就会肚子胀、拉肚子。",
     ["最近早上总是来不及吃早饭，到公司饿得心慌。",
      "早餐还是尽量别省，可以选一些拿了就能走的东西。",
      "公司楼下有家便利店，推荐几样早上顺手能买的吧。"]),

    # 4. health: drug allergy -> clinic visit
    ("用户对青霉素过敏。",
     ["嗓子疼了三天了，今天还有点发烧。",
      "听起来可能是扁桃体发炎了，最好去看一下医生。",
      "我下午去社区诊所，医生多半会给我开消炎药或者打点滴，我需要提前跟他说什么吗？"]),

    # 5. body: motion sickness; conversation about the parents' trip
    ("用户很容易晕车，弯道多的路更是吐得厉害。",
     ["我爸妈想去九寨沟，让我陪他们一起去。",
      "九寨沟秋天最漂亮，你们打算怎么过去？",
      "旅行社有个从成都出发的大巴团，单程要坐十个小时，你觉得报这个团行吗？"]),

    # 6. fear: heights -> glass walkway
    ("用户有恐高症。",
     ["五一打算去张家界玩四天。",
      "张家界的山景确实壮观，天门山和国家森林公园都值得去。",
      "天门山那个玻璃栈道很出名，要不要专门去走一趟？"]),

    # 7. health: implanted device -> airport security
    ("用户胸口装着心脏起搏器。",
     ["下周要飞乌鲁木齐出差，这是我第一次坐飞机。",
      "第一次坐飞机的话，提前两个小时到机场会比较从容。",
      "过安检的时候有什么要注意的吗？"]),

    # 8. health/diet: gout -> seafood and beer
    ("用户患有痛风。",
     ["周六朋友请我去吃海鲜大排档，说要不醉不归。",
      "听起来是个很热闹的聚会，是给谁庆祝吗？",
      "就是老同学聚聚。到时候点菜喝酒，我有什么要注意的吗？"]),

    # 9. money: debt -> expensive lens
    ("用户还欠着二十多万的信用卡和网贷没还清。",
     ["最近迷上了拍鸟，每个周末都往湿地公园跑。",
      "拍鸟挺有意思的，不过对器材要求比较高，尤其是镜头的焦段。",
      "朋友推荐我买一支两万多的长焦镜头，你觉得我现在入手行吗？"]),

    # 10. money/housing: already owns a home -> down payment ratio
    ("用户名下已经有一套住房。",
     ["我在看上海浦东的一个两居室，六十多平，总价四百万左右。",
      "浦东这个价位的两居选择还挺多的，地段和学区差别会比较大。",
      "如果买的话，首付大概要准备多少钱？"]),

    # 11. schedule: standing pickups -> evening class choice
    ("用户每周二、周四晚上要去接孩子下课外班。",
     ["公司让我报名参加一个商务英语培训，晚上七点到九点上课。",
      "公司出钱培训是好事，商务英语对工作也很有帮助。",
      "培训分一三班和二四班，我该报哪个？"]),

    # 12. schedule: weekly volunteering -> which day to hike
    ("用户每个周日上午都在社区图书馆做志愿者。",
     ["朋友约我这周末去爬山。",
      "这几天天气不错，挺适合户外的，打算去哪座山？",
      "去郊区的凤凰岭，周六周日都可以，你觉得定哪天比较好？"]),

    # 13. family: mother cannot read -> travelling alone by train
    ("用户的母亲不识字。",
     ["我妈下个月要一个人坐高铁来看我，中间还要换乘一次。",
      "一个人出远门确实需要提前安排好，换乘时间留得充裕一点比较好。",
      "我该怎么帮她提前准备？"]),

    # 14. family/dates: son's exam -> early-June training
    ("用户的儿子今年参加高考。",
     ["单位通知我六月初去外地参加一周的封闭培训。",
      "封闭培训一般比较紧凑，不过能系统学点东西也不错。",
      "你觉得要不要跟领导申请换个时间？"]),

    # 15. family: daughter's allergy -> class party snacks
    ("用户的女儿对花生严重过敏。",
     ["下周五孩子班上要办一个庆生会，老师让我负责买零食。",
      "挺好的，小朋友们肯定很开心，大概多少人？",
      "三十个人左右，帮我列一个采购清单吧。"]),

    # 16. family: father in a wheelchair -> park route
    ("用户的父亲常年坐轮椅。",
     ["周末想带一家人去逛颐和园，我爸也一起去。",
      "颐和园这个季节景色不错，就是人可能会比较多。",
      "园子那么大，走哪条路线比较好？"]),

    # 17. pets: kitten -> sofa material
    ("用户家里刚养了一只三个月大的小猫。",
     ["客厅的沙发用了八年，塌得厉害，想换一套新的。",
      "换套新沙发客厅会清爽很多，你喜欢什么风格？",
      "简约一点的就行。布艺的和皮的，你觉得选哪种好？"]),

    # 18. pets: dog frightened of firecrackers -> Spring Festival at home town
    ("用户家的狗一听到鞭炮声就吓得到处乱窜。",
     ["今年春节打算回老家过，待一个星期。",
      "回老家过年热闹，家里人肯定很高兴。",
      "我想把狗狗也带回去，有什么要注意的吗？"]),

    # 19. housing: sixth floor, no lift -> fridge delivery
    ("用户住在一栋没有电梯的老楼的六层。",
     ["网上买了台五百多升的对开门冰箱。",
      "对开门容量大，一家人用很方便。",
      "下周三送货，送货那天我需要提前准备什么？"]),

    # 20. housing: rental rule -> mounting a TV
    ("用户租的房子，房东不允许在墙上打孔。",
     ["刚买了一台65寸的电视。",
      "65寸看电影很过瘾，客厅够大吗？",
      "够的。你觉得这台电视怎么装比较好？"]),

    # 21. skills: Japanese level -> overseas rotation
    ("用户自学日语好几年，已经考过了N2。",
     ["公司在内部招人去大阪分公司轮岗一年。",
      "能去海外分公司锻炼一年，对职业发展挺有帮助的。",
      "领导问我有没有兴趣，你觉得我去争取的话有优势吗？"]),

    # 22. work: non-compete -> job offer from a rival
    ("用户和雇主签过竞业限制协议，离职后两年内不能去竞品企业任职。",
     ["有个猎头联系我，说有家公司想挖我过去，薪水能涨四成。",
      "涨四成很有吸引力，是什么样的公司？",
      "就是跟我们做同类产品的一家，你觉得我该接吗？"]),

    # 23. work: probation -> long leave request
    ("用户入职新公司还不到两个月，仍在试用期。",
     ["我奶奶最近身体不太好。",
      "希望老人家早日好起来，家里有人照顾吗？",
      "我想这个月请两周假回老家陪陪她，你觉得现在跟领导提行吗？"]),

    # 24. work: contract bans moonlighting -> side business
    ("用户的劳动合同里明确规定员工不得在外兼职。",
     ["朋友拉我一起开个网店卖宠物用品。",
      "宠物用品市场挺大的，你们打算怎么分工？",
      "他负责进货，我负责客服和上架，他说每月能多赚几千块，你觉得我要不要做？"]),

    # 25. possessions: electric car -> service items
    ("用户开的是一辆纯电动车。",
     ["车开了快两万公里了，想找时间去做个保养。",
      "两万公里确实该做保养了，你一般去4S店还是外面的修理厂？",
      "还没想好。保养一般要做哪些项目？帮我列一下。"]),

    # 26. possessions: worn-out phone -> multi-day hike
    ("用户的手机用了四年多，满格也撑不过半天。",
     ["下周要和朋友去徒步三天，中间两晚住山里的营地。",
      "多日徒步挺锻炼人的，路线难度怎么样？",
      "难度中等，路上全靠手机导航和拍照，这方面我该怎么准备？"]),

    # 27. appliances: small water heater -> house guests
    ("用户家里装的是一台小容量电热水器，一次只够一个人洗。",
     ["这周末岳父岳母和小舅子一家要来家里住几天。",
      "家里一下子热闹起来了，一共几个人？",
      "加上我们一共七个人，晚上大家洗澡怎么安排比较好？"]),

    # 28. documents: expired travel permit -> trip next week
    ("用户的港澳通行证已经过期了。",
     ["公司临时通知我下周去香港参加一个展会。",
      "香港的展会一般规模都不小，是什么行业的展？",
      "电子产品展。我需要办什么手续吗？最快什么时候能出发？"]),

    # 29. skills: cannot swim -> snorkelling
    ("用户不会游泳。",
     ["公司下个月去三亚团建。",
      "三亚这个季节很舒服，行程安排了哪些项目？",
      "有一项是坐船出海浮潜，可以自愿报名，你觉得我要不要报？"]),

    # 30. skills: no English -> project with US clients
    ("用户完全不会说英语。",
     ["领导想让我负责一个新项目，主要是跟美国的客户对接。",
      "这个机会不错，跨国项目对履历也很加分。",
      "你觉得我要不要接下来？"]),

    # 31. fear: claustrophobia -> escape room
    ("用户有幽闭恐惧症。",
     ["同事们约着周六下午去玩密室逃脱。",
      "密室逃脱挺适合团队一起玩的，很考验配合。",
      "他们选了个恐怖主题的，要在小黑屋里关一个多小时，你觉得我去不去？"]),

    # 32. goals: marathon race day -> friend's wedding trip
    ("用户报了今年春天的无锡马拉松，比赛日是四月十三号。",
     ["大学室友四月中旬在大理办婚礼，请我当伴郎。",
      "恭喜你室友！伴郎一般要提前过去帮忙吧？",
      "对，要提前两天到，前后得待四五天。你觉得我该怎么安排？"]),

    # 33. important dates: father's birthday -> National Day trip
    ("用户父亲的七十大寿在十月三号。",
     ["公司今年国庆组织去西北团建，七天，费用全包。",
      "全包的七天团建挺难得的，西北秋天风景也好。",
      "报名截止到这周五，你觉得我要不要报名？"]),

    # 34. body: light sleeper -> choosing a flat to rent
    ("用户睡眠很浅，一点动静就会醒。",
     ["最近在找房子租，看中了两套。",
      "说说看，两套各有什么特点？",
      "一套临街，离地铁近，每月便宜五百；另一套在小区最里面，要多走十分钟。你觉得选哪套？"]),

    # 35. skills/hobbies: zither -> colleague's wedding act
    ("用户学了十几年古筝。",
     ["部门的小刘下个月结婚，想让我们几个同事在婚礼上出个节目。",
      "同事婚礼上出节目很有气氛，你们有几个人？",
      "四个人，但谁都没什么准备，你帮我想想能表演点什么？"]),

    # 36. places: home town -> food tips for a colleague
    ("用户是汕头人，在那儿长大。",
     ["有个同事下周要去我老家那边出差。",
      "出差顺便能感受一下当地风土人情也挺好。",
      "他问我那边有什么好吃的，你帮我想几样推荐给他吧。"]),

    # 37. body: tattoo -> Japanese hot-spring inn
    ("用户背上有一大片纹身。",
     ["下个月要去日本箱根玩几天。",
      "箱根温泉很有名，可以好好放松一下。",
      "想订一家有露天大浴场的旅馆，有什么要注意的吗？"]),

    # 38. documents: driving licence expiring -> rental car next month
    ("用户的驾驶证这个月底到期，还没去办换证。",
     ["打算下个月中旬去海南，租车环岛自驾。",
      "海南环岛路线风景很好，东线和西线各有特色。",
      "租车的话需要提前准备些什么？"]),

    # 39. family: sister with a newborn -> visiting while ill
    ("用户的妹妹上周刚生了宝宝，还在坐月子。",
     ["这两天有点咳嗽，嗓子也不舒服，可能是被同事传染了流感。",
      "多喝水多休息，症状重的话记得去医院。",
      "周末本来约好去我妹家吃饭的，你觉得还去吗？"]),

    # 40. places: upcoming relocation -> gym membership length
    ("用户明年下半年要调到哈尔滨工作。",
     ["小区门口新开了家健身房，开业在搞活动。",
      "开业活动一般优惠力度挺大的，有哪些卡可以选？",
      "月卡三百，年卡两千，两年卡三千，你觉得办哪种合适？"]),
]

OTHERS = [
    # standing constraints and sensitivities (none bears on the conversations)
    "用户对染发剂过敏，上次染发后头皮起了一大片红疹。",
    "用户对镍过敏，戴廉价的金属首饰皮肤就会发红发痒。",
    "用户不吃羊肉，受不了那股膻味。",
    "用户有轻度甲状腺功能减退，每天早上要空腹吃一片药。",
    "用户有轻微色弱，分不太清红色和绿色。",
    "用户非常怕蜘蛛，看到图片都会起鸡皮疙瘩。",
    "用户每周五晚上固定和大学同学打羽毛球。",
    "用户每周一早上八点要参加部门例会，从不缺席。",
    "用户的健康证下个月到期，需要重新体检办理。",
    "用户的身份证明年三月到期。",
    "用户的公司规定上班时间不能使用私人手机。",
    "用户的公司要求差旅报销必须在出差结束后七天内提交。",
    "用户有脂溢性脱发，每天都在用生发药。",
    "用户有鼻中隔偏曲，晚上打呼噜很响。",
    "用户家每月外出吃饭的预算控制在一千二以内。",
    "用户不会骑自行车。",
    "用户有颈椎病，睡觉只能用很矮的枕头。",
    "用户的公司规定员工不得接受客户赠送的礼品。",
    # ordinary facts
    "用户最喜欢的歌手是周杰伦。",
    "用户大学读的是土木工程专业。",
    "用户最好的朋友老周在杭州做程序员。",
    "用户是NBA勇士队的球迷。",
    "用户的弟弟在澳大利亚读博士。",
    "用户平时用的电脑是一台ThinkPad。",
    "用户喜欢看悬疑小说，最爱东野圭吾。",
    "用户的第一份工作是在一家广告公司做文案。",
    "用户高中时是校篮球队的队员。",
    "用户的岳母是退休的中学语文老师。",
    "用户收藏了一百多本老版连环画。",
    "用户喜欢下围棋，是业余三段。",
]
