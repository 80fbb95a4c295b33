"""reverie's own model calls on the program's LangChain chat model (docs/hosts/langgraph.md).

Active Memory's recall pass, the pre-compaction flush, the session note's slug, compaction summaries
and Dreaming's diary and consolidation call reverie's chat model (``chat.model``, ``offline`` unless
configured). :func:`use_chat_model` makes that model the program's own ``BaseChatModel``, through
the ``langchain`` model provider (:mod:`reverie.models.langchain_chat`), so reverie needs no key of
its own. A model configured for one step on purpose (``memory.activeMemory.model``,
``compaction.memoryFlush.model``, ``compaction.model``, ``memory.dreaming.model``) still wins there.
"""

from __future__ import annotations


def use_chat_model(target, chat_model, *, name: str | None = None) -> str:
    """Run reverie's model-backed steps on ``chat_model`` (ChatOpenAI, ChatAnthropic, a local one...)
    for ``target``: a :class:`GraphMemory` (what ``connect`` returns) or a ``reverie.Memory``. Only
    this process's settings change, never the config file. Returns the model spec now in
    ``chat.model`` (``langchain:openai:gpt-4o-mini``; ``name`` chooses what follows ``langchain:``)."""
    from ...errors import UserError
    from ...models.langchain_chat import register_chat_model
    from .session import GraphMemory

    memory = target.memory if isinstance(target, GraphMemory) else target
    if not hasattr(memory, "settings") or not hasattr(memory, "places"):
        raise UserError(f"use_chat_model takes what connect() returns or a reverie.Memory, "
                        f"not {type(target).__name__}")
    spec = register_chat_model(chat_model, name)
    memory.settings.chat.model = spec
    if isinstance(target, GraphMemory):
        # Threads already followed made their conversation with the model of before; each is made
        # again on its next step (what it knows is in the agent's database).
        with target._lock:
            threads = list(target._threads.values())
        for th in threads:
            with th.lock:
                if th.session._rt is not None:
                    th.session.close()
                    th.session._rt = None
    return spec
