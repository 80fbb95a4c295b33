"""Scripted conversations for the promotion-quality benchmark (and its tests): a host that follows
each conversation through reverie's sidecar (:class:`reverie.sidecar.FollowedSession`) and answers
with the offline model, the way Claude Code or Codex would with a real one.

Each conversation is a list of turns: a user message, and optionally the assistant's reply as a
script (a refusal or boilerplate of some other model); without one, the offline model answers (a
``memory_search`` first, then its reply quoting what it found, or saying it found nothing). The
facts are worded the way people type them: with "remember that", "记住", "by the way"; the
chit-chat and boilerplate are there to be left out. All of it written for this benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

# (user message, scripted assistant reply or None for the offline model's own answer)
Turn = tuple[str, "str | None"]


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    # questions asked on later days (searches: the recall signals Dreaming promotes on)
    later: list[str] = field(default_factory=list)
    # words a promoted entry of this conversation must hold (one of the facts), if it is promoted
    facts: list[str] = field(default_factory=list)


CONVERSATIONS = [
    Conversation("cabin", [
        ("Remember that the cabin at Lake Vessel has a wood stove and no mains power.", None),
        ("What do you know about the cabin?", None),
        ("thanks!", "You're welcome! Let me know if there's anything else I can help with."),
    ], ["cabin wood stove", "power at the lake cabin", "does the cabin have a stove", "Lake Vessel cabin heating"],
        ["wood stove"]),
    Conversation("hotel-zh", [
        ("记住：我们决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。", None),
        ("杭州那次住哪里来着？", None),
        ("好的谢谢", "不客气！还有什么可以帮您的吗？"),
    ], ["湖滨酒店", "杭州住哪个酒店", "湖景房为什么没订", "西湖边酒店预算"], ["湖滨酒店"]),
    Conversation("allergy", [
        ("By the way, I'm allergic to shellfish, so never suggest prawn dishes.", None),
        ("Can you write me a poem about the sea?", "I'm sorry, but I can't help with that request."),
        ("As an AI, what do you think about oysters?", "As an AI language model, I don't have personal opinions."),
    ], ["shellfish allergy", "can I eat prawns", "allergic to shellfish", "prawn dishes"], ["shellfish"]),
    Conversation("piano-zh", [
        ("记住，女儿每周六上午在静安寺附近上钢琴课，老师姓王。", None),
        ("你能帮我订一张机票吗？", "抱歉，我无法帮您完成这个请求。"),
        ("那你是什么模型？", "作为一个人工智能语言模型，我没有访问外部系统的权限。"),
    ], ["钢琴课", "女儿钢琴课在哪里", "周六上午钢琴课老师", "静安寺钢琴课"], ["钢琴课"]),
    Conversation("chitchat", [
        ("How's it going today?", "Pretty good, thanks for asking! How about you?"),
        ("Just tired, long week.", "I hear you. Take it easy this weekend!"),
        ("lol yeah", None),
    ], ["long week tired", "how's it going"], []),
    Conversation("chitchat-zh", [
        ("今天好累啊", "辛苦了，早点休息吧！"),
        ("哈哈 是啊", None),
        ("天气真不错", "是啊，适合出去走走。"),
    ], ["今天好累", "天气真不错"], []),
    Conversation("atlas", [
        ("Note that the Atlas migration cutover moved to December 22 because the vendor slipped.", None),
        ("When is the Atlas cutover?", None),
        ("I don't have access to your calendar, do I?", "I don't have access to your calendar or email."),
    ], ["Atlas cutover date", "when does Atlas migrate", "Atlas vendor slip", "migration cutover December"],
        ["December 22"]),
    Conversation("dentist-zh", [
        ("下周三下午三点约了牙医，在徐家汇的诊所。", None),
        ("我是不是约了牙医？", None),
    ], ["牙医预约", "徐家汇诊所", "周三牙医", "牙医几点"], ["牙医"]),
    Conversation("gym", [
        ("My gym is the Northside Climbing Hall and I go on Tuesday and Thursday evenings.", None),
        ("Do you remember where I climb?", None),
        ("Ok cool", "Great! Anything else?"),
    ], ["climbing gym", "Northside Climbing Hall", "when do I go climbing", "Tuesday climbing"], ["Northside"]),
]

# One-fact conversations: a statement and an acknowledgement, the fact looked up on later days.
FACTS = [
    Conversation("seats", [("Remember that my partner Lena always wants a window seat on long flights.", None)],
                 ["Lena window seat", "seat for Lena on flights", "window seat long flight"], ["window seat"]),
    Conversation("bike", [("Note that my bike is a green Brompton, frame number stored in the garage drawer.", None)],
                 ["green Brompton bike", "where is the Brompton frame number", "my folding bike"], ["Brompton"]),
    Conversation("vet", [("Our cat Miso sees Dr Okafor at the Riverside Vet Clinic every March.", None)],
                 ["Miso vet", "Riverside Vet Clinic", "cat checkup March"], ["Okafor"]),
    Conversation("wine", [("I decided we only order Rioja at the Tapas Tuesdays dinners, never Malbec.", None)],
                 ["Rioja or Malbec", "Tapas Tuesdays wine", "which wine at tapas"], ["Rioja"]),
    Conversation("standup", [("The Kestrel team standup moved to 9:40 in the Orchid room.", None)],
                 ["Kestrel standup time", "Orchid room standup", "when is the Kestrel standup"], ["Kestrel"]),
    Conversation("boiler", [("Remember the boiler service is with Hartley Heating, contract renews in October.", None)],
                 ["Hartley Heating boiler", "boiler service contract", "who services the boiler"], ["Hartley"]),
    Conversation("tea-zh", [("我喜欢喝龙井茶，不加糖，下午三点以后不喝咖啡。", None)],
                 ["龙井茶", "下午喝咖啡吗", "喝茶加糖吗"], ["龙井"]),
    Conversation("car-zh", [("记住，我的车停在万达广场地下二层B区，车位号218。", None)],
                 ["车停在哪里", "万达广场停车", "车位号"], ["万达广场"]),
    Conversation("mom-zh", [("妈妈的生日是农历八月十五，每年都在苏州老家一起过。", None)],
                 ["妈妈生日", "苏州老家", "农历八月十五"], ["苏州"]),
    Conversation("school-zh", [("儿子在实验小学读三年级，班主任是李老师，放学时间四点半。", None)],
                 ["实验小学", "儿子放学时间", "班主任"], ["实验小学"]),
    Conversation("insurance-zh", [("我们决定车险续保选平安保险，因为理赔快，每年十一月到期。", None)],
                 ["车险续保", "平安保险", "车险什么时候到期"], ["平安保险"]),
    Conversation("diet-zh", [("我对花生过敏，点外卖的时候一定要备注不要花生。", None)],
                 ["花生过敏", "外卖备注", "过敏"], ["花生"]),
]
ALL = CONVERSATIONS + FACTS


def run_conversation(mem, conv: Conversation, *, key: str, model=None, clock=None) -> dict:
    """Follow one conversation through the sidecar, the offline model answering; end it (the
    session note is written). Returns the end outcome's data. ``clock``: the day it happens
    (a replayed month), the wall clock without one."""
    from reverie.models.base import ChatMessage
    from reverie.models.offline import OfflineModel
    from reverie.sidecar import FollowedSession, HostMessage, ToolCallPart
    from reverie.tools.memory import memory_tools

    model = model or OfflineModel()
    tools = {t.name: t for t in memory_tools(mem, clock)}
    defs = [tools["memory_search"].openai(), tools["memory_append"].openai()]
    s = FollowedSession(mem, host="bench", key=key, clock=clock)
    try:
        s.start()
        for n, (text, scripted) in enumerate(conv.turns):
            pre = s.before_model(text)
            turn = [HostMessage("user", text, "owner", host_id=f"{key}-{n}-u")]
            if scripted is not None:
                turn.append(HostMessage("assistant", scripted, "agent", host_id=f"{key}-{n}-a"))
            else:
                msgs = [ChatMessage("system", "You are a helpful assistant.\n\n" + pre.text), ChatMessage("user", text)]
                for step in range(3):
                    reply = model.complete(msgs, defs).message
                    if not reply.tool_calls:
                        turn.append(HostMessage("assistant", reply.content, "agent", host_id=f"{key}-{n}-a"))
                        break
                    msgs.append(reply)
                    turn.append(HostMessage("tool_call", "", "agent", host_id=f"{key}-{n}-c{step}",
                                            tool_calls=tuple(ToolCallPart(c.id, c.name, c.arguments)
                                                             for c in reply.tool_calls)))
                    for c in reply.tool_calls:
                        result = json.dumps(tools[c.name].call(c.arguments), ensure_ascii=False)
                        msgs.append(ChatMessage("tool", result, tool_call_id=c.id, name=c.name))
                        turn.append(HostMessage("tool_result", result, "recall", tool_name=c.name, tool_call_id=c.id,
                                                host_id=f"{key}-{n}-r{c.id}"))
            s.after_turn(turn)
        return s.end("new").data
    finally:
        s.close()
