"""Ordinary messages: the background a trigger must stay quiet on.

Before Dreaming writes a trigger phrase (:mod:`.trigger_words`), it tries the phrase on these
messages with the trigger lane's own scoring: a phrase that would fire on any of them is dropped.
They are what people say to an assistant on any day -- small talk, work, errands, questions about
apps, food, weather, family -- in English and Chinese, written for reverie (none is taken from a
corpus), and deliberately full of the words that make bad triggers: ``user``, ``remember``,
``decide``, ``password``, ``wifi``, ``hotel``, ``决定``, ``记得``, ``用户``, ``酒店``, ``密码``.

The benchmark (``benchmarks/promotion_quality.py``) measures false fires on a different set of
1,000 messages, so this sample is not graded on itself.
"""

from __future__ import annotations

ENGLISH = """
The user interface of my app is slow, any idea why?
Can you remember what I asked you yesterday?
I need to decide what to cook tonight.
We decided to skip the meeting, nothing new to discuss.
What's a good password manager?
The wifi at the coffee shop keeps dropping.
How do I reset my router password?
Any hotel recommendations near the airport?
Remind me how to write a for loop in Python.
What's the weather like this weekend?
I'm so tired today, long day at work.
Can you summarise this article for me?
Let's go with the second option.
The user said the button doesn't work on mobile.
Please remember to be concise in your answers.
What time is it in Tokyo right now?
My laptop battery drains really fast lately.
How long should I boil an egg?
I prefer tea over coffee in the morning, what about you?
Thanks, that was helpful!
Can you translate this sentence into French?
The meeting got moved to Thursday afternoon.
I have a dentist appointment sometime next month.
Our team lunch is at noon, want to join?
Write a short email declining the invitation.
What's the difference between a list and a tuple?
The train was late again this morning.
I forgot my umbrella at the office.
How do I change the default browser on my phone?
Is it going to rain tomorrow?
My sister is visiting this weekend.
Can you help me plan a birthday party?
The project deadline is coming up fast.
I booked a table for dinner at eight.
What's a good book to read on a flight?
Explain recursion like I'm five.
I need a new pair of running shoes.
The printer at work is out of toner again.
Let me know when the build finishes.
Can you check my spelling in this paragraph?
We're thinking about getting a dog.
How many calories are in a banana?
Traffic was terrible on the way home.
I just finished a really good movie.
What should I name this function?
Our flight got delayed by two hours.
Do you know any good stretching exercises?
The kids have a school trip on Friday.
I'm trying to cut down on sugar.
Could you give me three ideas for a blog post?
The hotel room was smaller than the photos.
The password reset email never arrived.
I decided to take the day off tomorrow.
I can't remember where I parked the car.
Our users keep asking for a dark mode.
Who won the game last night?
My phone screen cracked when I dropped it.
Is it better to rent or buy a car?
I have a headache, probably from the screen.
We need more milk and eggs.
Can you make this sentence sound more formal?
The new version of the app crashes on start.
How do I cancel a subscription?
Lunch was great, thanks for the recommendation.
I'm learning to play the guitar.
What's the capital of Australia?
My neighbour's music is too loud again.
Can you create a workout plan for beginners?
The coffee machine in the kitchen is broken.
Remember when we talked about the budget?
I think I caught a cold.
Let's schedule a call for next week.
The database migration failed with a timeout.
What are some cheap ways to heat a room?
I want to learn how to cook pasta properly.
My manager wants the report by Monday.
How do I update my address on the website?
The weather has been lovely this week.
I lost my keys again.
Can you recommend a podcast about history?
The store was closed when I got there.
My cat keeps waking me up at five.
What's a polite way to say no to a colleague?
I spilled coffee on my keyboard.
Do I need a visa to travel to Japan?
We ran out of printer paper.
Our internet provider raised the price again.
The bus was packed this morning.
What's a good gift for my dad?
I need to renew my passport soon.
Is this code thread safe?
The gym was crowded after work.
I'm going to the supermarket, need anything?
Could you explain how compound interest works?
My favourite season is autumn.
The garden needs watering.
I have too many tabs open.
Which is healthier, rice or bread?
The elevator in our building is out of order.
I'm moving to a new flat next month.
How do you pronounce this word?
Our landlord is fixing the heating on Tuesday.
Can you help me fix this error message?
The cafe on the corner makes great croissants.
I want to start running in the mornings.
What's the best way to store fresh herbs?
My brother just got a new job.
The concert tickets sold out in minutes.
We should clean the fridge this weekend.
Do you remember the name of that restaurant?
What did we decide about the holiday?
My password expired and I'm locked out.
Where can I find the settings menu?
The hotel breakfast was included in the price.
Our wifi password is written on the fridge.
I'd like a summary of today's news.
Make a shopping list for a picnic.
The heating bill was higher than expected.
Can we move our call to tomorrow?
I'm nervous about the presentation.
The doctor said to rest for a few days.
Let's meet at the station at nine.
Which laptop would you recommend for coding?
I keep forgetting to drink water.
My daughter has a piano recital soon.
The office is closed on the public holiday.
Send me a reminder about the dentist.
The cabin photos on the rental site look nice.
I'm allergic to cats, so no pet sitting.
How do I make my code run faster?
"""

