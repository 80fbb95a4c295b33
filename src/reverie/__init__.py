"""reverie: long-term memory for AI agents.

Markdown files in a per-agent workspace are the memory; one SQLite database per agent holds
what is derived from them (the search index, embedding cache) and the durable state that has no
file. Start with :class:`reverie.Memory`.
"""

__version__ = "0.1.0"

from .errors import ReverieError, UserError  # noqa: E402


def __getattr__(name):  # lazy: importing reverie must stay cheap for the CLI
    if name == "Memory":
        from .api import Memory

        return Memory
    raise AttributeError(name)


__all__ = ["Memory", "ReverieError", "UserError", "__version__"]
