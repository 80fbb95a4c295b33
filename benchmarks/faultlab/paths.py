"""Path fuzzing of ``memory_get``: generated paths through the Python tool, ``reverie get`` and the
MCP server over real stdio, against a workspace set with traps.

The arena: every line of every memory file reads ``MEMFILE <path> line <n>``; every file that must
never be served (files outside the workspace, workspace files that are not memory, the targets of
symlinks and of a hard link) holds the word ``CANARY``. A read that returns a CANARY, or a line that
is not a MEMFILE line, or names a file that is not a memory file, is an **escape**. An exception
that is not a user error, an exit code 2, a traceback, a tool result that says "internal error", a
JSON-RPC internal error or no answer at all is an **internal error**. A refusal is a clean one-line
user error; ``not_found`` is a clean answer.
"""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from .common import CLI, FAKE, clean_env, clean_error

DAILY = "memory/2026-11-20.md"
MAX_MESSAGE = 400  # characters: a refusal is one short line, whatever the path (issue 31: one was 4 KB)
MEMORY_FILES = ["MEMORY.md", "USER.md", "DREAMS.md", DAILY, "memory/sub/deep.md", "memory/café.md",
                "memory/2026-11-21.md"]
SECRET_INSIDE = ["AGENTS.md", "SOUL.md", "notes.md", ".env", "memory/notes.txt", "memory/sub/readme.txt"]


@dataclass
class Arena:
    root: Path
    home: Path
    workspace: Path
    outside: Path
    allowed: set[str] = field(default_factory=set)  # real paths of the memory files


def build_arena(root: Path) -> Arena:
    from reverie import Memory

    home, outside = root / "home", root / "outside"
    env = clean_env(home)
    mem = Memory(home=home, overrides=[FAKE], env=env)
    mem.init()
    mem.close()
    ws = home / "workspace"
    arena = Arena(root, home, ws, outside)
    for rel in MEMORY_FILES:
        p = ws / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(f"MEMFILE {rel} line {n}\n" for n in range(1, 31)), encoding="utf-8")
        arena.allowed.add(os.path.realpath(p))
    canary = "CANARY {} must never be served\n"
    for rel in SECRET_INSIDE:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(canary.format(rel) * 3, encoding="utf-8")
    for rel in ["secret.md", "secret.txt", "MEMORY.md", "memory/2026-11-20.md", "hard.md", "passwd"]:
        (outside / rel).parent.mkdir(parents=True, exist_ok=True)
        (outside / rel).write_text(canary.format("outside/" + rel) * 3, encoding="utf-8")
    with open(home / "reverie.toml", "a", encoding="utf-8") as fh:
        fh.write("\n# CANARY the settings file\n")
    m = ws / "memory"
    (m / "leak.md").symlink_to(outside / "secret.md")
    (m / "linked").symlink_to(outside, target_is_directory=True)
    (m / "alias.md").symlink_to(ws / DAILY)
    (m / "loop.md").symlink_to(m / "loop.md")
    (m / "dirlink").symlink_to(ws, target_is_directory=True)
    (m / "up").symlink_to(home, target_is_directory=True)
    (ws / "USER-link.md").symlink_to(outside / "secret.md")
    os.link(outside / "hard.md", m / "hard.md")
    os.mkfifo(m / "fifo.md")
    (m / "folder.md").mkdir()
    return arena


