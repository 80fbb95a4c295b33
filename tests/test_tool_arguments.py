"""Tool arguments are checked against the whole JSON Schema (jsonschema), not a hand-written
subset that ignored array limits (issue 9, §4); every refusal is one line naming the argument
and the handler never runs."""

from __future__ import annotations

import pytest

from reverie.tools.base import Tool, ToolError

SCHEMA = {
    "type": "object",
    "properties": {
        "tags": {"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": True,
                 "items": {"type": "string", "maxLength": 5}},
        "code": {"type": "string", "pattern": "^[a-z]+$"},
        "count": {"type": "integer", "exclusiveMinimum": 0},
    },
    "required": ["tags"],
    "additionalProperties": False,
}


@pytest.fixture
def recorded():
    calls: list[dict] = []
    return calls, Tool("t", "a test tool", SCHEMA, lambda args: calls.append(args) or {"ok": True})


@pytest.mark.parametrize("args,message", [
    ({"tags": []}, "t: argument 'tags' needs at least 1 item"),
    ({"tags": ["a", "b", "c", "d"]}, "t: argument 'tags' has more than 3 items"),
    ({"tags": ["a", "a"]}, "t: argument 'tags' has repeated items"),
    ({"tags": ["a", 3]}, "t: argument 'tags[1]' must be string"),
    ({"tags": ["a", "toolong"]}, "t: argument 'tags[1]' is longer than 5 characters"),
    ({"tags": ["a"], "code": "ABC"}, "t: argument 'code' does not match the pattern '^[a-z]+$'"),
    ({"tags": ["a"], "count": 0}, "t: argument 'count' must be greater than 0"),
    ({"tags": "a"}, "t: argument 'tags' must be array"),
    ({}, "t: missing required argument 'tags'"),
    ({"tags": ["a"], "extra": 1, "more": 2}, "t: unknown argument(s) 'extra', 'more'"),
])
def test_each_violation_is_one_line_naming_the_argument_and_nothing_runs(recorded, args, message):
    calls, tool = recorded
    with pytest.raises(ToolError) as err:
        tool.call(args)
    assert str(err.value) == message
    assert calls == []


def test_valid_calls_reach_the_handler_with_nulls_dropped_and_whole_floats_as_ints(recorded):
    calls, tool = recorded
    assert tool.call({"tags": ["a", "b"], "code": None, "count": 2.0}) == {"ok": True}
    assert calls == [{"tags": ["a", "b"], "count": 2}] and type(calls[0]["count"]) is int


def test_a_huge_bad_value_is_not_echoed(recorded):
    _, tool = recorded
    with pytest.raises(ToolError) as err:
        tool.call({"tags": ["a"], "code": "X" * 10_000})
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)


def test_intent_tool_refuses_too_many_keywords_by_schema(fake_memory):
    from reverie.intents.model import MAX_KEYWORDS
    from reverie.tools import intent_tool

    intent = intent_tool(fake_memory.intents, None)
    with pytest.raises(ToolError, match=f"argument 'triggerKeywords' has more than {MAX_KEYWORDS} items"):
        intent.call({"action": "create", "description": "d",
                     "triggerKeywords": [f"k{n}" for n in range(MAX_KEYWORDS + 1)]})
