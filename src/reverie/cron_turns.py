"""Agent-turn automations (``reverie cron add --message``): the message is sent to the agent
through the chat runtime, in a session of its own.

Each job has its own session key, ``cron:<job id>`` (so runs never mix with a conversation, and
``reverie sessions show cron:<job id>`` finds them); each run starts a fresh session of that key
(marked ``origin = cron``) and ends it afterwards, so a run sees only its own message. The model
is the payload's ``model`` or the configured ``chat.model`` (``offline`` by default, which needs no
key and answers from memory). The whole turn is recorded in the transcript as any chat turn is; the
run history gets the reply (shortened) and where the transcript is. A model that cannot be reached
is a failed run: the scheduler's backoff and retries apply.

The scheduler itself (:mod:`reverie.automation`) sits below the runtime, so this handler is
registered by :meth:`reverie.Memory.scheduler`, as the automation package's documentation
describes for chat runtimes.
"""

from __future__ import annotations

from .automation.handlers import RunContext, RunOutcome

SUMMARY_CHARS = 200
REPLY_CHARS = 4000


def agent_turn_handler(memory):
    """A handler running agent turns for the agents of ``memory``'s home."""

    def run(job: dict, ctx: RunContext) -> RunOutcome:
        from .errors import ReverieError
        from .runtime import Runtime

        payload = job.get("payload") or {}
        message = payload.get("message") or ""
        if not isinstance(message, str) or not message.strip():
            return RunOutcome("error", error="agent turn has no message", permanent=True)
        places = ctx.places(job.get("agentId"))
        same = places == memory.places
        mem = memory if same else type(memory)(home=ctx.home, agent=places.agent, workspace=places.workspace,
                                               settings=ctx.settings, env={})
        try:
            if not mem.workspace.exists():
                mem.init()
            try:
                rt = Runtime(mem, payload.get("model"), session_key=f"cron:{job['id']}", origin="cron")
            except ReverieError as exc:  # a model spec or key that cannot work: retrying will not help
                return RunOutcome("error", error=str(exc), permanent=True)
            try:
                result = rt.send(message)
                rt.store.end_session(result.session_id, "cron-run")
            finally:
                rt.close()
        finally:
            if not same:
                mem.close()
        details = {"agentId": places.agent, "sessionKey": rt.key, "sessionId": result.session_id,
                   "model": f"{rt.model.provider}:{rt.model.model}", "toolCalls": result.tool_calls}
        if result.error:
            return RunOutcome("error", error=f"agent turn failed: {result.error}", details=details)
        reply = result.reply or ""
        details["reply"] = reply[:REPLY_CHARS]
        line = " ".join(reply.split())
        summary = (line[:SUMMARY_CHARS - 1] + "…") if len(line) > SUMMARY_CHARS else line
        return RunOutcome("ok", summary=summary or "(no reply)", details=details)

    return run
