"""sessions_search and sessions_history (reference §8.4): Chinese is found (field failure 2:
openclaw's transcript FTS used plain unicode61 and found nothing), a group session never reads a
direct one, visibility is applied before limits, snippets are short and redacted, payloads bounded."""

from __future__ import annotations

import json

import pytest

from reverie import Memory
from reverie.models.base import ChatMessage
from reverie.sessions import TranscriptStore
from reverie.sessions.search import MAX_PAYLOAD_BYTES, SNIPPET_CHARS
from reverie.store import connect

pytestmark = pytest.mark.usefixtures("store_backend")  # every test here runs on SQLite and on PostgreSQL


@pytest.fixture
def mem(reverie_home):
    m = Memory(overrides=['memory.search.provider="none"'])
    m.init()
    yield m
    m.close()


def tools_of(rt) -> dict:
    return {t.name: t for t in rt.tools()}


def say(store: TranscriptStore, key: str, texts: list[str], *, chat_type="direct", sender=None):
    row = store.start_session(key, chat_type=chat_type, sender=sender)
    for i, t in enumerate(texts):
        store.append_message(row.session_id, "user" if i % 2 == 0 else "assistant",
                             ChatMessage("user" if i % 2 == 0 else "assistant", t))
    return row


def test_chinese_query_finds_its_turn_where_unicode61_finds_nothing(mem):
    rt = mem.runtime("offline")
    store = rt.store
    say(store, "agent:main:main", ["周一我们讨论了杭州两日游", "好的", "我们决定住西湖边的湖滨酒店，预算每晚八百元", "记下了"])
    say(store, "agent:main:main", ["The train leaves at 9 from Shanghai", "ok"])
    out = tools_of(rt)["sessions_search"].call({"query": "湖滨酒店"})
    assert out["results"], out
    top = out["results"][0]
    assert top["role"] == "user" and "湖滨酒店" in top["snippet"] and top["sessionKey"] == "agent:main:main"
    assert set(top) >= {"sessionKey", "timestamp", "role", "snippet", "score", "sessionId", "messageId"}
    assert 0 < top["score"] <= 1
    # two-character word and a single character reach it too
    assert any("酒店" in r["snippet"] for r in tools_of(rt)["sessions_search"].call({"query": "酒店"})["results"])
    assert tools_of(rt)["sessions_search"].call({"query": "预算"})["results"]
    # the reference's tokenizer on the same text: nothing (what field failure 2 reports)
    conn = connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='unicode61 remove_diacritics 2')")
    conn.execute("INSERT INTO t VALUES ('我们决定住西湖边的湖滨酒店，预算每晚八百元')")
    assert conn.execute("SELECT count(*) FROM t WHERE t MATCH '\"酒店\"'").fetchone()[0] == 0
    rt.close()


def test_search_through_a_real_chat_turn(mem):
    rt = mem.runtime("offline")
    rt.send("我们决定下周三去杭州，住湖滨酒店")
    rt.send("/new")
    out = tools_of(rt)["sessions_search"].call({"query": "杭州 酒店"})
    assert any(r["role"] == "user" and "下周三" in r["snippet"] for r in out["results"])
    rt.close()


def test_group_session_cannot_read_a_direct_session(mem):
    owner = mem.runtime("offline")  # the owner's main direct session
    owner.send("my passport number is E1234567, keep it private")
    group = mem.runtime("offline", session="telegram:group:42", sender="alice")
    assert group.chat_type == "group"
    group.send("hello group, what's the plan for the trip?")
    gt = tools_of(group)
    hist = gt["sessions_history"].call({"sessionKey": "agent:main:main"})
    assert hist["status"] == "forbidden"
    hist = gt["sessions_history"].call({"sessionId": owner.session.session_id})
    assert hist["status"] == "forbidden"
    found = gt["sessions_search"].call({"query": "passport"})
    assert found["results"] == []
    assert gt["sessions_search"].call({"query": "passport", "sessionKey": "agent:main:main"})["status"] == "forbidden"
    # its own history is readable
    own = gt["sessions_history"].call({})
    assert own["sessionKey"] == "agent:main:telegram:group:42" and own["messages"][0]["role"] == "user"
    # the owner sees both
    ot = tools_of(owner)
    assert ot["sessions_history"].call({"sessionKey": "agent:main:telegram:group:42"})["messages"]
    assert ot["sessions_search"].call({"query": "passport"})["results"]
    owner.close()
    group.close()


def test_direct_non_owner_sees_only_its_sender(mem):
    store = TranscriptStore(mem.agent_store)
    say(store, "agent:main:signal:direct:bob", ["bob's secret plan: surprise party"], sender="bob")
    say(store, "agent:main:signal:direct:bob-old", ["bob's older chat about the party"], sender="bob")
    store.close()
    carol = mem.runtime("offline", session="signal:direct:carol", sender="carol", owner=False)
    carol.send("hi")
    assert tools_of(carol)["sessions_search"].call({"query": "party"})["results"] == []
    bob = mem.runtime("offline", session="signal:direct:bob", sender="bob", owner=False)
    keys = {r["sessionKey"] for r in tools_of(bob)["sessions_search"].call({"query": "party"})["results"]}
    assert keys == {"agent:main:signal:direct:bob", "agent:main:signal:direct:bob-old"}
    carol.close()
    bob.close()