# -- generating paths ---------------------------------------------------------------------------------
def _targets(a: Arena) -> list[str]:
    ws, out, home = str(a.workspace), str(a.outside), str(a.home)
    return [*MEMORY_FILES, *SECRET_INSIDE,
            "memory/leak.md", "memory/linked/secret.md", "memory/linked/memory/2026-11-20.md",
            "memory/alias.md", "memory/loop.md", "memory/dirlink/AGENTS.md", "memory/dirlink/MEMORY.md",
            "memory/dirlink/memory/2026-11-20.md", "memory/up/reverie.toml", "memory/up/workspace/AGENTS.md",
            "USER-link.md", "memory/hard.md", "memory/fifo.md", "memory/folder.md", "memory/missing.md",
            "memory", "memory/", "memory/sub", f"{ws}/MEMORY.md", f"{ws}/{DAILY}", f"{ws}/AGENTS.md",
            f"{out}/secret.md", f"{out}/MEMORY.md", f"{out}/memory/2026-11-20.md", f"{home}/reverie.toml",
            f"{home}/agents/main/agent/reverie-agent.sqlite", "/etc/passwd", "/etc/shadow", "/proc/self/environ",
            "/proc/self/cwd/MEMORY.md", f"/proc/self/root{ws}/AGENTS.md", "/dev/zero", "/dev/stdin",
            "/dev/fd/0", "~/.bashrc", "~root/.bashrc", "~nosuchuser/MEMORY.md", "~", "C:\\Windows\\win.ini",
            "\\\\server\\share\\MEMORY.md", "file:///etc/passwd", f"file://{ws}/MEMORY.md", "", " ", ".", "..",
            "/", "//", "MEMORY", "memory.md"]


_UNICODE_TRICKS = [
    ("..", "\uff0e\uff0e"), ("..", "\u2024\u2024"), ("..", ".\u0338."), ("/", "\uff0f"), ("/", "\u2215"),
    ("/", "\u2044"), ("M", "\u041c"), ("E", "\u0415"), ("a", "\u0430"), ("é", "e\u0301"), ("é", "\u00e9"),
    (".md", ".m\u200bd"), (".md", ".\u202emd"), ("memory", "memor\u0443"), ("MEMORY", "ＭＥＭＯＲＹ"),
]


