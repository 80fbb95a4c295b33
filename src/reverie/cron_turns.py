"""Agent-turn automations (``reverie cron add --message``): the message is sent to the agent
through the chat runtime, in a session of its own.

Each job has its own session key, ``cron:<job id>`` (so runs never mix with a conversation, and
``reverie sessions show cron:<job id>`` finds them); each run starts a fresh session of that key
(marked ``origin = cron``) and ends it afterwards, so a run sees only its own message. The model
is the payload's ``model`` or the configured ``chat.model`` (``offline`` by default, which needs no
key and answers from memory). The whole turn is recorded in the transcript as any chat turn is; the
run history gets the reply (shortened) and where the transcript is. A model that cannot be reached
is a failed run: the scheduler's backoff and retries apply.

A run session left open by a run that was killed is ended (reason ``run-lost``) when the job next
runs, so the new run starts fresh instead of resuming it. After each run, the agent's run sessions
older than ``cron.sessionRetention`` lose their transcripts (:mod:`reverie.sessions.retention`);
the run record says how many (``details.prunedSessions``). ``reverie scheduler run`` also prunes
its agent's as it starts.

The scheduler itself (:mod:`reverie.automation`) sits below the runtime, so this handler is
registered by :meth:`reverie.Memory.scheduler`, as the automation package's documentation
describes for chat runtimes.
"""

from __future__ import annotations

import logging

from .automation.handlers import RunContext, RunOutcome

log = logging.getLogger("reverie.automation")

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
                # the scheduler claims a job once at a time: an open session of its key is a lost run's
                while (left := rt.store.current_session(rt.key)) is not None:
                    rt.store.end_session(left.session_id, "run-lost")
                result = rt.send(message)
                rt.store.end_session(result.session_id, "cron-run")
                pruned = prune_expired_runs(rt.store, mem.settings)
            finally:
                rt.close()
        finally:
            if not same:
                mem.close()
        details = {"agentId": places.agent, "sessionKey": rt.key, "sessionId": result.session_id,
                   "model": f"{rt.model.provider}:{rt.model.model}", "toolCalls": result.tool_calls}
        if pruned:
            details["prunedSessions"] = pruned
        if result.error:
            return RunOutcome("error", error=f"agent turn failed: {result.error}", details=details)
        reply = result.reply or ""
        details["reply"] = reply[:REPLY_CHARS]
        line = " ".join(reply.split())
        summary = (line[:SUMMARY_CHARS - 1] + "…") if len(line) > SUMMARY_CHARS else line
        return RunOutcome("ok", summary=summary or "(no reply)", details=details)

    return run


def prune_expired_runs(store, settings) -> int:
    """:func:`reverie.sessions.retention.prune_after_run` (its home, below the runtime)."""
    from .sessions.retention import prune_after_run

    return prune_after_run(store, settings)


def prune_agent(memory) -> int:
    """The same for ``memory``'s agent outside a run (``reverie scheduler run`` does it as it starts)."""
    from .sessions import TranscriptStore

    store = TranscriptStore(memory.agent_store)
    try:
        return prune_expired_runs(store, memory.settings)
    finally:
        store.close()
