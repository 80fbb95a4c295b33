"""The bad-input table: each kind of bad input a person (or a script) can give the ``reverie``
command, the exit code it must give, and the one line it must say. Every row runs as a real
process on a fresh copy of a small home; a row passes when the exit code is the expected one,
the message is one line starting ``reverie: error:`` that holds the expected words, there is no
traceback, it answers within the time limit, and the workspace's notes are unchanged (exit 1
loses nothing)."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .common import FAKE, clean_env, cli, text_of

Setup = Callable[[Path, Path], dict]  # (home, scratch folder) -> {"env": ..., "stdin": ...}


@dataclass
class Row:
    what: str
    argv: list[str]
    code: int
    says: str  # words the one error line must hold; for exit 0, words the output must hold
    setup: Setup | None = None
    env: dict = field(default_factory=dict)
    stdin: bytes | str | None = None


def _file(path: Path, data: bytes | str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def _truncate_agent_db(home: Path, _: Path) -> dict:
    db = home / "agents" / "main" / "agent" / "reverie-agent.sqlite"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 2])
    for suffix in ("-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    return {}


def _index_dir(home: Path) -> Path:
    return home / "agents" / "main" / "agent" / "index"


def _garbage_current(home: Path, _: Path) -> dict:
    _file(_index_dir(home) / "CURRENT", os.urandom(64))
    return {}


def _damaged_ledger_page(home: Path, _: Path) -> dict:
    """Random bytes over the page of the migration ledger (issue 31: the repair used to lose its
    rows and the file never indexed again)."""
    db = home / "agents" / "main" / "agent" / "reverie-agent.sqlite"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = con.execute("SELECT rootpage FROM sqlite_schema WHERE name = 'reverie_migrations'").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(db, "r+b") as fh:
        fh.seek((root - 1) * size)
        fh.write(os.urandom(size))
    return {}


def _garbage_generation(home: Path, _: Path) -> dict:
    idx = _index_dir(home)
    name = (idx / "CURRENT").read_text(encoding="utf-8").strip()
    _file(idx / name, b"\x00garbage" * 700)
    for suffix in ("-wal", "-shm"):
        Path(str(idx / name) + suffix).unlink(missing_ok=True)
    return {}


def rows() -> list[Row]:
    long_q = "x" * 100_000
    return [
        # the home, the agent and the settings
        Row("a mistyped --home", ["--home", "{scratch}/reverei", "status"], 1, "does not exist"),
        Row("a mistyped --agent", ["--agent", "mian", "status"], 1, "did you mean 'main'?"),
        Row("an agent id with a path in it", ["--agent", "../evil", "status"], 1, "invalid agent id"),
        Row("an unknown settings key (--set)", ["status", "--set", "memory.search.query.maxResult=3"], 1,
            "did you mean 'memory.search.query.maxResults'?"),
        Row("a bad settings value (--set)", ["status", "--set", "memory.search.query.maxResults=lots"], 1,
            "must be a whole number"),
        Row("--set nested too deeply", ["status", "--set", "memory.search.extraPaths=" + "[" * 50_000 + "]" * 50_000],
            1, "nested too deeply"),
        Row("an unknown provider", ["search", "x", "--set", 'memory.search.provider="nosuch"'], 1, "unknown provider"),
        Row("a settings file that is a folder", ["status"], 1, "is a folder, not a file",
            setup=lambda h, s: (s.joinpath("cfgdir").mkdir(), {"env": {"REVERIE_CONFIG": str(s / "cfgdir")}})[1]),
        Row("REVERIE_CONFIG=/dev/zero", ["status"], 1, "is not a regular file", env={"REVERIE_CONFIG": "/dev/zero"}),
        Row("REVERIE_CONFIG naming no file", ["status"], 1, "does not exist",
            env={"REVERIE_CONFIG": "/nonexistent/reverie.toml"}),
        Row("a settings file over 1 MiB", ["status"], 1, "larger than 1024 KiB",
            setup=lambda h, s: (_file(h / "reverie.toml", "# " + "x" * 2_000_000 + "\n"), {})[1]),
        Row("deeply nested TOML", ["status"], 1, "nested too deeply",
            setup=lambda h, s: (_file(h / "reverie.toml", "a = " + "[" * 100_000 + "]" * 100_000 + "\n"), {})[1]),
        Row("TOML that does not parse", ["status"], 1, "cannot read",
            setup=lambda h, s: (_file(h / "reverie.toml", "a = [1,\n"), {})[1]),
        Row("a settings file that is not UTF-8", ["status"], 1, "not UTF-8",
            setup=lambda h, s: (_file(h / "reverie.toml", b"\xff\xfe garbage"), {})[1]),
        Row("an unknown REVERIE_* variable", ["status"], 0, "", env={"REVERIE_MAX_RESULT": "3"}),
        # homes, workspaces and folders that are not what reverie needs
        Row("a home that is a file", ["--home", "{scratch}/a-file", "status"], 1, "is not a folder",
            setup=lambda h, s: (_file(s / "a-file", "x\n"), {})[1]),
        Row("a home that is /dev/null", ["--home", "/dev/null", "remember", "x"], 1, "is not a folder"),
        Row("a workspace that is a file", ["--workspace", "{scratch}/a-file", "remember", "x"], 1, "is not a folder",
            setup=lambda h, s: (_file(s / "a-file", "x\n"), {})[1]),
        Row("a workspace that is a symlink loop", ["--workspace", "{scratch}/loop", "remember", "x"], 1,
            "symlink that leads to no folder", setup=lambda h, s: (os.symlink(s / "loop", s / "loop"), {})[1]),
        Row("memory/ that is a file", ["--workspace", "{scratch}/ws", "remember", "x"], 1, "is a file, not a folder",
            setup=lambda h, s: (_file(s / "ws" / "memory", "x\n"), {})[1]),
        # arguments and input
        Row("an unknown command", ["nosuchcmd"], 1, "No such command"),
        Row("a flag with a bad value", ["get", "MEMORY.md", "--from", "0"], 1, "must be at least 1"),
        Row("a flag that is not a number", ["get", "MEMORY.md", "--lines", "abc"], 1, "must be a whole number"),
        Row("an argument that is not UTF-8", ["remember", os.fsdecode(b"caf\xff")], 1, "not valid UTF-8"),
        Row("standard input that is not UTF-8", ["remember", "--stdin"], 1, "not valid UTF-8", stdin=b"caf\xff\n"),
        Row("remember with empty text", ["remember", ""], 1, "nothing to remember"),
        Row("remember --stdin of 20 MB", ["remember", "--stdin"], 1, "the note is too long",
            stdin=b"x" * (20 * 1024 * 1024)),
        Row("an empty search query", ["search", ""], 1, "the query is empty"),
        Row("get a citation past the end", ["get", "MEMORY.md#L999-L1020"], 1, "ends before line 999"),
        Row("a cron name of 10,000 characters", ["cron", "add", "--every", "1h", "--text", "x", "--name", "n" * 10_000],
            1, "1 to 200 characters"),
        Row("ui --host that does not resolve", ["ui", "--host", "bogus.invalid.", "--port", "0"], 1,
            "cannot listen on bogus.invalid."),
        Row("a search query of 100,000 characters", ["search", long_q], 1, "longer than 4096 characters"),
        Row("a bad cron expression", ["cron", "add", "--cron", "0 25 * * *", "--text", "x"], 1,
            "the hour field '25' is not valid"),
        Row("a bad duration", ["cron", "add", "--every", "5x", "--text", "x"], 1, "cannot read duration"),
        Row("an intent with no trigger", ["intent", "create", "-d", "x"], 1, "trigger keyword"),
        Row("cancelling an intent that does not exist", ["intent", "cancel", "si_nosuch"], 1, "no intent"),
        Row("a session that does not exist", ["sessions", "show", "nosuch"], 1, "no session"),
        Row("forget with no selector", ["forget"], 1, "needs a selector"),
        Row("a Dreaming clock that is no time", ["dream", "run", "--now", "notadate"], 1, "expected a time"),
        Row("a table file that does not exist", ["table", "query", "nosuch", "SELECT 1"], 1, "no table file"),
        Row("a table file that is not SQLite", ["table", "query", "bad", "SELECT 1"], 1, "not a readable SQLite",
            setup=lambda h, s: (_file(h / "workspace" / "tables" / "bad.sqlite", os.urandom(3000)), {})[1]),
        Row("a CSV that does not exist", ["table", "import", "fz", "{scratch}/none.csv"], 1, "cannot read"),
        Row("export into a folder that is not empty", ["export", "{home}/workspace"], 1, "not an empty folder"),
        # paths given to get
        Row("get ../../etc/passwd", ["get", "../../etc/passwd"], 1, "path refused"),
        Row("get an absolute path outside", ["get", "/etc/passwd"], 1, "path refused"),
        Row("get ~nosuchuser/MEMORY.md", ["get", "~nosuchuser/MEMORY.md"], 1, "no such user"),
        Row("get a name over 255 bytes", ["get", "memory/" + "a" * 300 + ".md"], 1, "longer than 255 bytes"),
        Row("get a file that does not exist", ["get", "memory/2020-01-01.md"], 1, "not found"),
        Row("get a symlink out of the workspace", ["get", "memory/leak.md"], 1, "symlink",
            setup=lambda h, s: (_file(s / "secret.md", "CANARY\n"),
                                os.symlink(s / "secret.md", h / "workspace" / "memory" / "leak.md"), {})[2]),
        Row("get a hard link to a file outside", ["get", "memory/hard.md"], 1, "hard links",
            setup=lambda h, s: (_file(s / "hard.md", "CANARY\n"),
                                os.link(s / "hard.md", h / "workspace" / "memory" / "hard.md"), {})[2]),
        Row("get a FIFO named like a note", ["get", "memory/fifo.md"], 1, "not a regular file",
            setup=lambda h, s: (os.mkfifo(h / "workspace" / "memory" / "fifo.md"), {})[1]),
        Row("index with a FIFO named like a note", ["index"], 0, "not a regular file (FIFO); skipped",
            setup=lambda h, s: (os.mkfifo(h / "workspace" / "memory" / "fifo.md"), {})[1]),
        Row("a note holding NUL bytes (get)", ["get", "memory/nul.md"], 0, "bad",
            setup=lambda h, s: (_file(h / "workspace" / "memory" / "nul.md", b"ok\n\x00\x00bad\n"), {})[1]),
        Row("get a path over 4,096 bytes", ["get", "memory/" + "/".join(["abcdefgh"] * 600) + ".md"], 1,
            "is too long"),
        Row("index with a note name that is not UTF-8", ["index"], 0, r"memory/trip-\xff.md: the name is not valid UTF-8",
            setup=lambda h, s: (_file(Path(os.fsdecode(os.fsencode(h / "workspace" / "memory") + b"/trip-\xff.md")),
                                      "- a canoe\n"), {})[1]),
        # damaged state
        Row("a truncated agent database", ["intent", "list"], 1, "doctor --repair", setup=_truncate_agent_db),
        Row("a damaged page of the migration ledger (status)", ["status"], 0, "run: reverie doctor --repair",
            setup=_damaged_ledger_page),
        Row("a garbage index/CURRENT (repairs itself)", ["search", "hello"], 0, "hello from the first note",
            setup=_garbage_current),
        Row("a garbage index generation (repairs itself)", ["search", "hello"], 0,
            "hello from the first note", setup=_garbage_generation),
    ]


def prepare(root: Path) -> Path:
    """A small home: a note remembered and indexed."""
    home = root / "base-home"
    for args in (["init"], ["remember", "hello from the first note"], ["index"]):
        r = cli(home, *args, env={"REVERIE_EMBEDDING_PROVIDER": "fake"})
        if r.returncode != 0:
            raise RuntimeError(f"preparing the home failed: {r.stderr}")
    with open(home / "reverie.toml", "a", encoding="utf-8") as fh:
        fh.write("")  # the template stays: rows that break the settings file overwrite it
    return home


def _notes_digest(home: Path) -> str:
    h = hashlib.sha256()
    for p in sorted((home / "workspace" / "memory").glob("*.md")):
        if p.is_file() and not p.is_symlink():
            h.update(os.fsencode(p.name) + p.read_bytes())
    return h.hexdigest()


def run_row(base: Path, work: Path, i: int, row: Row, timeout: float = 60) -> dict:
    scratch = work / f"row-{i:02d}"
    home = scratch / "home"
    scratch.mkdir(parents=True)
    shutil.copytree(base, home, symlinks=True)
    extra = row.setup(home, scratch) if row.setup else {}
    env = {**row.env, **extra.get("env", {})}
    argv = [a.replace("{scratch}", str(scratch)).replace("{home}", str(home)) for a in row.argv]
    before = _notes_digest(home) if (home / "workspace" / "memory").is_dir() else None
    r = cli(home, *argv, env=env, stdin=row.stdin, timeout=timeout)
    err = text_of(r.stderr)
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith(("warning:", "note:", "reverie: warning:"))]
    line = next((ln for ln in err.strip().splitlines() if ln.startswith("reverie: error:")), "")
    why = []
    if r.returncode is None:
        why.append("hang")
    elif r.returncode != row.code:
        why.append(f"exit {r.returncode}, expected {row.code}")
    if "Traceback" in err:
        why.append("traceback")
    if row.code == 1 and (len(lines) != 1 or not line or row.says not in line):
        why.append(f"expected one line holding {row.says!r}")
    if row.code == 0 and row.says and row.says not in text_of(r.stdout) + err:
        why.append(f"expected the output to hold {row.says!r}")
    if row.code == 1 and before is not None and (home / "workspace" / "memory").is_dir() \
            and _notes_digest(home) != before:
        why.append("the notes changed")
    said = (err + "\n" + text_of(r.stdout)).strip().splitlines()
    shown = line or next((ln for ln in said if row.says and row.says in ln), (said or ["(no output)"])[0])
    shown = shown.replace(str(home), "<home>").replace(str(scratch), "<scratch>")  # the same on every run
    return {"what": row.what, "command": "reverie " + " ".join(_short(a) for a in row.argv), "expected": row.code,
            "got": r.returncode, "says": shown[:160], "ok": not why, "why": why}


def _short(arg: str) -> str:
    if len(arg) > 40:
        return f"{arg[:12]}…({len(arg)} chars)"
    return arg if arg.isprintable() else repr(arg)


def run_table(work: Path, workers: int = 2, only: list[int] | None = None) -> list[dict]:
    work.mkdir(parents=True, exist_ok=True)
    base = prepare(work)
    table = rows()
    picked = [(i, r) for i, r in enumerate(table) if only is None or i in only]
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda ir: run_row(base, work, ir[0], ir[1]), picked))


__all__ = ["rows", "run_table", "Row", "FAKE"]
