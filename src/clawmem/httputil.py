"""Helpers shared by the HTTP adapters (embedding providers and chat models)."""

from __future__ import annotations

import httpx


def server_message(resp: httpx.Response) -> str:
    """The error text, whichever dialect: OpenAI/vLLM/Anthropic nest it, Ollama uses a string."""
    try:
        body = resp.json()
    except ValueError:
        return resp.text.strip() or resp.reason_phrase
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err.get("detail") or err)
        if err:
            return str(err)
        return str(body.get("message") or body.get("detail") or body)
    return str(body)
