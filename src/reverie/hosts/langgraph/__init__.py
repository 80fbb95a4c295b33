"""reverie as the memory of a LangGraph agent (docs/hosts/langgraph.md).

    from langchain.agents import create_agent
    from reverie.hosts.langgraph import connect

    memory = connect(agent="main")                       # reverie's memory of agent "main"
    agent = create_agent(model, tools=my_tools, middleware=[memory.middleware()],
                         store=memory.store, checkpointer=checkpointer)
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})
    memory.before_compaction("t1")                       # before you trim or summarise a thread
    memory.end("t1")                                     # the thread is over: its session note

``connect(..., chat_model=model)`` (or ``use_chat_model(memory, model)``) runs reverie's own model
calls (Active Memory, the flush, Dreaming) on the program's LangChain chat model.

``memory.pre_model_hook`` and ``memory.post_model_hook`` are the same steps as nodes, for
LangGraph's ``create_react_agent`` or a graph of your own; ``memory.store`` is a LangGraph
``BaseStore`` over reverie. LangGraph and LangChain are imported only when these are used: reverie
does not depend on them.
"""

from __future__ import annotations

from ...lazy_exports import lazy_exports

__getattr__ = lazy_exports(__name__, {
    ".session": ("GraphMemory",),
    ".store": ("ReverieStore",),
    ".middleware": ("ReverieMiddleware",),
    ".model": ("use_chat_model",),
})


def connect(memory=None, *, agent: str | None = None, home: str | None = None, overrides: list[str] | None = None,
            chat_model=None, **options):
    """reverie's memory for a LangGraph program, in one call: a :class:`GraphMemory` over ``memory``
    (else the ``agent`` of the ``home``, laid out if new). ``chat_model``: a LangChain chat model that
    reverie's own model calls run on (:func:`use_chat_model`). ``options``: ``kind``, ``owner``,
    ``projects``, ``cwd``, ``host``, ``reverie_tools`` (see :class:`GraphMemory`)."""
    from ...api import Memory
    from .session import GraphMemory

    if memory is not None:
        gm = GraphMemory(memory, **options)
    else:
        memory = Memory(home=home, agent=agent, overrides=overrides)
        memory.init()  # a new home and workspace; an existing one is left exactly as it is
        gm = GraphMemory(memory, **options)
        gm.owns_memory = True  # closed with it
    if chat_model is not None:
        from .model import use_chat_model

        use_chat_model(gm, chat_model)
    return gm


__all__ = ["GraphMemory", "ReverieMiddleware", "ReverieStore", "connect", "use_chat_model"]
