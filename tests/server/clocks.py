"""A clock the tests move by hand: the server's timers (graces, turn clocks, windows, bot delays) wait on it
instead of on real seconds, so a test of a two-minute grace takes no time and never races the machine."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

SETTLE_TURNS = 5  # loop turns given to tasks just started before time moves (so their sleeps are counted)


class ManualClock:
    """Time stands still until `advance` (from the test's thread, with the server on its own loop) or
    `run_for` (from a test running on the server's loop) moves it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.start = datetime.now(UTC)
        self.lock = threading.Lock()
        self.sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self.arrivals = itertools.count()
        self.loop: asyncio.AbstractEventLoop | None = None

    def time(self) -> float:
        with self.lock:
            return self.now

    def wall(self) -> datetime:
        return self.start + timedelta(seconds=self.time())

    async def sleep(self, seconds: float) -> None:
        self.loop = asyncio.get_running_loop()
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        woken: asyncio.Future[None] = self.loop.create_future()
        with self.lock:
            heapq.heappush(self.sleepers, (self.now + seconds, next(self.arrivals), woken))
        await woken

    def advance(self, seconds: float) -> None:
        """Moves time on by `seconds`, from a thread other than the server's: the server's loop first runs
        what it has ready (timers just set start sleeping), then every sleep that has ended is woken."""
        loop = self.loop
        if loop is None or not loop.is_running():
            self.move_on(seconds)
            return
        asyncio.run_coroutine_threadsafe(self.run_for(seconds), loop).result(timeout=10)

    async def run_for(self, seconds: float) -> None:
        """`advance`, from a coroutine on the server's own loop."""
        for _ in range(SETTLE_TURNS):
            await asyncio.sleep(0)
        self.move_on(seconds)
        for _ in range(SETTLE_TURNS):
            await asyncio.sleep(0)

    def move_on(self, seconds: float) -> None:
        with self.lock:
            self.now += seconds
            due = []
            while self.sleepers and self.sleepers[0][0] <= self.now:
                due.append(heapq.heappop(self.sleepers)[2])
        for woken in due:
            if not woken.get_loop().is_closed():  # else the timer of a server since stopped
                woken.get_loop().call_soon_threadsafe(wake, woken)


def wake(woken: asyncio.Future[None]) -> None:
    if not woken.done():  # a timer cancelled meanwhile stays cancelled
        woken.set_result(None)


def advance_until(clock: ManualClock, done: Callable[[], bool], step: float, seconds: float = 10.0) -> None:
    """Moves `clock` on by `step` at a time until `done()`; fails after `seconds` of real time (a server that
    never gets there)."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, "the server never got there"
        clock.advance(step)