def _mutate(rng: random.Random, p: str, a: Arena) -> str:
    choice = rng.randrange(22)
    if choice == 0:  # traversal prefixes and insertions
        return rng.choice(["../", "../../", "./", "memory/../", "memory/../../", "....//", ".../", "memory/./../",
                           "memory/sub/../../", "a/../", "//", "./../"]) * rng.randint(1, 3) + p
    if choice == 1:  # percent-encoding, once or twice, of some or all characters
        enc = "".join(f"%{b:02x}" if rng.random() < 0.5 else chr(b) for b in p.encode("utf-8")
                      if b < 128) if p.isascii() else p
        return enc.replace("%", "%25") if rng.random() < 0.3 else enc
    if choice == 2:  # overlong and odd encodings of '/' and '.' written as text
        return p.replace("/", rng.choice(["%c0%af", "%e0%80%af", "%2f", "%5c", "\\/", "&#47;", "\\u002f"]))
    if choice == 3:  # unicode normalisation and look-alike tricks
        old, new = rng.choice(_UNICODE_TRICKS)
        q = p.replace(old, new) if old in p else new + p
        return unicodedata.normalize(rng.choice(["NFC", "NFD", "NFKC", "NFKD"]), q) if rng.random() < 0.3 else q
    if choice == 4:  # NUL and other control characters anywhere
        i = rng.randrange(len(p) + 1)
        return p[:i] + rng.choice(["\x00", "\n", "\r", "\t", "\x1b", "\x7f", "\x00\x00", "\u2028"]) + p[i:]
    if choice == 5:  # long names and long paths
        kind = rng.randrange(5)
        if kind == 0:
            return "memory/" + "a" * rng.choice([252, 253, 255, 256, 300, 5000]) + ".md"
        if kind == 1:
            return "memory/" + "/".join(["d"] * rng.choice([50, 400, 2000])) + "/x.md"
        if kind == 2:
            return "memory/" + "é" * rng.choice([125, 126, 128, 200]) + ".md"
        if kind == 3:  # over 4,096 bytes of short parts: the system call fails (ENAMETOOLONG), not the name
            return "memory/" + "/".join(["abcdefgh"] * rng.choice([460, 600, 2000])) + ".md"
        return p + "/" + "x" * rng.choice([255, 4096])
    if choice == 6:  # Windows-style separators, drive letters, UNC
        q = p.replace("/", "\\")
        return rng.choice([q, "C:" + q, "\\\\?\\" + q, q + "::$DATA", p.replace("/", "\\", 1)])
    if choice == 7:  # citation forms
        return p + rng.choice(["#L5-L9", "#L1", "#L0", "#L-1", "#L9-L5", "#L5-", "#L99999999999999999999",
                               "#L1-L99999999999", "#L", "#", "#L5-L9#L1", "#L 5", "#L٥", "#L5-L9?x=1", "#l5-l9"])
    if choice == 8:  # case and suffix variants
        return rng.choice([p.upper(), p.lower(), p + ".", p + " ", p + "/", p + "/.", p + "%00.md", p + "\x00.md",
                           p + ".md", p + ".MD", p + "~", p + ".bak", p + "::"])
    if choice == 9:  # absolute forms of the target
        base = rng.choice([str(a.workspace), str(a.home), str(a.outside), "/", "/tmp", str(a.workspace) + "/memory"])
        return base.rstrip("/") + "/" + p.lstrip("/")
    if choice == 10:  # tilde forms
        return rng.choice(["~/", "~root/", "~nosuchuser/", "~+/", "~-/", "~/../"]) + p
    if choice == 11:  # repeated and empty components
        return p.replace("/", rng.choice(["//", "/./", "/.//", "///"]))
    if choice == 12:  # surrounding whitespace and quotes
        return rng.choice([f" {p} ", f"\t{p}", f'"{p}"', f"'{p}'", f"`{p}`", f"<{p}>", f"{p}\n"])
    if choice == 13:  # URL forms
        return rng.choice(["file://", "file:", "http://localhost/", "memory://", "reverie:"]) + p
    if choice == 14:  # a lone surrogate
        i = rng.randrange(len(p) + 1)
        return p[:i] + rng.choice(["\ud800", "\udcff", "\udfff"]) + p[i:]
    if choice == 15:  # dot tricks inside the name
        return p.replace(".md", rng.choice([".md.", "..md", ".md/..", ".md/../MEMORY.md", ".m/../d"]))
    if choice == 16:  # a path component that goes up and comes back
        parts = p.split("/")
        i = rng.randrange(len(parts))
        return "/".join(parts[:i] + [rng.choice(["..", "sub/..", "x/..", "memory/.."])] + parts[i:])
    if choice == 17:  # glob and shell characters
        return p.replace(".md", rng.choice(["*.md", "?.md", "[a].md", "{a,b}.md", "$HOME.md", "`id`.md"]))
    if choice == 18:  # unicode everywhere
        return p + rng.choice(["湖", "\U0001f600", "\ufeff", "\u0000\u0301", "\ufffd", "Ω"])
    if choice == 19:  # /proc and /dev through the workspace
        return rng.choice(["/proc/self/fd/0", "/proc/self/root", "/proc/self/cwd", "/dev/fd/3"]) + "/" + p
    if choice == 20:  # a backslash traversal
        return rng.choice(["..\\", "..\\..\\", "memory\\..\\..\\", "..%5c"]) + p
    return p  # as is


def generate(a: Arena, n: int, seed: int = 1) -> list[str]:
    """``n`` distinct paths: the targets as they are, then mutations (one to three, chained)."""
    rng = random.Random(seed)
    targets = _targets(a)
    seen: dict[str, None] = dict.fromkeys(targets)
    tries = 0
    while len(seen) < n and tries < n * 50:
        tries += 1
        p = rng.choice(targets)
        for _ in range(rng.choice([1, 1, 2, 3])):
            p = _mutate(rng, p, a)
        seen.setdefault(p, None)
    return list(seen)[:n]


