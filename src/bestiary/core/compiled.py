"""Bestiary's optional compiled paths: C modules built at install time beside the Python they stand in for.

Each compiled module has a pure-Python twin that gives identical results; the tests compare the two step by step.
`compiled(name)` hands out the module, or None where it was not built (no C compiler at install time) or where
the environment variable BESTIARY_PURE_PYTHON is set to a non-empty value (read once, when the module is first
asked for). docs/architecture.md, *Compiled paths*, says what is compiled and how it is built.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

PURE_PYTHON = "BESTIARY_PURE_PYTHON"
_loaded: dict[str, ModuleType | None] = {}


def compiled(name: str) -> ModuleType | None:
    """The compiled module `name` (e.g. "bestiary.games.crits._turn"), or None where the Python twin runs."""
    if name not in _loaded:
        module = None
        if not os.environ.get(PURE_PYTHON):
            try:
                module = importlib.import_module(name)
            except ImportError:
                module = None
        _loaded[name] = module
    return _loaded[name]
