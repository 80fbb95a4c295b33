"""Cross-process lock files: held by one holder at a time, across processes and threads.

On POSIX a lock is ``flock`` on a descriptor of its own (so two threads of one process exclude each
other too), the kernel drops it when its holder dies (a killed writer never leaves a lock behind),
and the file is kept after release: unlinking a lock file lets two holders each lock a different
inode. Elsewhere (Windows) the ``filelock`` package does the same. The ``filelock`` package costs
~40 ms to import, which a cold ``reverie remember`` or a host's hook would pay on every call.
"""

from __future__ import annotations

import os
import time

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

POLL_SECONDS = 0.02


class Timeout(TimeoutError):
    """The lock was not free (not blocking, or not within the timeout)."""

    def __init__(self, lock_file: str):
        super().__init__(f"the lock {lock_file} is held by someone else")
        self.lock_file = lock_file


class FileLock:
    """An exclusive lock on ``path``. ``timeout``: seconds to wait (negative: for ever);
    ``blocking=False``: do not wait at all. Re-entrant for the same object."""

    def __init__(self, path, timeout: float = -1, *, blocking: bool = True):
        self.lock_file = os.fspath(path)
        self.timeout = timeout
        self.blocking = blocking
        self._fd: int | None = None
        self._depth = 0
        self._other = None
        if fcntl is None:  # pragma: no cover - Windows
            import filelock

            try:
                self._other = filelock.FileLock(self.lock_file, timeout=timeout, blocking=blocking,
                                                preserve_lock_file=True)
            except ValueError:  # a marker-file lock (no OS lock at all) releases by unlinking
                self._other = filelock.FileLock(self.lock_file, timeout=timeout, blocking=blocking)

    @property
    def is_locked(self) -> bool:
        return self._depth > 0

    def acquire(self) -> FileLock:
        if self._depth:  # re-entered: released when the outermost holder lets go
            self._depth += 1
            return self
        if self._other is not None:  # pragma: no cover - Windows
            import filelock

            try:
                self._other.acquire()
            except filelock.Timeout:
                raise Timeout(self.lock_file) from None
            self._depth = 1
            return self
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            self._take(fd)
        except BaseException:
            os.close(fd)
            raise
        self._fd, self._depth = fd, 1
        return self

    def _take(self, fd: int) -> None:
        # Never a blocking flock(): a signal delivered to another thread of the process (Ctrl-C
        # while the main thread waits here) would not interrupt it, and the process would wait for
        # ever. A short sleep between tries lets the waiting thread take its signals.
        forever = self.blocking and self.timeout < 0
        deadline = time.monotonic() + (max(self.timeout, 0.0) if self.blocking else 0.0)
        pause = 0.001
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            left = POLL_SECONDS if forever else deadline - time.monotonic()
            if left <= 0:
                raise Timeout(self.lock_file)
            time.sleep(min(pause, left))
            pause = min(pause * 2, POLL_SECONDS)

    def release(self) -> None:
        if self._depth == 0:
            return
        self._depth -= 1
        if self._depth:
            return
        if self._other is not None:  # pragma: no cover - Windows
            self._other.release()
            return
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()

    def __del__(self):  # a lock object dropped while held lets go (as its process ending would)
        try:
            while self._depth:
                self.release()
        except Exception:
            pass
