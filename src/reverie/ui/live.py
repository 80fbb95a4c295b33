"""What makes the pages live: one file watcher per server and background re-index jobs.

* :class:`Changes` runs the index's watcher (:func:`reverie.index.watch.watch_paths`, inotify via
  watchfiles) in one thread for the whole server, whatever the number of open pages, and bumps a
  per-agent counter on each burst of Markdown changes. Event streams only read that counter, so a
  page that goes away costs nothing and leaves nothing behind; the thread stops with the server.
* :class:`Jobs` runs long work in a background thread -- a sync or a forced rebuild, a Dreaming
  preview -- one of each group per agent at a time, recording its progress (stage, done, total)
  for the event stream to send, and its result for the page that shows it.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

DEBOUNCE_MS = 300
RETRY_SECONDS = 2.0
JOBS_KEPT = 20
GROUPS = {"sync": "index", "rebuild": "index"}  # kinds that must not run side by side for one agent


class Changes:
    def __init__(self, workspaces: Callable[[], dict[str, Path]], *, debounce_ms: int = DEBOUNCE_MS):
        self._workspaces = workspaces
        self._debounce_ms = debounce_ms
        self._versions: dict[str, int] = {}
        self._paths: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.watching = threading.Event()  # set once the watcher is running (tests wait on it)

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="reverie-ui-watch", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        from ..index.watch import watch_paths

        while not self._stop.is_set():
            try:
                roots = {a: Path(w).absolute() for a, w in self._workspaces().items()}
            except Exception:
                roots = {}
            existing = [r for r in roots.values() if r.exists()]
            if not existing:  # no workspace yet (reverie init comes later): look again soon
                self._stop.wait(RETRY_SECONDS)
                continue
            try:
                watch_paths(existing, lambda paths: self._changed(roots, paths), debounce_ms=self._debounce_ms,
                            stop=self._stop, ready=self.watching)
            except Exception:
                self._stop.wait(RETRY_SECONDS)  # a watcher failure must not end live pages for good

    def _changed(self, roots: dict[str, Path], paths: set[str]) -> None:
        for agent, root in roots.items():
            mine = []
            for p in paths:
                try:
                    mine.append(Path(p).relative_to(root).as_posix())
                except ValueError:
                    continue
            if mine:
                self.bump(agent, mine)

    def bump(self, agent: str, paths: list[str]) -> None:
        with self._lock:
            self._versions[agent] = self._versions.get(agent, 0) + 1
            self._paths[agent] = sorted(set(paths))[:50]

    def version(self, agent: str) -> tuple[int, list[str]]:
        with self._lock:
            return self._versions.get(agent, 0), list(self._paths.get(agent, []))


@dataclass
class Job:
    id: str
    agent: str
    kind: str  # sync | rebuild | dream
    state: str = "running"  # running | done | failed
    stage: str = "starting"
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.time)
    finished: float | None = None
    summary: str = ""
    error: str = ""
    version: int = 0
    result: dict | None = None  # what the work returned beside its summary (a report), kept off the stream

    @property
    def group(self) -> str:
        return GROUPS.get(self.kind, self.kind)

    def snapshot(self) -> dict:
        return {"id": self.id, "agent": self.agent, "kind": self.kind, "state": self.state, "stage": self.stage,
                "done": self.done, "total": self.total, "summary": self.summary, "error": self.error,
                "seconds": round((self.finished or time.time()) - self.started, 1), "version": self.version}


class Jobs:
    def __init__(self):
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    def start(self, agent: str, kind: str, work: Callable[[Callable[[str, int, int], None]], object]) -> Job:
        """Start ``work(progress)`` unless this agent already runs a job of its group (then that job
        is returned: a second click joins the first). ``work`` returns a one-line summary, or a
        ``(summary, result dict)`` pair."""
        with self._lock:
            running = self._running(agent, GROUPS.get(kind, kind))
            if running is not None:
                return running
            job = Job("job-" + secrets.token_hex(6), agent, kind)
            self._jobs[job.id] = job
            for old in [j for j in self._jobs.values() if j.state != "running"][:-JOBS_KEPT]:
                del self._jobs[old.id]

        def progress(stage: str, done: int, total: int) -> None:
            job.stage, job.done, job.total = stage, done, total
            job.version += 1

        def run() -> None:
            try:
                got = work(progress)
                job.summary, job.result = got if isinstance(got, tuple) else (got, None)
                job.state = "done"
            except Exception as exc:  # shown on the page; the index stays consistent (see index docs)
                job.error = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc).splitlines()[0]
                job.state = "failed"
            finally:
                job.finished = time.time()
                job.version += 1

        threading.Thread(target=run, name=f"reverie-ui-{kind}", daemon=True).start()
        return job

    def _running(self, agent: str, group: str) -> Job | None:
        return next((j for j in self._jobs.values()
                     if j.agent == agent and j.group == group and j.state == "running"), None)

    def get(self, job_id: str, agent: str | None = None) -> Job | None:
        """The job with this id (of this agent, when given: a page never shows another agent's job)."""
        with self._lock:
            job = self._jobs.get(job_id)
        return job if job is not None and (agent is None or job.agent == agent) else None

    def of(self, agent: str) -> list[Job]:
        with self._lock:
            return sorted((j for j in self._jobs.values() if j.agent == agent), key=lambda j: j.started)

    def latest(self, agent: str, kinds: tuple[str, ...] | None = None) -> Job | None:
        mine = [j for j in self.of(agent) if kinds is None or j.kind in kinds]
        return mine[-1] if mine else None
