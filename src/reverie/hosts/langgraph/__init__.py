"""reverie as the memory of a LangGraph agent (docs/hosts/langgraph.md).

    from langchain.agents import create_agent
    from reverie.hosts.langgraph import connect

    memory = connect(agent="main")                       # reverie's memory of agent "main"
    agent = create_agent(model, tools=my_tools, middleware=[memory.middleware()],
                         store=memory.store, checkpointer=checkpointer)
    agent.invoke({"messages": [...]}, {"configurable": {"thread_id": "t1"}})
    memory.before_compaction("t1")                       # before you trim or summarise a thread
    memory.end("t1")                                     # the thread is over: its session note

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
})


def connect(memory=None, *, agent: str | None = None, home: str | None = None, overrides: list[str] | None = None,
            **options):
    """reverie's memory for a LangGraph program, in one call: a :class:`GraphMemory` over ``memory``
    (else the ``agent`` of the ``home``, laid out if new). ``options``: ``kind``, ``owner``,
    ``projects``, ``cwd``, ``host``, ``reverie_tools`` (see :class:`GraphMemory`)."""
    from ...api import Memory
    from .session import GraphMemory

    if memory is not None:
        return GraphMemory(memory, **options)
    memory = Memory(home=home, agent=agent, overrides=overrides)
    memory.init()  # a new home and workspace; an existing one is left exactly as it is
    gm = GraphMemory(memory, **options)
    gm.owns_memory = True  # closed with it
    return gm


__all__ = ["GraphMemory", "ReverieMiddleware", "ReverieStore", "connect"]
