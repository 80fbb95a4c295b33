"""What reverie adds to each turn of a host's own loop, in-process: one function per host.

A host owns its loop and its model call; reverie follows it through the sidecar. The figure that
matters to the host is the time its loop waits on reverie per turn: before the model call
(history, the user message recorded, the lanes) and after it (the answer recorded). Every turn
here names a trigger of its own, so the trigger lane finds and injects an entry each turn (the
lanes inject an entry once per session). The model is the scripted server of the tests
(tests/hosts/model_server.py) on 127.0.0.1, answering at once: what remains is the host and reverie.

* ``agents_sdk``: the OpenAI Agents SDK (``Runner.run`` on a Chat Completions model), with reverie's
  kit (session, input filter, tools); reverie's own time per turn is measured at the SDK's calls
  into it (get_items, add_items, call_model_input_filter), and a whole turn against the same loop
  with no session, with the SDK's own SQLiteSession (in memory), and with that session plus reverie's
  tools offered to the model (their definitions go out with every request) but no lanes.
* ``langgraph``: LangGraph's agent (``langchain.agents.create_agent`` on ``ChatOpenAI``, a checkpointer
  keeping the thread) with reverie's middleware (reverie.hosts.langgraph); reverie's own time per turn
  is measured at its two steps (``prepare`` before the model call, ``record`` after the turn; the
  first turn's ``prepare`` includes the thread's startup context), and a whole turn against the same
  graph without reverie.

* ``serve-http``: any host in another process or language (the OpenClaw plugin) following its
  conversation through `reverie serve`'s memory API: ``sidecar/before_model`` and
  ``sidecar/after_turn`` per turn over HTTP, timed at the host's side.

    python benchmarks/hosts_overhead.py [--turns 50] [--notes 200] [--only agents-sdk,langgraph,serve-http]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "vo", "ze", "pu"]


def words(n: int) -> list[str]:
    """n made-up words, each a trigger no other turn names."""
    return [f"{a}{b}{c}" for a in SYLLABLES for b in SYLLABLES for c in SYLLABLES][:n]


def build_memory(home: Path, turns: int, notes: int):
    os.environ["REVERIE_HOME"] = str(home)
    os.environ.setdefault("REVERIE_TIMEZONE", "UTC")
    from reverie import Memory

    mem = Memory(overrides=['memory.search.provider="fake"'])
    mem.init()
    lines = [f"- The {w} key hangs on hook {i}. <!-- trigger: {w} -->" for i, w in enumerate(words(turns))]
    (mem.workspace / "MEMORY.md").write_text("# Memory\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    for i in range(notes):
        mem.remember(f"Note {i}: met the team about release {i % 17} and budget line {i % 11}.")
    mem.sync()
    return mem


def median_ms(xs: list[float]) -> float:
    return round(statistics.median(xs) * 1000, 2)


def p95_ms(xs: list[float]) -> float:
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))] * 1000, 2)


# -- the OpenAI Agents SDK ----------------------------------------------------------------------------
def agents_sdk(turns: int, notes: int) -> tuple[dict[str, list[float]], list[str]]:
    """(seconds by what was timed, one sample per turn; lines to print beside them)."""
    from agents import Agent, OpenAIChatCompletionsModel, Runner, SQLiteSession, set_tracing_disabled
    from hosts.model_server import ModelServer, Text
    from openai import AsyncOpenAI

    from reverie.hosts.agents_sdk import reverie_agent_kit

    set_tracing_disabled(True)
    samples: dict[str, list[float]] = {}
    said: list[str] = []
    prompts = [f"Where is the {w} key?" for w in words(turns)]

    def timed(name: str, fn):
        async def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return await fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    spent: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="reverie-hosts-") as tmp, ModelServer(lambda r: Text("ok")) as server:
        mem = build_memory(Path(tmp) / "home", turns, notes)
        model = OpenAIChatCompletionsModel("scripted-model", AsyncOpenAI(base_url=server.openai_url,
                                                                         api_key="placeholder"))

        async def loop(label: str, run_kwargs, agent) -> None:
            for prompt in prompts:
                spent.clear()
                t = time.perf_counter()
                await Runner.run(agent, prompt, **run_kwargs())
                samples.setdefault(f"{label}: whole turn", []).append(time.perf_counter() - t)
                for name, s in spent.items():
                    samples.setdefault(f"reverie: {name}", []).append(s)
                if spent:
                    samples.setdefault("reverie: per turn (before + after)", []).append(sum(spent.values()))

        async def main() -> None:
            bare = Agent(name="assistant", instructions="Be brief.", model=model)
            await Runner.run(bare, "warm up")  # the client's connection pool and imports
            await loop("SDK, no session", dict, bare)
            sqlite = SQLiteSession("bench")
            await loop("SDK + SQLiteSession (memory)", lambda: {"session": sqlite}, bare)
            tools_only = reverie_agent_kit(mem, "bench-tools").tools
            equipped = Agent(name="assistant", instructions="Be brief.", model=model, tools=tools_only)
            sqlite2 = SQLiteSession("bench-tools")
            await loop("SDK + SQLiteSession + reverie's tools offered", lambda: {"session": sqlite2}, equipped)
            kit = reverie_agent_kit(mem, "bench")
            kit.session.get_items = timed("get_items", kit.session.get_items)
            kit.session.add_items = timed("add_items", kit.session.add_items)
            config = kit.run_config
            config.call_model_input_filter = timed("input filter (lanes)", config.call_model_input_filter)
            agent = Agent(name="assistant", instructions="Be brief.", model=model, tools=kit.tools)
            await loop("SDK + reverie kit", lambda: {"session": kit.session, "run_config": config}, agent)
            injected = sum('lane="trigger"' in (r.system_text() or "") for r in server.main_requests()[-turns:])
            said.append(f"turns with a trigger entry injected: {injected}/{turns}")
            kit.close()

        asyncio.run(main())
        mem.close()
    return samples, said


# -- LangGraph --------------------------------------------------------------------------------------
def langgraph(turns: int, notes: int) -> tuple[dict[str, list[float]], list[str]]:
    """(seconds by what was timed, one sample per turn; lines to print beside them)."""
    from hosts.model_server import ModelServer, Text
    from langchain.agents import create_agent
    from langchain_openai import ChatOpenAI
    from langgraph.checkpoint.memory import InMemorySaver

    from reverie.hosts.langgraph import connect

    samples: dict[str, list[float]] = {}
    said: list[str] = []
    spent: dict[str, float] = {}
    prompts = [f"Where is the {w} key?" for w in words(turns)]

    def timed(name: str, fn):
        def wrapper(*args, **kwargs):
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - t
        return wrapper

    with tempfile.TemporaryDirectory(prefix="reverie-hosts-") as tmp, ModelServer(lambda r: Text("ok")) as server:
        mem = build_memory(Path(tmp) / "home", turns, notes)
        model = ChatOpenAI(model="scripted-model", base_url=server.openai_url, api_key="placeholder")

        def loop(label: str, agent, thread: str) -> None:
            config = {"configurable": {"thread_id": thread}}
            for prompt in prompts:
                spent.clear()
                t = time.perf_counter()
                agent.invoke({"messages": [{"role": "user", "content": prompt}]}, config)
                samples.setdefault(f"{label}: whole turn", []).append(time.perf_counter() - t)
                for name, s in spent.items():
                    samples.setdefault(f"reverie: {name}", []).append(s)
                if spent:
                    samples.setdefault("reverie: per turn (before + after)", []).append(sum(spent.values()))

        bare = create_agent(model, system_prompt="Be brief.", checkpointer=InMemorySaver())
        bare.invoke({"messages": [{"role": "user", "content": "warm up"}]}, {"configurable": {"thread_id": "w"}})
        loop("LangGraph, no memory", bare, "bare")
        memory = connect(mem)
        memory.prepare = timed("prepare (startup context, lanes)", memory.prepare)
        memory.record = timed("record (the turn)", memory.record)
        agent = create_agent(model, system_prompt="Be brief.", middleware=[memory.middleware()],
                             store=memory.store, checkpointer=InMemorySaver())
        loop("LangGraph + reverie", agent, "bench")
        asked = server.main_requests()[-turns:]
        injected = sum(f"The {w} key" in (r.system_text() or "") for r, w in zip(asked, words(turns)))
        said.append(f"turns with their trigger entry injected: {injected}/{turns}")
        memory.close()
        mem.close()
    return samples, said


# -- any host over reverie serve's HTTP memory API (what the OpenClaw plugin calls) --------------------
def serve_http(turns: int, notes: int) -> tuple[dict[str, list[float]], list[str]]:
    """A host in another process (another language) following its conversation through `reverie
    serve`: per turn, ``sidecar/before_model`` (the user message recorded, the lanes) and
    ``sidecar/after_turn`` (the turn recorded), each one JSON request on a kept-alive HTTP
    connection to 127.0.0.1; timed at the host's side, so the HTTP round trips are in."""
    import http.client
    import json
    import subprocess

    tmp = tempfile.TemporaryDirectory(prefix="reverie-hosts-serve-")
    home = Path(tmp.name) / "home"
    build_memory(home, turns, notes).close()
    reverie = str(Path(sys.executable).with_name("reverie"))
    env = {**os.environ, "REVERIE_HOME": str(home)}
    proc = subprocess.Popen([reverie, "--home", str(home), "--set", 'memory.search.provider="fake"', "serve",
                             "--port", "0"], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        state = home / "run" / "serve.json"
        deadline = time.monotonic() + 60
        info: dict = {}
        while time.monotonic() < deadline and info.get("pid") != proc.pid:
            try:
                info = json.loads(state.read_text())
            except (OSError, ValueError):
                time.sleep(0.05)
        if info.get("pid") != proc.pid:
            raise SystemExit("reverie serve did not start")
        conn = http.client.HTTPConnection("127.0.0.1", info["port"], timeout=60)
        headers = {"Authorization": f"Bearer {info['token']}", "Content-Type": "application/json"}

        def call(op: str, body: dict) -> dict:
            conn.request("POST", f"/v1/agents/main/sidecar/{op}", body=json.dumps(body), headers=headers)
            r = conn.getresponse()
            answer = json.loads(r.read())
            if r.status != 200 or answer.get("error"):
                raise SystemExit(f"{op}: {r.status} {answer}")
            return answer

        who = {"session": "bench-1", "host": "bench"}
        call("start", who)
        before, after, injected = [], [], 0
        for i, w in enumerate(words(turns)):
            text = f"Where does the {w} key hang?"
            t0 = time.perf_counter()
            out = call("before_model", {**who, "text": text, "turn": f"t{i}"})
            t1 = time.perf_counter()
            call("after_turn", {**who, "messages": [
                {"role": "user", "text": text, "origin": "owner", "hostId": f"u{i}"},
                {"role": "assistant", "text": f"On hook {i}.", "origin": "agent", "hostId": f"a{i}"}]})
            t2 = time.perf_counter()
            before.append(t1 - t0)
            after.append(t2 - t1)
            injected += w in (out.get("text") or "")
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)
        tmp.cleanup()
    total = [a + b for a, b in zip(before, after)]
    return ({"reverie through serve: before_model + after_turn (per turn)": total,
             "  before_model (HTTP round trip included)": before,
             "  after_turn (HTTP round trip included)": after},
            [f"trigger entries injected: {injected} of {turns} turns (each turn names its own trigger)"])


