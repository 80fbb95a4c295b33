"""reverie as the memory of an agent built with the OpenAI Agents SDK (``openai-agents``), in one
process, through the sidecar (docs/hosts/agents-sdk.md)::

    kit = reverie_agent_kit(Memory(), "chat-42")
    agent = Agent(name="assistant", instructions="...", tools=[*kit.tools, my_tools...])
    result = await Runner.run(agent, text, session=kit.session, run_config=kit.run_config)

==============  ================================================================================
kit.session     the SDK's ``Session``: the history is reverie's transcript, each message recorded
                with who wrote it (owner, agent, untrusted tool output, recall); clear_session
                ends the conversation and writes its session note
kit.run_config  ``call_model_input_filter``: the startup context, then per turn trigger recall,
                standing intents and Active Memory, into the instructions (each entry once per
                session)
kit.tools       memory_search, memory_get, memory_append, intent_list, table_* as function tools
kit.flush()     the pre-compaction flush (the SDK has no compaction event for such a session)
kit.end()       the session note
==============  ================================================================================

The SDK is imported only when a kit is made: reverie does not depend on it.
"""

from __future__ import annotations

from .kit import AgentsKit
from .session import ReverieSession

__all__ = ["AgentsKit", "ReverieSession", "reverie_agent_kit"]


def reverie_agent_kit(memory, session_id: str, *, kind: str = "main", owner: bool = True,
                      projects: list[str] | None = None, cwd: str | None = None, tools: bool = True) -> AgentsKit:
    """Everything an Agents SDK program needs for one conversation: ``kit.session``,
    ``kit.run_config`` (or ``kit.input_filter`` for a RunConfig of your own), ``kit.tools``,
    ``await kit.flush()``, ``await kit.end()``.

    ``session_id``: the program's id for the conversation (one kit per conversation). ``kind``:
    main, group, cron or subagent. ``owner``: the person talking is the memory's owner (False for
    a program serving other people: their words are recorded untrusted)."""
    return AgentsKit(memory, session_id, kind=kind, owner=owner, projects=projects, cwd=cwd, tools=tools)
