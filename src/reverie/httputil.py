"""Helpers shared by the HTTP adapters (embedding providers and chat models)."""

from __future__ import annotations

from typing import Callable

import httpx

from .retry import parse_retry_after


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


def retry_after(resp: httpx.Response) -> float | None:
    """The wait a 429/503 answer asks for: ``retry-after-ms`` (OpenAI's) or ``Retry-After``."""
    ms = resp.headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    return parse_retry_after(resp.headers.get("retry-after"))


def post(client: httpx.Client, url: str, *, headers: dict, payload: dict, timeout: float,
         fail: Callable[..., Exception], url_hint: str = "") -> httpx.Response:
    """POST JSON, turning transport failures into the adapter's own error (via ``fail(message,
    retryable=...)``): timeouts and connection errors are retryable, a malformed URL is not."""
    try:
        return client.post(url, headers=headers, json=payload, timeout=timeout)
    except httpx.TimeoutException:
        raise fail(f"timed out after {timeout:g}s", retryable=True) from None
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
        raise fail(f"bad base URL: {exc}{url_hint}") from None  # retrying cannot fix a typo
    except httpx.HTTPError as exc:
        raise fail(f"connection failed: {type(exc).__name__}: {exc}", retryable=True) from None
