"""Typed settings, read once at the entry points and passed down.

Sources, later wins: built-in defaults (the reference's), ``<home>/reverie.toml``, ``REVERIE_*``
environment variables, then ``--set key=value`` flags. Keys use the reference's spelling
(``memory.search.query.maxResults``). An unknown key or a bad value raises :class:`ConfigError`
naming the key, never a traceback.
"""

# No ``from __future__ import annotations`` here: each field's annotation is read as the object it
# is (settings_model.py turns it into a check), never parsed from its text.

import os
from datetime import datetime, tzinfo
from pathlib import Path
from typing import Any, Literal

# json, urllib.parse and zoneinfo are imported where used: ~25 ms of a cold command that needs none
from .settings_model import Field, Invalid, Model, PrivateAttr, ValidationInfo, field_validator

from .errors import ConfigError


def _zone(name: str) -> tzinfo:
    """The zone an IANA name names; UTC without zoneinfo's import (~7 ms of a cold command)."""
    if name == "UTC":
        from datetime import timezone

        return timezone.utc
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def _time_zone(v: str | None) -> str | None:
    """A ``timezone`` setting: an IANA zone name, or None when unset."""
    if v in (None, ""):
        return None
    if v == "UTC":  # known without zoneinfo
        return v
    from zoneinfo import ZoneInfoNotFoundError

    try:
        _zone(v)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {v!r}") from exc
    return v


class _Model(Model):
    """A table of settings: unknown keys refused, keys by their user spelling or Python name,
    assignments checked (settings_model.py)."""


class QuerySettings(_Model):
    max_results: int = Field(6, ge=1, le=1000, alias="maxResults", description="results returned by default")
    min_score: float = Field(0.35, ge=0.0, le=1.0, alias="minScore",
                             description="threshold judged on the score before temporal decay")
    no_memory_floor: bool = Field(
        False, alias="noMemoryFloor",
        description="answer 'no memory of this' (no result) when even the best result is no evidence of a memory "
        "about the query (the relevance floor: relevanceFloor, keywordFloor); off by default: it also loses some "
        "loosely worded answerable questions (docs/search.md, 'Nothing found')")
    relevance_floor: float | None = Field(
        None, ge=0.0, le=1.0, alias="relevanceFloor",
        description="hybrid: the evidence the best result needs for any result to be returned (how far its cosine "
        "stands out of the candidates' median, as a share of the way to 1, + 0.15 x its keyword coverage); unset: "
        "the embedder's calibrated value (0.27 for the bundled model, none for others); 0: off")
    keyword_floor: float | None = Field(
        None, ge=0.0, le=1.0, alias="keywordFloor",
        description="keyword-only: the keyword coverage the best result needs for any result to be returned "
        "(the IDF-weighted share of the query's words it holds); unset: 0.08; 0: off")


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
    # keys from the providers' usual environment variables (PROVIDER_KEY_ENV), never shown or dumped
    _env_keys: dict[str, str] = PrivateAttr(default_factory=dict)
    _api_key_is_openai_env: bool = PrivateAttr(default=False)  # apiKey holds OPENAI_API_KEY (for a fallback)

    def key_for(self, provider: str, own_host: str) -> str:
        """The API key for a native provider: the configured one, else the provider's usual
        environment variable, and that one only when the endpoint is the provider's own host."""
        if self.api_key and not self._api_key_is_openai_env:
            return self.api_key
        from urllib.parse import urlparse

        host = urlparse(self.base_url).hostname if self.base_url else own_host
        return self._env_keys.get(provider, "") if host == own_host else ""


# Native embedding providers and the environment variables their own SDKs read, first one wins.
PROVIDER_KEY_ENV: dict[str, tuple[str, ...]] = {
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "voyage": ("VOYAGE_API_KEY",),
    "mistral": ("MISTRAL_API_KEY",),
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
}


def _provider_name(v: str) -> str:
    v = v.strip().lower()
    if not v:
        raise ValueError("must not be empty")
    return v


# Rerank APIs and the environment variables their own SDKs read, first one wins.
RERANK_KEY_ENV: dict[str, tuple[str, ...]] = {
    "cohere": ("COHERE_API_KEY", "CO_API_KEY"),
    "jina": ("JINA_API_KEY",),
    "voyage": ("VOYAGE_API_KEY",),
}


