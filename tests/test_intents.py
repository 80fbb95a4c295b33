"""Standing intents on a real agent database with an injected clock: creation and validation, the
state machine, scopes, Chinese and English triggers, the injection caps and failing open."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path

import apsw
import pytest

from reverie.intents import INTENT_MIGRATIONS, IntentError, IntentStore, TurnContext, time_phrase
from reverie.intents.words import Message, normalize, split_words
from reverie.store import connect

from engines import only_sqlite

T0 = datetime(2026, 7, 1, 9, 0, tzinfo=timezone.utc)
OWNER = TurnContext(channel="telegram", sender="42", conversation="chat-1", owner=True)
DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


@pytest.fixture
def db(agent_db):
    """The agent database on each engine in turn (conftest.py: SQLite, then PostgreSQL)."""
    return agent_db


@pytest.fixture
def store(db: Path):
    s = IntentStore(db)
    yield s
    s.close()


def make(store: IntentStore, description: str = "Confirm the return train ticket",
         keywords=("hangzhou", "杭州"), ctx: TurnContext = OWNER, now: datetime = T0, **kw) -> dict:
    return store.create(ctx, description=description, trigger_keywords=list(keywords), now=now, **kw)["intent"]


def fired_ids(result) -> list[str]:
    return [f["id"] for f in result.fired]


def row_count(db) -> int:
    """Intents stored (a refused first create leaves no database at all)."""
    if not db.exists():
        return 0
    conn = connect(db)
    try:
        return conn.execute("SELECT count(*) FROM standing_intents").fetchone()[0]
    finally:
        conn.close()


# -- schema -----------------------------------------------------------------------------------------
def test_migration_creates_the_tables_and_the_fts_stays_in_sync(store, db, store_backend):
    only_sqlite(store_backend, "per-component migrations and the FTS5 table; on PostgreSQL the schema migrates as "
                "a whole (test_postgres_engine.py) and matching reads generated token columns (the [postgres] runs here)")
    make(store, keywords=["Hangzhou", "返程车票"])
    make(store, keywords=["茶"])
    conn = connect(db)
    try:
        assert INTENT_MIGRATIONS.applied(conn) == ["0001_standing_intents"]
        assert INTENT_MIGRATIONS.pending(conn) == []
        # external-content FTS agrees with the rows it indexes
        conn.execute("INSERT INTO standing_intents_fts(standing_intents_fts) VALUES ('integrity-check')")
        words, solo = conn.execute("SELECT fts_words, fts_solo FROM standing_intents ORDER BY intent_key").fetchall()[0]
        assert "hangzhou" in words.split() and "返程" in words.split() and "车票" in words.split()
        assert solo == ""
        assert conn.execute("SELECT fts_solo FROM standing_intents ORDER BY intent_key DESC").fetchone()[0] == "茶"
        hits = conn.execute("SELECT count(*) FROM standing_intents_fts WHERE standing_intents_fts MATCH ?",
                            ('fts_words : "车票"',)).fetchone()[0]
        assert hits == 1
    finally:
        conn.close()


# -- create -----------------------------------------------------------------------------------------
def test_create_arms_with_the_reference_defaults_and_cleans_keywords(store):
    out = store.create(OWNER, description="  Confirm the return ticket  ",
                       trigger_keywords=["  Hangzhou ", "HANGZHOU", "Return   Ticket", "杭州", "ＨＡＮＧＺＨＯＵ"], now=T0)
    i = out["intent"]
    assert i["status"] == "armed" and i["fireCount"] == 0
    assert i["triggerKeywords"] == ["hangzhou", "return ticket", "杭州"]
    assert i["description"] == "Confirm the return ticket"
    assert i["cooldownSeconds"] == 86_400 and i["maxFires"] == 3
    assert i["expiresAt"] == "2026-09-29T09:00:00Z"  # 90 days
    assert i["createdAt"] == "2026-07-01T09:00:00Z" and i["lastFiredAt"] is None
    assert (i["scope"], i["channel"], i["senderScope"], i["sender"], i["creator"]) == \
        ("channel", "telegram", "sender", "42", "42")
    assert i["id"].startswith("si_")
    assert out["message"].startswith("Intent is armed for this channel.")
    assert "Do not deliver it early" in out["message"]


@pytest.mark.parametrize("scope,sender_scope,expected", [
    ("conversation", "sender", ("conversation", "telegram", "chat-1", "sender", "for this conversation")),
    ("anywhere", "anyone", ("anywhere", None, None, "anyone", "everywhere")),
])
def test_create_scopes(store, scope, sender_scope, expected):
    out = store.create(OWNER, description="d", trigger_keywords=["k"], scope=scope, sender_scope=sender_scope, now=T0)
    i = out["intent"]
    assert (i["scope"], i["channel"], i["conversation"], i["senderScope"]) == expected[:4]
    assert f"Intent is armed {expected[4]}." in out["message"]
    assert i["creator"] == "42"


def test_create_accepts_the_limits(store):
    i = make(store, description="x" * 500, keywords=[f"k{n}" for n in range(24)])
    assert len(i["triggerKeywords"]) == 24 and len(i["description"]) == 500
    i = make(store, keywords=["y" * 120], expires_at="2026-07-01T09:00:01Z", max_fires=1, cooldown_seconds=0)
    assert i["expiresAt"] == "2026-07-01T09:00:01Z" and i["maxFires"] == 1 and i["cooldownSeconds"] == 0


BAD_CREATES = [
    (None, {}, "channel identity is unavailable"),
    (TurnContext(sender="42", owner=True), {}, "channel identity is unavailable"),
    (TurnContext(channel="unknown", sender="42", owner=True), {}, "channel identity is unavailable"),
    (TurnContext(channel="telegram", owner=True), {}, "sender identity is unavailable"),
    (TurnContext(channel="telegram", sender="  ", owner=True), {}, "sender identity is unavailable"),
    (TurnContext(channel="telegram", sender="UNKNOWN", owner=True), {}, "sender identity is unavailable"),
    (TurnContext(channel="telegram", sender="42", owner=False), {}, "only the owner"),
    (TurnContext(channel="telegram", sender="42", owner=True), {"scope": "conversation"},
     "conversation identity is unavailable"),
    (OWNER, {"description": ""}, "description is required"),
    (OWNER, {"description": "x" * 501}, "longer than 500"),
    (OWNER, {"trigger_keywords": []}, "at least one trigger keyword"),
    (OWNER, {"trigger_keywords": ["  ", ""]}, "at least one trigger keyword"),
    (OWNER, {"trigger_keywords": [f"k{n}" for n in range(25)]}, "at most 24"),
    (OWNER, {"trigger_keywords": ["y" * 121]}, "longer than 120"),
    (OWNER, {"trigger_keywords": ["?!"]}, "no letters or digits"),
    (OWNER, {"trigger_keywords": "hangzhou"}, "list of strings"),
    (OWNER, {"trigger_keywords": ["ok", 3]}, "list of strings"),
    (OWNER, {"expires_at": "2026-07-01T09:00:00Z"}, "must be in the future"),
    (OWNER, {"expires_at": "2026-06-30T09:00:00"}, "must be in the future"),
    (OWNER, {"expires_at": "next week-ish"}, "ISO-8601"),
    (OWNER, {"max_fires": 0}, "maxFires"),
    (OWNER, {"cooldown_seconds": -1}, "cooldownSeconds"),
    (OWNER, {"scope": "galaxy"}, "scope must be one of"),
    (OWNER, {"sender_scope": "everyone"}, "senderScope must be one of"),
]


@pytest.mark.parametrize("ctx,override,needle", BAD_CREATES)
def test_create_refuses_and_writes_nothing(store, db, ctx, override, needle):
    args = {"description": "Confirm the return ticket", "trigger_keywords": ["hangzhou"], **override}
    with pytest.raises(IntentError) as err:
        store.create(ctx, now=T0, **args)
    assert needle in str(err.value)
    assert row_count(db) == 0


TIME_BASED = [
    "Tomorrow at 9, remind me to look at the train tickets",
    "remind me in 2 hours to call mom",
    "every morning remind me to drink water",
    "ping me at 9am about the tickets",
    "remind me at 21:30",
    "2026-07-02T09:00 check the tickets",
    "next Monday review the budget",
    "明早9点提醒我再看一眼高铁票",
    "明天早上九点提醒我看车票",
    "两小时后提醒我打电话",
    "每天早上提醒我喝水",
    "下周一提醒我交报告",
    "7月3日提醒我交房租",
    "30分钟后叫我",
]
CONDITIONS = [
    "When someone mentions Hangzhou, remind me to confirm the return ticket",
    "后面有人提到杭州时，提醒我确认返程车票",
    "When tomorrow's meeting comes up, remind me to bring the slides",
    "提到明天的会议时提醒我带电脑",
    "Remind me about the 3 tickets when Alice mentions the trip",
    "有人说要注意一点预算时提醒我",
]


@pytest.mark.parametrize("description", TIME_BASED)
def test_time_based_requests_are_refused_with_a_pointer_to_cron(store, db, description):
    with pytest.raises(IntentError) as err:
        make(store, description=description, keywords=["tickets"])
    assert "reverie cron add" in str(err.value) and "time-based" in str(err.value)
    assert row_count(db) == 0


def test_a_time_in_a_trigger_keyword_is_refused_too(store, db):
    with pytest.raises(IntentError, match="reverie cron add"):
        make(store, description="Look at the train tickets", keywords=["tickets", "明天9点"])
    assert row_count(db) == 0


@pytest.mark.parametrize("description", CONDITIONS)
def test_condition_based_requests_are_accepted(store, description):
    assert time_phrase(description) is None
    assert make(store, description=description)["status"] == "armed"


# -- the state machine ------------------------------------------------------------------------------
def test_armed_fired_rearmed_after_cooldown_done_after_the_third_fire(store):
    i = make(store)
    t1 = T0 + HOUR
    r = store.match("Going to Hangzhou next week", OWNER, now=t1)
    assert fired_ids(r) == [i["id"]] and r.fired[0]["status"] == "fired"
    got = store.get(i["id"])
    assert (got["status"], got["fireCount"], got["lastFiredAt"]) == ("fired", 1, "2026-07-01T10:00:00Z")

    # inside the cooldown: nothing, even one second before it ends
    assert store.match("hangzhou again", OWNER, now=t1 + DAY - timedelta(seconds=1)).block == ""
    assert store.list(now=t1 + DAY - timedelta(seconds=1))[0]["status"] == "fired"
    # the cooldown elapsed: maintenance re-arms it (list runs maintenance)
    assert store.list(now=t1 + DAY)[0]["status"] == "armed"

    r2 = store.match("杭州的酒店订好了", OWNER, now=t1 + DAY)
    assert fired_ids(r2) == [i["id"]] and r2.fired[0]["fireCount"] == 2
    r3 = store.match("hangzhou", OWNER, now=t1 + 2 * DAY)
    assert r3.fired[0] == {"id": i["id"], "description": i["description"], "fireCount": 3, "status": "done"}
    assert store.get(i["id"])["status"] == "done"
    # done is final: no re-arm, no fire, however long we wait
    assert store.match("hangzhou", OWNER, now=t1 + 10 * DAY).block == ""
    assert store.list(now=t1 + 10 * DAY)[0]["status"] == "done"
    assert [f["fire"] for f in store.fires(i["id"])] == [1, 2, 3]


def test_zero_cooldown_rearms_on_the_next_turn_and_max_fires_one_is_done_at_once(store):
    a = make(store, keywords=["alpha"], cooldown_seconds=0, max_fires=5)
    b = make(store, keywords=["beta"], max_fires=1)
    for n in range(1, 4):
        assert fired_ids(store.match("alpha", OWNER, now=T0 + n * HOUR)) == [a["id"]]
    assert store.get(a["id"])["fireCount"] == 3
    r = store.match("beta", OWNER, now=T0 + HOUR)
    assert r.fired[0]["status"] == "done" and store.get(b["id"])["status"] == "done"


def test_expiry_from_armed_and_from_fired(store):
    short = make(store, keywords=["alpha"], expires_at="2026-07-01T11:00:00Z")
    fired = make(store, keywords=["beta"], expires_at="2026-07-03T09:00:00Z")
    assert fired_ids(store.match("beta", OWNER, now=T0 + HOUR)) == [fired["id"]]
    # at exactly expires_at the intent is expired (expires_at <= now)
    assert store.match("alpha", OWNER, now=datetime(2026, 7, 1, 11, 0, tzinfo=timezone.utc)).block == ""
    assert store.get(short["id"])["status"] == "expired"
    assert store.get(fired["id"])["status"] == "fired"
    # past its expiry a fired intent is expired, not re-armed, even though its cooldown elapsed
    assert [i["status"] for i in store.list(now=T0 + 3 * DAY)] == ["expired", "expired"]
    assert store.match("alpha beta", OWNER, now=T0 + 3 * DAY).block == ""
    assert store.maintain(now=T0 + 4 * DAY) == {"expired": 0, "rearmed": 0}


def _force_status(db: Path, intent_id: str, status: str) -> None:
    conn = connect(db)
    try:
        conn.execute("UPDATE standing_intents SET status = ? WHERE id = ?", (status, intent_id))
    finally:
        conn.close()


@pytest.mark.parametrize("start", ["pending", "armed", "fired"])
def test_cancel_from_each_allowed_state_keeps_history(store, db, start):
    i = make(store)
    if start == "fired":
        assert store.match("hangzhou", OWNER, now=T0 + HOUR).fired
    elif start == "pending":
        _force_status(db, i["id"], "pending")
    assert store.get(i["id"])["status"] == start
    out = store.cancel(i["id"], now=T0 + 2 * HOUR)
    assert out["cancelled"] is True and out["intent"]["status"] == "cancelled"
    # cancelled intents never fire again, and nothing of their history is gone
    assert store.match("hangzhou", OWNER, now=T0 + 5 * DAY).block == ""
    assert store.get(i["id"])["status"] == "cancelled"
    assert len(store.fires(i["id"])) == (1 if start == "fired" else 0)
    assert store.get(i["id"])["fireCount"] == (1 if start == "fired" else 0)


@pytest.mark.parametrize("end", ["done", "cancelled", "expired"])
def test_cancel_is_refused_from_final_states(store, end):
    i = make(store, max_fires=1, expires_at="2026-07-02T09:00:00Z")
    if end == "done":
        store.match("hangzhou", OWNER, now=T0 + HOUR)
    elif end == "cancelled":
        store.cancel(i["id"], now=T0)
    now = T0 + 2 * DAY if end == "expired" else T0 + 2 * HOUR
    out = store.cancel(i["id"], now=now)
    assert out["cancelled"] is False and out["intent"]["status"] == end
    assert f"is {end}" in out["reason"]
    assert store.get(i["id"])["status"] == end


def test_cancel_of_an_unknown_id(store):
    out = store.cancel("si_nope", now=T0)
    assert out == {"cancelled": False, "intent": None, "reason": "no intent with id 'si_nope'"}


def test_list_filters_by_status_oldest_first(store):
    a = make(store, keywords=["alpha"])
    b = make(store, keywords=["beta"], now=T0 + timedelta(seconds=1))
    c = make(store, keywords=["gamma"], now=T0 + timedelta(seconds=2))
    store.match("beta", OWNER, now=T0 + HOUR)
    store.cancel(c["id"], now=T0 + HOUR)
    assert [i["id"] for i in store.list(now=T0 + HOUR)] == [a["id"], b["id"], c["id"]]
    assert [i["id"] for i in store.list("fired", now=T0 + HOUR)] == [b["id"]]
    assert [i["id"] for i in store.list("cancelled", now=T0 + HOUR)] == [c["id"]]
    with pytest.raises(IntentError, match="status must be one of"):
        store.list("sleeping")


# -- scopes -----------------------------------------------------------------------------------------
def ctx(channel="telegram", sender="42", conversation="chat-1", account=None) -> TurnContext:
    return TurnContext(channel=channel, sender=sender, conversation=conversation, account=account)


@pytest.mark.parametrize("scope,sender_scope,turn,fires", [
    ("channel", "sender", ctx(), True),
    ("channel", "sender", ctx(conversation="chat-2"), True),
    ("channel", "sender", ctx(channel="Telegram"), True),  # provider names are case-insensitive
    ("channel", "sender", ctx(channel="slack"), False),
    ("channel", "sender", ctx(account="bot-2"), False),
    ("channel", "sender", ctx(sender="99"), False),
    ("channel", "sender", ctx(sender=None), False),
    ("channel", "anyone", ctx(sender="99"), True),
    ("conversation", "sender", ctx(), True),
    ("conversation", "sender", ctx(conversation="chat-2"), False),
    ("conversation", "sender", ctx(conversation=None), False),
    ("conversation", "anyone", ctx(sender="99"), True),
    ("anywhere", "sender", ctx(channel="slack", conversation="x"), False),  # the sender id is per channel
    ("anywhere", "anyone", ctx(channel="slack", sender="7", conversation="x"), True),
    ("anywhere", "anyone", ctx(channel="webchat", sender=None, conversation=None), True),
])
def test_scope_and_sender_rules(store, scope, sender_scope, turn, fires):
    i = make(store, scope=scope, sender_scope=sender_scope)
    r = store.match("Anyone been to Hangzhou?", turn, now=T0 + HOUR)
    assert r.error is None
    assert fired_ids(r) == ([i["id"]] if fires else [])
    assert store.get(i["id"])["fireCount"] == (1 if fires else 0)


def test_a_turn_without_a_channel_is_not_matched(store):
    i = make(store, scope="anywhere", sender_scope="anyone")
    for turn in (None, TurnContext(), TurnContext(channel="unknown", sender="42")):
        r = store.match("hangzhou", turn, now=T0 + HOUR)
        assert r.block == "" and r.skipped and r.error is None
    assert store.get(i["id"])["fireCount"] == 0


def test_a_stored_scope_that_is_not_v1_fails_closed(store, db):
    i = make(store)
    conn = connect(db)
    try:
        conn.execute("UPDATE standing_intents SET channel_scope = ? WHERE id = ?",
                     (json.dumps(["telegram"]), i["id"]))
    finally:
        conn.close()
    assert store.match("hangzhou", OWNER, now=T0 + HOUR).block == ""
    assert store.get(i["id"])["scope"] == "invalid"


# -- triggers ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("keyword,message,fires", [
    ("杭州", "下周去杭州出差", True),
    ("杭州", "杭州", True),
    ("杭州", "我在杭 州", False),
    ("杭州", "州长来了", False),
    ("杭州", "去苏州", False),
    ("hangzhou", "Going to HANGZHOU next week!", True),
    ("hangzhou", "hangzhou's lake", True),
    ("hangzhou", "hangzhoufood is great", False),
    ("Hangzhou", "下周去Hangzhou出差", True),
    ("return ticket", "I still need a ticket for the return", True),  # all words, any order
    ("return ticket", "please return the book", False),
    ("return ticket", "return-ticket booked", True),
    ("杭州 hotel", "杭州的hotel订好了", True),
    ("杭州 hotel", "杭州的酒店订好了", False),
    ("返程车票", "返程的车票", False),  # a CJK run is matched whole
    ("返程车票", "记得买返程车票", True),
    ("茶", "喝茶吗", True),
    ("茶", "咖啡吗", False),
    ("art", "let's party", False),
    ("ＡＢＣ", "abc corp", True),
    ("東京", "明日東京に行きます", True),
    ("서울", "서울에 가요", True),
    ("e-mail", "send the e mail", True),
    ("co_op", "the co-op store", True),
])
def test_trigger_rule(store, keyword, message, fires):
    i = make(store, keywords=[keyword])
    r = store.match(message, OWNER, now=T0 + HOUR)
    assert fired_ids(r) == ([i["id"]] if fires else []), (keyword, message)


def test_one_entry_of_several_is_enough(store):
    i = make(store, keywords=["return ticket", "杭州", "west lake"])
    assert fired_ids(store.match("the West Lake at dawn", OWNER, now=T0 + HOUR)) == [i["id"]]


def test_prefilter_never_misses_what_the_exact_rule_accepts(store):
    """The FTS prefilter against brute force on the exact rule, over mixed Chinese/English triggers."""
    rng = random.Random(7)
    vocab = ["hangzhou", "ticket", "return", "hotel", "lake", "budget", "tea", "杭州", "返程", "车票", "酒店",
             "西湖", "预算", "茶", "湖", "会议", "alice", "东京", "train", "高铁"]
    intents = []
    for n in range(120):
        kws = [" ".join(rng.sample(vocab, rng.choice([1, 1, 2]))) for _ in range(rng.choice([1, 2]))]
        if split_words(normalize(" ".join(kws))).empty:
            continue
        i = make(store, description=f"intent {n}", keywords=kws, cooldown_seconds=0, max_fires=10_000,
                 now=T0 + timedelta(seconds=n))
        intents.append(i)
    for m in range(60):
        text = rng.choice(["", "I think ", "我觉得"]) + "".join(
            rng.choice([w + " ", w, "的" + w]) for w in rng.sample(vocab, rng.choice([1, 2, 3])))
        msg = Message.of(text)
        expected = [i["id"] for i in intents
                    if any(msg.contains(split_words(normalize(k))) for k in i["triggerKeywords"])][:3]
        r = store.match(text, OWNER, now=T0 + DAY + m * timedelta(seconds=1))
        assert fired_ids(r) == expected, text


# -- the injected block and its caps ----------------------------------------------------------------
def test_block_format(store):
    make(store, description="Confirm the\nreturn   ticket </standing_intents> now")
    r = store.match("hangzhou", OWNER, now=T0 + HOUR)
    assert r.block == ("<standing_intents>\n"
                       "Standing intent (created 2026-07-01): Confirm the return ticket now\n"
                       "</standing_intents>")


def test_created_date_is_in_the_stores_time_zone(db):
    from zoneinfo import ZoneInfo

    s = IntentStore(db, tz=ZoneInfo("Asia/Shanghai"))
    try:
        make(s, now=datetime(2026, 7, 1, 20, 0, tzinfo=timezone.utc))  # 04:00 on July 2 in Shanghai
        r = s.match("hangzhou", OWNER, now=datetime(2026, 7, 2, tzinfo=timezone.utc))
        assert "(created 2026-07-02)" in r.block
    finally:
        s.close()


def test_at_most_three_intents_oldest_first_the_rest_keep_their_fire(store):
    ids = [make(store, description=f"reminder {n}", now=T0 + timedelta(seconds=n))["id"] for n in range(5)]
    r = store.match("hangzhou", OWNER, now=T0 + HOUR)
    assert fired_ids(r) == ids[:3]
    assert r.block.count("Standing intent (created") == 3
    assert [store.get(i)["fireCount"] for i in ids] == [1, 1, 1, 0, 0]
    # the two left over fire on the next matching turn
    assert fired_ids(store.match("hangzhou", OWNER, now=T0 + 2 * HOUR)) == ids[3:]


def test_the_block_never_exceeds_1200_characters(store):
    big = [make(store, description=f"{n} " + "x" * 480, now=T0 + timedelta(seconds=n))["id"] for n in range(3)]
    small = make(store, description="small one", now=T0 + timedelta(seconds=9))["id"]
    r = store.match("hangzhou", OWNER, now=T0 + HOUR)
    assert len(r.block) <= 1200
    # two big ones fit, the third would not: it is skipped (not fired); the small later one fits
    assert fired_ids(r) == [big[0], big[1], small]
    assert store.get(big[2])["fireCount"] == 0 and store.get(big[2])["status"] == "armed"
    assert len(r.block) > 1000


# -- failing open -----------------------------------------------------------------------------------
def test_a_zero_deadline_injects_nothing_and_spends_no_fire(store):
    i = make(store)
    r = store.match("hangzhou", OWNER, now=T0 + HOUR, deadline_seconds=0)
    assert r.block == "" and r.fired == [] and "deadline" in r.error
    assert store.get(i["id"])["fireCount"] == 0
    assert fired_ids(store.match("hangzhou", OWNER, now=T0 + HOUR)) == [i["id"]]


def test_waiting_on_a_locked_database_times_out_open(store, db):
    i = make(store)
    blocker = connect(db)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        r = store.match("hangzhou", OWNER, now=T0 + HOUR, deadline_seconds=0.3)
        assert r.block == "" and r.error and r.ms < 8000  # (generous) not the database's own 10 s busy wait
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert store.get(i["id"])["fireCount"] == 0
    assert fired_ids(store.match("hangzhou", OWNER, now=T0 + HOUR)) == [i["id"]]


def test_an_error_after_a_fire_rolls_the_whole_turn_back(store, db):
    a = make(store, description="first")
    b = make(store, description="second", now=T0 + timedelta(seconds=1))
    if getattr(db, "engine", "sqlite") == "postgres":  # the same fault as a PostgreSQL trigger (made by the owner)
        from reverie.store.postgres.pool import raw_connect

        conn = raw_connect(db.dsn)
        conn.execute("CREATE FUNCTION reverie.boom() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$")
        conn.execute("CREATE TRIGGER boom BEFORE UPDATE OF fire_count ON reverie.standing_intents FOR EACH ROW "
                     f"WHEN (new.id = '{b['id']}') EXECUTE FUNCTION reverie.boom()")
        drop = ("DROP TRIGGER boom ON reverie.standing_intents", "DROP FUNCTION reverie.boom()")
    else:
        conn = connect(db)
        conn.execute("CREATE TRIGGER boom BEFORE UPDATE OF fire_count ON standing_intents "
                     f"WHEN new.id = '{b['id']}' BEGIN SELECT RAISE(ABORT, 'disk on fire'); END")
        drop = ("DROP TRIGGER boom",)
    r = store.match("hangzhou", OWNER, now=T0 + HOUR)
    assert r.block == "" and r.fired == [] and "disk on fire" in r.error
    assert store.get(a["id"])["fireCount"] == 0  # fired first, then rolled back with the rest
    assert store.fires(a["id"]) == []
    for sql in drop:
        conn.execute(sql)
    conn.close()
    assert fired_ids(store.match("hangzhou", OWNER, now=T0 + HOUR)) == [a["id"], b["id"]]


def test_a_broken_message_fails_open(store):
    i = make(store)
    r = store.match(b"hangzhou", OWNER, now=T0 + HOUR)  # type: ignore[arg-type]
    assert r.block == "" and "message must be a string" in r.error
    assert store.get(i["id"])["fireCount"] == 0


def test_the_deadline_setting_reaches_matching(reverie_home):
    from reverie import Memory

    mem = Memory(overrides=["memory.intents.deadlineSeconds=0"])
    try:
        mem.intents.create(OWNER, description="Confirm the ticket", trigger_keywords=["hangzhou"], now=T0)
        r = mem.match_intents("hangzhou", OWNER, now=T0 + HOUR)
        assert r.block == "" and "deadline of 0 s" in r.error
        assert mem.intents.list(now=T0 + HOUR)[0]["fireCount"] == 0
    finally:
        mem.close()
    mem = Memory()
    try:
        assert mem.settings.memory.intents.deadline_seconds == 15
        assert mem.match_intents("hangzhou", OWNER, now=T0 + HOUR).fired
    finally:
        mem.close()


def test_intents_live_in_the_agent_database(reverie_home):
    from reverie import Memory

    mem = Memory(agent="travel")
    try:
        mem.intents.create(OWNER, description="d", trigger_keywords=["k"], now=T0)
        assert mem.intents.db_path == reverie_home / "agents" / "travel" / "agent" / "reverie-agent.sqlite"
        assert mem.intents.db_path.exists()
    finally:
        mem.close()
    other = Memory(agent="main")
    try:
        assert other.intents.list(now=T0) == []  # agents are isolated
    finally:
        other.close()


def test_unusual_messages_never_raise(store):
    make(store)
    for text in ['"', "*", "AND OR NOT", "NEAR(a b)", "fts_words : x", "😀", "", " ", "-", "a" * 10_000,
                 "杭" * 5000, "\x00hangzhou"]:
        r = store.match(text, OWNER, now=T0 + HOUR)
        assert r.error is None, (text[:20], r.error)
    assert apsw.sqlite_lib_version()
