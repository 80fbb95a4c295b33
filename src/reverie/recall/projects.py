"""Project scope (addendum rows 2-3): which projects a session is working on.

A session holds up to :data:`MAX_ACTIVE` recently active project keys, most recent first (an LRU:
activating a fifth key drops the one used longest ago). The owner sets them (``/project <key>`` in
chat, ``--project`` on ``chat``/``search``/``context``, ``Memory.search(projects=...)``,
``Runtime(projects=...)``, the ``projects`` argument of ``memory_search``); the working folder can
imply one (:func:`infer_project`).

The set reaches every recall path: search ranks an entry of an active project ×1.15 and one of
another project ×0.9; trigger recall and the startup context leave out, fail closed, every entry
annotated ``<!-- project: ... -->`` for a project that is not active (:meth:`ProjectScope.allows`).

A key is a normalised git remote (``github.com/acme/app``, lower case: the big hosts ignore case),
or ``path:<repository root>`` for a repository without a remote, or any name the owner chooses.
Git worktrees and sub-folders of one repository are the same project: the remote is read from the
repository's shared configuration, and the ``path:`` form names the main worktree's root (a peer
keyed projects by folder and split one repository into several projects).
"""

from __future__ import annotations

import contextvars

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import UserError

MAX_ACTIVE = 4
MAX_KEY_CHARS = 300
_SCP_RE = re.compile(r"^(?:[^@/\s]+@)?([^:/\s]+):(?!//)(.+)$")  # git@github.com:acme/app.git
_URL_RE = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


def normalise_remote(url: str) -> str | None:
    """``git@github.com:Acme/App.git`` / ``https://u:p@github.com/acme/app/`` -> ``github.com/acme/app``;
    a local path remote -> ``path:<absolute path>``; None when it is not a remote."""
    url = (url or "").strip()
    if not url:
        return None
    if url.startswith("file://"):
        return "path:" + os.path.abspath(url[len("file://"):]).rstrip("/")
    if _URL_RE.match(url):
        rest = _URL_RE.sub("", url)
        hostpart, _, path = rest.partition("/")
        host = hostpart.rsplit("@", 1)[-1].split(":", 1)[0]
    elif url.startswith(("/", ".", "~")) or (len(url) > 1 and url[1] == ":"):
        return "path:" + os.path.abspath(os.path.expanduser(url)).rstrip("/")
    else:
        m = _SCP_RE.match(url)
        if not m:
            return None
        host, path = m.group(1), m.group(2)
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4].rstrip("/")
    if not host or not path:
        return None
    return f"{host}/{path}".lower()


def normalise_key(raw: str) -> str:
    """A key as the owner typed it: a remote URL is normalised, anything else trimmed. Refuses
    what an annotation could not hold (line breaks, ``<``, ``>``, ``;``)."""
    key = " ".join(str(raw or "").split())
    if not key:
        raise UserError("a project key must not be empty")
    if len(key) > MAX_KEY_CHARS:
        raise UserError(f"a project key is at most {MAX_KEY_CHARS} characters")
    if any(c in key for c in "<>;"):
        raise UserError(f"project key {key!r} holds a character an annotation cannot ('<', '>' or ';')")
    if _URL_RE.match(key) or (("@" in key or key.endswith(".git")) and _SCP_RE.match(key)):
        return normalise_remote(key) or key
    return key


def same_key(a: str, b: str) -> bool:
    return a.casefold() == b.casefold()


class ProjectScope:
    """The active project keys of one session (most recent first)."""

    def __init__(self, keys: Iterable[str] = (), *, inferred: "Inferred | None" = None):
        self._keys: list[str] = []
        self.inferred = inferred
        if inferred is not None:
            self.activate(inferred.key)
        for k in reversed(list(keys or [])):  # the first given ends up most recent
            self.activate(k)

    @property
    def keys(self) -> list[str]:
        return list(self._keys)

    def activate(self, key: str) -> str:
        key = normalise_key(key)
        self._keys = [key] + [k for k in self._keys if not same_key(k, key)]
        del self._keys[MAX_ACTIVE:]
        return key

    def clear(self) -> None:
        self._keys = []

    def allows(self, entry_projects: Iterable[str] | None) -> bool:
        """An entry annotated for projects may be injected only when every one of them is active
        (fail closed); an entry with no project annotation always may."""
        wanted = [p for p in entry_projects or [] if p and p.strip()]
        return all(any(same_key(p.strip(), k) for k in self._keys) for p in wanted)

    def __bool__(self) -> bool:
        return bool(self._keys)

    def describe(self) -> str:
        if not self._keys:
            return "no active project"
        return ", ".join(self._keys) + (f" (inferred: {self.inferred.how})" if self.inferred else "")