class RerankSettings(_Model):
    provider: str = Field("none", description="none | cohere | jina | voyage | http (any server speaking the "
                          "/rerank shape) | a plugin's name (reverie plugins)")
    model: str | None = Field(None, description="rerank model; provider default when unset")
    base_url: str | None = Field(None, alias="baseUrl", description="endpoint; the provider's own when unset "
                                 "(required for http)")
    api_key: str | None = Field(None, alias="apiKey", description="API key (else the provider's usual variable, "
                                "sent only to its own host)")
    pool_size: int = Field(40, ge=2, le=200, alias="poolSize",
                           description="the best candidates after fusion and rescoring that the reranker judges")
    timeout_ms: int = Field(1000, ge=50, le=60_000, alias="timeoutMs",
                            description="deadline: past it the search answers without rerank (fail open)")
    weight: float = Field(0.5, ge=0.0, le=1.0, description="share of the rerank score in a result's relevance; "
                          "decay, importance, status and project multipliers still apply")
    _env_keys: dict[str, str] = PrivateAttr(default_factory=dict)  # never shown or dumped

    @field_validator("provider")
    @classmethod
    def _lower(cls, v: str) -> str:
        return _provider_name(v)

    def key_for(self, provider: str, own_host: str) -> str:
        """The configured key, else the provider's usual environment variable, that one only when
        the endpoint is the provider's own host."""
        if self.api_key:
            return self.api_key
        from urllib.parse import urlparse

        host = urlparse(self.base_url).hostname if self.base_url else own_host
        return self._env_keys.get(provider, "") if host == own_host else ""


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
    # recall_any@10 from 0.941 (no decay) to 0.371. With a floor of 0.95, decay only breaks
    # near-ties in favour of the newer note; see docs/search.md for what each floor costs.
    floor: float = Field(0.95, ge=0.0, le=1.0,
                         description="the decay multiplier never falls below this (0 = pure exponential)")


def _new_list() -> list:
    """A new empty list (the default of a list field)."""
    return []


class ExtraPath(_Model):
    path: str
    pattern: str | None = Field(None, description="root-relative glob, '/' separators")


class SearchSettings(_Model):
    enabled: bool = True
    provider: str = Field("auto", description="auto | local | openai | gemini | voyage | mistral | cohere | ollama "
                          "| none | a plugin's name (reverie plugins) | fake (tests)")
    model: str | None = Field(None, description="embedding model; provider default when unset")
    fallback: str = Field("none", description="provider to use when the configured one cannot start")
    extra_paths: list[str | ExtraPath] = Field(default_factory=_new_list, alias="extraPaths")
    allow_hard_links: bool = Field(False, alias="allowHardLinks",
                                   description="read and index memory files that have more than one hard "
                                   "link (off: such a file may be one outside the workspace)")
    query: QuerySettings = QuerySettings()
    store: StoreSettings = StoreSettings()
    remote: RemoteSettings = RemoteSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    temporal_decay: DecaySettings = Field(DecaySettings(), alias="temporalDecay")
    rerank: RerankSettings = RerankSettings()

    @field_validator("provider", "fallback")
    @classmethod
    def _lower(cls, v: str) -> str:
        return _provider_name(v)


class IntentSettings(_Model):
    deadline_seconds: float = Field(15.0, ge=0, le=600, alias="deadlineSeconds",
                                    description="a turn's standing-intent matching gives up after this long, "
                                    "injecting nothing and spending no fire")


class ProjectSettings(_Model):
    infer: bool = Field(True, description="infer the active project from the working folder (git remote, else "
                        "the repository's root as path:...; worktrees and sub-folders are one project)")
    map: dict[str, str] = Field(default_factory=dict, description="folder -> project key; wins over git "
                                "(e.g. {\"/home/me/src/app\" = \"github.com/acme/app\"})")


class TriggerRecallSettings(_Model):
    enabled: bool = Field(True, description="inject curated entries whose trigger phrases the message holds "
                          "(no model call)")
    threshold: float = Field(0.65, ge=0.0, le=1.0, description="match score an entry needs")
    max_injections: int = Field(3, ge=0, le=20, alias="maxInjections")
    max_chars: int = Field(1_800, ge=100, le=20_000, alias="maxChars", description="all injected entries together")


