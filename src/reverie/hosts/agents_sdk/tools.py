"""reverie's tools as the Agents SDK's function tools, in the program's own process.

Each is a ``FunctionTool`` with the tool's own JSON schema (not strict: reverie's schemas have
optional arguments and bounds that the strict mode of OpenAI's structured outputs does not
take) and an ``on_invoke_tool`` that runs the handler in a worker thread, inside the turn's
taint (:meth:`AgentsKit.taint`), and answers JSON as ``reverie mcp`` does. A refused or failed
call is an answer the model can read, never an exception that ends the run.
"""

from __future__ import annotations

import asyncio
import json
import logging

log = logging.getLogger("reverie.agents_sdk")


def function_tools(kit, tools: list) -> list:
    from agents import FunctionTool

    return [FunctionTool(name=t.name, description=t.description, params_json_schema=t.schema,
                         on_invoke_tool=_invoker(kit, t), strict_json_schema=False) for t in tools]


def _invoker(kit, tool):
    async def invoke(_context, raw: str) -> str:
        try:
            args = json.loads(raw) if raw and raw.strip() else {}
        except ValueError:
            return _dumps({"error": f"{tool.name}: the arguments are not JSON"})
        if not isinstance(args, dict):
            return _dumps({"error": f"{tool.name}: the arguments must be a JSON object"})
        return await asyncio.to_thread(call, kit, tool, args)

    return invoke


def call(kit, tool, args: dict) -> str:
    from ...errors import ReverieError

    try:
        result, _origin = kit.taint().call(tool, args)
    except ReverieError as exc:
        result = {"error": str(exc)}
    except Exception as exc:  # a tool bug must not end the program's run
        log.exception("reverie: %s failed", tool.name)
        result = {"error": f"{tool.name}: internal error ({type(exc).__name__})"}
    return _dumps(result)


def _dumps(result) -> str:
    return json.dumps(result, ensure_ascii=False, default=str)