# -- judging a result ---------------------------------------------------------------------------------
def escape_in(result: dict, arena: Arena) -> str | None:
    """Why a served result is an escape, or None."""
    blob = json.dumps(result, ensure_ascii=False)
    if "CANARY" in blob:
        return "served a CANARY"
    if result.get("status") == "not_found" or result.get("disabled"):
        return None
    served = result.get("path")
    if not isinstance(served, str):
        return "no path in the result"
    real = os.path.realpath(served if os.path.isabs(served) else arena.workspace / served)
    if real not in arena.allowed:
        return f"served {served!r}, not a memory file"
    for line in str(result.get("text", "")).split("\n"):
        if line and not line.startswith(("MEMFILE ", "[More content", "<untrusted-content", "</untrusted-content")):
            return f"served a line that is not from a memory file: {line[:60]!r}"
    return None


@dataclass
class Tally:
    surface: str
    paths: int = 0
    served: int = 0
    not_found: int = 0
    refused: int = 0
    escapes: list = field(default_factory=list)
    internal: list = field(default_factory=list)
    skipped: int = 0  # paths this surface cannot carry (a NUL in a process argument)

    def as_dict(self) -> dict:
        return {"surface": self.surface, "paths": self.paths, "served": self.served, "notFound": self.not_found,
                "refused": self.refused, "escapes": len(self.escapes), "internalErrors": len(self.internal),
                "skipped": self.skipped, "examples": (self.escapes + self.internal)[:5]}


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def fuzz_python(arena: Arena, paths: list[str], per_call_s: float = 10.0) -> Tally:
    """Every path through the ``memory_get`` tool of the Python API, with odd ``from``/``lines`` now
    and then; each call under an alarm so a hang is counted, not waited for."""
    from reverie import Memory
    from reverie.errors import UserError

    t = Tally("python tool")
    rng = random.Random(7)
    mem = Memory(home=arena.home, overrides=[FAKE], env=clean_env(arena.home))
    tool = {x.name: x for x in mem.tools()}["memory_get"]
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for p in paths:
            args: dict = {"path": p}
            if rng.random() < 0.1:
                args[rng.choice(["from", "lines"])] = rng.choice([0, -1, 1, 5, 2**63, 10**30, 1.5, "3", None, True])
            t.paths += 1
            signal.setitimer(signal.ITIMER_REAL, per_call_s)
            try:
                out = tool.call(args)
            except UserError as exc:
                msg = str(exc)
                if "CANARY" in msg:
                    t.escapes.append({"path": p, "why": "the refusal quoted a secret"})
                elif len(msg.splitlines()) > 1:
                    t.internal.append({"path": p, "why": f"a refusal over more than one line: {msg[:120]!r}"})
                elif len(msg) > MAX_MESSAGE:
                    t.internal.append({"path": p, "why": f"a refusal of {len(msg):,} characters: {msg[:80]!r}…"})
                else:
                    t.refused += 1
                continue
            except _Hang:
                t.internal.append({"path": p, "why": "hang"})
                continue
            except Exception as exc:  # noqa: BLE001 - exactly what is being counted
                t.internal.append({"path": p, "why": f"{type(exc).__name__}: {exc}"[:200]})
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            why = escape_in(out, arena)
            if why:
                t.escapes.append({"path": p, "why": why})
            elif out.get("status") == "not_found":
                t.not_found += 1
            else:
                t.served += 1
    finally:
        signal.signal(signal.SIGALRM, old)
        mem.close()
    return t


def _argv_ok(p: str) -> bool:
    if "\x00" in p:
        return False
    try:
        os.fsencode(p)
    except UnicodeError:
        return False
    return True


