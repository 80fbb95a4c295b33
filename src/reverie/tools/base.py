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


_TYPES = {"string": str, "integer": int, "number": (int, float), "boolean": bool, "object": dict, "array": list}


def validate(schema: dict, args: dict, tool: str) -> None:
    """The subset of JSON Schema our tools use: required, types, minimum, enum, no extras."""
    props = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in args or args[name] is None:
            raise ToolError(f"{tool}: missing required argument {name!r}")
    if schema.get("additionalProperties") is False:
        extra = sorted(set(args) - set(props))
        if extra:
            raise ToolError(f"{tool}: unknown argument(s) {', '.join(map(repr, extra))}")
    for name, value in list(args.items()):
        spec = props.get(name, {})
        if value is None:
            del args[name]
            continue
        want = _TYPES.get(spec.get("type", ""))
        if want is not None:
            ok = isinstance(value, want) and not (spec.get("type") in ("integer", "number") and isinstance(value, bool))
            if spec.get("type") == "integer" and isinstance(value, float) and value.is_integer():
                args[name] = value = int(value)
                ok = True
            if not ok:
                raise ToolError(f"{tool}: argument {name!r} must be {spec['type']}")
        if "minimum" in spec and value < spec["minimum"]:
            raise ToolError(f"{tool}: argument {name!r} must be at least {spec['minimum']}")
        if "maximum" in spec and value > spec["maximum"]:
            raise ToolError(f"{tool}: argument {name!r} must be at most {spec['maximum']}")
        if "enum" in spec and value not in spec["enum"]:
            raise ToolError(f"{tool}: argument {name!r} must be one of {spec['enum']}")
        if "maxLength" in spec and isinstance(value, str) and len(value) > spec["maxLength"]:
            raise ToolError(f"{tool}: argument {name!r} is longer than {spec['maxLength']} characters")


def openai_definitions(tools: list[Tool]) -> list[dict]:
    return [t.openai() for t in tools]
