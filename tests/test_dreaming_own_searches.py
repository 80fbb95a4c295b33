"""What keeps proving useful must be proven by use across conversations or days, not by the
writer's own searches: an agent that appends a note and searches for it 25 times in one sitting
(one MCP connection, one day) does not get it promoted; the same entry recalled by a second
conversation, or on a second day, can be. Each recall is counted under the conversation (or MCP
connection) whose tool call made it (reverie.trust.writer.current_context)."""

from __future__ import annotations

from dreaming_helpers import day, night, open_mem, write
from reverie.trust import Provenance
from reverie.trust.taint import ToolSession

NOTE = "The vault at the harbour office opens on Tuesdays only."
QUERIES = ["vault harbour office", "when does the vault open", "harbour office vault days", "vault Tuesdays",
           "harbour vault opening", "vault office opening day"]


def _why(mem, n: int) -> list[str]:
    """Why the vault entry is or is not promotable, as `reverie dream candidates` says it."""
    from reverie.dreaming.inspect import candidates

    found = [c for c in candidates(mem, now=night(n))["entries"] if "vault" in c["snippet"]]
    assert found, "the entry is not in the short-term store"
    return found[0]["why"]


def _promoted(mem, n: int) -> list[str]:
    return [p["snippet"] for p in mem.dream(now=night(n)).as_dict()["phases"]["deep"]["promoted"] if "vault" in p["snippet"]]


def _recall(mem, session: ToolSession, queries: list[str], n: int) -> None:
    from reverie.trust.writer import writing_as

    for q in queries:  # as a tool call of that conversation does (ToolSession.call), dated on day n
        with writing_as(session.writer("memory_search"), session.context):
            mem.search(q, now=day(n, 6))
    mem._signals.flush()


def test_one_conversations_own_searches_on_one_day_promote_nothing(reverie_home):
    """Through the tool itself (ToolSession.call, as the MCP server and the runtime run it), today."""
    from datetime import datetime, timedelta, timezone

    mem = open_mem()
    mem.remember(NOTE)
    mem.sync()
    search = {t.name: t for t in mem.tools()}["memory_search"]
    mcp = ToolSession(Provenance("agent", "unknown", None, "mcp"))  # a connection that declared no session
    for q in QUERIES * 4:  # 24 searches, 6 distinct queries, one sitting
        mcp.call(search, {"query": q})
    mem._signals.flush()
    tonight = (datetime.now(timezone.utc) + timedelta(days=1)).replace(hour=3, minute=0, second=0, microsecond=0)

    def why() -> list[str]:
        from reverie.dreaming.inspect import candidates

        found = [c for c in candidates(mem, now=tonight)["entries"] if "vault" in c["snippet"]]
        assert found, "the entry is not in the short-term store"
        return found[0]["why"]

    assert any("one conversation" in w for w in why())
    # a second conversation recalls it the same day: now it is used beyond its writer's sitting
    other = ToolSession(Provenance("agent", "interactive", "session-b", "agent"))
    other.call(search, {"query": "what about the vault at the harbour office"})
    mem._signals.flush()
    assert not any("one conversation" in w for w in why())
    mem.close()


def test_a_second_conversation_on_the_same_day_makes_it_promotable(reverie_home):
    mem = open_mem()
    write(mem, 0, NOTE)
    mem.sync()
    mcp = ToolSession(Provenance("agent", "unknown", None, "mcp"))
    _recall(mem, mcp, QUERIES * 4, 1)
    assert any("one conversation" in w for w in _why(mem, 1))
    assert _promoted(mem, 1) == []
    _recall(mem, ToolSession(Provenance("agent", "interactive", "session-b", "agent")),
            ["what about the vault at the harbour office"], 1)
    assert _promoted(mem, 2)
    mem.close()


def test_recalls_on_two_days_by_one_conversation_count(reverie_home):
    mem = open_mem()
    write(mem, 0, NOTE)
    mem.sync()
    mcp = ToolSession(Provenance("agent", "unknown", None, "mcp"))
    _recall(mem, mcp, QUERIES[:3], 1)
    _recall(mem, mcp, QUERIES[3:], 2)
    assert not any("one conversation" in w for w in _why(mem, 2))
    assert _promoted(mem, 2)
    mem.close()
