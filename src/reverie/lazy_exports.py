"""Package namespaces that import a submodule when one of its names is first used (PEP 562).

A package whose ``__init__`` imported every submodule to re-export its names made importing any
one submodule import them all: ``reverie get`` loaded standing intents, tables and the session
tools to read one file. Such a package names its exports, module by module, and gets them through
:func:`lazy_exports`; ``from reverie.trust import Trust`` works as before.

An exported name must not also be the name of a submodule: importing that submodule would set
the package's attribute to the module (see ``reverie.sessions``, which imports that one eagerly).
"""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Iterable


def lazy_exports(package: str, modules: dict[str, Iterable[str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: ``modules`` maps a relative submodule name
    (``".store"``) to the names it exports. A name is imported on its first use and then kept as
    an ordinary attribute of the package."""
    where = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
