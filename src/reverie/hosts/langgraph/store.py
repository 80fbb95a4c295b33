"""LangGraph's ``BaseStore`` over reverie: ``store.put`` writes a daily-note entry through reverie,
``store.search`` is reverie's hybrid search, ``store.delete`` is reverie's forget.

Namespaces (docs/hosts/langgraph.md): ``("memories", <agent>, *scope)``. ``<agent>`` is an agent of
the home (it must exist: ``reverie --agent NAME init``); ``scope`` is any further labels, kept with
each item. At the agent's level (``("memories", "main")``) a search finds all of the agent's memory:
the items put here, and reverie's other notes as passages keyed by their citation
(``memory/2026-07-01.md#L3-L3``, readable with ``get``); a scope finds only its own items.

Who wrote a value is the program's word, never the value's: the store writes as ``agent``
(:meth:`ReverieStore.writing_as` ``("owner")`` for values the program knows the owner typed), and
inside a graph run as no more than the running turn (``untrusted`` once it has read outside content).
Search leaves out what came from outside (``untrusted`` lines), as reverie's automatic lanes do, since
programs put search results into the prompt; ``include_untrusted=True`` for a program that frames
them itself. ``get`` reads any item.
"""

from __future__ import annotations

import asyncio
import copy
import re
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from langgraph.store.base import (BaseStore, GetOp, InvalidNamespaceError, Item, ListNamespacesOp, PutOp,
                                  SearchItem, SearchOp, validate_op_namespace)

from ...errors import UserError
from .items import Items, Version, render
from .query import matches, namespace_matches, units

ROOT = "memories"
_CITATION = re.compile(r"^(?P<path>[^#]+)#L(?P<a>\d+)-L(?P<b>\d+)$")


