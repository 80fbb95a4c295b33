"""Errors that carry their own exit code and a one-line message for people."""


class ReverieError(Exception):
    """Base class. `exit_code` 2 means a fault of ours, 1 a problem with the user's input."""

    exit_code = 2


class UserError(ReverieError):
    """Bad input or a state the user can fix: shown as one line, exit code 1."""

    exit_code = 1


class ConfigError(UserError):
    """A settings file, variable or flag that names an unknown key or holds a bad value."""


class Interrupted(ReverieError):
    """Ctrl-C (or SIGTERM) stopped a command part-way: exit code 130, as a shell reports it."""

    exit_code = 130


class WriteConflict(UserError):
    """A compare-and-set write found the file changed since it was planned."""


class EmbeddingError(ReverieError):
    """An embedding provider failed (network, quota, bad response): a problem the user fixes in
    their provider or its configuration, so exit code 1."""

    exit_code = 1

    def __init__(self, message: str, *, quota: bool = False, retryable: bool = False,
                 retry_after: float | None = None):
        super().__init__(message)
        self.quota = quota
        self.retryable = retryable
        self.retry_after = retry_after  # seconds the server asked to wait (Retry-After), if it did
