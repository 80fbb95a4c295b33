"""Typed settings, read once at the entry points and passed down.

Sources, later wins: built-in defaults (the reference's), ``<home>/clawmem.toml``, ``CLAWMEM_*``
environment variables, then ``--set key=value`` flags. Keys use the reference's spelling
(``memory.search.query.maxResults``). An unknown key or a bad value raises :class:`ConfigError`
naming the key, never a traceback.
"""

from __future__ import annotations

import json
import os
import tomllib
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from .errors import ConfigError


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, validate_assignment=True)


class QuerySettings(_Model):
    max_results: int = Field(6, ge=1, le=1000, alias="maxResults", description="results returned by default")
    min_score: float = Field(0.35, ge=0.0, le=1.0, alias="minScore",
                             description="threshold judged on the score before temporal decay")


class FtsSettings(_Model):
    tokenizer: Literal["cjk", "unicode61", "trigram"] = Field(
        "cjk", description="cjk: CJK bigrams + porter stemming (finds 2-character Chinese words); "
        "unicode61 and trigram as in the reference")


class VectorSettings(_Model):
    enabled: bool = Field(True, description="use stored vectors in search")


class StoreSettings(_Model):
    fts: FtsSettings = FtsSettings()
    vector: VectorSettings = VectorSettings()


class RemoteSettings(_Model):
    base_url: str | None = Field(None, alias="baseUrl", description="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1")
    api_key: str | None = Field(None, alias="apiKey", description="API key (falls back to OPENAI_API_KEY for openai)")
    headers: dict[str, str] = Field(default_factory=dict, description="extra HTTP headers")
    timeout_seconds: float = Field(60.0, gt=0, alias="timeoutSeconds")


class ChunkingSettings(_Model):
    tokens: int = Field(400, ge=32, le=8192)
    overlap: int = Field(80, ge=0, le=4096, validate_default=True)  # so tokens=64 alone is caught too

    # A field validator (not a model validator) so the error names 'memory.search.chunking.overlap',
    # the key the user has to change, rather than the whole 'memory.search.chunking' table.
    @field_validator("overlap")
    @classmethod
    def _overlap_below_tokens(cls, v: int, info: ValidationInfo) -> int:
        tokens = info.data.get("tokens")
        if tokens is not None and v >= tokens:
            raise ValueError(f"overlap ({v}) must be smaller than tokens ({tokens})")
        return v


class DecaySettings(_Model):
    enabled: bool = Field(True, description="older dated notes rank lower (never below minScore eligibility)")
    half_life_days: float = Field(30.0, gt=0, le=36500, alias="halfLifeDays")
    # The reference's pure exponential (floor 0) buries months-old notes: on LoCoMo it cut hybrid
    # recall_any@10 from 0.947 to 0.393. With a floor of 0.9, decay only reorders near-equals
    # (0.953), so an old note is never buried; see docs/benchmarks.md.
    floor: float = Field(0.9, ge=0.0, le=1.0,
                         description="the decay multiplier never falls below this (0 = pure exponential)")


class ExtraPath(_Model):
    path: str
    pattern: str | None = Field(None, description="root-relative glob, '/' separators")


class SearchSettings(_Model):
    enabled: bool = True
    provider: str = Field("auto", description="auto | local | openai | none | fake (tests)")
    model: str | None = Field(None, description="embedding model; provider default when unset")
    fallback: str = Field("none", description="provider to use when the configured one cannot start")
    extra_paths: list[str | ExtraPath] = Field(default_factory=list, alias="extraPaths")
    query: QuerySettings = QuerySettings()
    store: StoreSettings = StoreSettings()
    remote: RemoteSettings = RemoteSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    temporal_decay: DecaySettings = Field(DecaySettings(), alias="temporalDecay")

    @field_validator("provider", "fallback")
    @classmethod
    def _lower(cls, v: str) -> str:
        v = v.strip().lower()
        if not v:
            raise ValueError("must not be empty")
        return v


class IntentSettings(_Model):
    deadline_seconds: float = Field(15.0, ge=0, le=600, alias="deadlineSeconds",
                                    description="a turn's standing-intent matching gives up after this long, "
                                    "injecting nothing and spending no fire")


class MemorySettings(_Model):
    search: SearchSettings = SearchSettings()
    intents: IntentSettings = IntentSettings()


class ChatSettings(_Model):
    model: str = Field("offline", description="offline | openai:<model> | anthropic:<model>")
    base_url: str | None = Field(None, alias="baseUrl", description="endpoint; OpenAI-compatible servers "
                                 "(Ollama, vLLM, LM Studio, DeepSeek) take their /v1 URL")
    api_key: str | None = Field(None, alias="apiKey")
    headers: dict[str, str] = Field(default_factory=dict)
    context_window: int = Field(0, ge=0, alias="contextWindow", description="0: the model's own window")
    timeout_seconds: float = Field(120.0, gt=0, alias="timeoutSeconds")
    max_output_tokens: int = Field(4096, ge=1, alias="maxOutputTokens")


class AgentSettings(_Model):
    workspace: str | None = None