def fuzz_cli(arena: Arena, paths: list[str], workers: int = 2, timeout: float = 60) -> Tally:
    """A sample of the paths through ``reverie get --json -- PATH``, one real process each."""
    from concurrent.futures import ThreadPoolExecutor

    t = Tally("reverie get")
    env = clean_env(arena.home)

    def one(p: str):
        try:
            return p, subprocess.run([*CLI, "get", "--json", "--", p], capture_output=True, text=True, env=env,
                                     timeout=timeout)
        except subprocess.TimeoutExpired:
            return p, None

    usable = [p for p in paths if _argv_ok(p)]
    t.skipped = len(paths) - len(usable)
    with ThreadPoolExecutor(workers) as pool:
        for p, r in pool.map(one, usable):
            t.paths += 1
            if r is None:
                t.internal.append({"path": p, "why": "hang"})
                continue
            bad = clean_error(r.returncode, r.stderr)
            if not bad and len(r.stderr.strip()) > MAX_MESSAGE:
                bad = f"an error line of {len(r.stderr.strip()):,} characters"
            if bad:
                t.internal.append({"path": p, "why": bad, "stderr": r.stderr[-300:]})
                continue
            if "CANARY" in r.stdout + r.stderr:
                t.escapes.append({"path": p, "why": "served a CANARY"})
                continue
            if r.returncode == 1 and not r.stdout.strip():
                t.refused += 1
                continue
            try:
                out = json.loads(r.stdout)
            except ValueError:
                t.internal.append({"path": p, "why": "stdout is not the JSON document"})
                continue
            why = escape_in(out, arena)
            if why:
                t.escapes.append({"path": p, "why": why})
            elif out.get("status") == "not_found":
                t.not_found += 1
            else:
                t.served += 1
    return t


class McpWire:
    """``reverie mcp`` as a real process, spoken to in JSON-RPC lines."""

    def __init__(self, home: Path):
        self.proc = subprocess.Popen([*CLI, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=clean_env(home))
        self.buffer = b""
        self.request({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict) -> None:
        # json.dumps writes a lone surrogate as its \\ud800 escape, as a client would
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def receive(self, timeout: float) -> dict | None:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, msg: dict, timeout: float = 30) -> dict | None:
        self.send(msg)
        return self.receive(timeout)

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def fuzz_mcp(arena: Arena, paths: list[str], timeout: float = 20) -> Tally:
    """A sample of the paths as ``tools/call memory_get`` over one real stdio server."""
    t = Tally("MCP stdio")
    wire = McpWire(arena.home)
    try:
        for i, p in enumerate(paths, start=1):
            t.paths += 1
            if wire.proc.poll() is not None:
                wire = McpWire(arena.home)  # the server died: counted below, and the rest go on
            got = wire.request({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                "params": {"name": "memory_get", "arguments": {"path": p}}}, timeout)
            if got is None or got.get("id") != i:
                t.internal.append({"path": p, "why": "no answer" if got is None else "an answer to another request"})
                wire.close()
                wire = McpWire(arena.home)
                continue
            if "error" in got:  # JSON-RPC level: only 'invalid params' (a lone surrogate) is a refusal
                if got["error"].get("code") == -32602:
                    t.refused += 1
                else:
                    t.internal.append({"path": p, "why": got["error"]})
                continue
            res = got["result"]
            text = res["content"][0]["text"] if res.get("content") else ""
            if "CANARY" in text:
                t.escapes.append({"path": p, "why": "served a CANARY"})
            elif res.get("isError"):
                if "internal error" in text or "Traceback" in text or len(text.splitlines()) > 1:
                    t.internal.append({"path": p, "why": text[:200]})
                else:
                    t.refused += 1
            else:
                out = json.loads(text)
                why = escape_in(out, arena)
                if why:
                    t.escapes.append({"path": p, "why": why})
                elif out.get("status") == "not_found":
                    t.not_found += 1
                else:
                    t.served += 1
    finally:
        wire.close()
    return t


def sample(paths: list[str], n: int, seed: int = 3) -> list[str]:
    """``n`` of the paths, the plain targets first (they are the ones most worth a real process)."""
    if n >= len(paths):
        return list(paths)
    rng = random.Random(seed)
    head = paths[: min(n // 3, 80)]
    return head + rng.sample(paths[len(head):], n - len(head))