HOSTS = {"agents-sdk": agents_sdk, "langgraph": langgraph, "serve-http": serve_http}


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=50)
    ap.add_argument("--notes", type=int, default=200, help="daily-note entries in the memory")
    ap.add_argument("--only", default=",".join(HOSTS), help=f"hosts, comma-separated: {', '.join(HOSTS)}")
    ap.add_argument("--out", type=Path, help="docs/benchmarks.md: write the figures into its section")
    args = ap.parse_args(argv)
    out = {}
    started, load = time.perf_counter(), os.getloadavg()[0]
    report = []
    for host in [h.strip() for h in args.only.split(",") if h.strip()]:
        samples, said = HOSTS[host](args.turns, args.notes)
        print(f"\n{host}: {args.turns} turns, {args.notes} notes (ms: median, p95)")
        report += [f"**{host}** ({args.turns} turns, {args.notes} notes)", "", "| what | median ms | p95 ms |",
                   "|---|---:|---:|"]
        for name, xs in samples.items():
            print(f"  {name:<55} {median_ms(xs):>8} {p95_ms(xs):>8}")
            report.append(f"| {name} | {median_ms(xs)} | {p95_ms(xs)} |")
        for line in said:
            print(f"  {line}")
        report += ["", *said, ""]
        out[host] = {k: {"median": median_ms(v), "p95": p95_ms(v)} for k, v in samples.items()}
    if args.out:
        from report import update_section

        cmd = "python benchmarks/hosts_overhead.py " + " ".join(argv if argv is not None else sys.argv[1:])
        head = (f"Command: `{cmd.strip()}` — run took {time.perf_counter() - started:.0f} s; load average (1 min) "
                f"{load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end. In-process: what reverie adds to a "
                "host's turn (the sidecar before the model call and after the turn, trigger recall firing), beside "
                "the host's own turn against the scripted model server. Target: reverie's share ≤ 20 ms median on a "
                "quiet machine (serve-http: the same, HTTP round trips included).")
        update_section(args.out, "hosts-overhead", "Hosts: reverie's overhead per turn", "\n".join([head, "", *report]))
    return out


if __name__ == "__main__":
    main()
