"""Across languages with the real bundled embedder (search/language.py): a Chinese question finds
the English note that answers it and the reverse, while same-language scores barely move.

Without the language axis the bundled multilingual-e5-small scores every note in the question's
language above every note in the other one; these questions then put their answer below the
notes of the wrong language (``test_without_the_axis_the_language_wins`` keeps that visible).
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from reverie import Memory
from reverie.search import language
from workspace_helpers import local_memory_fixture

pytestmark = pytest.mark.semantic

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
NOTES = {
    "memory/notes/cat.md": "- We adopted a grey cat from the shelter and named her Biscuit.\n",
    "memory/notes/allergy.md": "- Allergic to penicillin: it gives me hives.\n",
    "memory/notes/race.md": "- Goal for the autumn: finish a half marathon in under two hours.\n",
    "memory/notes/meeting.md": "- The team meeting moved to Thursday afternoons.\n",
    "memory/notes/tyres.md": "- Bought new winter tyres for the car.\n",
    "memory/notes/hotpot.md": "- 老街那家火锅店的锅底很辣，我们很喜欢。\n",
    "memory/notes/passport.md": "- 我的护照放在书房书桌的抽屉里。\n",
    "memory/notes/dentist.md": "- 下周二要去牙医那里洗牙。\n",
    "memory/notes/tea.md": "- 妈妈喜欢喝普洱茶。\n",
    "memory/notes/party.md": "- 公司年会定在十二月二十号。\n",
    # more in each language: the notes a biased question would rank first
    "memory/notes/rain.md": "- 今天下了一整天雨，我就待在家里。\n",
    "memory/notes/soup.md": "- 煮了一大锅汤，够吃一个星期。\n",
    "memory/notes/bus.md": "- 这周公交车晚点了两次。\n",
    "memory/notes/window.md": "- 终于把客厅的窗户擦干净了。\n",
    "memory/notes/printer.md": "- 今天上班打印机又卡纸了。\n",
    "memory/notes/park.md": "- 晚饭后在公园里走了一圈。\n",
    "memory/notes/rent.md": "- 下周要交房租了。\n",
    "memory/notes/laptop.md": "- 笔记本电脑的电池掉电特别快。\n",
    "memory/notes/slides.md": "- My manager wants the quarterly slides by Friday.\n",
    "memory/notes/heating.md": "- The heating makes a strange clicking noise.\n",
    "memory/notes/walk.md": "- I walked around the park after dinner.\n",
    "memory/notes/bill.md": "- The electricity bill went up again.\n",
}


mem = local_memory_fixture("language-home", NOTES)


def ranked(mem: Memory, query: str) -> list[str]:
    out = mem.search(query, 10, 0.0, now=NOW, record_signals=False)
    assert out["mode"] == "hybrid", out.get("debug")
    return [r["path"].rsplit("/", 1)[-1] for r in out["results"]]


CROSS = [("我们领养的猫叫什么名字？", "cat.md"), ("我对什么药过敏？", "allergy.md"), ("我的半程马拉松目标是什么？", "race.md"),
         ("hotpot restaurant we like", "hotpot.md"), ("Where is my passport?", "passport.md"),
         ("When is the company's annual party?", "party.md")]


@pytest.mark.parametrize("query, answer", CROSS)
def test_a_question_finds_the_note_in_the_other_language(mem, query, answer):
    assert ranked(mem, query)[0] == answer


@pytest.mark.parametrize("query, answer", [("我什么时候去洗牙？", "dentist.md"), ("What tyres did I buy?", "tyres.md"),
                                           ("妈妈喜欢什么茶？", "tea.md"), ("When is the team meeting?", "meeting.md")])
def test_same_language_questions_keep_their_note_first(mem, query, answer):
    assert ranked(mem, query)[0] == answer


def test_without_the_axis_the_language_wins(mem, monkeypatch):
    # the same searches with the model's axis removed: the Chinese questions' English answers are not first
    monkeypatch.setattr(language, "_axis", lambda model: None)
    assert "cat.md" not in ranked(mem, "我们领养的猫叫什么名字？")[:3]
    assert ranked(mem, "我对什么药过敏？")[0] != "allergy.md"


def test_same_language_cosines_barely_move_and_cross_language_ones_rise(mem):
    emb = mem.searcher.embedder
    q = emb.embed_query("我们领养的猫叫什么名字？")
    zh_note, en_note = emb.embed_documents(["妈妈喜欢喝普洱茶。", "We adopted a grey cat and named her Biscuit."])
    q2, offset = language.neutral(emb.model, q)
    before = (float(q @ zh_note), float(q @ en_note))
    after = (float(q2 @ zh_note) + offset, float(q2 @ en_note) + offset)
    assert abs(after[0] - before[0]) < 0.02
    assert after[1] > before[1] + 0.04
    assert after[1] > after[0] and before[1] < before[0]  # the cat note overtakes the unrelated one


def test_a_model_without_a_measured_axis_is_left_as_it_is():
    q = np.ones(384, dtype=np.float32) / np.sqrt(384)
    out, offset = language.neutral("some-other-model", q)
    assert out is q and offset == 0.0


def test_the_language_stays_in_the_query_when_the_memory_holds_only_its_language(mem):
    """Taken out only where there is something across languages to find: over file vectors all in
    the question's language, the query is left as it is; one file in the other language among them
    and the language comes out."""
    emb = mem.searcher.embedder
    q = emb.embed_query("我们领养的猫叫什么名字？")
    zh = emb.embed_documents(["妈妈喜欢喝普洱茶。", "今天下了一整天雨，我就待在家里。", "下周要交房租了。"])
    en = emb.embed_documents(["We adopted a grey cat and named her Biscuit."])
    d = language._axis(emb.model)
    mid = language.MIDPOINTS[emb.model]
    assert language.other_language_share(d, mid, q, zh) == 0.0
    same, offset = language.neutral(emb.model, q, zh)
    assert same is q and offset == 0.0
    both = np.vstack([zh, en])
    assert language.other_language_share(d, mid, q, both) == 0.25
    moved, offset = language.neutral(emb.model, q, both)
    assert offset > 0 and not np.allclose(moved, q)
    # a file that vanished (a zero row of the matrix) is in no language
    assert language.other_language_share(d, mid, q, np.vstack([zh, np.zeros_like(en)])) == 0.0
    # an English question over the same files: the Chinese ones are the other language
    assert language.other_language_share(d, mid, emb.embed_query("What is our cat called?"), both) == 0.75
