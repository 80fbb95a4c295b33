"""Plugins through entry points: the example package in tests/plugin_example is really built and
installed (pip, into a temporary target folder put on the path), then used by name."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import reverie.embeddings
import reverie.models
from reverie import plugins
from reverie.config import ChatSettings, SearchSettings
from reverie.errors import ConfigError

EXAMPLE = Path(__file__).parent / "plugin_example"


def _can_build_here() -> bool:
    """Whether this venv can build the wheel itself (setuptools with bdist_wheel: its own since 70.1,
    else the wheel package); otherwise pip builds in isolation from the configured index."""
    if importlib.util.find_spec("setuptools") is None:
        return False
    from importlib.metadata import version

    major, minor = (int(x) for x in version("setuptools").split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


@pytest.fixture(scope="session")
def plugin_path(tmp_path_factory) -> Path:
    """The example plugin, built and installed with pip into its own folder (nothing touches the
    venv, so nothing needs uninstalling), plus a hand-made broken distribution beside it."""
    work = tmp_path_factory.mktemp("plugin")
    src = work / "src"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = work / "site"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-input", "--disable-pip-version-check",
           "--target", str(target), str(src)]
    if _can_build_here():  # build with the venv's setuptools: no index needed
        cmd.insert(4, "--no-build-isolation")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    # A distribution whose entry points name a module that does not exist, and one that tries to
    # take a built-in's name: both are reported, neither breaks reverie.
    for name, body in (("reverie_broken_plugin", '[reverie.providers]\nbroken = no_such_module_xyz:factory\n'),
                       ("reverie_shadow_plugin", '[reverie.providers]\nopenai = no_such_module_xyz:factory\n')):
        info = target / f"{name}-0.0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: 0.0.1\n")
        (info / "entry_points.txt").write_text(body)
    return target


@pytest.fixture
def on_path(plugin_path, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_path))
    importlib.invalidate_caches()
    yield plugin_path
    plugins._loaded.clear()


def cli(home: Path, plugin_path: Path | None, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REVERIE_")}
    env.update(REVERIE_HOME=str(home), REVERIE_TIMEZONE="UTC")
    if plugin_path is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(plugin_path), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return subprocess.run([sys.executable, "-c", "from reverie.cli.main import run; run()", *args], env=env,
                          capture_output=True, text=True, timeout=120)


# -- the registry ----------------------------------------------------------------------------------
def test_builtins_come_through_the_same_registry():
    listed = {p.name: p for p in plugins.plugins(plugins.PROVIDERS)}
    assert {"local", "openai", "gemini", "voyage", "mistral", "cohere", "ollama", "fake"} <= set(listed)
    assert all(p.builtin and p.distribution == "reverie" for p in listed.values() if p.name in ("local", "gemini"))
    assert {"offline", "openai", "anthropic"} <= set(plugins.names(plugins.MODELS))
    # test doubles stay usable by name but are never offered to users
    assert "scripted" not in plugins.names(plugins.MODELS) and plugins.find(plugins.MODELS, "scripted") is not None
    assert "fake" not in plugins.names(plugins.PROVIDERS)
    stores = {p.name: p for p in plugins.plugins(plugins.STORES)}  # the storage engines, same registry
    assert set(stores) >= {"sqlite", "postgres"} and all(stores[n].builtin for n in ("sqlite", "postgres"))
    assert "gemini" in reverie.embeddings.available() and "anthropic" in reverie.models.available()


def test_unknown_names_say_where_to_look():
    with pytest.raises(ConfigError, match="unknown provider 'nope'.*reverie plugins"):
        reverie.embeddings.create("nope", SearchSettings())
    with pytest.raises(ConfigError, match="unknown provider 'nope'.*reverie plugins"):
        reverie.models.create("nope:x", ChatSettings())


def test_an_installed_plugin_is_found_and_used_in_process(on_path):
    found = plugins.find(plugins.PROVIDERS, "trigram")
    assert found is not None and found.distribution == "reverie-plugin-example" and found.version == "0.1.0"
    emb = reverie.embeddings.create("trigram", SearchSettings(provider="trigram"))
    vecs = emb.embed_documents(["hotel by the lake", "hotels by a lake", "quantum cooling"])
    assert vecs.shape == (3, 256) and vecs[0] @ vecs[1] > vecs[0] @ vecs[2]
    model = reverie.models.create("echo:loud", ChatSettings())
    from reverie.models.base import ChatMessage

    assert model.complete([ChatMessage("user", "hi there")]).message.content == "echo: HI THERE"


def test_broken_and_shadowing_plugins_are_reported_not_fatal(on_path):
    listed = {(p.name, p.distribution): p for p in plugins.plugins(plugins.PROVIDERS)}
    shadow = listed[("openai", "reverie-shadow-plugin")]
    assert shadow.shadowed and not shadow.builtin
    assert plugins.find(plugins.PROVIDERS, "openai").builtin  # the built-in keeps its name
    broken = listed[("broken", "reverie-broken-plugin")]
    assert "No module named 'no_such_module_xyz'" in plugins.check(broken)
    with pytest.raises(ConfigError, match="plugin 'broken' from reverie-broken-plugin .* failed to load"):
        reverie.embeddings.create("broken", SearchSettings())
    assert reverie.embeddings.create("fake", SearchSettings()).provider == "fake"  # the rest still works


# -- the command line, as a user would run it -------------------------------------------------------
def test_reverie_plugins_lists_builtin_and_third_party(reverie_home, plugin_path):
    proc = cli(reverie_home, plugin_path, "plugins", "--json", "--check")
    assert proc.returncode == 0, proc.stderr
    groups = json.loads(proc.stdout)["groups"]
    assert set(groups) == {"reverie.providers", "reverie.models", "reverie.stores", "reverie.rerankers"}
    providers = {(r["name"], r["distribution"]): r for r in groups["reverie.providers"]}
    trigram = providers[("trigram", "reverie-plugin-example")]
    assert trigram["version"] == "0.1.0" and trigram["builtin"] is False and trigram["error"] is None
    assert providers[("gemini", "reverie")]["builtin"] is True
    assert "failed to load" in providers[("broken", "reverie-broken-plugin")]["error"]
    assert providers[("openai", "reverie-shadow-plugin")]["shadowed"] is True
    models = {r["name"]: r for r in groups["reverie.models"]}
    assert models["echo"]["distribution"] == "reverie-plugin-example"
    rerankers = {r["name"]: r for r in groups["reverie.rerankers"]}
    assert rerankers["shortest"]["distribution"] == "reverie-plugin-example" and rerankers["shortest"]["error"] is None
    assert rerankers["cohere"]["builtin"] is True and "fake" not in rerankers  # the test double stays hidden
    human = cli(reverie_home, plugin_path, "plugins").stdout
    assert "trigram" in human and "reverie-plugin-example 0.1.0" in human and "SHADOWED" in human


def test_plugin_provider_indexes_and_searches_and_plugin_model_chats(reverie_home, plugin_path):
    flags = ("--set", "memory.search.provider=trigram")
    assert cli(reverie_home, plugin_path, "init").returncode == 0
    ws = reverie_home / "workspace"
    (ws / "MEMORY.md").write_text("- We booked the lakeside hotel in Hangzhou.\n- Wei likes jasmine tea.\n",
                                  encoding="utf-8")
    proc = cli(reverie_home, plugin_path, *flags, "index")
    assert proc.returncode == 0, proc.stderr
    status = json.loads(cli(reverie_home, plugin_path, *flags, "status", "--json").stdout)
    assert status["provider"] == "trigram" and status["vector"]["ok"] is True and status["vector"]["dims"] == 256
    out = json.loads(cli(reverie_home, plugin_path, *flags, "search", "lakeside hotels", "--json").stdout)
    assert out["mode"] == "hybrid" and out["results"][0]["vectorScore"] is not None
    reranked = json.loads(cli(reverie_home, plugin_path, *flags, "--set", "memory.search.rerank.provider=shortest",
                              "search", "lakeside hotels", "--json").stdout)
    assert reranked["debug"]["rerank"]["applied"] is True and reranked["debug"]["rerank"]["provider"] == "shortest"
    chat = cli(reverie_home, plugin_path, "chat", "--model", "echo:loud", "-m", "remember the tea")
    assert chat.returncode == 0, chat.stderr
    assert "echo: REMEMBER THE TEA" in chat.stdout
    # without the plugin on the path the name is unknown: one line, exit 1
    gone = cli(reverie_home, None, *flags, "index")
    assert gone.returncode == 1 and "unknown provider 'trigram'" in gone.stderr
