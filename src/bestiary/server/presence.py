"""Who is at the table: each seat is connected, away (with the time left before a computer takes over) or
played by a computer, and everyone in the room is told whenever that changes.

A seat whose player is away is held for the grace period (`Settings.disconnect_grace`). Each seat has at most
one grace timer: a return cancels it, the next departure starts a fresh one, so the grace counts from the
last departure and timers never pile up however often a player reconnects. `check` (run after every change
of the room, after a start and after a restart) starts the timer of every seat that is taken but has no
connection, which covers seats that never connected and seats whose players were connected when the server
was stopped: the grace then counts from the restart.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Literal, Protocol

from bestiary.server import protocol
from bestiary.server.broadcast import Connection
from bestiary.server.seats import Seat
from bestiary.server.settings import Settings

REST_PRESENT_SECONDS = 30.0  # a player without a websocket counts as connected this long after a request
SeatPresence = Literal["open", "connected", "away", "computer"]


class Table(Protocol):
    """What presence needs of its room (server/room.py)."""

    seats: list[Seat]
    connections: set[Connection]
    settings: Settings

    @property
    def status(self) -> str: ...

    @property
    def rematch_of(self) -> str | None: ...

    def send_view(self, connection: Connection, kind: Literal["welcome", "state"]) -> None: ...

    def broadcast(self) -> None: ...

    async def away_too_long(self, seat: int, grace: float) -> None:
        """The grace is over: a computer takes the seat, if it is still held."""


class Presence:
    """One room's presence: the grace timer and hand-over deadline of each away seat."""

    def __init__(self, room: Table) -> None:
        self.room = room
        self.clock = room.settings.clock
        self.timers: dict[int, asyncio.Task[None]] = {}  # one per away seat, never more
        self.deadlines: dict[int, datetime] = {}  # when the away seat goes to a computer (UTC, fixed per timer)
        self.rest_seen: dict[int, float] = {}  # event-loop time of each seat's last REST request

    # -- what everyone sees -------------------------------------------------------------------------
    def connected(self, seat: int) -> bool:
        """A websocket is open for the seat."""
        return any(c.seat == seat for c in self.room.connections)

    def polled_lately(self, seat: int) -> bool:
        seen = self.rest_seen.get(seat)
        return seen is not None and self.clock.time() - seen < REST_PRESENT_SECONDS

    def of(self, seat: int) -> SeatPresence:
        info = self.room.seats[seat]
        if info.kind == "bot":
            return "computer"
        if info.token_hash is None:
            return "open"
        return "connected" if self.connected(seat) or self.polled_lately(seat) else "away"

    def seat_info(self, seat: int) -> protocol.SeatInfo:
        info = self.room.seats[seat].info()
        presence = self.of(seat)
        reclaimable = presence == "computer" and self.room.seats[seat].token_hash is not None
        return info.model_copy(update={"presence": presence, "reclaimable": reclaimable,
                                       "hand_over_at": self.deadlines.get(seat) if presence == "away" else None})

    # -- arrivals and departures --------------------------------------------------------------------
    def arrived(self, connection: Connection) -> None:
        """A connection for a seat opened: the grace stops, and if the seat was away the others are told."""
        seat = connection.seat
        if seat is None:
            return
        self.cancel(seat)
        if sum(c.seat == seat for c in self.room.connections) == 1:  # the seat was away until now
            for other in self.room.connections:
                if other is not connection:
                    self.room.send_view(other, "state")

    def returned_by_rest(self, seat: int | None) -> None:
        """A REST request with the seat's token: a player without a websocket counts as connected for a while,
        and their grace counts from then."""
        if seat is None or self.room.seats[seat].kind == "bot":
            return
        was_away = self.of(seat) == "away"
        self.rest_seen[seat] = self.clock.time()
        if not self.connected(seat):
            self.cancel(seat)
            self.check()
        if was_away:
            self.room.broadcast()

    def departed(self, seat: int | None) -> None:
        """A seat's last connection closed: its grace starts now."""
        if seat is None or self.connected(seat):
            return
        self.cancel(seat)
        self.check()
        self.room.broadcast()

    def check(self) -> None:
        """Start the grace of every taken seat that has no connection and no timer yet; forget the timers of
        seats that are back or no longer a person's."""
        grace = self.room.settings.disconnect_grace
        for seat in list(self.timers):
            if not self.held(seat):
                self.cancel(seat)
        if grace is None:
            return
        for seat in range(len(self.room.seats)):
            if self.held(seat) and seat not in self.timers:
                polled = self.rest_seen.get(seat)
                left = 0.0 if polled is None else polled + REST_PRESENT_SECONDS - self.clock.time()
                self.start_grace(seat, grace + max(0.0, left))

    def held(self, seat: int) -> bool:
        """Whether the seat waits for a person without a websocket: a player's during the game, or, before a
        rematch starts, the seat of a player who had left the game before."""
        room = self.room
        if room.status == "playing":
            return self.of(seat) in ("away", "connected") and not self.connected(seat)
        return room.status == "waiting" and room.rematch_of is not None and self.of(seat) == "open"

    def start_grace(self, seat: int, grace: float) -> None:
        self.deadlines[seat] = self.clock.wall() + timedelta(seconds=grace)
        task = asyncio.get_running_loop().create_task(self.hand_over_when_due(seat, grace))
        self.timers[seat] = task
        task.add_done_callback(lambda done: self.forget(seat, done))

    def forget(self, seat: int, task: asyncio.Task[None]) -> None:
        if self.timers.get(seat) is task:
            del self.timers[seat]
            self.deadlines.pop(seat, None)

    def cancel(self, seat: int) -> None:
        task = self.timers.pop(seat, None)
        self.deadlines.pop(seat, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def hand_over_when_due(self, seat: int, grace: float) -> None:
        await self.clock.sleep(grace)
        await self.room.away_too_long(seat, grace)

    def close(self) -> None:
        for seat in list(self.timers):
            self.cancel(seat)
