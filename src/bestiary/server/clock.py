"""The time the server's timers keep: disconnect graces, turn clocks, response windows, bot delays and the
sweep of idle rooms all read `Clock.time()` and wait with `Clock.sleep()`. A server runs on `WallClock`;
tests give `Settings.clock` a clock they advance by hand (tests/server/clocks.py), so nothing waits on
real seconds."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Protocol

from bestiary.server.db import now


class Clock(Protocol):
    def time(self) -> float:
        """Seconds on a monotonic scale: only differences mean anything."""

    async def sleep(self, seconds: float) -> None:
        """Returns once `seconds` have passed on this clock (at once for none)."""

    def wall(self) -> datetime:
        """The date and time now (UTC), for what is stored or shown to people."""


class WallClock:
    """Real time: the event loop's clock and the system's date."""

    def time(self) -> float:
        return asyncio.get_running_loop().time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    def wall(self) -> datetime:
        return now()


def wall_time(clock: Clock, at: float) -> datetime:
    """The date and time of the moment `at` on `clock`."""
    return clock.wall() + timedelta(seconds=at - clock.time())