class ActiveMemorySettings(_Model):
    enabled: bool = Field(False, description="run a bounded recall pass before replies (see docs/recall.md)")
    mode: Literal["off", "escalate", "always"] = Field(
        "escalate", description="escalate: only when the message asks about the past and trigger recall found "
        "nothing; always: every eligible turn")
    agents: list[str] = Field(default_factory=lambda: ["main"], description="agents it runs for")
    allowed_chat_types: list[Literal["direct", "group", "channel", "explicit"]] = Field(
        default_factory=lambda: ["direct"], alias="allowedChatTypes")
    model: str | None = Field(None, description="model spec for the recall pass; the chat model when unset")
    query_mode: Literal["message", "recent", "full"] = Field("recent", alias="queryMode")
    prompt_style: Literal["balanced", "strict", "contextual", "recall-heavy", "precision-heavy",
                          "preference-only"] | None = Field(None, alias="promptStyle",
                                                             description="by queryMode when unset: message -> "
                                                             "strict, recent -> balanced, full -> contextual")
    timeout_ms: int = Field(15_000, ge=250, le=120_000, alias="timeoutMs",
                            description="the reply goes on without the recall pass after this long")
    embed_budget_ms: int = Field(1_000, ge=50, le=120_000, alias="embedBudgetMs",
                                 description="before a reply, the longest a memory search waits for its query "
                                 "embedding (the local model loading, a slow remote); past it the search is "
                                 "keyword-only and the turn says so")
    max_summary_chars: int = Field(220, ge=40, le=1_000, alias="maxSummaryChars")
    recent_user_turns: int = Field(2, ge=0, le=4, alias="recentUserTurns")
    recent_assistant_turns: int = Field(1, ge=0, le=3, alias="recentAssistantTurns")
    recent_user_chars: int = Field(220, ge=40, le=1_000, alias="recentUserChars")
    recent_assistant_chars: int = Field(180, ge=40, le=1_000, alias="recentAssistantChars")
    cache_ttl_ms: int = Field(15_000, ge=1_000, le=120_000, alias="cacheTtlMs")
    circuit_breaker_max_timeouts: int = Field(3, ge=1, le=20, alias="circuitBreakerMaxTimeouts")
    circuit_breaker_cooldown_ms: int = Field(60_000, ge=5_000, le=600_000, alias="circuitBreakerCooldownMs")
    remember_across_conversations: bool = Field(
        False, alias="rememberAcrossConversations", description="the agent's other private (direct) "
        "conversations become a recall source; groups and channels never a source nor a destination")


class StartupContextSettings(_Model):
    enabled: bool = Field(True, description="a new or reset session starts with today's and yesterday's notes")
    apply_on: list[Literal["new", "reset"]] = Field(default_factory=lambda: ["new", "reset"], alias="applyOn")
    daily_memory_days: int = Field(2, ge=1, le=14, alias="dailyMemoryDays")
    max_file_bytes: int = Field(16_384, ge=256, le=2 * 1024 ** 2, alias="maxFileBytes")
    max_file_chars: int = Field(1_200, ge=64, le=50_000, alias="maxFileChars")
    max_total_chars: int = Field(2_800, ge=64, le=50_000, alias="maxTotalChars")


class DreamingLightSettings(_Model):
    enabled: bool = True
    lookback_days: int = Field(2, ge=0, le=365, alias="lookbackDays", description="daily notes and recalls looked at")
    limit: int = Field(100, ge=0, le=10_000, description="candidates staged per sweep (0: the phase does nothing)")
    dedupe_similarity: float = Field(0.9, ge=0.0, le=1.0, alias="dedupeSimilarity",
                                     description="word-set similarity at which two snippets of one note are one")
    sources: list[Literal["daily", "sessions", "recall"]] = Field(
        default_factory=lambda: ["daily", "sessions", "recall"],
        description="what the light phase ingests: daily notes, interactive transcripts, recalls")


class DreamingRemSettings(_Model):
    enabled: bool = True
    lookback_days: int = Field(7, ge=0, le=365, alias="lookbackDays")
    limit: int = Field(10, ge=0, le=1000, description="themes reported per sweep")
    min_pattern_strength: float = Field(0.75, ge=0.0, le=1.0, alias="minPatternStrength")


class DreamingWeights(_Model):
    relevance: float = Field(0.30, ge=0.0)
    frequency: float = Field(0.24, ge=0.0)
    diversity: float = Field(0.15, ge=0.0)
    recency: float = Field(0.15, ge=0.0)
    consolidation: float = Field(0.10, ge=0.0)
    conceptual: float = Field(0.06, ge=0.0)


class DreamingDeepSettings(_Model):
    enabled: bool = True
    limit: int = Field(10, ge=0, le=1000, description="entries promoted per sweep at most")
    min_score: float = Field(0.75, ge=0.0, le=1.0, alias="minScore")
    min_recall_count: int = Field(3, ge=0, alias="minRecallCount", description="signals (recalls + daily + grounded)")
    min_unique_queries: int = Field(3, ge=0, alias="minUniqueQueries",
                                    description="distinct queries or distinct days it was recalled on")
    recency_half_life_days: float = Field(14.0, gt=0, le=3650, alias="recencyHalfLifeDays")
    max_age_days: int = Field(30, ge=-1, alias="maxAgeDays", description="-1: no age limit")
    max_promoted_snippet_tokens: int = Field(160, ge=8, le=4000, alias="maxPromotedSnippetTokens")
    max_prior_entry_loss_fraction: float = Field(0.25, ge=0.0, le=1.0, alias="maxPriorEntryLossFraction")
    memory_max_chars: int = Field(10_000, ge=0, alias="memoryMaxChars",
                                  description="MEMORY.md budget (0: none); never above sessions.bootstrap.maxChars")
    weights: DreamingWeights = DreamingWeights()


