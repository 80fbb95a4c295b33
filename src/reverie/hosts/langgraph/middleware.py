"""reverie in ``langchain.agents.create_agent``, the successor of LangGraph's deprecated
``create_react_agent``: one middleware.

``wrap_model_call``
    adds the thread's startup context and the turn's recall to the system message of that model
    call only (the state is not changed);
``wrap_tool_call``
    runs every tool as the turn's writer, so a tool that writes through reverie (``memory_append``,
    the store) after the turn read outside content writes ``untrusted``;
``after_agent``
    records the turn with provenance.

Async runs get the same (reverie's calls run in a worker thread).
"""

from __future__ import annotations

import asyncio

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import SystemMessage

from ...trust import writing_as
from .messages import messages_of, text_of


class ReverieMiddleware(AgentMiddleware):
    def __init__(self, memory, *, tools: list | None = None):
        super().__init__()
        self.memory = memory  # a GraphMemory
        self.tools = list(tools or [])

    @property
    def name(self) -> str:
        return "reverie"

    def _request(self, request, text: str):
        if not text:
            return request
        system = request.system_message
        return request.override(system_message=SystemMessage(
            content=f"{text_of(system)}\n\n{text}" if system is not None and text_of(system) else text))

    def wrap_model_call(self, request, handler):
        return handler(self._request(request, self.memory.prepare(request.messages)))

    async def awrap_model_call(self, request, handler):
        thread = self.memory.thread_of(request.messages)
        text = await asyncio.to_thread(self.memory.prepare, request.messages, thread=thread)
        return await handler(self._request(request, text))

    def _writer(self, request):
        return self.memory.writer((request.tool_call or {}).get("name"))

    def wrap_tool_call(self, request, handler):
        writer = self._writer(request)
        if writer is None:
            return handler(request)
        with writing_as(writer):
            return handler(request)

    async def awrap_tool_call(self, request, handler):
        writer = self._writer(request)
        if writer is None:
            return await handler(request)
        with writing_as(writer):
            return await handler(request)

    def after_agent(self, state, runtime):
        self.memory.record(messages_of(state))
        return None

    async def aafter_agent(self, state, runtime):
        messages = messages_of(state)
        await asyncio.to_thread(self.memory.record, messages, thread=self.memory.thread_of(messages))
        return None
