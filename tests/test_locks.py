"""Cross-platform locks (reverie.locks) for daily-note appends and index sync/rebuild (issue 9, §4).

``fcntl`` imported at module level made reverie unimportable on Windows: only reverie.locks imports
it, guarded, and falls back to the ``filelock`` package. Appends must stay whole and never
interleave, across processes and threads; the index locks keep their non-blocking mode.
"""

from __future__ import annotations

import ast
import multiprocessing
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path

import reverie
from reverie.index import generations
from reverie.workspace import append_daily
from reverie.workspace.writes import APPEND_LOCK

UTC = timezone.utc
WHEN = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
PER_WRITER = 40


def test_no_module_imports_a_posix_only_lock():
    src = Path(reverie.__file__).parent
    offenders = []
    for path in src.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] in ("fcntl", "msvcrt") for n in names):
                offenders.append(str(path.relative_to(src)))
    assert offenders == ["locks.py"]  # the one place, with a fallback (next test)


FALLBACK = r"""
import sys, threading
sys.modules["fcntl"] = None  # as on Windows: importing it fails
from reverie import locks
assert locks.fcntl is None
path = sys.argv[1]
first = locks.FileLock(path, timeout=0.1)
first.acquire()
try:
    locks.FileLock(path, timeout=0.1).acquire()
    print("taken twice")
except locks.Timeout:
    print("refused")
first.acquire()  # re-entered...
first.release()
first.release()  # ...and free once the outermost holder lets go
with locks.FileLock(path, timeout=1):
    print("free again")
"""


def test_without_fcntl_the_locks_still_exclude(tmp_path: Path):
    r = subprocess.run([sys.executable, "-c", FALLBACK, str(tmp_path / "x.lock")], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["refused", "free", "again"]


def test_a_lock_excludes_another_thread_and_a_dead_holder_frees_it(tmp_path: Path):
    from reverie.locks import FileLock, Timeout

    path = tmp_path / "y.lock"
    held = FileLock(path).acquire()
    refused: list[bool] = []

    def other():
        try:
            FileLock(path, timeout=0.05).acquire()
            refused.append(False)
        except Timeout:
            refused.append(True)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert refused == [True]
    held.release()
    assert path.exists()  # kept: a second holder must lock the same inode
    # a holder that dies (killed) lets go: the kernel drops its flock
    proc = subprocess.Popen([sys.executable, "-c", "import sys, time; from reverie.locks import FileLock; "
                             "held = FileLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)",
                             str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        try:
            FileLock(path, blocking=False).acquire()
            taken = True
        except Timeout:
            taken = False
        assert not taken
    finally:
        proc.kill()
        proc.wait()
    with FileLock(path, timeout=5) as again:
        assert again.is_locked


WAITER = r"""
import sys, threading, time
from reverie.locks import FileLock
held = FileLock(sys.argv[1]).acquire()  # held here...
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()  # (another thread the signal may reach)
print("waiting", flush=True)
try:
    FileLock(sys.argv[1]).acquire()  # ...and waited for, for ever, on another descriptor
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
"""


def test_ctrl_c_reaches_a_thread_waiting_for_a_lock(tmp_path: Path):
    import signal

    proc = subprocess.Popen([sys.executable, "-c", WAITER, str(tmp_path / "w.lock")], stdout=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # (SIGINT as a terminal's process gets it: a suite started in the background runs with it ignored)
    try:
        assert proc.stdout.readline().strip() == "waiting"
        import time

        time.sleep(0.3)  # (inside the wait by now; the test only needs the signal to end it)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted" in out


def _entry(writer: int, n: int) -> str:
    # three lines per entry: an interleaved write would split them apart
    return f"writer {writer} entry {n} begins\nmiddle {writer}-{n}\nend {writer}-{n}"


def _write_many(workspace: str, writer: int, barrier) -> None:
    barrier.wait()
    for n in range(PER_WRITER):
        append_daily(Path(workspace), _entry(writer, n), now=WHEN, tz=UTC)


def _check_note(note: Path, writers: int) -> None:
    lines = note.read_text(encoding="utf-8").split("\n")
    assert lines[:2] == ["# 2026-03-01", ""] and lines.count("# 2026-03-01") == 1
    body = lines[2:-1]
    assert len(body) == writers * PER_WRITER * 3
    for i in range(0, len(body), 3):  # every entry whole and in order: begins, middle, end
        first = body[i]
        assert first.startswith("- 09:00 writer "), first
        w, n = first.split()[3], first.split()[5]
        assert body[i + 1:i + 3] == [f"  middle {w}-{n}", f"  end {w}-{n}"]
    firsts = sorted(body[0::3])
    assert firsts == sorted(f"- 09:00 writer {w} entry {n} begins" for w in range(writers) for n in range(PER_WRITER))


def test_concurrent_processes_append_whole_entries(tmp_path: Path):
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter, as separate commands are
    (tmp_path / "memory").mkdir()
    barrier = ctx.Barrier(4)
    procs = [ctx.Process(target=_write_many, args=(str(tmp_path), w, barrier)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    _check_note(tmp_path / "memory" / "2026-03-01.md", 4)
    assert (tmp_path / "memory" / APPEND_LOCK).exists()  # kept: never unlinked under a waiting writer


def test_concurrent_threads_append_whole_entries(tmp_path: Path):
    (tmp_path / "memory").mkdir()
    barrier = threading.Barrier(4)
    threads = [threading.Thread(target=_write_many, args=(str(tmp_path), w, barrier)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    _check_note(tmp_path / "memory" / "2026-03-01.md", 4)


HOLDER = """
import sys, time
from pathlib import Path
from reverie.index import generations
with generations.lock(Path(sys.argv[1]), "sync") as got:
    print("held" if got else "missed", flush=True)
    sys.stdin.readline()
"""


def test_index_lock_is_exclusive_across_processes_and_non_blocking_when_asked(tmp_path: Path):
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with generations.lock(tmp_path, "sync", blocking=False) as got:
            assert got is False
        with generations.lock(tmp_path, "rebuild", blocking=False) as got:  # another name is free
            assert got is True
    finally:
        holder.stdin.write("\n")
        holder.stdin.flush()
        holder.wait(30)
    with generations.lock(tmp_path, "sync", blocking=False) as got:
        assert got is True
        # and within one process a second holder is refused too (threads share nothing by accident)
        with generations.lock(tmp_path, "sync", blocking=False) as again:
            assert again is False
