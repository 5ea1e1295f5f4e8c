"""Stopping a long command: Ctrl-C (exit 130) or SIGTERM (exit 143) ends it at once with one line, its
workers ended and no partial file left (writers write beside their file and rename it when complete)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import typer
from rich.console import Console

SIGINT_EXIT, SIGTERM_EXIT = 130, 143  # 128 + the signal's number, as shells report them


class Terminated(BaseException):
    """SIGTERM, raised where the main thread is, as Ctrl-C raises KeyboardInterrupt."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextmanager
def stoppable(console: Console, what: str) -> Iterator[None]:
    """Within the block, Ctrl-C and SIGTERM stop `what` (e.g. "the simulation") with one line and the
    shell's exit status; the previous SIGTERM handler comes back after."""
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except KeyboardInterrupt:
        console.print(f"Stopped {what} (Ctrl-C): nothing written.")
        raise typer.Exit(SIGINT_EXIT) from None
    except Terminated:
        console.print(f"Stopped {what} (SIGTERM): nothing written.")
        raise typer.Exit(SIGTERM_EXIT) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
