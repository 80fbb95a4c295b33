"""The triggers Dreaming writes are worth firing (issue 29, item 2): salient words -- Chinese words,
not character pairs -- never generic verbs, role words or stop words, and never a phrase that would
fire on ordinary messages (the false-fire check at promotion time)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from bench_helpers import load_benchmark
from dreaming_helpers import memory_text, open_mem

from reverie.dreaming.background import messages
from reverie.dreaming.trigger_words import candidates, false_fires, triggers_for
from reverie.recall.triggers import score_message
from reverie.sidecar import FollowedSession
from reverie.text.segment import nouns

pc = load_benchmark("promotion_conversations")
HOTEL = "我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。"


def test_chinese_triggers_are_words_and_never_character_pairs():
    assert [n.word for n in nouns(HOTEL)] == ["西湖", "湖滨酒店"]  # 订湖景房 is guessed: left out, not split wrong
    got = triggers_for(HOTEL)
    assert got == ["湖滨酒店"], got
    for bad in ("决定", "定住", "住西", "订湖", "景房"):
        assert all(bad not in p for p in candidates(HOTEL)), bad
    assert triggers_for("女儿每周六上午在静安寺附近上钢琴课，老师姓王。") == ["静安寺", "钢琴课"]


def test_an_everyday_verb_before_a_noun_is_no_name_of_what_the_fact_is_about():
    """The dictionary holds 喝咖啡 (as a proper noun) and 弹钢琴 as nouns: as triggers they fired on any
    question about coffee ("感冒了能喝咖啡吗？", three of 500 everyday messages written apart from this
    code: benchmarks/ordinary_fresh_data.py). The noun alone pairs like any two-character noun."""
    tea = "我喜欢喝龙井茶，不加糖，下午三点以后不喝咖啡。"
    assert "喝咖啡" in [n.word for n in nouns(tea)]  # (what the segmenter says)
    assert triggers_for(tea) == ["龙井茶"]
    assert not any("弹钢琴" in p or "喝啤酒" in p for p in candidates("我在学弹钢琴，他爱喝啤酒。"))
    assert "打印机" in " ".join(candidates("公司的打印机在三楼。"))  # a noun that begins with a verb stays
    for message in ("感冒了能喝咖啡吗？", "高血压的人能喝咖啡吗？"):
        assert score_message(message, "; ".join(triggers_for(tea)), 1.0) < 0.65


def test_role_words_generic_verbs_and_stop_words_never_make_a_trigger():
    got = triggers_for("User decided to remember that the wifi password at the cabin is kept in the drawer.")
    words = {w for p in got for w in p.split()}
    assert not words & {"user", "decided", "remember", "wifi", "the", "that", "is"}, got
    assert got, "the cabin and the drawer still make a phrase"
    assert triggers_for("We decided to remember it.") == []
    # a lone common word is never a trigger; a name is
    assert triggers_for("I live in Munich.") == ["munich"]
    assert all(" " in p for p in triggers_for("The cabin has a wood stove and no mains power."))


def test_a_phrase_that_fires_on_ordinary_messages_is_dropped():
    sample = messages()
    assert len(sample) >= 250 and any("用户" in m for m in sample) and any("wifi password" in m for m in sample)
    assert false_fires("wifi password") >= 1 and false_fires("用户") >= 1
    # "wifi password" is a candidate of this fact, and dropped because ordinary messages hold it
    text = "The wifi password at the lake house is on the router label."
    assert "wifi password" in candidates(text) and "wifi password" not in triggers_for(text)
    # the check uses the lane's own scoring: on a sample of the caller's, "lake house" would fire
    assert false_fires("lake house", sample=["Let's rent a lake house for the summer."]) == 1
    assert false_fires("lake house", sample=["The house by the sea."]) == 0


def test_promoted_triggers_fire_on_the_fact_and_stay_quiet_on_an_ordinary_message(reverie_home):
    mem = open_mem()
    by_name = {c.name: c for c in pc.ALL}
    convs = [by_name["cabin"], by_name["hotel-zh"]]
    for i, conv in enumerate(convs):
        pc.run_conversation(mem, conv, key=f"c{i}")
    mem.sync()
    now = datetime.now(timezone.utc).replace(hour=6, minute=0, second=0, microsecond=0)
    for d in range(1, 5):
        for conv in convs:
            for q in conv.later:
                mem.search(q, now=now + timedelta(days=d))
    mem._signals.flush()
    mem.dream(now=now + timedelta(days=5))
    text = memory_text(mem)
    assert "<!-- trigger: lake vessel, wood stove, mains power -->" in text, text
    assert "<!-- trigger: 湖滨酒店 -->" in text, text
    written = " ".join(re.findall(r"<!-- trigger: (.*?) -->", text))
    assert "user" not in written and "决定" not in written and "remember" not in written, written
    mem.sync()

    def injected(message: str, key: str) -> str:
        s = FollowedSession(mem, host="t", key=key)
        try:
            return s.before_model(message).text
        finally:
            s.close()

    assert "Lake Vessel" in injected("Is there a wood stove at the cabin? I'm packing for the weekend.", "a")
    assert "湖滨酒店" in injected("这次去杭州还住湖滨酒店吗？", "b")
    assert injected("The user interface of my app is slow.", "c") == ""
    assert injected("我们决定明天开会。", "d") == ""
    assert score_message("the user interface of my app is slow", "user; remember; wifi", 0.2) >= 0.65  # the old rule
    mem.close()


def test_the_benchmarks_ordinary_messages_are_a_set_apart_from_the_background_sample():
    ordinary = load_benchmark("ordinary_messages").messages()
    assert len(ordinary) == len(set(ordinary)) == 1000
    assert sum(1 for m in ordinary if re.search(r"[\u4e00-\u9fff]", m)) == 500
    assert not set(ordinary) & set(messages())


def test_without_rjieba_the_fallback_still_never_makes_a_pair_across_a_particle():
    from reverie.text.segment import _fallback

    words = [n.word for n in _fallback(HOTEL)]
    assert "湖滨酒店" in words
    assert not any(w in ("定住", "住西", "边的", "的湖") or "的" in w or len(w) > 4 for w in words), words
