"""Reading search results and LangGraph's query parts for the store: the units a result of reverie's
search holds, each with its score; LangGraph's ``filter`` on values and its namespace conditions
(the semantics of LangGraph's own stores: equality, nested dicts, ``$eq $ne $gt $gte $lt $lte``;
``*`` in a namespace path matches any label)."""

from __future__ import annotations

from typing import Any


def units(row: dict, lines: list[str] | None) -> list[tuple[int, int, float]]:
    """(first line, last line, score) of each unit a search result holds.

    A result is its best unit, with consecutive units of the same window merged into it (their
    text shown in its snippet, their scores in the explain trace). The best unit's lines are the
    snippet's lines that no merged unit holds."""
    score = float(row.get("score") or 0.0)
    a = int(row.get("snippetStartLine") or row.get("startLine") or 1)
    b = int(row.get("snippetEndLine") or row.get("endLine") or a)
    merged = [(int(m["lines"][0]), int(m["lines"][1]), float(m["score"]))
              for m in (row.get("explain") or {}).get("merged") or []]
    if not merged:
        return [(a, b, score)]
    taken = {n for s, e, _ in merged for n in range(s, e + 1)}
    shown = (row.get("snippet") or "").split("\n")
    cut = shown[-1][:-1] if shown and shown[-1].endswith("…") else None  # the snippet's last line, cut short
    lead = [n for n in range(a, b + 1) if n not in taken and (
        lines is None or (n <= len(lines) and lines[n - 1].strip()
                          and (lines[n - 1] in shown or (cut and lines[n - 1].startswith(cut)))))]
    return ([(min(lead), max(lead), score)] if lead else []) + merged


def matches(value: dict, conditions: dict | None) -> bool:
    return all(_compare(value.get(k), want) for k, want in (conditions or {}).items())


def _compare(have: Any, want: Any) -> bool:
    if isinstance(want, dict):
        if any(k.startswith("$") for k in want):
            return all(_operator(have, op, arg) for op, arg in want.items())
        return isinstance(have, dict) and all(_compare(have.get(k), v) for k, v in want.items())
    if isinstance(want, (list, tuple)):
        return (isinstance(have, (list, tuple)) and len(have) == len(want)
                and all(_compare(h, w) for h, w in zip(have, want)))
    return have == want


def _operator(have: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return have == arg
    if op == "$ne":
        return have != arg
    if op in ("$gt", "$gte", "$lt", "$lte"):
        try:
            x, y = float(have), float(arg)
        except (TypeError, ValueError):
            return False
        return {"$gt": x > y, "$gte": x >= y, "$lt": x < y, "$lte": x <= y}[op]
    raise ValueError(f"unsupported filter operator {op}")


def namespace_matches(condition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    pairs = zip(namespace, path) if condition.match_type == "prefix" else zip(reversed(namespace), reversed(path))
    return all(p == "*" or n == p for n, p in pairs)
