"""``reverie search``: what it does and how it prints, shared by the full command line
(search_cmds.py) and the light road that answers it before the framework loads (fast.py)."""

from __future__ import annotations

from ..errors import UserError
from ..search.rescore import QUESTION_LIFTS
from .basics import Opts, emit, memory_for, say

# How long the CLI lets a dirty index catch up before answering from what is indexed. The API and
# the MCP server never wait (0); a one-shot command process has no later search to benefit.
CLI_SYNC_WAIT_SECONDS = 2.0


def _print_explain(hit: dict) -> None:
    ex = hit.get("explain") or {}
    v, k, p = ex.get("vector"), ex.get("keyword"), ex.get("path")
    legs = []
    rank = lambda leg: f" (#{leg['rank']})" if leg.get("rank") is not None else ""  # noqa: E731  (never '#None')
    legs.append(f"vector cos {v['cosine']:.3f} -> {v['calibrated']:.3f}{rank(v)}" if v else "vector -")
    lo = ex.get("loose") or {}
    lifted = bool(lo.get("share") or lo.get("dayAsked"))  # the question's characters, or a day it named
    if k and k.get("bm25") is None:  # found through its window or file, not by its own text
        how = "set by the question's characters or its days" if lifted else "through its context"
        legs.append(f"keyword {k['score']:.3f} ({how}){rank(k)}")
    else:
        legs.append(f"keyword {k['score']:.3f} (bm25 {k['bm25']:.2f}, coverage {k['coverage']:.2f}"
                    + (f", #{k['rank']})" if k.get("rank") is not None else ")") if k else "keyword -")
    if p:
        legs.append(f"path {p['score']:.3f} tier {p['exactTier']}")
    if lifted:  # (search/loose.py, search/days_asked.py)
        legs.append(f"loose {lo['share']:.2f} of the question's characters"
                    + (", a note of the days asked" if lo.get("dayAsked") else ""))
    if k and k.get("members"):  # a head word held through a member of its kind (text/kinds.py)
        from ..search.keyword import members_note  # (here: a search the warm server ran imports none of it)

        legs.append(members_note(k["members"]))
    print("      legs: " + "; ".join(legs))
    m = ex.get("merge", {})
    print(f"      merge: {m.get('formula')} = {m.get('content')}")
    rr = ex.get("rerank")
    if rr:
        print(f"      rerank {rr['score']:.3f} ({'judged' if rr['judged'] else 'not judged'}, weight {rr['weight']}): "
              f"content {rr['before']} -> {rr['after']}")
    imp, proj, dec = ex.get("importance", {}), ex.get("project", {}), ex.get("decay", {})
    # what the question itself lifted: the days it named, a stated taste, a statement of change
    said = "".join(f" x {label} {ex[key]['multiplier']}" for key, label in QUESTION_LIFTS
                   if (ex.get(key) or {}).get("multiplier", 1.0) != 1.0)
    print(f"      x importance {imp.get('multiplier')} (value {imp.get('value')}) x project {proj.get('multiplier')}"
          f"{said} = {ex.get('preDecay')} before decay ({'eligible' if ex.get('eligible') else 'below minScore'})")
    age = dec.get("ageDays")
    count = (ex.get("count") or {}).get("multiplier", 1.0)
    if count != 1.0:
        from ..search.counting import lowered_because  # (here: a search the warm server ran imports none of it)

        theirs = f" x {lowered_because(ex['count'])} {count}"
    else:
        theirs = ""
    print(f"      x decay {dec.get('multiplier')} ({'evergreen' if age is None else f'{age:.1f} days old'}){theirs}"
          f" = {ex.get('score')}")
    mm = ex.get("mmr")
    if mm:
        print(f"      MMR: position {mm['before']} -> {mm['after']} (max similarity to earlier picks {mm['penalty']})")


def _untrusted_note(hit: dict) -> bool:
    """An untrusted line of a dated note (the one kind the owner can claim)."""
    from ..trust.store import tracked

    return (hit.get("provenance") or {}).get("originClass") == "untrusted" and tracked(str(hit.get("path") or ""))


def _print_sensitive(data: dict) -> None:
    rows = data["lines"]
    if not rows:
        say("no line of memory looks like it holds a secret")
        return
    for r in rows:
        print(f"{r['citation']}  ({', '.join(r['kinds'])})  {r['text']}")
    say(f"{len(rows)} line{'s' if len(rows) != 1 else ''} that look{'' if len(rows) != 1 else 's'} like a secret: found by your search, never "
        "injected, promoted or sent to a reranker or remote model. To remove one everywhere: "
        "reverie forget --text \"<the line>\" (--dry-run first)")


