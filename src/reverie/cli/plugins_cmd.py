"""plugins: the embedding providers, chat models, storage engines and rerank providers installed, and where from."""

from __future__ import annotations

from typing import Annotated

import typer

from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, opts, say

LABELS = {"reverie.providers": "embedding providers (memory.search.provider)",
          "reverie.models": "chat models (chat.model = NAME:MODEL)",
          "reverie.stores": "storage engines (memory.store.backend)",
          "reverie.rerankers": "rerank providers (memory.search.rerank.provider)"}


def register(app: typer.Typer) -> None:
    @app.command(help="List installed plugins: embedding providers, chat models, storage engines and rerank "
                      "providers, built-in and third-party, with the distribution each comes from (Python entry "
                      "points).")
    def plugins(ctx: typer.Context,
                check: Annotated[bool, typer.Option("--check", help="import each plugin and report the ones that fail")] = False,
                home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
                sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from .. import plugins as registry

        o = opts(ctx, home, agent, workspace, sets, as_json)
        groups = {}
        for group in registry.GROUPS:
            rows = []
            for p in registry.plugins(group):
                if p.builtin and p.name.lower() in registry.HIDDEN.get(group, ()):
                    continue  # test doubles stay usable by name but are not offered
                row = p.as_dict()
                if check and not p.shadowed:
                    row["error"] = registry.check(p)
                rows.append(row)
            groups[group] = rows
        data = {"groups": groups}

        def human(d):
            for group, rows in d["groups"].items():
                print(f"{group}: {LABELS[group]}")
                if not rows:
                    print("  (none installed)")
                for r in rows:
                    origin = "built-in" if r["builtin"] else f"{r['distribution']} {r['version'] or ''}".strip()
                    note = "  SHADOWED by the built-in of that name" if r["shadowed"] else ""
                    if r.get("error"):
                        note += f"  FAILS: {r['error']}"
                    elif check and not r["shadowed"]:
                        note += "  ok"
                    print(f"  {r['name']:<12} {origin:<28} {r['value']}{note}")
            failing = [r for rows in d["groups"].values() for r in rows if r.get("error")]
            if failing:
                say(f"{len(failing)} plugin(s) failed to load")

        emit(o, data, human)
