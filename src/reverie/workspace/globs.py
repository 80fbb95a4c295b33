"""Glob matching for configured extra paths, shared by indexing and memory_get.

The rules are the shell's and gitignore's, which users already know (``wcmatch``, not
``fnmatch``, whose ``*`` also crossed ``/``): patterns are relative to the extra path's folder
and use ``/`` on every platform; ``*`` and ``?`` never cross a ``/``; ``**`` as a whole path part
matches any number of folders, none included (``**/*.md`` takes ``a.md`` and ``x/y/a.md``);
``[abc]`` and ``{md,txt}`` work as in the shell. As in the shell, ``*`` does not match a leading
dot (discovery skips dot-files and dot-folders anyway). A leading ``/`` or ``./`` anchors nothing
more: every pattern is already relative to its folder. Matching is case-sensitive.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=256)
def _compiled(pattern: str):
    from wcmatch import glob  # lazy: only workspaces with extra-path patterns need it

    while pattern.startswith(("/", "./")):
        pattern = pattern[2:] if pattern.startswith("./") else pattern[1:]
    return glob.compile(pattern, flags=glob.GLOBSTAR | glob.BRACE | glob.FORCEUNIX)


def glob_match(rel: str, pattern: str) -> bool:
    """Whether ``rel`` (a '/'-separated path relative to the extra folder) matches ``pattern``."""
    return _compiled(pattern).match(rel)
