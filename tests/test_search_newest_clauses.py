"""A nineteenth round of the newest-first order (search/newest.py): a Chinese chat message runs its
statements together with commas ("儿子的游泳课在周二晚上7点，下课都快8点半了，晚饭怎么安排比较好？" is a fact, a
remark and a question), so where two messages share a thing the question asks about, their clauses are
read as the statements they are; one of the owner's people named bare in Chinese (以后儿子改成…) is the
owner's own; and a new one of what is asked said in Chinese (新来的刘阿姨) says a change of it."""

from __future__ import annotations

import pytest

from answer_rows import assert_earlier_first, assert_later_first, two_answers
from reverie.search.newest import _a_new_one_said, _asked_of, _bare_kin, _zh_clauses, prefer_newest

SWIM = "儿子的游泳课在周二晚上7点，下课都快8点半了，晚饭怎么安排比较好？"
COOK = "我们家王阿姨做饭老是偏咸，怎么跟她说比较委婉不伤人"


@pytest.mark.parametrize("earlier, later, query", [
    (SWIM, "游泳馆那边调课了，以后儿子改成周六上午10点上，终于不用晚上赶了", "儿子的游泳课是什么时候上？"),
    (COOK, "新来的刘阿姨今天第一天上班，说她擅长做面食，今晚让她做点啥好？", "现在家里做饭的是哪位阿姨？"),
    ("女儿的舞蹈课在周三下午四点，每次接送都好赶，有什么办法吗？", "舞蹈班发通知了，以后女儿的舞蹈课改成周日上午，终于不用请假了",
     "女儿的舞蹈课是什么时候？"),
])
def test_the_clauses_of_a_chinese_message_are_read_as_its_statements(earlier, later, query):
    assert_later_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("earlier, later, query", [
    # someone else's son, someone else's new cook, a wish, a person shared and nothing asked
    (SWIM, "同事家儿子的游泳课改成周六上午了，他说那个教练不错", "儿子的游泳课是什么时候上？"),
    # (a fresh-eyes review's: what a clause before frames — a supposition, what one said or asked, another's
    # child — frames the clauses after it; a classmate's, the next class's; a whole message saying another's
    # change beside the owner's "still"; a new head of the same kindergarten)
    (SWIM, "要是教练同意，儿子的游泳课就改到周六上午，你觉得我该怎么跟教练开口？", "儿子的游泳课是什么时候上？"),
    (SWIM, "儿子说，同桌的游泳课改到周六上午了，他也想改，你觉得有必要吗？", "儿子的游泳课是什么时候上？"),
    (SWIM, "同事家孩子也在那个游泳馆，游泳课改到周六上午了，不知道我们会不会也改，好烦", "儿子的游泳课是什么时候上？"),
    (SWIM, "邻居问我，游泳课是不是改到周六上午了，我说没有啊，还是周二晚上，她是不是记错了？", "儿子的游泳课是什么时候上？"),
    ("儿子的班主任是李老师，教数学的，挺负责，家长会我该问些什么？", "儿子说，隔壁班换了新班主任，姓赵，特别凶，幸好他们还是李老师",
     "儿子的班主任是谁？"),
    ("女儿在阳光幼儿园上中班，每天早上8点送，我上班经常迟到，怎么办？", "阳光幼儿园换了新园长，说要改早上入园时间，改到8点半，这样我能不迟到了吗？",
     "女儿在哪个幼儿园？"),
    ("我女儿的小提琴课在周三下午4点，老师姓黄，练琴她老不肯，怎么办？", "女儿同学的小提琴课改到周五了，黄老师说周三人太多，我们要不要也改？",
     "我女儿的小提琴课什么时候？"),
    ("我的英语老师是Lisa，每周二晚上线上课，一节课45分钟", "女儿的英语老师换成Tom了，我的还是Lisa，Tom教小孩挺有一套", "我的英语老师是谁？"),
    ("我的牙医是王医生，在市口腔医院，补牙补得挺好", "我妈的牙医换成孙医生了，我还是找王医生，下次洗牙一起去吗？", "我的牙医是谁？"),
    ("女儿的舞蹈课在周四下午5点，在少年宫，跳了一年了", "女儿说，她们班好几个同学的舞蹈课都改到周六了，她也想改", "女儿的舞蹈课是什么时候？"),
    (COOK, "邻居家新来的阿姨做饭特别好吃，她家孩子都胖了", "现在家里做饭的是哪位阿姨？"),
    (SWIM, "要是儿子的游泳课能改成周六就好了，晚上实在太赶", "儿子的游泳课是什么时候上？"),
    ("儿子在实验小学读三年级，班主任是李老师。", "跟你说一下，儿子的游泳课改到周六上午十点了。", "儿子的游泳课是什么时候？"),
])
def test_a_clause_of_someone_else_or_a_wish_changes_nothing(earlier, later, query):
    assert_earlier_first(prefer_newest(two_answers(earlier, later), query))


