"""The server's log: one line per event, `key=value` fields an operator can grep and a program can split.

    2026-12-02T18:01:02Z info event=join room=Xb3... seat=1 name="Ada L"
    2026-12-02T18:01:09Z warning event=limit limit=rest-rate address=203.0.113.9

Events name rooms, seats and addresses, never a token or anything a seat hides; an error is one line with
its type and message, never a traceback, so a client that sends garbage cannot fill the disk with stacks.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import traceback
from pathlib import Path
from typing import Any

log = logging.getLogger("bestiary.server")
SECRET_FIELDS = frozenset({"token", "authorization", "hand", "cards", "email", "webhook"})
LEVELS = {"join": logging.INFO, "limit": logging.WARNING, "error": logging.ERROR,
          "turn-notice-failed": logging.WARNING, "turn-notice-dropped": logging.WARNING}


def field_text(value: Any) -> str:
    text = str(value)
    if text and all(c.isalnum() or c in "-_.:/@" for c in text):
        return text
    return json.dumps(text, ensure_ascii=False)


def line(name: str, fields: dict[str, Any]) -> str:
    """`event=NAME key=value ...`; a value with spaces or quotes is quoted as JSON."""
    hidden = SECRET_FIELDS.intersection(fields)
    if hidden:  # a programming error, caught by the tests: never write a secret, even to the log
        raise ValueError(f"a log line may not hold {sorted(hidden)}")
    return " ".join([f"event={name}", *(f"{key}={field_text(value)}" for key, value in fields.items())])


def event(name: str, /, **fields: Any) -> None:
    """Logs one event as one line, e.g. `event("join", room=code, seat=1)`, at its level in LEVELS."""
    chosen = LEVELS.get(name, logging.INFO)
    if log.isEnabledFor(chosen):
        log.log(chosen, "%s", line(name, fields))


class OneLine(logging.Formatter):
    """`TIME LEVEL MESSAGE`, with an exception as `error=TYPE message=... at=FILE:LINE` on the same line."""

    def format(self, record: logging.LogRecord) -> str:
        moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(record.created))
        message = record.getMessage().replace("\n", " ")
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message += f" error={type(error).__name__} message={field_text(str(error)[:300])}"
            frames = traceback.extract_tb(error.__traceback__)
            if frames:  # where it was raised, enough to find it again without a page of stack
                message += f" at={Path(frames[-1].filename).name}:{frames[-1].lineno}"
        return f"{moment} {record.levelname.lower()} {message}"


def configure(level: str = "info") -> None:
    """Bestiary's own lines to standard error at `level` (uvicorn configures only its own loggers); the
    websocket library's report of a malformed frame becomes one line too."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    root = logging.getLogger("bestiary")
    root.handlers = [handler]
    root.setLevel(level.upper())
    root.propagate = False
    for noisy in ("websockets", "uvicorn.error"):
        logging.getLogger(noisy).addFilter(no_traceback)


def no_traceback(record: logging.LogRecord) -> bool:
    """A frame a client got wrong (invalid UTF-8, a bad opcode) is the client's error: one line, no stack."""
    if record.exc_info and record.exc_info[1] is not None and is_client_error(record.exc_info[1]):
        error = record.exc_info[1]
        record.msg = f"event=bad-frame error={type(error).__name__} message={field_text(str(error)[:200])}"
        record.args = ()
        record.exc_info = None
        record.exc_text = None
    return True


def is_client_error(error: BaseException) -> bool:
    from websockets.exceptions import ProtocolError

    return isinstance(error, UnicodeDecodeError | ProtocolError)
