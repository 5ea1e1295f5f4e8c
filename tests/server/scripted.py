"""Scripted players: each plays one seat over the websocket or REST as a person's browser would, survives
the server going away, and remembers every move it sent and what became of it, so the database can be
checked against what the clients were told (the fault tests and benchmarks/server_load.py).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx
from sqlalchemy import create_engine, select
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from bestiary.core.api import CHANCE
from bestiary.server.db import moves

OPEN_SECONDS = 60.0  # a client that connects while the server restarts waits in the listener's backlog
RECONNECT_SECONDS = 0.1
POLL_SECONDS = 0.05  # how often a REST player looks when it is not its turn
LOST = (ConnectionClosed, InvalidHandshake, OSError, TimeoutError, httpx.TransportError)
Outcome = Literal["waiting", "accepted", "refused", "unknown", "superseded"]


@dataclass
class Sent:
    """One move a script sent. `unknown`: the connection was lost before the answer came, so the server may
    or may not have made it; `superseded`: unknown, then sent again and accepted, so the first was not made."""

    action: str
    version: int
    sent_at: float
    resend_of: Sent | None = None
    outcome: Outcome = "waiting"
    error: str | None = None
    version_after: int | None = None
    observation: Any = None  # the mover's observation at version_after, as the server sent it
    answered_at: float | None = None


@dataclass(eq=False)
class SeatScript:
    """Plays `seat` of room `code` with uniformly random legal moves from `rng`, after thinking for up to
    `think` seconds."""

    base: str
    code: str
    seat: int
    token: str
    transport: Literal["ws", "rest"]
    rng: random.Random
    think: float = 0.0
    sent: list[Sent] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    view: dict[str, Any] | None = None
    pending: Sent | None = None
    lost: Sent | None = None  # sent just before a lost connection: sent again once connected
    connections: int = 0
    losses: list[str] = field(default_factory=list)  # why each connection or request was lost

    @property
    def finished(self) -> bool:
        return self.view is not None and self.view["room"]["status"] == "finished" and self.pending is None

    async def play(self) -> None:
        await (self.play_websocket() if self.transport == "ws" else self.play_rest())

    # -- what the server said ----------------------------------------------------------------------
    def take(self, view: dict[str, Any]) -> None:
        """A view whose events continue this seat's log: a gap or a repeat is a server bug."""
        if view["events_from"] != len(self.events):
            raise AssertionError(f"room {self.code} seat {self.seat}: events resume at {view['events_from']}, "
                                 f"but {len(self.events)} were received")
        self.events.extend(view["events"])
        self.view = view

    def answered(self, accepted: bool, version_after: int | None = None, error: str | None = None,
                 observation: Any = None) -> None:
        sent, self.pending = self.pending, None
        assert sent is not None, f"room {self.code} seat {self.seat}: an answer to no move"
        sent.answered_at = time.perf_counter()
        if accepted:
            sent.outcome, sent.version_after, sent.observation = "accepted", version_after, observation
            if sent.resend_of is not None:
                sent.resend_of.outcome = "superseded"
        else:
            sent.outcome, sent.error = "refused", error

    def connection_lost(self, reason: BaseException | None = None) -> None:
        if reason is not None:
            self.losses.append(type(reason).__name__)
        if self.pending is not None:
            self.pending.outcome = "unknown"
            self.lost, self.pending = self.pending, None

    def to_act(self) -> bool:
        view = self.view
        return (view is not None and view["room"]["status"] == "playing" and self.seat in view["to_act"]
                and bool(view["legal_actions"]))

    async def next_move(self) -> Sent | None:
        """The lost move again (once), else a random legal move when this seat is to act."""
        lost, self.lost = self.lost, None
        if lost is not None:
            move = Sent(lost.action, lost.version, time.perf_counter(), resend_of=lost)
        else:
            if not self.to_act():
                return None
            if self.think:
                await asyncio.sleep(self.rng.uniform(0.0, self.think))
            assert self.view is not None
            move = Sent(self.rng.choice(self.view["legal_actions"]), self.view["version"], time.perf_counter())
        self.sent.append(move)
        self.pending = move
        return move

    # -- the two ways to play ----------------------------------------------------------------------
    async def play_websocket(self) -> None:
        url = self.base.replace("http", "ws", 1) + f"/api/rooms/{self.code}/ws"
        while not self.finished:
            try:
                async with connect(url, open_timeout=OPEN_SECONDS, ping_interval=None) as socket:
                    self.connections += 1
                    await socket.send(json.dumps({"type": "hello", "token": self.token,
                                                  "events_seen": len(self.events)}))
                    await self.websocket_turns(socket)
                if not self.finished:  # closed by the server (1012: the room moved to another worker)
                    self.connection_lost()
            except LOST as error:
                self.connection_lost(error)
                await asyncio.sleep(RECONNECT_SECONDS)

    async def websocket_turns(self, socket: ClientConnection) -> None:
        async for raw in socket:
            message = json.loads(raw)
            kind = message["type"]
            if kind in ("welcome", "state"):
                self.take(message["view"])
            elif kind == "accepted":
                assert self.view is not None and self.view["version"] == message["version"], (
                    f"room {self.code}: 'accepted' for version {message['version']} did not follow its state")
                self.answered(True, message["version"], observation=self.view["observation"])
            elif kind == "error" and message["ref"] is not None:
                self.answered(False, error=message["error"])
                if message["error"] == "unavailable":
                    await asyncio.sleep(RECONNECT_SECONDS)
            elif kind == "error":
                raise AssertionError(f"room {self.code} seat {self.seat}: {message}")
            if self.finished:
                return
            if self.pending is None and (move := await self.next_move()) is not None:
                await socket.send(json.dumps({"type": "move", "action": move.action, "version": move.version,
                                              "ref": str(len(self.sent))}))

    async def play_rest(self) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx.AsyncClient(base_url=self.base, headers=headers, timeout=OPEN_SECONDS) as http:
            while not self.finished:
                try:
                    await self.rest_turn(http)
                except LOST as error:
                    self.connection_lost(error)
                    await asyncio.sleep(RECONNECT_SECONDS)

    async def rest_turn(self, http: httpx.AsyncClient) -> None:
        self.connections += 1
        answer = await http.get(f"/api/rooms/{self.code}/view", params={"events_from": len(self.events)})
        if answer.status_code in (502, 503):  # no worker for the room yet, or one taking it over
            self.losses.append(str(answer.status_code))
            await asyncio.sleep(RECONNECT_SECONDS)
            return
        assert answer.status_code == 200, answer.text
        self.take(answer.json())
        move = await self.next_move()
        if move is None:
            await asyncio.sleep(POLL_SECONDS)
            return
        answer = await http.post(f"/api/rooms/{self.code}/moves", json={"action": move.action,
                                                                          "version": move.version})
        if answer.status_code == 200:
            after = answer.json()
            self.answered(True, after["version"], observation=after["observation"])
        else:
            assert answer.status_code in (400, 409, 503), answer.text
            self.answered(False, error=answer.json()["error"])
            if answer.status_code == 503:
                await asyncio.sleep(RECONNECT_SECONDS)


