"""reverie tour: the whole product on a temporary home, step by step, offline."""

from __future__ import annotations

import json
import shutil
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Annotated, Optional

import typer

NOTES_ZH = [
    "周一规划周末去杭州两日游：讨论了酒店、车次和预算。",
    "决定住西湖边的湖滨酒店，没有订湖景房，因为超出预算。",
    "返程车票还没确认，周日下午的高铁候补中。",
]
NOTES_EN = [
    "The user prefers short, conclusion-first travel plans with a daily budget.",
    "Rejected the lake-view room because it was over budget.",
]


def register(app: typer.Typer) -> None:
    @app.command(help="Walk through reverie on a temporary home: write notes, index them with the bundled "
                      "local embedder, inspect the index, search it, dream one night. Offline; removes the home "
                      "afterwards.")
    def tour(keep: Annotated[bool, typer.Option("--keep", help="keep the temporary home and print its path")] = False,
             home: Annotated[Optional[Path], typer.Option("--home", help="use this (new) folder instead of a temporary one")] = None) -> None:
        from ..api import Memory
        from ..workspace import append_text

        root = Path(home) if home else Path(tempfile.mkdtemp(prefix="reverie-tour-"))
        step = 0

        def show(title: str) -> None:
            nonlocal step
            step += 1
            print(f"\n== {step}. {title}")

        try:
            mem = Memory(home=root, env={})
            show(f"init a workspace in {root}")
            for p in mem.init():
                print(f"   created {p.relative_to(root)}")
            show("remember a weekend trip (Chinese) and a preference (English), one note a day")
            today = datetime.now(timezone.utc)
            notes = NOTES_ZH + NOTES_EN
            for i, text in enumerate(notes):
                # a time of its own for each day's note (around noon UTC: the same date in any time zone
                # within ten hours of it), not the moment the tour runs on every one of them
                at = (today - timedelta(days=len(notes) - i)).replace(hour=11 + i % 3, minute=(17 * i + 5) % 60)
                path = mem.remember(text, now=at)
                print(f"   + {path.relative_to(mem.workspace)}: {text}")
            append_text(mem.workspace / "MEMORY.md",
                        "\n- 用户坐高铁喜欢靠窗的座位，不坐飞机。 <!-- importance: 8 -->")
            print("   + MEMORY.md: a curated preference with <!-- importance: 8 -->")
            show(f"index with the embedder '{mem.provider_state.provider}' ({mem.provider_state.reason})")
            r = mem.sync()
            print(f"   {r.files} files, {mem.index.chunk_count()} chunks in the index (each note was indexed as it was "
                  f"remembered: this sync had {r.chunks_written} left to write and {r.embedded} to embed, {r.seconds:.2f}s)")
            r2 = mem.sync()
            print(f"   again: {r2.changed} changed, {r2.embedded} embedded (unchanged files are skipped)")
            show("status")
            s = mem.status()
            brief = {k: s[k] for k in ("provider", "model", "identity", "files", "chunks", "dirty", "fts", "cache_entries")}
            print("   " + json.dumps(brief, ensure_ascii=False))
            if hasattr(mem, "search"):
                for q in ["为什么没订湖景房", "price too high", "返程车票"]:
                    show(f"search: {q}")
                    res = mem.search(q, max_results=2)
                    for hit in res["results"]:
                        snippet = " ".join(hit["snippet"].split())[:90]
                        print(f"   {hit['score']:.3f}  {hit['citation']}  {snippet}")
                    if not res["results"]:
                        print("   (no results)")
            show("three days of recalls, then one night of Dreaming (light -> REM -> deep)")
            for n, q in enumerate(["湖景房为什么没订", "湖滨酒店的预算", "订酒店 湖景房 超出预算"]):
                found = mem.search(q, max_results=2, now=today - timedelta(days=3 - n, hours=-1))["results"]
                print(f"   day {n + 1}: searched '{q}', recalled {found[0]['citation'] if found else 'nothing'}")
            night = mem.dream(now=today)
            staged = night.phases["light"]["items"]
            deep = night.phases["deep"]
            print(f"   light: {len(staged)} candidates staged; rem: themes "
                  f"{', '.join(t['tag'] for t in night.phases['rem']['themes'][:3]) or 'none yet'}")
            for p in deep["promoted"]:
                print(f"   deep: {p['action']} into MEMORY.md: {p['snippet']}")
            if not deep["promoted"]:
                print("   deep: nothing passed the thresholds tonight")
            lines = (mem.workspace / "DREAMS.md").read_text(encoding="utf-8").splitlines()
            stamp = next((i for i, ln in enumerate(lines) if ln.startswith("*") and ln.endswith("*")), None)
            diary = next((ln for ln in lines[stamp + 1:] if ln.strip()), "") if stamp is not None else ""
            if len(diary) > 160:  # cut at a word, not inside one
                diary = diary[:159].rsplit(" ", 1)[0] + " …"
            print(f"   DREAMS.md diary: {diary}")
            print("   (reverie promote-explain PATH:LINE shows why an entry was or was not promoted)")
            show("recall before the question: chat turns (offline model) that get memory without a search")
            _recall(mem)
            mem.close()
            show("done" + (f"; the tour home is kept at {root}" if keep else "; the temporary home is removed"))
        finally:
            if not keep and not home:
                shutil.rmtree(root, ignore_errors=True)


def _recall(mem) -> None:
    """The recall lanes on two turns: what each injected, from which lines, and why."""
    from ..workspace import append_text

    append_text(mem.workspace / "MEMORY.md", "\n- 返程车票周日前确认，候补不行就改签。 <!-- trigger: 返程车票 -->\n"
                "- Deploys go through staging first. <!-- trigger: deploy --> <!-- project: github.com/acme/app -->")
    mem.sync()
    print("   + MEMORY.md: an entry with <!-- trigger: 返程车票 -->, one for project github.com/acme/app")
    rt = mem.runtime("offline", session="tour")
    rt.send("/active-memory on")
    for text in ("下周去杭州，记得确认返程车票；然后 deploy", "What did we decide about the lake-view room?"):
        print(f"   > {text}")
        seen = len(rt.store.events(rt.session.session_id, kinds=("system",)))
        rt.send(text)
        for ev in rt.store.events(rt.session.session_id, kinds=("system",))[seen:]:
            d = ev.data
            if d.get("event") == "recall" and d.get("auto"):
                for item in d.get("items") or []:
                    lines = item.get("lines") or [0, 0]
                    why = f" ({item['why']})" if item.get("why") else ""
                    print(f"     [{d['lane']}] {item.get('path')}#L{lines[0]}-L{lines[1]}{why}")
            elif d.get("event") in ("trigger-recall", "active-memory"):
                print(f"     [{d['event']}] {d.get('text')}")
                if d.get("event") == "active-memory" and d.get("summary"):
                    print(f"       what it handed the model: {d['summary']}")
                if "project that is not active" in str(d.get("text")):
                    print("       (an entry for a project is recalled only while that project is active in the chat:"
                          " /project github.com/acme/app)")
    rt.close()