class DreamingPhases(_Model):
    light: DreamingLightSettings = DreamingLightSettings()
    rem: DreamingRemSettings = DreamingRemSettings()
    deep: DreamingDeepSettings = DreamingDeepSettings()


class DreamingStorage(_Model):
    separate_reports: bool = Field(False, alias="separateReports",
                                   description="also write memory/dreaming/<phase>/YYYY-MM-DD.md")


class HeartbeatSettings(_Model):
    enabled: bool = Field(True, description="review recent daily notes every `every` (a heartbeat turn)")
    every: str = Field("6h", description="how often the heartbeat review runs (a duration: '6h', '90m')")

    @field_validator("every")
    @classmethod
    def _every(cls, v: str) -> str:
        from .durations import DurationError, duration_ms

        try:
            if duration_ms(v) < 60_000:
                raise ValueError("must be at least 1m")
        except DurationError as exc:
            raise ValueError(str(exc)) from None
        return v


class DreamingSettings(_Model):
    enabled: bool = Field(True, description="run the nightly sweep (a managed automation)")
    frequency: str = Field("0 3 * * *", description="cron expression of the sweep, in `timezone`")
    timezone: str | None = Field(None, description="IANA zone of the sweep and its days; the top-level timezone "
                                 "(else the host's) when unset")
    model: str | None = Field(None, description="chat model for consolidation and the diary; chat.model when unset")
    timeout_seconds: float = Field(60.0, gt=0, le=3600, alias="timeoutSeconds",
                                   description="one consolidation or diary call gives up after this long")
    diary: bool = Field(True, description="write a Dream Diary entry to DREAMS.md after each sweep")
    verbose_logging: bool = Field(False, alias="verboseLogging", description="log every promotion decision")
    storage: DreamingStorage = DreamingStorage()
    phases: DreamingPhases = DreamingPhases()
    heartbeat: HeartbeatSettings = HeartbeatSettings()

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str | None) -> str | None:
        return _time_zone(v)

    @field_validator("frequency")
    @classmethod
    def _cron(cls, v: str) -> str:
        from croniter import croniter

        expr = " ".join((v or "").split())
        if len(expr.split()) != 5 or not croniter.is_valid(expr):  # named now, not at 3 a.m.
            raise ValueError(f"not a 5-field cron expression: {v!r} (e.g. '0 3 * * *')")
        return expr


class AgentStoreSettings(_Model):
    backend: str = Field("sqlite", description="where the agent database lives: sqlite (a file per agent) or "
                         "postgres (one shared database); an installed reverie.stores plugin names others")
    dsn: str | None = Field(None, description="PostgreSQL connection string (postgresql://user:pass@host/db); "
                            "unset: the server `reverie db start` runs for this home")
    namespace: str | None = Field(None, description="prefix of this home's agent keys in a shared database "
                                  "(two homes with an agent of the same name need different ones)")


class MemorySettings(_Model):
    enabled: bool = Field(True, description="false: every memory tool, the MCP tools and all recall lanes refuse "
                          "(re-read from the settings file on each call)")
    store: AgentStoreSettings = AgentStoreSettings()
    search: SearchSettings = SearchSettings()
    intents: IntentSettings = IntentSettings()
    projects: ProjectSettings = ProjectSettings()
    trigger_recall: TriggerRecallSettings = Field(TriggerRecallSettings(), alias="triggerRecall")
    active_memory: ActiveMemorySettings = Field(ActiveMemorySettings(), alias="activeMemory")
    dreaming: DreamingSettings = DreamingSettings()


class ChatSettings(_Model):
    model: str = Field("offline", description="offline | openai:<model> | anthropic:<model>")
    base_url: str | None = Field(None, alias="baseUrl", description="endpoint; OpenAI-compatible servers "
                                 "(Ollama, vLLM, LM Studio, DeepSeek) take their /v1 URL")
    api_key: str | None = Field(None, alias="apiKey")
    headers: dict[str, str] = Field(default_factory=dict)
    context_window: int = Field(0, ge=0, alias="contextWindow", description="0: the model's own window")
    timeout_seconds: float = Field(120.0, gt=0, alias="timeoutSeconds")
    max_output_tokens: int = Field(4096, ge=1, alias="maxOutputTokens")


