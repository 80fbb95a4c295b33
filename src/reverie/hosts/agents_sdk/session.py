"""The Agents SDK's ``Session`` protocol over reverie's transcript (``agents.memory.session``).

The SDK keeps a conversation's history through four coroutines; here each runs the kit's
synchronous step in a worker thread. The class needs nothing from the SDK: the protocol is
structural, so reverie imports without it.

=============  =============================================================================
get_items      the current reverie session's messages, rebuilt as SDK items (popped ones left out)
add_items      recorded with who wrote them (kit.add): user = owner, assistant and tool calls =
               agent, reverie's memory_search/memory_get results = recall, its other tools' =
               agent, any other tool's = untrusted, and the agent's words after that untrusted
pop_item       hides the newest item from the history (the transcript is append-only)
clear_session  ends the reverie session (its note is written); the next run starts a new one
=============  =============================================================================
"""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("reverie.agents_sdk")


class ReverieSession:
    session_settings = None  # the SDK's default history settings (all items)

    def __init__(self, kit, session_id: str):
        self.kit = kit
        self.session_id = session_id

    async def get_items(self, limit: int | None = None) -> list:
        return await asyncio.to_thread(self.kit.items, limit)

    async def add_items(self, items: list) -> None:
        if not items:
            return
        try:
            await asyncio.to_thread(self.kit.add, list(items))
        except Exception as exc:  # memory failing never fails the program's run
            log.warning("reverie: add_items not recorded: %s: %s", type(exc).__name__, exc)

    async def pop_item(self):
        return await asyncio.to_thread(self.kit.pop)

    async def clear_session(self) -> None:
        await asyncio.to_thread(self.kit.clear)