Table = tuple[str, dict[str, Any], list[str]]  # a game, its options, and each seat: "ws", "rest" or an agent


def seat_scripts(base: str, tables: Sequence[Table], rng: random.Random) -> list[SeatScript]:
    """A room for every table (windows long enough that no script misses one), each player seat joined and given
    a script on its transport; every room and every seat must be granted."""
    scripts = []
    with httpx.Client(base_url=base, timeout=30) as http:
        for game, options, seats in tables:
            specs = [{"kind": "human"} if s in ("ws", "rest") else {"kind": "bot", "agent": s} for s in seats]
            room = http.post("/api/rooms", json={"game": game, "options": options, "seats": specs,
                                                 "window_seconds": 120})
            assert room.status_code == 201, room.text
            code = room.json()["code"]
            for seat, transport in enumerate(seats):
                if transport in ("ws", "rest"):
                    token = http.post(f"/api/rooms/{code}/seats/{seat}", json={"name": f"script {seat}"})
                    assert token.status_code == 200, token.text
                    scripts.append(SeatScript(base, code, seat, token.json()["token"], transport,  # type: ignore[arg-type]
                                              random.Random(rng.randrange(2**32))))
    return scripts


def accepted(scripts: Sequence[SeatScript]) -> int:
    """How many moves the scripts have sent that the server accepted."""
    return sum(s.outcome == "accepted" for script in scripts for s in script.sent)


def unexplained_records(scripts: Sequence[SeatScript], rows: Sequence[tuple[int, int, str]]) -> list[str]:
    """Each way the stored moves of one room (number, player, action) disagree with what its scripts were told:
    an accepted move missing, a stored move no script sent, a move stored twice, a gap in the numbers."""
    problems = []
    if [number for number, _, _ in rows] != list(range(len(rows))):
        problems.append(f"move numbers are not 0..{len(rows) - 1}: {[number for number, _, _ in rows]}")
        return problems
    for script in scripts:
        claimed: set[int] = set()
        for sent in script.sent:
            if sent.outcome != "accepted":
                continue
            assert sent.version_after is not None
            number = sent.version_after - 1  # the move, then the chance outcomes it led to
            while number >= 0 and rows[number][1] == CHANCE:
                number -= 1
            if number < sent.version or number in claimed or rows[number][1:] != (script.seat, sent.action):
                problems.append(f"seat {script.seat}: accepted '{sent.action}' (chosen at {sent.version}, "
                                f"version {sent.version_after} after it) is not stored as move {number}")
            claimed.add(number)
        maybe = [sent for sent in script.sent if sent.outcome == "unknown"]
        for number, player, action in rows:
            if player != script.seat or number in claimed:
                continue
            match = next((s for s in maybe if s.action == action and s.version <= number), None)
            if match is None:
                problems.append(f"seat {script.seat}: stored move {number} '{action}' was never sent, or twice")
            else:
                maybe.remove(match)
    return problems


def stored_moves(url: str, code: str) -> list[tuple[int, int, str]]:
    """A room's stored moves as (number, player, action), in order."""
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(select(moves.c.number, moves.c.player, moves.c.action)
                                  .where(moves.c.room_code == code).order_by(moves.c.number)).all()
    engine.dispose()
    return [(number, player, action) for number, player, action in rows]
