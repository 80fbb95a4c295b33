"""The memory sidecar: reverie follows a conversation that a host runs (docs/hosts/sidecar.md).

    from reverie import Memory
    from reverie.sidecar import FollowedSession, HostMessage

    s = FollowedSession(Memory(), host="my-agent", key=session_id)
    context = s.start().text                      # inject at session start
    extra = s.before_model(user_text).text        # inject before the model call
    s.after_turn([HostMessage("user", user_text, "owner"), HostMessage("assistant", reply, "agent")])
    s.before_compaction()                         # before the host compacts its context
    s.end("exit")                                 # the session note
"""

from ..sessions.host import HostMessage, ToolCallPart
from .session import KINDS, FollowedSession, Outcome

__all__ = ["FollowedSession", "HostMessage", "KINDS", "Outcome", "ToolCallPart"]