CHINESE = """
今天天气怎么样？
我有点累，想早点休息。
帮我写一封请假邮件。
我们决定明天再讨论这个问题。
你还记得我昨天问你的问题吗？
用户反馈说页面加载很慢。
酒店的早餐怎么样？
帮我推荐一个密码管理软件。
咖啡店的无线网络一直断。
路由器密码忘了怎么办？
这个周末有什么好看的电影？
晚饭吃什么好呢？
我想学做红烧肉。
会议改到周四下午了。
帮我翻译一下这句话。
下个月要去看牙医。
火车又晚点了。
我的手机屏幕摔碎了。
孩子们周五有春游。
帮我把这段话改得正式一点。
项目截止日期快到了。
我订了晚上八点的餐厅。
推荐几本适合飞机上看的书。
用简单的话解释一下递归。
我需要买一双新的跑鞋。
办公室的打印机又没墨了。
构建完成了告诉我一声。
我们在考虑养一只狗。
一根香蕉有多少卡路里？
下班路上堵车太严重了。
刚看完一部很好看的电影。
这个函数应该叫什么名字？
航班延误了两个小时。
有什么好的拉伸动作吗？
我在尝试少吃糖。
给我三个博客文章的点子。
酒店房间比照片上小。
重置密码的邮件一直没收到。
我决定明天请一天假。
我记不得车停在哪里了。
用户一直要求加一个夜间模式。
昨晚的比赛谁赢了？
租车好还是买车好？
盯着屏幕太久头有点疼。
家里没有牛奶和鸡蛋了。
新版本的应用一打开就闪退。
怎么取消订阅？
午饭很好吃，谢谢推荐。
我在学弹吉他。
澳大利亚的首都是哪里？
邻居家的音乐又开得很大声。
帮我做一个新手健身计划。
厨房的咖啡机坏了。
还记得我们上次聊的预算吗？
我好像感冒了。
下周约个时间开会吧。
数据库迁移超时失败了。
有什么便宜的取暖办法？
经理要我周一前交报告。
网站上怎么修改地址？
这周天气一直很好。
我又把钥匙弄丢了。
推荐一个讲历史的播客。
我到的时候商店已经关门了。
猫每天早上五点就把我叫醒。
怎么礼貌地拒绝同事？
咖啡洒在键盘上了。
去日本需要签证吗？
打印纸用完了。
宽带又涨价了。
早上公交车太挤了。
给爸爸买什么礼物好？
护照快过期了，得去续签。
这段代码是线程安全的吗？
下班后健身房人太多了。
我去超市，你要带什么吗？
解释一下复利是怎么算的。
我最喜欢秋天。
花园该浇水了。
米饭和面包哪个更健康？
楼里的电梯坏了。
下个月我要搬家了。
这个字怎么读？
房东周二来修暖气。
帮我看看这个报错是什么意思。
街角那家咖啡店的可颂很好吃。
我想开始晨跑。
新鲜的香草怎么保存？
我哥哥找到新工作了。
演唱会的票几分钟就卖光了。
这个周末我们得清理冰箱。
你还记得那家餐厅叫什么吗？
我们假期的事最后怎么决定的？
密码过期了，我被锁在外面了。
设置菜单在哪里？
酒店价格里包含早餐。
家里的无线密码贴在冰箱上。
给我总结一下今天的新闻。
列一个野餐的购物清单。
这个月的暖气费比预想的高。
我们的电话能改到明天吗？
明天要做报告，有点紧张。
医生说要休息几天。
九点在车站见。
写代码用哪款笔记本电脑好？
我总是忘记喝水。
女儿快要参加钢琴演出了。
公共假期办公室不开门。
提醒我去看牙医。
租房网站上的小木屋照片看起来不错。
我对猫过敏，所以不能帮忙照顾宠物。
怎么让代码跑得更快？
周末想去西湖边走走。
杭州最近有什么好玩的？
这家酒店离地铁站远吗？
我们公司下周团建。
记得提醒我交水电费。
明天早上八点有个会。
最近睡得不太好。
帮我查一下去上海的高铁。
这个用户的问题已经解决了。
我决定不买那件外套了。
老师布置的作业太多了。
周末带孩子去公园。
今天的会议记录发给我一下。
我想换一个新的手机壳。
快递怎么还没到？
"""


def messages() -> list[str]:
    return [ln.strip() for ln in (ENGLISH + CHINESE).splitlines() if ln.strip()]
