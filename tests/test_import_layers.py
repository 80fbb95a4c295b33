"""Imports point down the layers: no circle of imports crosses from one room of the package to
another (hosts such as the runtime, the sidecar and the API on top; lanes, writing and stores below).

The graph is read from the source (every ``import`` and ``from ... import``, at the top of a module
or inside a function — a function-level import is still a dependency, only a later one), leaving out
``if TYPE_CHECKING:`` blocks, which never run. A circle inside one package (a package's
``__init__`` and its modules) is its own business; one that spans two rooms is the kind that made
``api ↔ runtime ↔ recall ↔ tools ↔ dreaming ↔ cron_turns`` one knot, and fails here with its
members and the imports that close it."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules() -> dict[str, Path]:
    out = {}
    for p in (SRC / "reverie").rglob("*.py"):
        parts = list(p.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.AST):
    stack = [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if _type_checking(child):
                stack.extend(child.orelse)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            stack.append(child)


def graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        package = mod.split(".") if path.name == "__init__.py" else mod.split(".")[:-1]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges[mod].update(a.name for a in node.names if a.name in mods and a.name != mod)
                continue
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            named = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in mods]
            edges[mod].update(n for n in named if n != mod)
            if not named and target in mods and target != mod:
                edges[mod].add(target)
    return edges


def circles(edges: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[set[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.add(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(comp)
    return out


def _room(mod: str) -> str:
    return ".".join(mod.split(".")[:2])


def test_the_checker_finds_a_circle():
    edges = {"reverie.a": {"reverie.b.x"}, "reverie.b.x": {"reverie.c"}, "reverie.c": {"reverie.a"}, "reverie.d": set()}
    assert circles(edges) == [{"reverie.a", "reverie.b.x", "reverie.c"}]


def test_no_circle_of_imports_spans_two_rooms():
    edges = graph()
    assert "reverie.runtime" in edges["reverie.api"] or "reverie.runtime" in edges["reverie.cli.chat_cmd"]  # it reads
    crossing = [c for c in circles(edges) if len({_room(m) for m in c}) > 1]
    described = ["; ".join(f"{m} -> {', '.join(sorted(edges[m] & c))}" for m in sorted(c)) for c in crossing]
    assert not crossing, "\n".join(described)
