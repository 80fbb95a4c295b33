"""The tool contract shared by every surface (OpenAI-style definitions, MCP, the chat runtime)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import UserError


class ToolError(UserError):
    """A tool call that cannot be served as asked (bad arguments, refused path)."""


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    schema: dict
    handler: Callable[[dict], dict]
    read_only: bool = True
    destructive: bool = False
    idempotent: bool = True
    title: str = ""
    extra: dict = field(default_factory=dict)
    # Where results come from (docs/trust.md): None for reverie's memory tools (each result carries
    # its own provenance); "untrusted" for tools that bring outside content (web fetch, HTTP,
    # e-mail, files outside the workspace, MCP tools of other servers). The chat runtime treats a
    # host tool that does not say as "untrusted".
    origin: str | None = None

    def call(self, arguments: dict | None) -> dict:
        args = dict(arguments or {})
        validate(self.schema, args, self.name)
        return self.handler(args)

    def openai(self) -> dict:
        return {"type": "function",
                "function": {"name": self.name, "description": self.description, "parameters": self.schema}}


def validate(schema: dict, args: dict, tool: str) -> None:
    """Check ``args`` against the tool's JSON Schema (``jsonschema``, draft 2020-12), in place.

    A null argument counts as absent; a whole float given for an integer becomes an int. The
    first error becomes a one-line :class:`ToolError` naming the argument (``'tags[2]'`` inside
    an array), never the library's wording with the whole value in it.
    """
    from jsonschema import Draft202012Validator  # lazy: one-shot CLI commands never validate
    from jsonschema.exceptions import best_match

    for name in [n for n, v in args.items() if v is None]:
        del args[name]
    error = best_match(Draft202012Validator(schema).iter_errors(args))
    if error is not None:
        raise ToolError(f"{tool}: {_describe(error, schema, args)}")
    props = schema.get("properties", {})
    for name, value in args.items():
        if props.get(name, {}).get("type") == "integer" and isinstance(value, float):
            args[name] = int(value)  # 2.0 passed as an integer: the handlers expect an int


def _describe(error, schema: dict, args: dict) -> str:
    kind, want = error.validator, error.validator_value
    if kind == "required" and not error.absolute_path:
        missing = [n for n in want if n not in args]
        return f"missing required argument {missing[0]!r}" if missing else error.message
    if kind == "additionalProperties" and not error.absolute_path:
        extra = sorted(set(args) - set(schema.get("properties", {})))
        return f"unknown argument(s) {', '.join(map(repr, extra))}"
    path = list(error.absolute_path)
    name = str(path[0]) + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path[1:]) if path else ""
    arg = f"argument {name!r}" if name else "arguments"
    if kind == "type":
        return f"{arg} must be {' or '.join(want) if isinstance(want, list) else want}"
    words = {
        "minimum": f"must be at least {want}", "maximum": f"must be at most {want}",
        "exclusiveMinimum": f"must be greater than {want}", "exclusiveMaximum": f"must be less than {want}",
        "enum": f"must be one of {want}", "const": f"must be {want!r}",
        "maxLength": f"is longer than {want} characters", "minLength": f"is shorter than {want} characters",
        "maxItems": f"has more than {want} items", "minItems": f"needs at least {want} item{'s' if want != 1 else ''}",
        "uniqueItems": "has repeated items", "pattern": f"does not match the pattern {want!r}",
    }
    if kind in words:
        return f"{arg} {words[kind]}"
    message = " ".join(error.message.split())
    return f"{arg} is not valid: {message[:200]}"


def openai_definitions(tools: list[Tool]) -> list[dict]:
    return [t.openai() for t in tools]
