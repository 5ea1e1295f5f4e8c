"""Reading a TOML data file (a card set, a value file) with errors that name the file and the line."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any


def read_toml(path: Path, fail: Callable[..., Exception]) -> tuple[str, dict[str, Any]]:
    """The file's text and its tables. A file that cannot be read, is not UTF-8 or is not TOML raises
    `fail(message, line=...)`, the caller's error for its kind of file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise fail(f"cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise fail("not UTF-8 text") from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        match = re.search(r"line (\d+)", str(error))
        raise fail(f"not valid TOML: {error}", line=int(match.group(1)) if match else None) from None