def _byte_size(v: Any) -> Any:
    """``2097152``, ``"2mb"``, ``"512 KiB"`` -> bytes (the reference accepts byte strings)."""
    if isinstance(v, str):
        import re

        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmg]?)i?b?\s*", v.lower())
        if not m:
            raise ValueError(f"not a byte size: {v!r} (e.g. 2097152, '2mb', '512kb')")
        return int(float(m.group(1)) * {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}[m.group(2)])
    return v


def _duration_seconds(v: Any) -> Any:
    """A duration (:mod:`reverie.durations`: ``"5m"``, ``"1h30m"``) -> seconds. A bare number means
    minutes, as the reference's pruning ttl, whether it comes as a TOML number or a ``--set``
    string (they used to differ: 45 was seconds in the file and minutes on the command line)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if isinstance(v, str):
        from .durations import duration_seconds

        return duration_seconds(v, bare_unit="m")
    return v


class MemoryFlushSettings(_Model):
    enabled: bool = Field(True, description="run the silent pre-compaction flush turn")
    soft_threshold_tokens: int = Field(4_000, ge=0, alias="softThresholdTokens",
                                       description="flush this many tokens before compaction would start")
    force_flush_transcript_bytes: int = Field(2 * 1024 ** 2, ge=0, alias="forceFlushTranscriptBytes",
                                              description="also flush once the transcript passes this size "
                                              "('2mb' accepted; 0 disables)")
    timeout_seconds: float = Field(60.0, gt=0, alias="timeoutSeconds",
                                   description="a flush turn that takes longer is skipped; compaction goes on")
    model: str | None = Field(None, description="exact model for the flush turn (no fallback); the chat model when unset")

    @field_validator("force_flush_transcript_bytes", mode="before")
    @classmethod
    def _bytes(cls, v: Any) -> Any:
        return _byte_size(v)


class CompactionSettings(_Model):
    enabled: bool = Field(True, description="summarise older messages when the context fills up")
    keep_recent_tokens: int = Field(20_000, ge=0, alias="keepRecentTokens",
                                    description="recent messages kept verbatim (capped at half of window - reserve)")
    reserve_tokens_floor: int = Field(20_000, ge=0, alias="reserveTokensFloor",
                                      description="tokens kept free for the reply (small windows: reference 14.1 rule)")
    timeout_seconds: float = Field(180.0, gt=0, alias="timeoutSeconds",
                                   description="a summary that takes longer falls back to the extractive one")
    model: str | None = Field(None, description="exact model for summaries; the chat model when unset")
    memory_flush: MemoryFlushSettings = Field(MemoryFlushSettings(), alias="memoryFlush")


class SoftTrimSettings(_Model):
    max_chars: int = Field(4_000, ge=1, alias="maxChars")
    head_chars: int = Field(1_500, ge=0, alias="headChars")
    tail_chars: int = Field(1_500, ge=0, alias="tailChars")


class HardClearSettings(_Model):
    enabled: bool = True
    placeholder: str = "[Old tool result content cleared]"


class PruningSettings(_Model):
    mode: Literal["auto", "off", "cache-ttl"] = Field(
        "auto", description="auto: cache-ttl (ttl 1h) for anthropic models, off otherwise, as the reference")
    ttl: float = Field(300.0, ge=0, description="time between prunes: a duration ('5m', '1h30m'); a bare number is minutes")
    keep_last_assistants: int = Field(3, ge=0, alias="keepLastAssistants")
    soft_trim_ratio: float = Field(0.3, ge=0, le=1, alias="softTrimRatio")
    hard_clear_ratio: float = Field(0.5, ge=0, le=1, alias="hardClearRatio")
    min_prunable_tool_chars: int = Field(50_000, ge=0, alias="minPrunableToolChars")
    soft_trim: SoftTrimSettings = Field(SoftTrimSettings(), alias="softTrim")
    hard_clear: HardClearSettings = Field(HardClearSettings(), alias="hardClear")

    @field_validator("ttl", mode="before")
    @classmethod
    def _ttl(cls, v: Any) -> Any:
        return _duration_seconds(v)


class SessionMemoryHookSettings(_Model):
    enabled: bool = Field(True, description="on /new and /reset, write the previous session to memory/YYYY-MM-DD-<slug>.md")
    messages: int = Field(15, ge=1, le=500, description="last user/assistant messages written (commands filtered first)")
    llm_slug: bool = Field(False, alias="llmSlug", description="ask the chat model for a descriptive slug (HHMM when off or failing)")


class BootstrapSettings(_Model):
    enabled: bool = Field(True, description="inject AGENTS.md, SOUL.md, IDENTITY.md, USER.md, MEMORY.md ... into the system prompt")
    max_chars: int = Field(20_000, ge=64, alias="maxChars", description="per file")
    total_max_chars: int = Field(60_000, ge=64, alias="totalMaxChars", description="all files together")
    user_max_chars: int = Field(4_000, ge=64, alias="userMaxChars", description="USER.md's own cap")


class SessionSettings(_Model):
    visibility: Literal["self", "agent"] = Field(
        "agent", description="what sessions_search/sessions_history may read: agent (the owner's direct session sees "
        "every session of the agent; another direct session its sender's; a group only itself) or self")
    max_tool_rounds: int = Field(8, ge=1, le=64, alias="maxToolRounds", description="tool-call rounds per turn")
    workspace_access: Literal["rw", "ro", "none"] = Field(
        "rw", alias="workspaceAccess", description="ro/none: the workspace is read-only (flushes are skipped)")
    pruning: PruningSettings = PruningSettings()
    memory_hook: SessionMemoryHookSettings = Field(SessionMemoryHookSettings(), alias="memoryHook")
    bootstrap: BootstrapSettings = BootstrapSettings()
    startup_context: StartupContextSettings = Field(StartupContextSettings(), alias="startupContext")


class CronSettings(_Model):
    session_retention: str | bool = Field(
        "24h", alias="sessionRetention", description="how long after its run an automation's run session (an "
        "agent turn, a heartbeat review) keeps its transcript: a duration ('24h', '7d', at least 1m); false or "
        "'off' keeps them all (see docs/intents-and-automations.md)")

    @field_validator("session_retention", mode="before")
    @classmethod
    def _retention(cls, v: Any) -> Any:
        from .durations import DurationError, duration_ms

        if v is False or (isinstance(v, str) and v.strip().lower() in ("off", "false")):
            return False
        if not isinstance(v, str) or v.strip().lower() == "true":
            raise ValueError(f"must be a duration such as '24h' or '7d', or false to keep run sessions (got {v!r})")
        try:
            if duration_ms(v) < 60_000:
                raise ValueError(f"must be at least 1m (got {v!r}), or false to keep run sessions")
        except DurationError as exc:
            raise ValueError(f"{exc}; or false to keep run sessions") from None
        return v.strip()

    @property
    def session_retention_ms(self) -> int | None:
        """The retention in milliseconds; None when run sessions are kept."""
        from .durations import duration_ms

        return None if self.session_retention is False else int(duration_ms(self.session_retention))


class AgentSettings(_Model):
    workspace: str | None = None
    memory_enabled: bool | None = Field(None, alias="memoryEnabled", description="this agent only; wins over "
                                        "memory.enabled")
    remember_across_conversations: bool | None = Field(None, alias="rememberAcrossConversations",
                                                       description="this agent only; wins over "
                                                       "memory.activeMemory.rememberAcrossConversations")


class Settings(_Model):
    timezone: str | None = Field(None, description="IANA zone for daily notes; host zone when unset")
    memory: MemorySettings = MemorySettings()
    chat: ChatSettings = ChatSettings()
    sessions: SessionSettings = SessionSettings()
    compaction: CompactionSettings = CompactionSettings()
    agents: dict[str, AgentSettings] = Field(default_factory=dict)
    cron: CronSettings = CronSettings()

    @field_validator("timezone")
    @classmethod
    def _zone(cls, v: str | None) -> str | None:
        return _time_zone(v)

    # -- conveniences -------------------------------------------------------------------------
    @property
    def search(self) -> SearchSettings:
        return self.memory.search

    def tz(self) -> tzinfo:
        if self.timezone:
            return _zone(self.timezone)
        return datetime.now().astimezone().tzinfo  # host zone

    def dreaming_tz(self) -> tzinfo:
        """The zone Dreaming dates recalls and sweeps in: its own, else the top-level one."""
        zone = self.memory.dreaming.timezone
        return _zone(zone) if zone else self.tz()

    def redacted(self) -> dict[str, Any]:
        data = self.model_dump(by_alias=True, mode="json")
        remote = data["memory"]["search"]["remote"]
        if remote.get("apiKey"):
            remote["apiKey"] = "***"
        remote["headers"] = {k: "***" for k in remote.get("headers", {})}
        store = data["memory"]["store"]
        if store.get("dsn"):
            from .store.postgres.pool import redact

            store["dsn"] = redact(store["dsn"])
        rerank = data["memory"]["search"]["rerank"]
        if rerank.get("apiKey"):
            rerank["apiKey"] = "***"
        chat = data["chat"]
        if chat.get("apiKey"):
            chat["apiKey"] = "***"
        chat["headers"] = {k: "***" for k in chat.get("headers", {})}
        return data


# Environment variables and the dotted key each one sets.
ENV_KEYS: dict[str, str] = {
    "REVERIE_EMBEDDING_PROVIDER": "memory.search.provider",
    "REVERIE_EMBEDDING_MODEL": "memory.search.model",
    "REVERIE_EMBEDDING_FALLBACK": "memory.search.fallback",
    "REVERIE_EMBEDDING_BASE_URL": "memory.search.remote.baseUrl",
    "REVERIE_EMBEDDING_API_KEY": "memory.search.remote.apiKey",
    "REVERIE_FTS_TOKENIZER": "memory.search.store.fts.tokenizer",
    "REVERIE_RERANK_PROVIDER": "memory.search.rerank.provider",
    "REVERIE_RERANK_MODEL": "memory.search.rerank.model",
    "REVERIE_RERANK_BASE_URL": "memory.search.rerank.baseUrl",
    "REVERIE_RERANK_API_KEY": "memory.search.rerank.apiKey",
    "REVERIE_MAX_RESULTS": "memory.search.query.maxResults",
    "REVERIE_MIN_SCORE": "memory.search.query.minScore",
    "REVERIE_TIMEZONE": "timezone",
    "REVERIE_CHAT_MODEL": "chat.model",
    "REVERIE_CHAT_BASE_URL": "chat.baseUrl",
    "REVERIE_CHAT_API_KEY": "chat.apiKey",
    "REVERIE_STORE_BACKEND": "memory.store.backend",
    "REVERIE_POSTGRES_DSN": "memory.store.dsn",
    "REVERIE_STORE_NAMESPACE": "memory.store.namespace",
}
# Read by the entry points (paths), not settings keys; listed so they are not "unknown".
ENV_OTHER = {"REVERIE_HOME", "REVERIE_AGENT", "REVERIE_WORKSPACE", "REVERIE_CONFIG", "REVERIE_LOG",
             "REVERIE_SERVE",  # REVERIE_SERVE=off: never ask a running server (cli/fast.py)
             "REVERIE_DB_PASSWORD",  # the password `db grant` gives a role (never a settings value)
             "REVERIE_PG_OS_USER",  # the OS user of the local PostgreSQL server (store/postgres/server.py)
             "REVERIE_FAULTS", "REVERIE_FAULTS_DIR"}  # fault injection for the crash tests (faults.py)

# A settings file is small; reading one without a cap let REVERIE_CONFIG=/dev/zero hang for ever.
MAX_CONFIG_BYTES = 1024 ** 2


class ReverieWarning(UserWarning):
    """Something reverie went on despite (an unknown environment variable): shown once, on stderr."""


def closest(word: str, known) -> str | None:
    """The known word a typo most likely meant, if any is close."""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def _did_you_mean(word: str, known) -> str:
    close = closest(word, known)
    return f"; did you mean {close!r}?" if close else ""


def settings_keys(model: type[Model] = None, prefix: str = "") -> list[str]:  # type: ignore[assignment]
    """Every dotted settings key, spelt as users write it (``memory.search.query.maxResults``)."""
    model = model or Settings
    out: list[str] = []
    for name, field in model.model_fields.items():
        key = prefix + field.key
        sub = field.annotation
        if isinstance(sub, type) and issubclass(sub, Model):
            out += settings_keys(sub, key + ".")
        else:
            out.append(key)
    return out


def _warn_unknown_env(name: str) -> None:
    import warnings

    # compare what follows the prefix: every name shares "REVERIE_", which made anything look close
    known = {k.removeprefix("REVERIE_"): k for k in [*ENV_KEYS, *ENV_OTHER]}
    close = closest(name.removeprefix("REVERIE_"), known)
    hint = f"; did you mean {known[close]}?" if close else ""
    warnings.warn(f"unknown environment variable {name} ignored{hint}", ReverieWarning, stacklevel=3)


def read_config_file(path: Path, *, required: bool = False) -> dict:
    """The TOML tree of a settings file; ``{}`` when it does not exist (unless ``required``).

    Only a regular file is read, at most :data:`MAX_CONFIG_BYTES`: a folder, a device
    (``/dev/zero``), a FIFO or a huge file is a one-line error, never a hang or a traceback.
    """
    import stat

    try:
        st = path.stat()
    except FileNotFoundError:
        if required:
            raise ConfigError(f"settings file {path} does not exist (named by REVERIE_CONFIG)") from None
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ConfigError(f"settings file {path} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"settings file {path} is not a regular file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"settings file {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB")
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"settings file {path} is larger than {MAX_CONFIG_BYTES // 1024} KiB")
    if _only_comments(data):  # the file `reverie init` writes: every setting commented out
        return {}
    import tomllib  # here: a home whose settings file sets nothing never parses TOML (~12 ms)

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"cannot read {path}: values are nested too deeply") from None


def _only_comments(data: bytes) -> bool:
    """Whether a settings file holds nothing but blank lines and comments (no TOML to parse)."""
    for line in data.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(b"#"):
            return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False  # the parse below names the bad byte
    return True


def _resolve_agent_workspaces(tree: dict, base: Path) -> None:
    """A relative ``agents.<id>.workspace`` in a settings file means relative to that file's folder,
    never to wherever a shell happens to be (two shells wrote to two workspaces sharing one index)."""
    agents = tree.get("agents")
    if not isinstance(agents, dict):
        return
    for agent_id, entry in agents.items():
        raw = entry.get("workspace") if isinstance(entry, dict) else None
        if not isinstance(raw, str) or not raw.strip():
            continue
        try:
            path = Path(raw).expanduser()
        except RuntimeError:  # ~someone who does not exist
            raise ConfigError(f"bad value for 'agents.{agent_id}.workspace': cannot expand {raw!r} "
                              "(no such user)") from None
        entry["workspace"] = str(path if path.is_absolute() else (base / path).absolute())


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
    # string (the settings turn it into a number or bool where the key wants one): decoding it made a
    # digit-only model name or API key ("--set memory.search.model=1024") fail as "not a string".
    text = raw.strip()
    if text[:1] in ('[', '{', '"') or text == "null":
        import json

        try:
            return json.loads(text)
        except ValueError:
            return raw
        except RecursionError:
            raise ConfigError(f"--set value nested too deeply: {raw[:40]}...") from None
    return raw


def _validate(tree: dict) -> Settings:
    try:
        return Settings.model_validate(tree)
    except RecursionError:
        raise ConfigError("settings are nested too deeply") from None
    except Invalid as exc:
        key = ".".join(str(p) for p in exc.loc) or "(settings)"
        if exc.unknown:
            known = {k.rsplit(".", n)[0] for k in settings_keys() for n in range(k.count(".") + 1)}
            raise ConfigError(f"unknown settings key {key!r}{_did_you_mean(key, known)}") from None
        raise ConfigError(f"bad value for {key!r}: {exc.words}") from None


def load_settings(config_file: Path | None, env: dict[str, str] | None = None,
                  overrides: list[str] | None = None, *, required: bool = False) -> Settings:
    """Build settings from the file, the environment and ``key=value`` overrides.

    ``required``: the file was named explicitly (REVERIE_CONFIG), so its absence is an error. An
    unknown ``REVERIE_*`` variable is a :class:`ReverieWarning`, not an error: a variable meant for
    another version or a typo must not stop every command.
    """
    env = dict(os.environ if env is None else env)
    tree: dict = {}
    if config_file is not None:
        tree = read_config_file(config_file, required=required)
        _validate(tree)  # name the file's own bad keys before env/flags mix in
        _resolve_agent_workspaces(tree, config_file.absolute().parent)
    for name in sorted(env):
        if not name.startswith("REVERIE_"):
            continue
        if name in ENV_KEYS:
            value: Any = env[name]
            if name in ("REVERIE_MAX_RESULTS", "REVERIE_MIN_SCORE"):
                value = _parse_flag_value(value)
            _set_dotted(tree, ENV_KEYS[name], value)
        elif name not in ENV_OTHER:
            _warn_unknown_env(name)
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
    if uses_openai and not remote.api_key and env.get("OPENAI_API_KEY") and _to_openai(remote.base_url):
        remote.api_key = env["OPENAI_API_KEY"]
        remote._api_key_is_openai_env = True
    remote._env_keys = _keys_from_env(env, PROVIDER_KEY_ENV)
    search.rerank._env_keys = _keys_from_env(env, RERANK_KEY_ENV)
    return settings


def _to_openai(base_url: str | None) -> bool:
    """OPENAI_API_KEY only ever goes to OpenAI itself, never to another OpenAI-compatible host."""
    if not base_url:
        return True
    from urllib.parse import urlparse

    return urlparse(base_url).hostname == "api.openai.com"


def _keys_from_env(env: dict[str, str], table: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """provider -> the first of its usual variables that is set."""
    return {provider: next(env[n] for n in names if env.get(n))
            for provider, names in table.items() if any(env.get(n) for n in names)}