class Settings(_Model):
    timezone: str | None = Field(None, description="IANA zone for daily notes; host zone when unset")
    memory: MemorySettings = MemorySettings()
    chat: ChatSettings = ChatSettings()
    agents: dict[str, AgentSettings] = Field(default_factory=dict)

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str | None) -> str | None:
        if v in (None, ""):
            return None
        try:
            ZoneInfo(v)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {v!r}") from exc
        return v

    # -- conveniences -------------------------------------------------------------------------
    @property
    def search(self) -> SearchSettings:
        return self.memory.search

    def tz(self) -> tzinfo:
        if self.timezone:
            return ZoneInfo(self.timezone)
        return datetime.now().astimezone().tzinfo  # host zone

    def redacted(self) -> dict[str, Any]:
        data = self.model_dump(by_alias=True, mode="json")
        remote = data["memory"]["search"]["remote"]
        if remote.get("apiKey"):
            remote["apiKey"] = "***"
        remote["headers"] = {k: "***" for k in remote.get("headers", {})}
        chat = data["chat"]
        if chat.get("apiKey"):
            chat["apiKey"] = "***"
        chat["headers"] = {k: "***" for k in chat.get("headers", {})}
        return data


# Environment variables and the dotted key each one sets.
ENV_KEYS: dict[str, str] = {
    "CLAWMEM_EMBEDDING_PROVIDER": "memory.search.provider",
    "CLAWMEM_EMBEDDING_MODEL": "memory.search.model",
    "CLAWMEM_EMBEDDING_FALLBACK": "memory.search.fallback",
    "CLAWMEM_EMBEDDING_BASE_URL": "memory.search.remote.baseUrl",
    "CLAWMEM_EMBEDDING_API_KEY": "memory.search.remote.apiKey",
    "CLAWMEM_FTS_TOKENIZER": "memory.search.store.fts.tokenizer",
    "CLAWMEM_MAX_RESULTS": "memory.search.query.maxResults",
    "CLAWMEM_MIN_SCORE": "memory.search.query.minScore",
    "CLAWMEM_TIMEZONE": "timezone",
    "CLAWMEM_CHAT_MODEL": "chat.model",
    "CLAWMEM_CHAT_BASE_URL": "chat.baseUrl",
    "CLAWMEM_CHAT_API_KEY": "chat.apiKey",
}
# Read by the entry points (paths), not settings keys; listed so they are not "unknown".
ENV_OTHER = {"CLAWMEM_HOME", "CLAWMEM_AGENT", "CLAWMEM_WORKSPACE", "CLAWMEM_CONFIG", "CLAWMEM_LOG"}


def _set_dotted(tree: dict, key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for part in parts[:-1]:
        nxt = node.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            node[part] = nxt
        node = nxt
    node[parts[-1]] = value


def _parse_flag_value(raw: str) -> Any:
    # Only JSON arrays, objects, quoted strings and null are decoded. A bare 1024 or true stays a
    # string (pydantic turns it into a number or bool where the key wants one): decoding it made a
    # digit-only model name or API key ("--set memory.search.model=1024") fail as "not a string".
    text = raw.strip()
    if text[:1] in ('[', '{', '"') or text == "null":
        try:
            return json.loads(text)
        except ValueError:
            return raw
    return raw


def _error_key(loc: tuple) -> str:
    return ".".join(str(p) for p in loc if not (isinstance(p, str) and p in ("str", "ExtraPath")))


def _validate(tree: dict) -> Settings:
    try:
        return Settings.model_validate(tree)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = _error_key(err["loc"]) or "(settings)"
        if err["type"] == "extra_forbidden":
            raise ConfigError(f"unknown settings key {key!r}") from None
        msg = err["msg"].removeprefix("Value error, ")
        raise ConfigError(f"bad value for {key!r}: {msg}") from None


def load_settings(config_file: Path | None, env: dict[str, str] | None = None,
                  overrides: list[str] | None = None) -> Settings:
    """Build settings from the file, the environment and ``key=value`` overrides."""
    env = dict(os.environ if env is None else env)
    tree: dict = {}
    if config_file is not None and config_file.exists():
        try:
            tree = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read {config_file}: {exc}") from None
        _validate(tree)  # name the file's own bad keys before env/flags mix in
    for name in sorted(env):
        if not name.startswith("CLAWMEM_"):
            continue
        if name in ENV_KEYS:
            value: Any = env[name]
            if name in ("CLAWMEM_MAX_RESULTS", "CLAWMEM_MIN_SCORE"):
                value = _parse_flag_value(value)
            _set_dotted(tree, ENV_KEYS[name], value)
        elif name not in ENV_OTHER:
            raise ConfigError(f"unknown environment variable {name!r} (known: {', '.join(sorted(ENV_KEYS))})")
    for item in overrides or []:
        if "=" not in item:
            raise ConfigError(f"--set needs KEY=VALUE, got {item!r}")
        key, raw = item.split("=", 1)
        key = key.strip()
        if not key:
            raise ConfigError(f"--set needs KEY=VALUE, got {item!r}")
        _set_dotted(tree, key, _parse_flag_value(raw))
    settings = _validate(tree)
    remote = settings.memory.search.remote
    search = settings.memory.search
    uses_openai = "openai" in (search.provider, search.fallback)
    # OPENAI_API_KEY only ever goes to OpenAI itself, never to another OpenAI-compatible host.
    to_openai = not remote.base_url or "api.openai.com" in remote.base_url
    if uses_openai and to_openai and not remote.api_key and env.get("OPENAI_API_KEY"):
        remote.api_key = env["OPENAI_API_KEY"]
    return settings
