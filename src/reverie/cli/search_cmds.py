"""search, get, tools, doctor."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ..errors import UserError
from .common import AgentOpt, HomeOpt, JsonOpt, SetOpt, WorkspaceOpt, emit, memory_for, opts, say

def register(app: typer.Typer) -> None:
    @app.command(help="Search memory (hybrid: vectors + keywords, works for Chinese); --explain shows why each result ranked where it did.")
    def search(ctx: typer.Context,
               query: Annotated[Optional[str], typer.Argument(help="what to look for", show_default=False)] = None,
               query_opt: Annotated[Optional[str], typer.Option("--query", "-q", help="the query (wins over the argument)")] = None,
               max_results: Annotated[Optional[int], typer.Option("--max-results", "-n", min=1, help="how many results (default 6)")] = None,
               min_score: Annotated[Optional[float], typer.Option("--min-score", min=0.0, max=1.0, help="threshold before decay (default 0.35)")] = None,
               max_tokens: Annotated[Optional[int], typer.Option("--max-tokens", min=1, max=100_000, help="instead of a count: "
                                                                 "the results that fit in about this many tokens of snippets")] = None,
               sensitive: Annotated[bool, typer.Option("--sensitive", help="list every memory line that looks like a "
                                                       "secret (password, PIN, key, card or ID number)")] = False,
               explain: Annotated[bool, typer.Option("--explain", help="show each leg, the merge, every multiplier and MMR")] = False,
               project: Annotated[Optional[list[str]], typer.Option("--project", help="active project key (repeatable; "
                                                                    "default: the folder's repository)")] = None,
               signal: Annotated[bool, typer.Option("--signal", help="count the results as recalled, for "
                                                    "Dreaming (a search from the command line is yours, looking "
                                                    "around: by default it does not teach Dreaming what matters)")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from .search_run import search as run

        return run(opts(ctx, home, agent, workspace, sets, as_json), query_opt if query_opt is not None else query,
                   max_results, min_score, sensitive=sensitive, explain=explain, project=project, signal=signal,
                   max_tokens=max_tokens)

    @app.command(help="Read lines of a memory file (MEMORY.md, USER.md, memory/*.md, extra paths).")
    def get(ctx: typer.Context,
            path: Annotated[str, typer.Argument(help="workspace-relative memory path, or a search citation (path#L5-L9)")],
            from_line: Annotated[Optional[int], typer.Option("--from", min=1, help="first line (1-based; default 1, or the citation's)")] = None,
            lines: Annotated[Optional[int], typer.Option("--lines", min=1, help="how many lines (default 120)")] = None,
            home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
            sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        o = opts(ctx, home, agent, workspace, sets, as_json)
        mem = memory_for(o, create=False)
        data = mem.get(path, from_line, lines)

        if data.get("status") == "not_found":  # exit 1; --json still gets its document
            if o.json:
                emit(o, data)
            raise UserError(f"not found: {data['path']} (in {mem.workspace})")
        if data.get("lines") == 0 and data.get("from", 1) > 1:  # a citation or --from past the last line
            if o.json:
                emit(o, data)
            raise UserError(f"{data['path']} ends before line {data['from']}; nothing to show (a lower --from, "
                            "or search again: the file may have changed since it was cited)")

        def human(d):
            if d.get("error"):
                say(f"cannot read {d['path']}: {d['error']}")
                return
            from ..workspace.read import MORE_NOTICE

            text = d["text"]
            notice = "\n" + MORE_NOTICE.format(n=d.get("nextFrom"))
            if d.get("nextFrom") and text.endswith(notice):
                # the tool's notice speaks to a model ("use from=N"); a person gets the command
                text = text[:-len(notice)]
            sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))
            if d.get("nextFrom"):
                say(f"[more: reverie get {d['path']} --from {d['nextFrom']}]")

        emit(o, data, human)
        if data.get("error"):
            raise typer.Exit(1)

    @app.command(help="Print the agent tools as OpenAI-style function definitions (the same schemas MCP serves).")
    def tools(ctx: typer.Context, home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
              sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..tools import openai_definitions

        o = opts(ctx, home, agent, workspace, sets, as_json)
        defs = openai_definitions(memory_for(o, create=False).tools())
        if o.json:
            emit(o, defs)
        else:
            for d in defs:
                f = d["function"]
                print(f"{f['name']}({', '.join(f['parameters']['properties'])})")
                print(f"    {f['description']}")

    @app.command(help="Prove each leg works (write -> index -> keyword search -> vector search) in a temporary home, "
                      "with this configuration's provider; --repair checks the agent's databases and salvages a "
                      "damaged one.")
    def doctor(ctx: typer.Context,
               repair: Annotated[bool, typer.Option("--repair", help="check the agent database and the automations "
                                                    "database; salvage a damaged one into a new file, keeping the "
                                                    "damaged file beside it")] = False,
               home: HomeOpt = None, agent: AgentOpt = None, workspace: WorkspaceOpt = None,
               sets: SetOpt = None, as_json: JsonOpt = False) -> None:
        from ..doctor import run_doctor

        o = opts(ctx, home, agent, workspace, sets, as_json)
        if repair:
            from ..repair import repair_agent
            from .repair_report import print_repair

            results = repair_agent(memory_for(o, create=False).places)
            emit(o, {"databases": results}, lambda d: print_repair(d["databases"]))
            if any(r.get("fatal") for r in results):
                raise typer.Exit(1)
            return
        report = run_doctor(memory_for(o))

        def human(r):
            for leg in r["legs"]:
                mark = "ok  " if leg["ok"] else ("skip" if leg.get("skipped") else "FAIL")
                say(f"{mark} {leg['name']}: {leg['detail']}")
                if not leg["ok"] and leg.get("action"):
                    say(f"     -> {leg['action']}")
            say("all legs work" if r["ok"] else "some legs failed")

        emit(o, report, human)
        if not report["ok"]:
            raise typer.Exit(1)