class ReverieStore(BaseStore):
    supports_ttl = False

    def __init__(self, memory=None, *, home: str | Path | None = None, writer=None, origin: str = "agent",
                 include_untrusted: bool = False):
        from ...api import Memory

        if origin not in ("owner", "agent", "untrusted"):
            raise UserError(f"a store writes as owner, agent or untrusted, not {origin!r}")
        memory = memory or Memory(home=home)
        self._default = memory
        self._mems = {memory.places.agent: memory}
        self._items: dict[str, Items] = {}
        self._writer = writer  # () -> Provenance | None: the running turn's writer (GraphMemory.writer)
        self._lock = threading.Lock()
        self.origin = origin
        self.include_untrusted = include_untrusted

    def writing_as(self, origin: str) -> "ReverieStore":
        """The same store, writing as ``origin`` (``owner`` only for what the owner typed)."""
        if origin not in ("owner", "agent", "untrusted"):
            raise UserError(f"a store writes as owner, agent or untrusted, not {origin!r}")
        view = copy.copy(self)
        view.origin = origin
        return view

    # -- LangGraph's two entry points ---------------------------------------------------------------
    def batch(self, ops: Iterable) -> list:
        out: list[Any] = []
        for op in ops:
            validate_op_namespace(op)
            if isinstance(op, GetOp):
                out.append(self._get(op))
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, PutOp):
                self._put(op) if op.value is not None else self._delete(op)
                out.append(None)
            elif isinstance(op, ListNamespacesOp):
                out.append(self._list(op))
            else:
                raise ValueError(f"unknown store operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable) -> list:
        return await asyncio.to_thread(self.batch, list(ops))  # SQLite and files: a worker thread

    # -- namespaces and agents ----------------------------------------------------------------------
    def _agent(self, namespace: tuple, *, prefix: bool = False) -> tuple[str | None, tuple[str, ...]]:
        ns = tuple(namespace)
        if prefix and len(ns) < 2 and ns in ((), (ROOT,)):
            return None, ()
        if len(ns) < 2 or ns[0] != ROOT:
            raise InvalidNamespaceError(f"reverie's store keeps namespaces ('{ROOT}', <agent>, ...); got {ns!r}")
        return ns[1], ns[2:]

    def _memory(self, agent: str):
        with self._lock:
            mem = self._mems.get(agent)
            if mem is None:
                from ...api import Memory
                from ...paths import Places

                try:
                    Places.resolve(self._default.places.home, agent).require_existing(
                        list(self._default.settings.agents))
                except UserError as exc:
                    raise InvalidNamespaceError(f"namespace ('{ROOT}', {agent!r}): {exc}") from None
                mem = self._mems[agent] = Memory(home=self._default.places.home, agent=agent,
                                                 settings=self._default.settings)
            return mem

    def _agents(self) -> list[str]:
        from ...paths import Places

        places = Places.resolve(self._default.places.home, self._default.places.agent)
        return [a for a in places.known_agents(list(self._default.settings.agents)) if "." not in a]

    def _notes(self, mem) -> Items:
        with self._lock:
            items = self._items.get(mem.places.agent)
            if items is None:
                items = self._items[mem.places.agent] = Items(mem.workspace, mem.settings.tz())
            return items

    # -- get, put, delete ---------------------------------------------------------------------------
    def _get(self, op: GetOp) -> Item | None:
        agent, scope = self._agent(op.namespace)
        mem = self._memory(agent)
        found = self._notes(mem).current().get((scope, op.key))
        if found is not None:
            return _item(Item, op.namespace, found[1], found[0])
        cited = _CITATION.match(op.key)
        if not scope and cited:
            a, b = int(cited["a"]), int(cited["b"])
            text = _lines(mem, cited["path"], a, b)
            if text is not None:
                return Item(value=_passage(mem, cited["path"], a, b, text), key=op.key, namespace=tuple(op.namespace),
                            created_at=_mtime(mem, cited["path"]), updated_at=_mtime(mem, cited["path"]))
        return None

    def _put(self, op: PutOp) -> None:
        if not isinstance(op.value, Mapping) or not op.key:
            raise UserError("a store item needs a key and a dict value")
        agent, scope = self._agent(op.namespace)
        mem = self._memory(agent)
        mem.remember(render(dict(op.value), op.key, scope), provenance=self._provenance())

    def _provenance(self):
        from ...trust import Provenance, current_writer, least_trusted

        now = current_writer() or (self._writer() if self._writer else None)
        if now is None:  # the program itself, outside any turn
            return Provenance(self.origin, "interactive" if self.origin == "owner" else "unknown", None, "store")
        return Provenance(least_trusted(self.origin, now.origin), now.kind, now.session_id, "store")

    def _delete(self, op: PutOp) -> None:
        from ...forget import Selectors, forget

        agent, scope = self._agent(op.namespace)
        mem = self._memory(agent)
        versions = self._notes(mem).history(scope, op.key)
        if not versions:
            if not scope and _CITATION.match(op.key):
                raise UserError(f"{op.key} is reverie's own memory, not an item of this store: forget it with "
                                "`reverie forget --text`")
            return  # as in LangGraph's stores: deleting what is not there is no error
        report = forget(mem, Selectors(texts=[v.entry for v in versions]))
        if report["refusals"]:
            raise UserError(f"the store could not delete {op.key!r}: {report['refusals'][0]['reason']}")

    # -- search and list ----------------------------------------------------------------------------
    def _search(self, op: SearchOp) -> list[SearchItem]:
        agent, scope = self._agent(op.namespace_prefix, prefix=True)
        found: list[SearchItem] = []
        for name in [agent] if agent else self._agents():
            mem = self._memory(name)
            if mem.workspace.exists():
                found += self._hits(mem, scope, op) if op.query else self._listing(mem, scope)
        found = [s for s in found if matches(s.value, op.filter)]
        if op.query:
            found.sort(key=lambda s: -(s.score or 0.0))
        else:
            found.sort(key=lambda s: s.updated_at, reverse=True)
        return found[op.offset:op.offset + op.limit]

    def _hits(self, mem, scope: tuple, op: SearchOp) -> list[SearchItem]:
        want = max(op.offset + op.limit, 1)
        # explain: a result merges the units of one window it found; the trace scores each unit,
        # so that each item gets its own score and place
        res = mem.search(op.query, max_results=min(2 * want + 4, 200), explain=True)
        notes = self._notes(mem)
        current = notes.current()
        at_line: dict[tuple[str, int], Version] = {}
        for v in notes.versions():
            for n in range(v.start, v.end + 1):
                at_line[(v.path, n)] = v
        best: dict[tuple, SearchItem] = {}
        for row in res.get("results") or []:
            origin = (row.get("provenance") or {}).get("originClass")
            if not self.include_untrusted and origin not in ("owner", "agent"):
                continue
            for a, b, score in units(row, _file_lines(mem, row["path"])):
                hit = {v.place: v for v in (at_line.get((row["path"], n)) for n in range(a, b + 1)) if v}
                for v in hit.values():
                    first, newest = current[(v.scope, v.key)]
                    if v.place != newest.place or v.scope[:len(scope)] != scope:
                        continue  # an older value of a key is its history, not the item
                    ns = (ROOT, mem.places.agent, *v.scope)
                    if (ns, v.key) not in best or score > (best[(ns, v.key)].score or 0):
                        best[(ns, v.key)] = _item(SearchItem, ns, newest, first, score=score)
                if not hit and not scope:
                    text = _lines(mem, row["path"], a, b) or row.get("snippet") or ""
                    key = f"{row['path']}#L{a}-L{b}"
                    ns = (ROOT, mem.places.agent)
                    if (ns, key) not in best:
                        value = _passage(mem, row["path"], a, b, text, row.get("provenance"))
                        at = _mtime(mem, row["path"])
                        best[(ns, key)] = SearchItem(ns, key, value, at, at, score=score)
        return list(best.values())

    def _listing(self, mem, scope: tuple) -> list[SearchItem]:
        out = []
        origins: dict[str, Any] = {}
        current = sorted(self._notes(mem).current().items(), key=lambda kv: (kv[1][1].at, kv[1][1].place), reverse=True)
        for (sc, _), (first, newest) in current:  # newest first: the minute stamps tie, the place in the notes does not
            if sc[:len(scope)] != scope:
                continue
            if not self.include_untrusted:
                if newest.path not in origins:
                    origins[newest.path] = mem.trust.origins(newest.path)
                if origins[newest.path].lines(newest.start, newest.end).origin not in ("owner", "agent"):
                    continue
            out.append(_item(SearchItem, (ROOT, mem.places.agent, *sc), newest, first))
        return out

    def _list(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces: set[tuple[str, ...]] = set()
        for name in self._agents():
            spaces.add((ROOT, name))
            mem = self._memory(name)
            spaces.update((ROOT, name, *scope) for scope, _ in self._notes(mem).current() if scope)
        chosen = [ns for ns in spaces if all(namespace_matches(c, ns) for c in op.match_conditions or ())]
        if op.max_depth is not None:
            chosen = list({ns[:op.max_depth] for ns in chosen})
        return sorted(chosen)[op.offset:op.offset + op.limit]

    def close(self) -> None:
        for mem in list(self._mems.values())[1:]:  # the first is the program's own: it closes it
            mem.close()


def _item(cls, namespace, newest: Version, first: Version, **extra):
    kw = dict(value=dict(newest.value), key=newest.key, namespace=tuple(namespace), created_at=first.at,
              updated_at=newest.at)
    return cls(**kw, **extra) if cls is Item else cls(kw["namespace"], kw["key"], kw["value"], kw["created_at"],
                                                       kw["updated_at"], **extra)


def _path(mem, path: str) -> Path:
    return Path(path) if Path(path).is_absolute() else mem.workspace / path


def _file_lines(mem, path: str) -> list[str] | None:
    try:
        return _path(mem, path).read_text(encoding="utf-8", errors="replace").split("\n")
    except OSError:
        return None  # a transcript hit (sessions/...), or a file gone since it was indexed


def _lines(mem, path: str, a: int, b: int) -> str | None:
    lines = _file_lines(mem, path)
    if lines is None or a < 1 or a > len(lines):
        return None
    return "\n".join(lines[a - 1:b])


def _passage(mem, path: str, a: int, b: int, text: str, provenance: dict | None = None) -> dict:
    origin = (provenance or {}).get("originClass")
    if origin is None:
        try:
            origin = mem.trust.origin_of(path, a, b).origin
        except Exception:  # a file the trust records cannot place: say nothing rather than guess
            origin = None
    return {"content": text, "citation": f"{path}#L{a}-L{b}", "origin": origin}


def _mtime(mem, path: str) -> datetime:
    try:
        return datetime.fromtimestamp(_path(mem, path).stat().st_mtime, timezone.utc)
    except OSError:
        return datetime.now(timezone.utc)
