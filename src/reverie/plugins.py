"""Plugins: embedding providers and chat models found through Python entry points, as the ``llm``
tool finds its plugins. A package adds one by installing; nothing in reverie is edited.

| group | an entry point names | the object it points to |
|---|---|---|
| ``reverie.providers`` | an embedding provider (``memory.search.provider``) | ``factory(SearchSettings) -> Embedder`` |
| ``reverie.models`` | a chat model provider (``chat.model = "<name>:<model>"``) | ``factory(model_name, ChatSettings) -> ChatModel`` |
| ``reverie.stores`` | a storage engine (``memory.store.backend``) | ``factory(Places, AgentStoreSettings) -> AgentDatabase`` |
| ``reverie.rerankers`` | a rerank provider (``memory.search.rerank.provider``) | ``factory(RerankSettings) -> Reranker`` |

Built-ins are entry points too, declared here instead of in package metadata so that a source
checkout works without reinstalling; they are loaded by the same code as third-party ones. A
plugin whose name is taken by a built-in is listed as shadowed and never used. Nothing is imported
until a provider is chosen by name; a plugin that fails to import is reported, never fatal.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib import metadata

# importlib.metadata (~50 ms: email, zipfile, csv) is imported only to scan installed packages; a
# built-in is loaded from its "module:attribute" directly (every cold command opens a built-in store)

from .errors import ConfigError

PROVIDERS = "reverie.providers"
MODELS = "reverie.models"
STORES = "reverie.stores"
RERANKERS = "reverie.rerankers"
GROUPS = (PROVIDERS, MODELS, STORES, RERANKERS)

BUILTIN: dict[str, dict[str, str]] = {
    PROVIDERS: {
        "local": "reverie.embeddings.builtin:local",
        "openai": "reverie.embeddings.builtin:openai",
        "gemini": "reverie.embeddings.builtin:gemini",
        "voyage": "reverie.embeddings.builtin:voyage",
        "mistral": "reverie.embeddings.builtin:mistral",
        "cohere": "reverie.embeddings.builtin:cohere",
        "ollama": "reverie.embeddings.builtin:ollama",
        "fake": "reverie.embeddings.builtin:fake",
    },
    MODELS: {
        "offline": "reverie.models.builtin:offline",
        "openai": "reverie.models.builtin:openai",
        "anthropic": "reverie.models.builtin:anthropic",
        "scripted": "reverie.models.builtin:scripted",
        "langchain": "reverie.models.builtin:langchain",
    },
    STORES: {
        "sqlite": "reverie.store.builtin:sqlite",
        "postgres": "reverie.store.builtin:postgres",
    },
    RERANKERS: {
        "cohere": "reverie.rerank.builtin:cohere",
        "jina": "reverie.rerank.builtin:jina",
        "voyage": "reverie.rerank.builtin:voyage",
        "http": "reverie.rerank.builtin:http",
        "fake": "reverie.rerank.builtin:fake",
    },
}
# Test doubles: usable by name (tests, demos), never listed to users.
HIDDEN: dict[str, frozenset[str]] = {PROVIDERS: frozenset({"fake"}), MODELS: frozenset({"scripted"}),
                                     RERANKERS: frozenset({"fake"})}


@dataclass
class Plugin:
    group: str
    name: str
    value: str  # "module:attribute"
    distribution: str  # "reverie" for built-ins
    version: str | None
    builtin: bool
    shadowed: bool = False
    entry_point: metadata.EntryPoint | None = None  # None for a built-in: loaded from ``value``

    def as_dict(self) -> dict:
        return {"group": self.group, "name": self.name, "value": self.value, "distribution": self.distribution,
                "version": self.version, "builtin": self.builtin, "shadowed": self.shadowed}


_loaded: dict[tuple[str, str], Any] = {}
_lock = threading.Lock()


def _reverie_version() -> str | None:
    from importlib import metadata

    try:
        return metadata.version("reverie")
    except metadata.PackageNotFoundError:
        return None


def plugins(group: str) -> list[Plugin]:
    """What is installed for ``group``: built-ins first, then third-party entry points (sorted by
    name, each with the distribution it comes from)."""
    from importlib import metadata

    version = _reverie_version()
    out = [Plugin(group, name, value, "reverie", version, True) for name, value in BUILTIN.get(group, {}).items()]
    taken = {p.name.lower() for p in out}
    found: list[Plugin] = []
    try:
        eps = metadata.entry_points(group=group)
    except Exception:  # broken metadata of some unrelated package must not break reverie
        eps = ()
    for ep in eps:
        dist = getattr(ep, "dist", None)
        name = getattr(dist, "name", None) or "unknown"
        if name.lower() == "reverie":
            continue  # an installed copy of our own declarations: the built-ins above
        found.append(Plugin(group, ep.name, ep.value, name, getattr(dist, "version", None), False,
                            shadowed=ep.name.lower() in taken, entry_point=ep))
    return out + sorted(found, key=lambda p: (p.name.lower(), p.distribution))


def names(group: str) -> list[str]:
    """The names a user can pick from (test doubles left out)."""
    hidden = HIDDEN.get(group, frozenset())
    return sorted({p.name.lower() for p in plugins(group) if not p.shadowed and p.name.lower() not in hidden})


def find(group: str, name: str) -> Plugin | None:
    key = name.lower()
    builtin = BUILTIN.get(group, {})
    if key in builtin:  # built-ins win, and need no scan of installed packages (a one-shot CLI call)
        return Plugin(group, key, builtin[key], "reverie", None, True)
    return next((p for p in plugins(group) if p.name.lower() == key and not p.shadowed), None)


def load(plugin: Plugin) -> Any:
    """The object an entry point names (imported once). A failure is a ConfigError naming the
    plugin and its distribution."""
    key = (plugin.group, plugin.name.lower())
    with _lock:
        if key in _loaded:
            return _loaded[key]
    try:
        obj = plugin.entry_point.load() if plugin.entry_point is not None else _import(plugin.value)
    except Exception as exc:
        raise ConfigError(f"plugin {plugin.name!r} from {plugin.distribution} ({plugin.value}) failed to load: "
                          f"{type(exc).__name__}: {exc}") from None
    if not callable(obj):
        raise ConfigError(f"plugin {plugin.name!r} from {plugin.distribution}: {plugin.value} is not callable")
    with _lock:
        _loaded[key] = obj
    return obj


def _import(value: str) -> Any:
    """The object ``"package.module:attribute"`` names."""
    import importlib

    module, _, attr = value.partition(":")
    obj = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def check(plugin: Plugin) -> str | None:
    """None when the plugin loads, else why not (``reverie plugins --check``)."""
    try:
        load(plugin)
    except ConfigError as exc:
        return str(exc)
    return None
