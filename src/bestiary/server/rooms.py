"""Rooms: one game each, its seats, its connections, its bots and its response windows.

A move follows one path: check the seat's token and the state version, apply it through
`State.apply_action` on a copy, play any chance outcomes that follow, commit every new move to the
database, and only then make the copy the room's state and send each viewer its own view. The database
calls run on the Store's worker threads while the room's lock is held, so the event loop serves other
rooms meanwhile and the moves of one room are stored in the order they were made.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from bestiary.agents import Agent, HeuristicAgent, SeatView, make_agent, pacing
from bestiary.core.api import CHANCE, Event, EventMark, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import BestiaryError
from bestiary.core.registry import game_class, list_games, load_game
from bestiary.server import protocol
from bestiary.server.cluster import ADOPT_SECONDS, HANDED_OVER_SECONDS, Leases
from bestiary.server.commits import GroupCommit
from bestiary.server.db import Store, as_utc, hash_token, now
from bestiary.server.limits import (
    DEFAULT_OPTION_RANGES,
    HANG_UP,
    LOBBY_PAGE,
    ConfiguredGames,
    OptionRange,
    Outbox,
    out_of_range,
)
from bestiary.server.presence import Presence
from bestiary.server.thinking import BOTS_ONLY, PEOPLE_FIRST, Thinkers, searches

WINDOW_KINDS = ("response", "race", "simultaneous")
CLOSE_MOVED = 1012  # RFC 6455 "service restart": the room moved to another worker; reconnect
log = logging.getLogger("bestiary.server")
RETRY_SECONDS = 1.0
UNAVAILABLE = "the database is not answering, so nothing was changed; try again in a moment"
PASS = "pass"  # the action a response window's player takes by not answering in time
T = TypeVar("T")
ROOM_CODE = re.compile(r"[A-Za-z0-9_-]{16}")  # secrets.token_urlsafe(12): 96 random bits
ONLINE_AGENT = re.compile(r"[a-z][a-z0-9_-]*(:[a-z]+)?")  # a name and at most a level: no custom search budgets


class ServerError(Exception):
    """A refusal the client caused; the message is meant for its user."""

    def __init__(self, error: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.error = error
        self.message = message
        self.status = status


@dataclass
class Seat:
    seat: int
    kind: Literal["human", "bot"]
    agent: str | None = None
    name: str | None = None
    token_hash: str | None = None
    person: bool = False  # a person took this seat (a computer may play it now)

    def info(self) -> protocol.SeatInfo:
        return protocol.SeatInfo(seat=self.seat, kind=self.kind, agent=self.agent, name=self.name,
                                 taken=self.kind == "bot" or self.token_hash is not None)

    def row(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "agent": self.agent, "name": self.name,
                "token_hash": self.token_hash, "person": self.person}


@dataclass
class OpenWindow:
    kind: Literal["response", "race", "simultaneous"]
    players: frozenset[int]
    opened_at_version: int
    deadline: float  # event-loop time


class SeenLog:
    """The room's event log as the game goes, each event read from the state once, and each audience's
    share of it (a seat's, the spectators'): a view sends the new part of its share without reading the
    whole log again."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.events: list[Event] = []
        self.mark: EventMark = None
        self.shares: dict[int | None, list[Event]] = {}
        self.scanned: dict[int | None, int] = {}  # how much of `events` each share has been drawn from

    def share(self, state: State, seat: int | None) -> list[Event]:
        new, mark = state.events_after(self.mark)
        if new is None:  # another game, or an earlier position: read it afresh
            self.reset()
            new, mark = state.events_after(None)
            assert new is not None
        self.events.extend(new)
        self.mark = mark
        share = self.shares.setdefault(seat, [])
        share.extend(event for event in self.events[self.scanned.get(seat, 0):] if event.visible_to(seat))
        self.scanned[seat] = len(self.events)
        return share


@dataclass(eq=False)
class Connection:
    """One websocket: who it speaks for, how much of the event log it has been sent, and what waits to be
    written to it (bounded: server/limits.py)."""

    seat: int | None
    outbox: Outbox = field(default_factory=Outbox)
    events_seen: int = 0
    close_code: int | None = None  # set with HANG_UP: the writer then closes the websocket with it


@dataclass
class Settings:
    bot_delay: float = 0.5  # seconds a bot waits before an ordinary move, so people can follow
    reaction_scale: float = 1.0  # multiplies each agent's race reaction time (0 in tests: instant)
    disconnect_grace: float | None = 120.0  # seconds a disconnected player's seat is held; None: for ever
    max_message_bytes: int = 4096  # one websocket message
    message_rate: float = 10.0  # websocket messages a connection may send per second, on average...
    message_burst: int = 30  # ...and at once
    max_strikes: int = 20  # oversized, binary or over-rate messages a connection may send before it is closed
    max_outbox: int = 1 << 20  # characters of JSON waiting for one websocket before it is cut off (CLOSE_BEHIND)
    max_body_bytes: int = 65536  # one REST request body
    finished_room_seconds: float = 300.0  # a finished room leaves memory this long after its last connection
    automatic_passes: bool = True  # a person's seat that can only pass a window passes by itself (agents/pacing.py)
    # what one client may make the server build and keep (server/limits.py, docs/reliability.md)
    option_ranges: tuple[OptionRange, ...] = DEFAULT_OPTION_RANGES  # the options that build a larger game
    games_kept: int = 16  # configured games held for new rooms, the least recently used dropped first
    waiting_rooms_per_address: int = 20  # rooms one address may have waiting for players at once
    max_waiting_rooms: int = 1000  # rooms waiting for players on the whole server
    waiting_room_seconds: float = 900.0  # a waiting room with nobody connected is deleted after this long
    bot_processes: int = 1  # processes search bots think in; at most this many searches at once (0: threads)
    cluster: bool = False  # one of several workers on one PostgreSQL database (server/cluster.py)


