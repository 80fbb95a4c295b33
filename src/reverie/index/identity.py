"""Index identity: everything that, when it changes, makes stored chunks or vectors incomparable.

Stored as one JSON row (``memory_index_meta_v1``) in the index. When it no longer matches the
settings, vectors are not used (keyword search goes on) and status names the rebuild command.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import apsw

from ..config import SearchSettings
from .chunking import CHUNKER
from . import reads

if TYPE_CHECKING:  # the providers' package loads when one is chosen (Memory.embedder)
    from ..embeddings import Embedder

META_KEY = "memory_index_meta_v1"
IDENTITY_VERSION = 1
REBUILD_ACTION = "reverie index --force"
SYNC_ACTION = "reverie index"
# What the stored chunks were made with: a change needs a rebuild. The scope (extra paths) is not
# among them: adding or removing a path only adds or removes files, which a plain sync does.
_TEXT_FIELDS = ("chunkTokens", "chunkOverlap", "chunker", "ftsTokenizer", "sources", "version")
_VECTOR_FIELDS = ("provider", "model", "providerKey")


def scope_hash(settings: SearchSettings) -> str:
    items = sorted(
        json.dumps(e if isinstance(e, str) else e.model_dump(), sort_keys=True) for e in settings.extra_paths)
    if settings.allow_hard_links:  # it changes which files are indexed; off adds nothing (hash unchanged)
        items.append("allowHardLinks")
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()[:16]


def wanted_identity(settings: SearchSettings, embedder: Embedder | None) -> dict:
    return {
        "version": IDENTITY_VERSION,
        "provider": embedder.provider if embedder else "none",
        "model": embedder.model if embedder else "fts-only",
        "providerKey": embedder.provider_key if embedder else None,
        "vectorDims": embedder.dims if embedder else 0,
        "chunkTokens": settings.chunking.tokens,
        "chunkOverlap": settings.chunking.overlap,
        "chunker": CHUNKER,
        "ftsTokenizer": settings.store.fts.tokenizer,
        "sources": ["memory"],
        "scopeHash": scope_hash(settings),
    }


@dataclass
class IdentityCheck:
    status: str  # "valid" | "missing" | "mismatched" | "scope-changed" (plain sync catches up)
    text_ok: bool = True
    vectors_ok: bool = True
    reasons: list[str] = field(default_factory=list)

    @property
    def action(self) -> str:
        return SYNC_ACTION if self.status == "scope-changed" else REBUILD_ACTION

    def as_dict(self) -> dict:
        out: dict = {"status": self.status}
        if self.reasons:
            out["reason"] = "; ".join(self.reasons)
            out["action"] = self.action
        return out


def compare(stored: dict | None, wanted: dict) -> IdentityCheck:
    if not stored:
        return IdentityCheck("missing", False, False, ["no index identity stored yet"])
    reasons: list[str] = []
    text_ok = True
    for key in _TEXT_FIELDS:
        if stored.get(key) != wanted.get(key):
            text_ok = False
            reasons.append(f"{key} is {stored.get(key)!r} in the index but {wanted.get(key)!r} in the settings")
    vectors_ok = True
    for key in _VECTOR_FIELDS:
        if stored.get(key) != wanted.get(key):
            vectors_ok = False
            reasons.append(f"{key} is {stored.get(key)!r} in the index but {wanted.get(key)!r} in the settings")
    sd, wd = stored.get("vectorDims") or 0, wanted.get("vectorDims") or 0
    if vectors_ok and sd and wd and sd != wd:
        vectors_ok = False
        reasons.append(f"vector dimensions are {sd} in the index but the provider gives {wd}")
    if stored.get("provider") == "none" and wanted.get("provider") == "none":
        vectors_ok = True
    if reasons:
        return IdentityCheck("mismatched", text_ok, vectors_ok, reasons)
    if stored.get("scopeHash") != wanted.get("scopeHash"):
        return IdentityCheck("scope-changed", True, True,
                             ["the extra paths changed since the last full index (files to add or remove)"])
    return IdentityCheck("valid", text_ok, vectors_ok, reasons)


def read_identity(conn: apsw.Connection) -> dict | None:
    return reads.meta(conn, META_KEY)


def write_identity(conn: apsw.Connection, identity: dict) -> None:
    conn.execute(
        "INSERT INTO memory_index_meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (META_KEY, json.dumps(identity, sort_keys=True)),
    )


def read_meta(conn: apsw.Connection, key: str) -> dict | None:
    return reads.meta(conn, key)


def write_meta(conn: apsw.Connection, key: str, value: dict) -> None:
    conn.execute(
        "INSERT INTO memory_index_meta(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, json.dumps(value, sort_keys=True)),
    )