def _print_results(data: dict, explain: bool) -> None:
    if data.get("unavailable"):
        say(f"memory search unavailable: {data['error']}")
        say(f"  {data['warning']} {data['action']}")
        return
    results = data["results"]
    if not results:
        say("no matches")
    if any(b["score"] > a["score"] for a, b in zip(results, results[1:])):
        # MMR put near-duplicates apart: the list is not in score order, and says so
        say("(order: not strictly by score: near-duplicates are moved apart (MMR) and keyword-only matches "
            "follow the results above the minimum score; --explain shows why)")
    for i, hit in enumerate(results, 1):
        snippet = " ".join(hit["snippet"].split())
        if len(snippet) > 160:
            snippet = snippet[:157] + "..."
        vs = "-" if hit["vectorScore"] is None else f"{hit['vectorScore']:.3f}"
        mark = "  [untrusted]" if _untrusted_note(hit) else ""
        if hit.get("supersededBy"):
            mark += f"  [superseded by {hit['supersededBy']}]"
        print(f"{i}. {hit['score']:.3f}  {hit['citation']}  (vector {vs}, keyword {hit['textScore']:.3f}){mark}")
        s, e = hit.get("snippetStartLine"), hit.get("snippetEndLine")
        shown = "" if s is None else (f"L{s}: " if s == e else f"L{s}-L{e}: ")  # the lines the snippet shows
        print(f"   {shown}{snippet}" + ("  [sensitive: never used on its own]" if hit.get("sensitive") else ""))
        if explain:
            _print_explain(hit)
    budget = data.get("budget")
    if budget and results:  # what the reading budget held, and whether it left results out
        say(f"({len(results)} result{'s' if len(results) != 1 else ''} in about {budget['tokens']} of "
            f"{budget['maxTokens']} tokens" + ("; more matched beyond the budget)" if budget.get("more") else ")"))
    outside = sorted({hit["path"] for hit in results if _untrusted_note(hit)})
    if outside:  # what the mark means, and what to do when the line is the owner's own
        say("note: [untrusted] lines of dated notes were added outside reverie (an editor, another program) or "
            "written after reading outside content: agents get them framed, never injected or promoted. "
            f"Lines you wrote yourself: reverie trust claim {' '.join(outside)}")
    d = data.get("debug", {})
    if explain:  # the summary line, in words, for whoever asked why
        mode = {"hybrid": "hybrid (vectors and keywords)", "keyword-only": "keywords only"}.get(
            str(d.get("effectiveMode")), str(d.get("effectiveMode")))
        chosen = {"strict": "results above the minimum score",
                  "strict+lexical": "results above the minimum score, then keyword matches below it",
                  "lexical-fallback": "keyword matches (none reached the minimum score)"}.get(
            str(d.get("selection")), str(d.get("selection")))
        say(f"search: {mode}; {chosen}; {d.get('searchMs')} ms")
        rr = d.get("rerank")
        if rr:
            say(f"rerank: {rr['provider']}, pool {rr.get('pool', 0)}, {rr.get('ms', 0)} ms" if rr.get("applied")
                else f"rerank not used: {rr.get('reason')}")
    if data.get("stale"):
        say(f"warning: {data['warning']} {data['action']}")
    if d.get("vectorSkipped"):
        say(f"note: vectors not used: {d['vectorSkipped']}")



def search(o: Opts, q: str | None, max_results: int | None = None, min_score: float | None = None, *,
           sensitive: bool = False, explain: bool = False, project: list[str] | None = None,
           signal: bool = False, max_tokens: int | None = None) -> int:
    """Run the search and print it; the exit code (1: memory search is unavailable)."""
    if sensitive and q is None:
        from ..trust.sensitive import sensitive_lines

        mem = memory_for(o, create=False)
        try:
            mem.sync()  # incremental: unchanged files are skipped
            rows = sensitive_lines(mem.index.conn())
        finally:
            mem.close()
        emit(o, {"sensitive": True, "lines": rows}, _print_sensitive)
        return 0
    if q is None:
        raise UserError("give a query: reverie search \"...\" (or --query)")
    if not q.strip():  # (the MCP tool answers mode "empty-query"; a command says so and fails)
        raise UserError("the query is empty: give words to look for, e.g. reverie search \"hotel booking\"")
    mem = memory_for(o, create=False)
    try:
        from ..recall.projects import folder_scope

        data = mem.search(q, max_results, min_score, explain=explain,
                          projects=folder_scope(mem.settings, project).keys or None,
                          sync_wait=CLI_SYNC_WAIT_SECONDS, record_signals=signal, max_tokens=max_tokens)
    finally:
        mem.close()
    if sensitive:  # a query and --sensitive: only its results that look like a secret
        data["results"] = [r for r in data.get("results") or [] if r.get("sensitive")]
        if data.get("budget"):
            from ..search.reading import spent

            data["budget"]["tokens"] = spent(data["results"])
    emit(o, data, lambda d: _print_results(d, explain))
    if data.get("unavailable"):
        return 1
    return 0