class Room:
    def __init__(self, hub: Hub, code: str, game: Game, seed: int, seats: list[Seat], window_seconds: float,
                 turn_seconds: float | None = None, status: str = "waiting", result: dict[str, Any] | None = None,
                 rematch: str | None = None, public: bool = False, rematch_of: str | None = None) -> None:
        self.hub = hub
        self.code = code
        self.game = game
        self.seed = seed
        self.state: State = game.new_initial_state(seed=seed)
        self.seen = SeenLog()
        self.options = game.options_dict()  # as RoomInfo shows them; the game's options never change
        self.seats = seats
        self.window_seconds = window_seconds
        self.turn_seconds = turn_seconds
        self.turn_deadline: float | None = None  # event-loop time when the turn clock runs out
        self.status = status
        self.result = result
        self.rematch = rematch
        self.public = public  # listed in the lobby; a private room is reached only through its invite link
        self.rematch_of = rematch_of
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.window: OpenWindow | None = None
        self.rng = random.Random(secrets.randbits(64))  # chance outcomes and bots; never predictable by a client
        self.agents: dict[int, Agent] = {s.seat: make_agent(s.agent or "random") for s in seats if s.kind == "bot"}
        self.timers: list[asyncio.Task[None]] = []
        self.presence = Presence(self)  # its grace timers are apart from `timers`: a move must not cancel them
        self.due_now: set[asyncio.Task[None]] = set()  # timers without delay, which `settled` waits for
        self.creator: str | None = None  # the address that made it, while it waits for players
        self.closed = False  # left this worker's memory: its connections' ends must not act on it
        self.idle_since = asyncio.get_running_loop().time()  # when last seen waiting with nobody connected

    # -- what anyone may see ------------------------------------------------------------------------
    @property
    def version(self) -> int:
        return self.state.history_length()

    def info(self) -> protocol.RoomInfo:
        return protocol.RoomInfo(
            code=self.code, game=self.game.info.name, title=self.game.info.title,
            options=self.options, status=self.status,  # type: ignore[arg-type]
            seats=[self.presence.seat_info(s.seat) for s in self.seats], window_seconds=self.window_seconds,
            turn_seconds=self.turn_seconds, version=self.version,
            result=self.result, rematch=self.rematch, public=self.public)

    def view(self, seat: int | None, events_from: int = 0, info: protocol.RoomInfo | None = None) -> protocol.View:
        """What `seat` (None: a spectator) may see, with its events from `events_from` on; `info`: the room's, if
        already made for this broadcast."""
        state = self.state
        to_act = state.players_to_act() if self.status == "playing" else []
        playing = seat is not None and seat in to_act and self.seats[seat].kind == "human"  # not a computer's
        legal = [str(a) for a in state.legal_actions(seat)] if playing else []
        events = self.seen.share(state, seat)
        window = None
        loop = asyncio.get_running_loop()
        if self.window is not None:
            window = protocol.Window(kind=self.window.kind, players=to_act,
                                     opened_at_version=self.window.opened_at_version, seconds=self.window_seconds,
                                     closes_in=max(0.0, self.window.deadline - loop.time()))
        return protocol.View(
            room=info or self.info(), seat=seat, version=self.version,
            decision_kind=state.decision_kind() if self.status == "playing" else self.status,
            to_act=to_act, legal_actions=legal, observation=state.observation(seat),
            events=[protocol.EventView(kind=e.kind, text=e.text, data=dict(e.data), rules=list(e.rules))
                    for e in events[events_from:]],
            events_from=min(events_from, len(events)), window=window,
            turn_closes_in=None if self.turn_deadline is None else max(0.0, self.turn_deadline - loop.time()))

    async def settled(self) -> None:
        """Returns once no change is under way or due now (a bot without delay), so a look that follows sees
        the commit being written meanwhile on a database thread."""
        while True:
            async with self.lock:
                if not self.due_now:
                    return
            await asyncio.wait(self.due_now)

    def seat_of(self, token: str | None) -> int | None:
        """The seat a token acts for; None for no token (a spectator). A wrong token is refused."""
        if token is None:
            return None
        hashed = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, hashed):
                return seat.seat
        raise ServerError("bad-token", "this seat token is not valid for this room", 403)

    # -- seats --------------------------------------------------------------------------------------
    async def join(self, seat_number: int, name: str) -> str:
        async with self.lock:
            if not 0 <= seat_number < len(self.seats):
                raise ServerError("no-seat", f"this room has seats 0 to {len(self.seats) - 1}", 404)
            seat = self.seats[seat_number]
            if seat.kind == "bot" or seat.token_hash is not None:
                raise ServerError("seat-taken", f"seat {seat_number + 1} is taken", 409)
            token = secrets.token_urlsafe(24)
            token_hash, seat_name = hash_token(token), name.strip() or f"Player {seat_number + 1}"
            await self.store(self.hub.store.update_seat, self.code, seat_number, token_hash=token_hash,
                             name=seat_name, person=True)
            seat.token_hash, seat.name, seat.person = token_hash, seat_name, True
            self.idle_since = asyncio.get_running_loop().time()
            if self.status == "waiting" and self.full():
                await self.start_when_stored()
            else:
                self.changed()
        return token

    async def leave(self, seat_number: int) -> None:
        """Before the game, the seat opens again; during it, a heuristic bot plays it to the end."""
        async with self.lock:
            seat = self.seats[seat_number]
            if self.status == "waiting":
                await self.store(self.hub.store.update_seat, self.code, seat_number, token_hash=None, name=None)
                seat.token_hash = None
                seat.name = None
            elif self.status == "playing":
                await self.hand_to_bot(seat_number)
            self.changed()

    async def hand_to_bot(self, seat_number: int, reclaimable: bool = False) -> None:
        """A heuristic bot plays the seat to the end. A seat taken from an away player stays reclaimable: its
        token still opens the seat's view and may `claim` it back; a seat left on purpose loses its token."""
        seat = self.seats[seat_number]
        token_hash = seat.token_hash if reclaimable else None
        await self.store(self.hub.store.update_seat, self.code, seat_number, kind="bot", agent="heuristic",
                         token_hash=token_hash)
        seat.kind, seat.agent, seat.token_hash = "bot", "heuristic", token_hash
        self.agents[seat_number] = make_agent("heuristic")
        if reclaimable:
            return
        for connection in self.connections:  # whoever left watches from now on, like any spectator
            if connection.seat == seat_number:
                connection.seat = None
                connection.events_seen = 0  # a spectator's log is another list: send it whole

    async def hand_over(self, token: str | None, seat_number: int) -> None:
        """A player at the table hands an away seat to a computer now, without waiting for the grace."""
        async with self.lock:
            asker = self.seat_of(token)
            if asker is None or self.seats[asker].kind != "human":
                raise ServerError("spectator", "only a player at the table can hand a seat to a computer", 403)
            if not 0 <= seat_number < len(self.seats):
                raise ServerError("no-seat", f"this room has seats 1 to {len(self.seats)}", 404)
            if self.status != "playing":
                raise ServerError("not-started", "a seat can be handed to a computer only during the game", 409)
            if self.presence.of(seat_number) != "away":
                raise ServerError("not-away", f"seat {seat_number + 1} is not away: only an absent player's seat "
                                              "can be handed to a computer", 409)
            await self.hand_to_bot(seat_number, reclaimable=True)
            self.changed()

    async def claim(self, token: str | None) -> int:
        """The player whose seat a computer took while they were away takes it back."""
        async with self.lock:
            seat_number = self.seat_of(token)
            if seat_number is None:
                raise ServerError("spectator", "send the seat token of the seat to claim back", 401)
            seat = self.seats[seat_number]
            if seat.kind == "human":
                return seat_number  # already theirs: claiming twice changes nothing
            if self.status != "playing":
                raise ServerError("finished", "the game is over", 409)
            await self.store(self.hub.store.update_seat, self.code, seat_number, kind="human", agent=None)
            seat.kind, seat.agent = "human", None
            self.agents.pop(seat_number, None)
            self.changed()
            return seat_number

    def disconnected(self, seat_number: int | None) -> None:
        """A seat's last connection closed: hold the seat for the grace period, then hand it to a bot."""
        self.presence.departed(seat_number)

    async def chat(self, token: str | None, text: str) -> None:
        async with self.lock:
            seat = self.seat_of(token)
            if seat is None:
                raise ServerError("spectator", "spectators cannot chat; join a seat to talk", 403)
            line = protocol.ChatLine(seat=seat, name=self.seats[seat].name or f"P{seat + 1}", text=text)
            for connection in self.connections:
                connection.outbox.put_nowait(line.model_dump(mode="json"))

    async def start(self) -> None:
        if self.status == "waiting":
            await self.commit_state(self.state.clone(), [], {"status": "playing"})

    async def start_when_stored(self) -> None:
        """Start now or, if the database is away, as soon as it is back (`changed` retries it)."""
        with contextlib.suppress(ServerError):
            await self.start()
        self.changed()

    def full(self) -> bool:
        return all(s.kind == "bot" or s.token_hash for s in self.seats)

    async def store(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A Store method off the event loop; a database that is away is a clean refusal that changed nothing."""
        self.check_still_here()
        try:
            return await self.hub.store.run(method, *args, **kwargs)
        except SQLAlchemyError:
            log.exception("room %s: the database refused %s", self.code, getattr(method, "__name__", method))
            raise ServerError("unavailable", UNAVAILABLE, 503) from None

    # -- moves --------------------------------------------------------------------------------------
    async def move(self, token: str | None, text: str, version: int) -> int:
        """Apply the move of the token's seat; the new version. Refusals change nothing."""
        async with self.lock:
            seat = self.seat_of(token)  # checked under the lock: a seat given up cannot move any more
            if seat is None:
                raise ServerError("spectator", "spectators cannot move; join a seat to play", 403)
            if self.seats[seat].kind == "bot":
                raise ServerError("computer-seat", "a computer plays this seat since you were away; claim it back "
                                                   "to play", 403)
            self.check_turn(seat, version)
            candidate = self.state.clone()
            try:
                candidate.apply_action(text, player=seat)
            except BestiaryError as error:
                raise ServerError("illegal", str(error)) from None
            made = [(self.version, seat, str(candidate.history_since(self.version)[0][1]))]
            await self.commit_state(candidate, made)
            return self.version

    def check_turn(self, seat: int, version: int) -> None:
        if self.status == "waiting":
            raise ServerError("not-started", "the game starts when every seat is taken", 409)
        if self.status == "finished":
            raise ServerError("finished", "the game is over", 409)
        to_act = self.state.players_to_act()
        if version != self.version:
            # Inside a window each listed player answers independently: a move chosen after the window
            # opened still counts after the others' answers (not after the mover's own: that would be a
            # replay); in a race the first move other than a pass has closed it.
            window = self.window
            if (window is None or not window.opened_at_version <= version <= self.version or seat not in to_act
                    or any(player == seat for player, _ in self.state.history_since(version))):
                raise ServerError("stale", f"the game has moved on (your move was chosen at version {version}, "
                                           f"it is now {self.version}): look again and choose anew", 409)
        if seat not in to_act:
            who = ", ".join(f"P{p + 1}" for p in to_act) or "no one"
            raise ServerError("not-your-turn", f"it is not P{seat + 1}'s turn (to act: {who})", 409)

    async def commit_state(self, candidate: State, made: list[tuple[int, int, str]],
                           room_values: dict[str, Any] | None = None) -> None:
        """Play the chance outcomes that follow, store every new move with the room's new status and window in
        one transaction, then adopt the new state."""
        while candidate.is_chance_node():
            made.append((candidate.history_length(), CHANCE, str(sample_chance(candidate, self.rng))))
            candidate.apply_action(made[-1][2])
        values = {"status": self.status, "result": self.result, **(room_values or {})}
        if candidate.is_terminal():
            values.update(status="finished", result=candidate.result())
        window = self.window_after(candidate, values["status"])
        values.update(window_opened_at=None if window is None else window.opened_at_version,
                      window_closes_at=None if window is None else self.wall_clock(window.deadline))
        write = asyncio.ensure_future(self.record(made, values))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            # The worker thread commits regardless: keep the lock until the room agrees with the database.
            await write
            self.adopt(candidate, window, values)
            raise
        self.adopt(candidate, window, values)

    async def record(self, made: list[tuple[int, int, str]], values: dict[str, Any]) -> None:
        """The moves and room values committed with other rooms' (server/commits.py); a database that is away
        is a clean refusal that changed nothing."""
        self.check_still_here()
        try:
            await self.hub.commits.record(self.code, made, values)
        except SQLAlchemyError:
            log.exception("room %s: the database refused the moves", self.code)
            raise ServerError("unavailable", UNAVAILABLE, 503) from None

    def check_still_here(self) -> None:
        """A room that has left this worker (handed over, expired, shut down) writes nothing more."""
        if self.closed:
            raise ServerError("busy", "this room has just moved to another worker; try again in a moment", 503)

    def adopt(self, candidate: State, window: OpenWindow | None, values: dict[str, Any]) -> None:
        if window is not None and window is not self.window:
            # a new window's time runs from now, when its players are told of it, not from before the commit
            window = replace(window, deadline=asyncio.get_running_loop().time() + self.window_seconds)
        self.state, self.window = candidate, window
        self.status, self.result = values["status"], values["result"]
        self.changed()

    def window_after(self, state: State, status: str) -> OpenWindow | None:
        """The window `state` is in: the open one while its players answer one by one, else a new one."""
        kind = state.decision_kind() if status == "playing" else None
        if kind not in WINDOW_KINDS:
            return None
        players = frozenset(state.players_to_act())
        # A window lasts while its players answer one by one; a race ends with its first move that is not a
        # pass (LUNGO-53: a pass takes only its sender out of the race).
        window = self.window
        if (window is None or window.kind != kind or not players <= window.players
                or (kind == "race" and not still_racing(state, window, players))):
            window = OpenWindow(kind, players, state.history_length(),  # type: ignore[arg-type]
                                asyncio.get_running_loop().time() + self.window_seconds)
        return window

    @staticmethod
    def wall_clock(loop_time: float) -> datetime:
        return now() + timedelta(seconds=loop_time - asyncio.get_running_loop().time())

    def restore_window(self, opened_at: int | None, closes_at: datetime | None) -> None:
        """The window a stored room was in, with the time it had left (a full window for older records)."""
        if opened_at is not None and closes_at is not None and self.status == "playing":
            kind = self.state.decision_kind()
            if kind in WINDOW_KINDS:
                left = (as_utc(closes_at) - now()).total_seconds()
                answered = {player for player, _ in self.state.history_since(opened_at)}
                self.window = OpenWindow(kind, frozenset(self.state.players_to_act()) | answered,  # type: ignore[arg-type]
                                         opened_at, asyncio.get_running_loop().time() + max(0.0, left))
                return
        self.window = self.window_after(self.state, self.status)

    # -- after every change: windows, bots, broadcasts ----------------------------------------------
    def changed(self) -> None:
        current = asyncio.current_task()
        for timer in self.timers:
            if timer is not current:
                timer.cancel()
        self.timers = []
        loop = asyncio.get_running_loop()
        kind = self.state.decision_kind() if self.status == "playing" else None
        if self.window is not None:
            self.later(self.window.deadline - loop.time(), self.close_window)
        if self.status == "waiting" and self.full():  # every seat is taken but the database refused the start
            self.later(RETRY_SECONDS, self.start)
        self.turn_deadline = None
        if self.status == "playing":
            for player in self.state.players_to_act():
                if player in self.agents:
                    self.later(self.bot_delay(player, kind), self.bot_move, player)
                elif self.hub.settings.automatic_passes and pacing.automatic_pass(self.state, player) is not None:
                    delay = pacing.pass_delay(self.state, player, self.rng) * self.hub.settings.reaction_scale
                    self.later(delay, self.turn_ran_out, player, self.version)
                elif kind == "turn" and self.turn_seconds is not None:
                    self.turn_deadline = loop.time() + self.turn_seconds
                    self.later(self.turn_seconds, self.turn_ran_out, player, self.version)
        elif self.status == "finished":
            self.later(self.hub.settings.finished_room_seconds, self.evict_when_idle)
        self.presence.check()
        self.broadcast()

    def later(self, delay: float, job: Callable[..., Awaitable[None]], *args: Any) -> None:
        async def run() -> None:
            await asyncio.sleep(max(0.0, delay))
            async with self.lock:
                try:
                    await job(*args)
                except ServerError as error:  # the database is away: try again, the room must not stall
                    log.warning("room %s: %s failed (%s); retrying", self.code, job.__name__, error.message)
                    self.later(RETRY_SECONDS, job, *args)
                except Exception:  # a bug in one job must not silence the room's other timers
                    log.exception("room %s: %s failed", self.code, job.__name__)
        task = asyncio.get_running_loop().create_task(run())
        self.timers.append(task)
        if delay <= 0:
            self.due_now.add(task)
            task.add_done_callback(self.due_now.discard)

    async def expire(self) -> None:
        """A waiting room nobody came to: deleted, from memory and from the database."""
        async with self.lock:
            if self.status != "waiting" or self.connections or self.hub.rooms.get(self.code) is not self:
                return
            await self.store(self.hub.store.delete_room, self.code)
            log.info("room %s: waited with nobody connected for %ss, deleted", self.code,
                     self.hub.settings.waiting_room_seconds)
            del self.hub.rooms[self.code]
            self.close()
        await self.hub.let_go(self.code)

    async def evict_when_idle(self) -> None:
        """A finished room leaves memory once no one watches it; it loads again from the database on demand."""
        if self.connections:
            self.later(self.hub.settings.finished_room_seconds, self.evict_when_idle)
        elif self.hub.rooms.get(self.code) is self:
            del self.hub.rooms[self.code]
            await self.hub.let_go(self.code)

    def bot_delay(self, player: int, kind: str | None) -> float:
        if kind in ("race", "response"):
            view = SeatView(self.state, player)
            return self.agents[player].reaction_delay(view, self.rng) * self.hub.settings.reaction_scale
        return self.hub.settings.bot_delay

    async def bot_move(self, player: int) -> None:
        if self.status == "playing" and player in self.agents and player in self.state.players_to_act():
            await self.play_for(player, self.agents[player])

    async def turn_ran_out(self, player: int, version: int) -> None:
        """A person's turn clock ran out: the game's heuristic (or a random move) is made for them."""
        if self.status == "playing" and self.version == version and player in self.state.players_to_act():
            await self.play_for(player, HeuristicAgent())

    async def play_for(self, player: int, agent: Agent) -> None:
        """The agent's move for the seat, chosen from what that seat may see. A search thinks for a second or
        more: it does so in the server's pool of processes (server/thinking.py; another agent on a worker
        thread), so that the other rooms, and this room's watchers, are served meanwhile; the room's lock,
        held by every job, keeps its state still until the move is made."""
        seed = self.rng.getrandbits(64)  # the thinker's own generator: the room's stays on the loop
        thinkers = self.hub.thinkers
        if thinkers is not None and searches(agent):
            priority = PEOPLE_FIRST if any(s.kind == "human" for s in self.seats) else BOTS_ONLY
            action: Any = await thinkers.act(agent, self.state, player, seed, priority)
        else:
            action = await asyncio.to_thread(agent.act, SeatView(self.state, player), random.Random(seed))
        candidate = self.state.clone()
        candidate.apply_action(action, player=player)
        await self.commit_state(candidate, [(self.version, player, str(action))])

    async def close_window(self) -> None:
        """Time is up: every listed player who may pass, passes; a choice without `pass` stays open."""
        if self.window is None:
            return
        candidate = self.state.clone()
        made = []
        for player in candidate.players_to_act():
            if player in candidate.players_to_act() and any(str(a) == PASS for a in candidate.legal_actions(player)):
                made.append((candidate.history_length(), player, PASS))
                candidate.apply_action(PASS, player=player)
        if made:
            await self.commit_state(candidate, made)

    def broadcast(self) -> None:
        made: dict[tuple[int | None, int], tuple[str, int]] = {}  # one view for every connection of an audience
        info = self.info() if self.connections else None  # and the room's part of it once for all
        for connection in self.connections:
            self.send_view(connection, "state", made, info)

    def send_view(self, connection: Connection, kind: Literal["welcome", "state"],
                  made: dict[tuple[int | None, int], tuple[str, int]] | None = None,
                  info: protocol.RoomInfo | None = None) -> None:
        """The connection's view, made once per audience (its seat, or spectators) and event count, and turned
        into JSON by pydantic's own serialiser (docs/reliability.md: five times json.dumps on a Crit's view)."""
        audience = (connection.seat, connection.events_seen)
        if made is not None and audience in made:
            text, connection.events_seen = made[audience]
            connection.outbox.put_nowait(text)
            return
        view = self.view(connection.seat, connection.events_seen, info)
        connection.events_seen = view.events_from + len(view.events)
        message = (protocol.Welcome(seat=connection.seat, view=view) if kind == "welcome"
                   else protocol.StateMessage(view=view))
        text = message.model_dump_json()
        if made is not None:
            made[audience] = text, connection.events_seen
        connection.outbox.put_nowait(text)

    def close(self) -> None:
        self.closed = True
        for timer in self.timers:
            timer.cancel()
        self.timers = []
        self.presence.close()

    def replay_view(self, seat: int | None, step: int) -> protocol.ReplayView:
        history = self.state.history()
        if not 0 <= step <= len(history):
            raise ServerError("no-step", f"this game has steps 0 to {len(history)}", 404)
        state = self.game.new_initial_state(seed=self.seed)
        for player, action in history[:step]:
            state.apply_action(action, player=None if player == CHANCE else player)
        return protocol.ReplayView(step=step, steps=len(history), observation=state.observation(seat),
                                   events=[protocol.EventView(kind=e.kind, text=e.text, data=dict(e.data),
                                                              rules=list(e.rules))
                                           for e in state.events(seat)],
                                   decisions=decision_steps([player for player, _ in history]))


def still_racing(state: State, window: OpenWindow, players: frozenset[int]) -> bool:
    """Whether the race `window` goes on in `state`: every move since it opened is a pass by one of its
    players, and the players still listed are exactly those who have not passed (once all have, the next
    race is another)."""
    moves = state.history_since(window.opened_at_version)
    passed = {player for player, action in moves}
    return (all(player in window.players and str(action) == PASS for player, action in moves)
            and players == window.players - passed)


class Hub:
    """Every live room, and the lobby's operations on them."""

    def __init__(self, store: Store, settings: Settings | None = None) -> None:
        self.store = store
        self.settings = settings or Settings()
        self.rooms: dict[str, Room] = {}
        self.games = ConfiguredGames(self.settings.games_kept, load_game)
        self.commits = GroupCommit(store, store.writers)
        self.loading: dict[str, asyncio.Future[Room | None]] = {}  # rooms being read from the database
        self.thinkers = Thinkers(self.settings.bot_processes) if self.settings.bot_processes > 0 else None
        self.sweeper: asyncio.Task[None] | None = None
        self.leases: Leases | None = None  # with other workers: the rooms this one holds (server/cluster.py)
        self.adopter: asyncio.Task[None] | None = None
        self.handing_over: set[asyncio.Task[None]] = set()
        self.handed_over: dict[str, float] = {}  # room code: when this worker last handed it over

    async def game(self, name: str, options: dict[str, Any]) -> Game:
        """The configured game, shared by every room that plays it with these options (server/limits.py)."""
        return await self.games.get(name, options)

    def waiting_room_allowed(self, address: str | None) -> None:
        """Refuses a new waiting room past the server's bound, or past the bound for one address."""
        waiting = [room for room in self.rooms.values() if room.status == "waiting"]
        if len(waiting) >= self.settings.max_waiting_rooms:
            raise ServerError("too-many-rooms", f"{len(waiting)} rooms are waiting for players, as many as this "
                                                f"server holds: join one from the lobby, or try again later", 503)
        mine = sum(room.creator == address for room in waiting) if address is not None else 0
        if mine >= self.settings.waiting_rooms_per_address:
            raise ServerError("too-many-rooms", f"you have {mine} rooms waiting for players, as many as one "
                                                f"address may: start or leave one first", 429)

    async def create(self, request: protocol.CreateRoom, rematch_of: str | None = None,
                     address: str | None = None, carried: list[Seat] | None = None) -> Room:
        """A new room; a rematch's `carried` seats keep their players' names and tokens."""
        try:
            cls = game_class(request.game)
            options = dict(request.options)
            options.setdefault("players", min(cls.info.player_counts))
            parsed = cls.parse_options(options)
            files = cls.files_named(parsed)
            if files:  # paths on the server's disk: not a client's to choose or read
                raise ServerError("bad-room", f"the server plays only its own card sets and armies; "
                                              f"{', '.join(map(repr, files))} cannot be used online")
            chosen = parsed.model_dump(mode="json")
            refusal = out_of_range(request.game, chosen, self.settings.option_ranges)
            if refusal is not None:
                raise ServerError("bad-room", refusal)
            bots = [spec for spec in request.seats or [] if spec.kind == "bot"]
            if len(bots) != chosen.get("players"):  # a room of bots only starts at once: it never waits
                self.waiting_room_allowed(address)
            game = await self.game(request.game, chosen)
            specs = list(request.seats or [])
            if len(specs) > game.num_players:
                raise ServerError("bad-seats", f"{len(specs)} seats given for {game.num_players} players")
            specs += [protocol.SeatSpec()] * (game.num_players - len(specs))
            seats = []
            for number, spec in enumerate(specs):
                agent = (spec.agent or "random") if spec.kind == "bot" else None
                if agent is not None:
                    if not ONLINE_AGENT.fullmatch(agent):  # e.g. mcts:sims=10000000 would stall every room
                        raise ServerError("bad-room", f"bot '{agent}': online bots take a name and at most a "
                                                      "level, e.g. 'heuristic' or 'mcts:hard'")
                    make_agent(agent)  # refuses an unknown agent before anything is stored
                seats.append(Seat(number, spec.kind, agent, f"{agent} bot" if agent else None))
            for seat, old in zip(seats, carried or [], strict=False):
                if seat.kind == "human" and old.token_hash is not None:
                    seat.name, seat.token_hash, seat.person = old.name, old.token_hash, True
        except BestiaryError as error:
            raise ServerError("bad-room", str(error)) from None
        code = secrets.token_urlsafe(12)
        seed = secrets.randbits(62)
        room = Room(self, code, game, seed, seats, request.window_seconds, request.turn_seconds,
                    public=request.public, rematch_of=rematch_of)
        room.creator = address
        if self.leases is not None:
            await self.leases.take(code)  # a new code: no one else holds it
        await room.store(
            self.store.create_room,
            {"code": code, "game": game.info.name, "options": game.options_dict(), "seed": seed,
             "status": "waiting", "window_seconds": request.window_seconds,
             "turn_seconds": request.turn_seconds, "rematch_of": rematch_of,
             "created_at": now(), "public": request.public},
            [s.row() for s in seats])
        self.rooms[code] = room
        async with room.lock:
            if room.full():
                await room.start_when_stored()
            else:
                room.changed()  # a rematch's seat whose player had left waits for them for the grace
        return room

    async def room(self, code: str) -> Room:
        if not ROOM_CODE.fullmatch(code):  # not one of ours: no need to ask the database
            raise ServerError("no-room", "no room has this code", 404)
        room = self.rooms.get(code)
        if room is None:
            try:
                room = await self.load(code)
            except BestiaryError as error:
                raise ServerError("cannot-load", f"this room's game cannot be set up here: {error}", 409) from None
            except SQLAlchemyError:
                log.exception("room %s: the database refused to load it", code)
                raise ServerError("unavailable", "the database is not answering; try again in a moment", 503) \
                    from None
        if room is None:
            raise ServerError("no-room", "no room has this code", 404)
        return room

    async def load(self, code: str) -> Room | None:
        """A room from its record: the initial state with every stored move applied again. Requests for a room
        being loaded wait for that load."""
        if code in self.loading:
            return await asyncio.shield(self.loading[code])
        self.loading[code] = asyncio.get_running_loop().create_future()
        try:
            room = await self.read(code)
        except BaseException as error:
            failed = self.loading.pop(code)
            failed.set_exception(error)
            failed.exception()  # retrieved: no one else may be waiting for it
            raise
        self.loading.pop(code).set_result(room)
        return room

    async def read(self, code: str) -> Room | None:
        if self.leases is not None and not await self.leases.claim(code):
            raise ServerError("busy", "another worker is still handing this room over; try again in a moment", 503)
        stored = await self.store.run(self.store.load_room, code)
        if code in self.rooms:  # made or loaded meanwhile
            return self.rooms[code]
        if stored is None:
            await self.let_go(code)
            return None
        row, seat_rows, move_rows = stored
        game = await self.game(row["game"], row["options"])
        seats = [Seat(r["seat"], r["kind"], r["agent"], r["name"], r["token_hash"], bool(r["person"]))
                 for r in seat_rows]
        room = Room(self, code, game, row["seed"], seats, row["window_seconds"], row["turn_seconds"], row["status"],
                    row["result"], row["rematch"], bool(row["public"]), row["rematch_of"])
        for player, action in move_rows:
            room.state.apply_action(action, player=None if player == CHANCE else player)
        room.restore_window(row["window_opened_at"], row["window_closes_at"])
        self.rooms[code] = room
        # Whoever asked for it (a restart, an adoption, or a request reaching a worker before its adoption round
        # does), the room plays on at once: its bots, windows, clocks and graces are armed, and a finished room
        # loaded for a look is set to leave memory again.
        room.changed()
        return room

    async def resume(self) -> int:
        """After a start: every unfinished game back in play, its bots and windows running again, and waiting
        rooms that nobody visits set to expire. With other workers, only the rooms no one else holds."""
        self.sweeper = asyncio.get_running_loop().create_task(self.expire_waiting_rooms())
        if self.settings.cluster:
            self.leases = self.new_leases()
            taken = await self.adopt()
            self.adopter = asyncio.get_running_loop().create_task(self.adopt_now_and_then())
            return taken
        codes = await self.store.run(self.store.room_codes, ("waiting", "playing"))
        for code in codes:
            try:
                if code not in self.rooms:
                    await self.load(code)  # which sets its bots, windows and clocks running again
            except BestiaryError as error:  # e.g. a record from older rules: keep it, play the rest
                log.error("room %s cannot resume: %s", code, error)
        return len(codes)

    # -- with other workers (server/cluster.py) -----------------------------------------------------
    async def adopt(self) -> int:
        """Every unfinished room no worker holds, taken over here: its bots, windows and clocks run again."""
        assert self.leases is not None
        taken = 0
        loop = asyncio.get_running_loop()
        for code, at in list(self.handed_over.items()):
            if loop.time() - at > HANDED_OVER_SECONDS:
                del self.handed_over[code]
        for code in await self.store.run(self.store.room_codes, ("waiting", "playing")):
            # a room just handed over is the asking worker's to take, not this one's to take back
            if (code in self.rooms or code in self.loading or code in self.handed_over
                    or not await self.leases.take(code)):
                continue
            try:
                room = await self.load(code)
            except (BestiaryError, ServerError) as error:
                log.error("room %s cannot resume: %s", code, error)
                await self.let_go(code)
                continue
            if room is not None:  # loading it set its bots, windows and clocks running again
                log.info("room %s: taken over", code)
                taken += 1
        return taken

    def new_leases(self) -> Leases:
        return Leases(self.store.engine.url.render_as_string(hide_password=False), self.release_requested)

    async def adopt_now_and_then(self) -> None:
        while True:
            await asyncio.sleep(ADOPT_SECONDS)
            try:
                if self.leases is None or not await self.leases.alive():
                    self.lost_leases()
                    continue
                await self.adopt()
            except SQLAlchemyError:
                log.warning("the database is not answering; rooms are taken over later")

    def lost_leases(self) -> None:
        """The session holding this worker's leases ended (PostgreSQL restarted, the network failed): another
        worker may hold its rooms now, so every one leaves memory (its websockets close with 1012) and the
        leases start again on a new session. Meanwhile the moves' primary key refuses a move stored twice."""
        log.error("lost the database session holding this worker's rooms: letting every room go")
        for room in list(self.rooms.values()):
            room.close()
            for connection in room.connections:
                connection.close_code = CLOSE_MOVED
                connection.outbox.put_nowait(HANG_UP)
        self.rooms.clear()
        if self.leases is not None:
            self.leases.close()
            self.leases = None
        try:
            self.leases = self.new_leases()
        except Exception as error:  # the database is still away: the next round tries again
            log.warning("cannot hold rooms yet: %s", error)

    def release_requested(self, code: str) -> None:
        """Another worker asks for a room this one holds (called on the event loop by the channel's thread)."""
        if self.leases is not None and code in self.leases.held:
            task = asyncio.get_running_loop().create_task(self.hand_over(code))
            self.handing_over.add(task)
            task.add_done_callback(self.handing_over.discard)

    async def hand_over(self, code: str) -> None:
        """The room leaves this worker once what it is doing is done; its websockets close with 1012 (service
        restart), so their clients reconnect, through the proxy, to the worker that asked."""
        room = self.rooms.get(code)
        if room is not None:
            async with room.lock:
                if self.rooms.get(code) is room:
                    del self.rooms[code]
                room.close()
                for connection in room.connections:
                    connection.close_code = CLOSE_MOVED
                    connection.outbox.put_nowait(HANG_UP)
            log.info("room %s: handed over to another worker", code)
        self.handed_over[code] = asyncio.get_running_loop().time()
        await self.let_go(code)

    async def let_go(self, code: str) -> None:
        if self.leases is not None and code not in self.rooms and code not in self.loading:
            await self.leases.give_up(code)

    async def lobby(self, offset: int, limit: int, after: str | None = None) -> list[protocol.RoomInfo]:
        """The lobby's page: from this worker's memory, or with other workers from the database."""
        if self.leases is None:
            return self.open_rooms(offset, limit, after)
        rows = await self.store.run(self.store.waiting_rooms, offset, limit, after)
        return [stored_room_info(row, seat_rows) for row, seat_rows in rows if row["game"] in list_games()]

    def open_rooms(self, offset: int = 0, limit: int = LOBBY_PAGE, after: str | None = None
                   ) -> list[protocol.RoomInfo]:
        """One page of the public rooms waiting for players, oldest first (rooms are held in the order they
        were made), from the room after `after` when this server knows that room."""
        start = list(self.rooms).index(after) + 1 if after in self.rooms else 0
        waiting = (room for room in itertools.islice(self.rooms.values(), start, None)
                   if room.public and room.status == "waiting" and any(not s.info().taken for s in room.seats))
        return [room.info() for room in itertools.islice(waiting, offset, offset + limit)]

    async def expire_waiting_rooms(self) -> None:
        """Now and then: a waiting room that has had nobody connected for `waiting_room_seconds` is deleted."""
        bound = self.settings.waiting_room_seconds
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(min(30.0, bound / 4))
            for room in [room for room in self.rooms.values() if room.status == "waiting"]:
                if room.connections:
                    room.idle_since = loop.time()
                elif loop.time() - room.idle_since >= bound:
                    try:
                        await room.expire()
                    except ServerError as error:  # the database is away: the next sweep tries again
                        log.warning("room %s: not expired (%s)", room.code, error.message)

    async def rematch(self, code: str, token: str | None, address: str | None = None) -> Room:
        """The next game at the same table: the same people in the same seats, the first player rotated."""
        room = await self.room(code)
        if room.seat_of(token) is None:
            raise ServerError("spectator", "only a player at the table can start a rematch", 403)
        if room.rematch is not None:
            return await self.room(room.rematch)
        if room.status != "finished":
            raise ServerError("not-finished", "a rematch can start once this game is over", 409)
        # a person who was replaced by a computer while away keeps the seat (by their token); one who left
        # on purpose gets it back only by coming within the grace
        seats = [protocol.SeatSpec(kind="human") if s.kind == "human" or s.person
                 else protocol.SeatSpec(kind=s.kind, agent=s.agent) for s in room.seats]
        new = await self.create(protocol.CreateRoom(game=room.game.info.name, options=rotated_first_player(room),
                                                    seats=seats, window_seconds=room.window_seconds,
                                                    turn_seconds=room.turn_seconds, public=room.public),
                                rematch_of=code, address=address, carried=room.seats)
        async with room.lock:
            await room.store(self.store.update_room, code, rematch=new.code)
            room.rematch = new.code
            room.changed()
        return new

    def close(self) -> None:
        for task in (self.sweeper, self.adopter):
            if task is not None:
                task.cancel()
        if self.leases is not None:
            self.leases.close()
        if self.thinkers is not None:
            self.thinkers.close()
        for room in self.rooms.values():
            room.close()
        self.store.close()


def stored_room_info(row: dict[str, Any], seat_rows: list[dict[str, Any]]) -> protocol.RoomInfo:
    """A waiting room's description from its record, without building its game."""
    seats = [Seat(r["seat"], r["kind"], r["agent"], r["name"], r["token_hash"], bool(r["person"])).info()
             for r in seat_rows]
    return protocol.RoomInfo(code=row["code"], game=row["game"], title=game_class(row["game"]).info.title,
                             options=row["options"], status=row["status"], seats=seats,
                             window_seconds=row["window_seconds"], turn_seconds=row["turn_seconds"], version=0,
                             result=row["result"], rematch=row["rematch"], public=row["public"])


def decision_steps(players: list[int]) -> list[int]:
    """The steps a replay stops at, given who made each move: after the opening chance outcomes (the deal),
    then after each player's move together with the chance outcomes that follow it (a draw, a roll)."""
    def past_chance(step: int) -> int:
        while step < len(players) and players[step] == CHANCE:
            step += 1
        return step

    return [past_chance(0)] + [past_chance(number + 1) for number, player in enumerate(players) if player != CHANCE]


def rotated_first_player(room: Room) -> dict[str, Any]:
    """The room's options with the next seat going first, when the options name the first player's seat (a
    roll or a random draw stays what it was)."""
    options = dict(room.game.options_dict())
    first = options.get("first_player")
    if isinstance(first, int) and not isinstance(first, bool):
        options["first_player"] = (first + 1) % room.game.num_players
    return options


def known_games() -> list[dict[str, Any]]:
    """The registered games with their options' JSON schema, for the lobby."""
    out = []
    for name in list_games():
        cls = game_class(name)
        info = cls.info
        out.append({"name": name, "title": info.title, "summary": info.summary,
                    "player_counts": list(info.player_counts), "information": info.information,
                    "options": cls.Options.model_json_schema()})
    return out