def test_visibility_self(reverie_home):
    mem = Memory(overrides=['memory.search.provider="none"', 'sessions.visibility="self"'])
    mem.init()
    other = mem.runtime("offline", session="side")
    other.send("side chat about tulips")
    main = mem.runtime("offline")
    assert tools_of(main)["sessions_search"].call({"query": "tulips"})["results"] == []
    assert tools_of(main)["sessions_history"].call({"sessionKey": "agent:main:side"})["status"] == "forbidden"
    other.close()
    main.close()


def test_visibility_applies_before_the_limit(mem):
    store = TranscriptStore(mem.agent_store)
    for i in range(30):  # many private hits that a group must not see
        say(store, f"agent:main:dm{i}", [f"budget note {i}"], sender="x")
    store.close()
    group = mem.runtime("offline", session="slack:channel:c1")
    for i in range(3):
        group.store.append_message(group.session.session_id, "user", ChatMessage("user", f"group budget {i}"))
    out = tools_of(group)["sessions_search"].call({"query": "budget", "limit": 3})
    assert len(out["results"]) == 3 and {r["sessionKey"] for r in out["results"]} == {"agent:main:slack:channel:c1"}
    group.close()


def test_snippets_short_redacted_and_payload_bounded(mem):
    rt = mem.runtime("offline")
    store = rt.store
    long = ("filler words " * 100) + "the magic word is zephyr " + ("more filler " * 100) + "api_key=sk-abcdefghijklmnopqrstuvwxyz"
    for _ in range(25):
        say(store, "agent:main:main", [long + " zephyr"])
    out = tools_of(rt)["sessions_search"].call({"query": "zephyr", "limit": 25})
    assert out["results"]
    for r in out["results"]:
        # events recorded without an origin class are framed as untrusted; the frame is not snippet
        body = r["snippet"].removeprefix("<untrusted-content>\n").removesuffix("\n</untrusted-content>")
        assert len(body) <= SNIPPET_CHARS + 2 and "zephyr" in body
    assert len(json.dumps(out, ensure_ascii=False).encode()) <= MAX_PAYLOAD_BYTES
    hist = tools_of(rt)["sessions_history"].call({"limit": 200})
    assert len(json.dumps(hist, ensure_ascii=False).encode()) <= MAX_PAYLOAD_BYTES
    assert "sk-abcdefghijklmnop" not in json.dumps(hist) and "[redacted]" in json.dumps(hist)
    rt.close()


def test_history_paging_and_tools(mem):
    rt = mem.runtime("offline")
    for i in range(5):
        rt.send(f"question number {i}")
    t = tools_of(rt)["sessions_history"]
    page = t.call({"limit": 4})
    assert [m["role"] for m in page["messages"]] == ["user", "assistant"] * 2
    assert page["messages"][-2]["content"] == "question number 4" and page["nextOffset"] == 4
    older = t.call({"limit": 4, "offset": page["nextOffset"]})
    assert older["messages"][-2]["content"] == "question number 2"
    with_tools = t.call({"limit": 3, "includeTools": True})
    assert [m["role"] for m in with_tools["messages"]] == ["assistant", "tool", "assistant"]
    assert with_tools["messages"][0]["toolCalls"][0]["name"] == "memory_search"
    rt.close()


def test_transcript_scores_use_the_memory_keyword_score(mem):
    """One keyword score serves memory search and transcript search: the share of the query's
    information a text holds, each word weighed by its rarity (search.keyword)."""
    from reverie.search.keyword import analyse_query
    from reverie.sessions import search_rows

    rt = mem.runtime("offline")
    store = rt.store
    say(store, "agent:main:main", ["the kayak rental deposit was paid in cash", "ok",
                                   "the rental car was returned", "ok", "the rental form is signed", "ok"])
    out = tools_of(rt)["sessions_search"].call({"query": "kayak rental deposit"})

    def score_of(text: str) -> float:  # (a snippet may be framed as untrusted around the text)
        return next(r["score"] for r in out["results"] if text in r["snippet"])
    assert score_of("the kayak rental deposit was paid in cash") == pytest.approx(1.0)
    # "rental" is in three messages, "kayak" and "deposit" in one: a rental-only message scores low
    assert score_of("the rental car was returned") < 0.3
    q = analyse_query(store.conn, "kayak rental deposit", "cjk", "transcript_fts", search_rows.count(store.conn),
                      frequencies=lambda toks: search_rows.frequencies(store.conn, toks))
    assert score_of("the rental car was returned") == pytest.approx(
        q.coverage(q.mask("the rental car was returned", "cjk")), abs=1e-6)
    rt.close()


PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACDv3Rq0Zk8yX2pL7mNwQe5tUa9cVbH4jKd0sFgT1xYzAAAAJgR7c1EEe3NR\n-----END OPENSSH PRIVATE KEY-----")


@pytest.mark.parametrize("secret, value", [
    ('{"user": "ana", "password": "Sunflower99!"}', "Sunflower99"),
    ("门禁的密码是 4471abc，别告诉别人", "4471abc"),
    (f"here is the deploy key:\n{PEM}\nkeep it safe", "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU"),
])
def test_search_and_history_redact_json_chinese_and_pem_secrets(mem, secret, value):
    rt = mem.runtime("offline")
    say(rt.store, "agent:main:main", [f"lighthouse notes {secret}"])
    hits = tools_of(rt)["sessions_search"].call({"query": "lighthouse", "limit": 5})
    hist = tools_of(rt)["sessions_history"].call({"limit": 50})
    for out in (hits, hist):
        blob = json.dumps(out, ensure_ascii=False)
        assert "lighthouse" in blob and "[redacted]" in blob, blob
        assert value not in blob, blob
    rt.close()