def test_clauses_are_those_of_a_chinese_sentence_of_several():
    assert [c for c, _ in _zh_clauses("user: " + SWIM)] == ["儿子的游泳课在周二晚上7点", "下课都快8点半了", "晚饭怎么安排比较好？"]
    assert _zh_clauses("儿子的游泳课在周二晚上7点。") == ()
    assert _zh_clauses("My son's swim class is Tuesday, 7pm, right?") == ()


@pytest.mark.parametrize("sentence, bare", [
    ("以后儿子改成周六上午10点上", True), ("老公换了新工作", True),
    ("同事的儿子改成周六上午了", False), ("他儿子改成周六了", False), ("我妹妹换了新经理", False),
])
def test_one_of_the_owner_s_people_named_bare(sentence, bare):
    people = frozenset({"儿子", "经理", "老公"})
    assert _bare_kin(sentence, people) is bare


@pytest.mark.parametrize("earlier, later, query", [
    ("taking the 42 bus to work every morning, it's so packed. should i get a bike?",
     "doc has me on 10mg of lisinopril, should i take it morning or night?", "which bus do I take to work now?"),
])
def test_when_and_how_often_are_no_subject(earlier, later, query):
    """A time of day, how often, and "take" say nothing of what a line is about (the two lines shared "take"
    and "morning" and were read as one subject)."""
    assert_earlier_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("earlier, later, query", [
    ("I take metformin for my blood sugar.", "My doctor switched me, I take Jardiance now instead.",
     "What medication do I take?"),
    ("I take Zyrtec for my allergies every spring.", "I take Claritin now, Zyrtec was making me drowsy.",
     "What do I take for my allergies?"),
    ("我妈每天早上去公园跳广场舞，跳了好几年了，最近膝盖疼", "我妈现在改成每天早上去打太极了，跳广场舞膝盖受不了，太极有什么要注意的？",
     "我妈每天早上去做什么？"),
])
def test_when_and_take_are_a_subject_where_the_question_asks_them(earlier, later, query):
    assert_later_first(prefer_newest(two_answers(earlier, later), query))


@pytest.mark.parametrize("text, question, said", [
    ("新来的刘阿姨今天第一天上班", "现在家里做饭的是哪位阿姨？", True),
    ("部门调整了，新的经理姓周", "我现在的经理是谁？", True),
    ("东西也新鲜菜也多", "我们现在用哪家的净菜配送？", False),  # (新鲜, "fresh")
    ("重新找了阿姨", "现在家里做饭的是哪位阿姨？", False),  # (重新, "again")
    ("新来的刘阿姨今天第一天上班", "我现在的经理是谁？", False),  # (a new one, of nothing asked)
])
def test_a_new_one_said_in_chinese(text, question, said):
    assert _a_new_one_said(text, _asked_of(question)) is said


def test_a_change_of_the_class_teacher_is_none_of_the_guitar_teacher():
    """班主任 (the class teacher) is a teacher of another subject than the one asked, where the change is said of
    it; a message telling of the teacher asked first and of a new class teacher after is still news of the one
    asked (the clause reading of this round had read "开学换了新班主任周老师" as news of the guitar teacher)."""
    guitar = "我的吉他老师是小赵，他让我练F和弦，手指按不住怎么办"
    assert_earlier_first(prefer_newest(two_answers(guitar, "开学换了新班主任周老师，挺严格的，我要不要主动加个微信打个招呼？"),
                                       "我现在的吉他老师是谁？"))
    assert_later_first(prefer_newest(two_answers(
        "女儿的钢琴老师陈老师要求每天练一个小时，小家伙天天哭",
        "闺女现在跟着周老师学琴，周老师比较注重兴趣，她练得开心多了。对了她们班主任也换了，是个刚毕业的小姑娘"),
        "我女儿现在的钢琴老师是谁？"))
