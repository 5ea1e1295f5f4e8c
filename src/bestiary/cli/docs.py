"""Finding the documents that ship with Bestiary (rules, scenario format)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DOCS = Path(__file__).resolve().parent.parent / "_docs"
_SOURCE_DOCS = Path(__file__).resolve().parents[3] / "docs"


def doc_path(relative: str) -> Path | None:
    """A document from the installed package, or from the source tree in a checkout."""
    for root in (_PACKAGE_DOCS, _SOURCE_DOCS):
        candidate = root / relative
        if candidate.is_file():
            return candidate
    return None