def split_keys(stored: str | None) -> list[str]:
    """The project keys of an index row (``memory_index_chunk_recall_metadata.project_key``)."""
    return [k.strip() for k in (stored or "").split(";") if k.strip()]


# -- inferring the project of a folder ----------------------------------------------------------------
@dataclass(frozen=True)
class Inferred:
    key: str
    how: str  # for people: "git remote origin of /src/app", "memory.projects.map"


def _git_dirs(folder: Path) -> tuple[Path, Path, Path] | None:
    """(worktree root, git dir, common dir) of the repository holding ``folder``."""
    for cand in (folder, *folder.parents):
        dot = cand / ".git"
        if dot.is_dir():
            gitdir = dot
        elif dot.is_file():
            try:
                head = dot.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if not head.startswith("gitdir:"):
                return None
            gitdir = Path(head[len("gitdir:"):].strip())
            gitdir = gitdir if gitdir.is_absolute() else (cand / gitdir)
        else:
            continue
        common = gitdir
        try:
            ref = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        except OSError:
            ref = ""
        if ref:
            common = Path(ref) if Path(ref).is_absolute() else gitdir / ref
        return cand, gitdir.resolve(), common.resolve()
    return None


def _config_value(config: Path, section: str, subsection: str | None, key: str) -> str | None:
    """One value of a git config file (the last one wins, as git reads it)."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    found = None
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        head = re.match(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]', line)
        if head:
            inside = head.group(1).lower() == section and (head.group(2) or None) == subsection
            line = line[head.end():].strip()
            if not line:
                continue
        if inside:
            m = re.match(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$", line)
            if m and m.group(1).lower() == key:
                value = (m.group(2) or "").strip()
                if len(value) >= 2 and value[0] == value[-1] == '"':
                    value = value[1:-1]
                found = value
    return found


def infer_project(folder: str | Path, mapping: dict[str, str] | None = None) -> Inferred | None:
    """The project a folder belongs to: a configured folder (the longest that holds it) wins;
    else its git repository's ``origin`` remote, normalised; else ``path:<main worktree root>``."""
    try:
        here = Path(folder).expanduser().resolve()
    except (OSError, RuntimeError):
        return None
    best: tuple[int, str, str] | None = None
    for raw_dir, key in (mapping or {}).items():
        try:
            d = Path(raw_dir).expanduser().resolve()
        except (OSError, RuntimeError):
            continue
        if (here == d or d in here.parents) and (best is None or len(d.parts) > best[0]):
            best = (len(d.parts), key, str(d))
    if best is not None:
        return Inferred(normalise_key(best[1]), f"memory.projects.map ({best[2]})")
    dirs = _git_dirs(here)
    if dirs is None:
        return None
    root, _gitdir, common = dirs
    url = _config_value(common / "config", "remote", "origin", "url")
    key = normalise_remote(url) if url else None
    if key:
        return Inferred(key, f"git remote origin of {root}")
    main_root = common.parent if common.name == ".git" else root
    return Inferred(f"path:{main_root}", f"git repository without an origin remote at {main_root}")


# The folder a command was run in when it is not this process's own: a command line that
# ``reverie serve`` runs for a client (reverie.serve.bridge) is set there by the client's folder.
CALLER_FOLDER: contextvars.ContextVar = contextvars.ContextVar("reverie_caller_folder", default=None)


def folder_scope(settings, keys: Iterable[str] | None = None, folder: str | Path | None = None) -> ProjectScope:
    """The scope of a command run in ``folder`` (default: the caller's, else the current one): the
    given keys, plus the folder's project when ``memory.projects.infer`` is on."""
    cfg = settings.memory.projects
    here = folder or CALLER_FOLDER.get() or Path.cwd()
    inferred = infer_project(here, cfg.map) if cfg.infer else None
    return ProjectScope(list(keys or []), inferred=inferred)
