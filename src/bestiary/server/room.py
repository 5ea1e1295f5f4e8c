"""A room: one game, its seats, its connections, its bots and its timers; the async shell around the game's
authority (server/authority.py).

A move follows one path: check the seat's token and the state version, apply it on a copy, play any chance
outcomes that follow, commit every new move to the database, and only then make the copy the room's state
and send each viewer its own view (server/broadcast.py). The database calls run on the Store's worker
threads while the room's lock is held, so the event loop serves other rooms meanwhile and the moves of one
room are stored in the order they were made. Every timer (a bot's delay, a window, a turn clock, a grace)
keeps the server's clock (server/clock.py).

Why this file is over 400 lines: it holds every operation that takes the room's lock (seats changing hands,
moves, the timers' jobs) so that the order of changes is plain in one place; what they decide is elsewhere:
the game in authority.py, seats in seats.py, presence in presence.py, views in broadcast.py, and which
computer seat moves when in the referee (core/referee.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import random
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from bestiary.agents import Agent, HeuristicAgent, SeatView, make_agent, pacing
from bestiary.agents.match import AgentSeat
from bestiary.core.api import Game, State
from bestiary.core.referee import Referee
from bestiary.server import broadcast, protocol, races, seats
from bestiary.server.authority import PASS, Authority, Change, Made, OpenWindow
from bestiary.server.broadcast import Connection, SeenLog
from bestiary.server.clock import wall_time
from bestiary.server.commits import GroupCommit
from bestiary.server.db import Store, as_utc
from bestiary.server.errors import UNAVAILABLE, ServerError
from bestiary.server.logs import event
from bestiary.server.notices import KINDS, Kind, Notifier, Subscription, TurnNotice, check_address, turn_start
from bestiary.server.presence import Presence
from bestiary.server.seats import Seat
from bestiary.server.settings import Settings
from bestiary.server.thinking import BOTS_ONLY, PEOPLE_FIRST, Thinkers, searches

log = logging.getLogger("bestiary.server")
RETRY_SECONDS = 1.0
SPECTATOR = "Spectator"  # a spectator's chat name when they give none
TURN_LOOKBACK = 256  # moves looked back through for the start of a turn (a longer turn starts within them)
T = TypeVar("T")


class House(Protocol):
    """What a room needs of the server it lives in (server/hub.py)."""

    settings: Settings
    store: Store
    commits: GroupCommit
    thinkers: Thinkers | None
    rooms: dict[str, Room]
    notifier: Notifier

    async def let_go(self, code: str) -> None:
        """The room's lease given up, once it has left memory (server/cluster.py)."""


class Room:
    def __init__(self, hub: House, code: str, game: Game, seed: int, seats: list[Seat], window_seconds: float,
                 turn_seconds: float | None = None, status: str = "waiting", result: dict[str, Any] | None = None,
                 rematch: str | None = None, public: bool = False, rematch_of: str | None = None,
                 spectator_chat: bool = False) -> None:
        self.hub = hub
        self.settings = hub.settings
        self.clock = hub.settings.clock
        self.code = code
        self.game = game
        self.seed = seed
        self.rng = random.Random(secrets.randbits(64))  # the pace of people's automatic passes and turn clocks
        # chance, and when each computer seat moves and with which generator, as at every table (core/referee.py)
        self.computers: list[AgentSeat | None] = [self.computer(s) for s in seats]  # the referee's seats
        self.referee = Referee(seed, self.computers, self.clock, pace=hub.settings.bot_delay)
        self.authority = Authority(game, seed, window_seconds, self.referee.chance_outcome, status, result)
        self.seen = SeenLog()
        self.options = game.options_dict()  # as RoomInfo shows them; the game's options never change
        self.seats = seats
        self.window_seconds = window_seconds
        self.turn_seconds = turn_seconds
        self.turn_deadline: float | None = None  # clock time when the turn clock runs out
        self.rematch = rematch
        self.public = public  # listed in the lobby; a private room is reached only through its invite link
        self.rematch_of = rematch_of
        self.spectator_chat = spectator_chat  # pages without a seat may write in the chat too
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.timers: list[asyncio.Task[None]] = []
        # a race's answers within its commit window, judged by reaction (server/races.py)
        self.race_answers: list[tuple[float, int, Callable[[], Awaitable[int | None]], asyncio.Future[int] | None]] \
            = []
        self.race_order = itertools.count()
        self.judging: asyncio.Task[None] | None = None
        self.race_opened_at: float | None = None  # when this worker first sent the open race
        self.presence = Presence(self)  # its grace timers are apart from `timers`: a move must not cancel them
        self.due_now: set[asyncio.Task[None]] = set()  # timers without delay, which `settled` waits for
        self.creator: str | None = None  # the address that made it, while it waits for players
        self.bots_only = False  # made with bots in every seat (Hub.admit bounds how many play at once)
        self.closed = False  # left this worker's memory: its connections' ends must not act on it
        self.idle_since = self.clock.time()  # when last seen waiting with nobody connected
        self.chat_lines: list[protocol.ChatLine] | None = None  # the kept chat, read from the database once
        # each seat's, and each spectator connection's, recent chat lines, for the rate limit
        self.chat_times: dict[int | Connection, list[float]] = {}
        self.chat_count = 0  # the number of the next chat line (read with the kept lines)
        self.subscriptions: dict[tuple[int, Kind], Subscription] = {}  # turn notices, by seat and kind
        # (seat, the version its turn began at) of a turn in which a move was taken back: its turn clock runs
        # on from then, never afresh, so taking back and playing again cannot hold the table for ever
        self.clock_kept_for: tuple[int, int] | None = None

    def computer(self, seat: Seat) -> AgentSeat | None:
        """The referee's seat for a computer's seat (None: a person's)."""
        if seat.kind != "bot":
            return None
        return AgentSeat(make_agent(seat.agent or "random"), self.settings.reaction_scale)

    # -- the game, as its authority holds it ---------------------------------------------------------
    @property
    def state(self) -> State:
        return self.authority.state

    @property
    def status(self) -> str:
        return self.authority.status

    @property
    def result(self) -> dict[str, Any] | None:
        return self.authority.result

    @property
    def window(self) -> OpenWindow | None:
        return self.authority.window

    @property
    def version(self) -> int:
        return self.authority.version

    # -- what anyone may see ------------------------------------------------------------------------
    def info(self) -> protocol.RoomInfo:
        return protocol.RoomInfo(
            code=self.code, game=self.game.info.name, title=self.game.info.title,
            options=self.options, status=self.status,  # type: ignore[arg-type]
            seats=[self.presence.seat_info(s.seat) for s in self.seats], window_seconds=self.window_seconds,
            turn_seconds=self.turn_seconds, version=self.version,
            result=self.result, rematch=self.rematch, public=self.public, spectator_chat=self.spectator_chat,
            watching=sum(connection.seat is None for connection in self.connections))

    def view(self, seat: int | None, events_from: int = 0, info: protocol.RoomInfo | None = None) -> protocol.View:
        """What `seat` (None: a spectator) may see, with its events from `events_from` on; `info`: the room's, if
        already made for this broadcast."""
        person = seat is not None and self.seats[seat].kind == "human"  # a computer's seat is offered nothing
        return broadcast.table_view(self.authority, self.seen, info or self.info(), seat, events_from, person,
                                    self.clock.time(), self.turn_deadline)

    def broadcast(self) -> None:
        broadcast.fan_out(self.connections, self.view, self.info() if self.connections else None)
        for connection in self.connections:
            races.remember_sent(connection.sent, self.version, self.clock.time())

    def send_view(self, connection: Connection, kind: Literal["welcome", "state"]) -> None:
        broadcast.send_view(connection, kind, self.view)
        races.remember_sent(connection.sent, self.version, self.clock.time())

    def replay_view(self, seat: int | None, step: int) -> protocol.ReplayView:
        return self.authority.replay_view(seat, step)

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
        return seats.seat_of(self.seats, token)

    # -- seats --------------------------------------------------------------------------------------
    async def join(self, seat_number: int, name: str) -> str:
        async with self.lock:
            seat = seats.open_seat(self.seats, seat_number)
            token, token_hash = seats.new_token()
            seat_name = name.strip() or f"Player {seat_number + 1}"
            await self.store(self.hub.store.update_seat, self.code, seat_number, token_hash=token_hash,
                             name=seat_name, person=True)
            seat.token_hash, seat.name, seat.person = token_hash, seat_name, True
            event("join", room=self.code, seat=seat_number, name=seat_name)
            self.idle_since = self.clock.time()
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
                await self.hand_to_bot(seat_number, why="they left the game")
            self.changed()

    async def hand_to_bot(self, seat_number: int, reclaimable: bool = False, why: str = "") -> None:
        """A heuristic bot plays the seat to the end. A seat taken from an away player stays reclaimable: its
        token still opens the seat's view and may `claim` it back; a seat left on purpose loses its token.
        Everyone at the table is told, with `why`."""
        seat = self.seats[seat_number]
        token_hash = seat.token_hash if reclaimable else None
        await self.store(self.hub.store.update_seat, self.code, seat_number, kind="bot", agent="heuristic",
                         token_hash=token_hash)
        seat.kind, seat.agent, seat.token_hash = "bot", "heuristic", token_hash
        self.computers[seat_number] = self.computer(seat)
        if self.status == "playing":
            self.notify(f"A computer took {self.seat_label(seat_number)}'s seat{f': {why}' if why else ''}.")
        if reclaimable:
            return
        for connection in self.connections:  # whoever left watches from now on, like any spectator
            if connection.seat == seat_number:
                connection.seat = None
                connection.events_seen = 0  # a spectator's log is another list: send it whole

    async def hand_over(self, token: str | None, seat_number: int) -> None:
        """A player at the table hands an away seat to a computer now, without waiting for the grace."""
        async with self.lock:
            seats.check_hand_over(self.seats, self.seat_of(token), seat_number, self.status, self.presence.of)
            await self.hand_to_bot(seat_number, reclaimable=True, why="handed over while they were away")
            self.changed()

    async def away_too_long(self, seat: int, grace: float) -> None:
        """An away seat's grace is over: a computer plays it (the database away: try again, the table must
        not stall)."""
        while True:
            async with self.lock:
                if not self.presence.held(seat):
                    return
                event("away", room=self.code, seat=seat, seconds=grace, then="a computer plays the seat")
                try:
                    await self.hand_to_bot(seat, reclaimable=self.status == "playing",
                                           why="they were away too long")
                except ServerError as error:
                    log.warning("room %s: %s; retrying", self.code, error.message)
                else:
                    if self.status == "waiting" and self.full():
                        await self.start_when_stored()
                    else:
                        self.changed()
                    return
            await self.clock.sleep(RETRY_SECONDS)

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
            self.computers[seat_number] = None
            self.changed()
            return seat_number

    def disconnected(self, seat_number: int | None) -> None:
        """A seat's last connection closed: hold the seat for the grace period, then hand it to a bot."""
        self.presence.departed(seat_number)

    def seat_label(self, seat_number: int) -> str:
        name = self.seats[seat_number].name
        return f"P{seat_number + 1} {name}" if name else f"P{seat_number + 1}"

    def notify(self, text: str) -> None:
        """A line for every page's log about the table itself (not a move of the game)."""
        broadcast.to_everyone(self.connections, protocol.Notice(text=text).model_dump(mode="json"))

    async def chat(self, token: str | None, text: str, name: str = "", connection: Connection | None = None) -> None:
        """A chat line: kept with the room (the newest CHAT_KEPT lines), then sent to everyone, spectators too. A
        seat writes under its seat's name; a spectator (`connection`, without a seat) only where the room allows
        it, under the `name` it gives. Each seat, and each spectator's connection, sends settings.chat_burst
        lines in settings.chat_burst_seconds at most."""
        async with self.lock:
            seat = self.seat_of(token)
            writer: int | Connection
            if seat is not None:
                writer, line_name = seat, self.seats[seat].name or f"P{seat + 1}"
            elif self.spectator_chat and connection is not None:
                writer, line_name = connection, name.strip() or SPECTATOR
            else:
                raise ServerError("spectator", "spectators cannot chat; join a seat to talk", 403)
            now, burst, seconds = self.clock.time(), self.settings.chat_burst, self.settings.chat_burst_seconds
            recent = [t for t in self.chat_times.get(writer, []) if now - t < seconds]
            if len(recent) >= burst:
                raise ServerError("too-fast", f"at most {burst} chat lines in {seconds:g} seconds: wait a moment", 429)
            kept = await self.chat_history()
            line = protocol.ChatLine(seat=seat, name=line_name, text=text)
            number = self.chat_count
            await self.store(self.hub.store.add_chat_line, self.code, number, seat, line.name, text,
                             protocol.CHAT_KEPT)
            self.chat_count = number + 1
            self.chat_times[writer] = [*recent, now]
            kept.append(line)
            del kept[:-protocol.CHAT_KEPT]
            broadcast.to_everyone(self.connections, line.model_dump(mode="json"))

    def tell_watching(self, arrived: Connection | None = None) -> None:
        """Someone began or stopped watching: every other page's count of watchers changes (the newcomer's
        welcome carries it, as every view does)."""
        watching = sum(connection.seat is None for connection in self.connections)
        others = [connection for connection in self.connections if connection is not arrived]
        broadcast.to_everyone(others, protocol.Watching(count=watching).model_dump(mode="json"))

    async def chat_history(self) -> list[protocol.ChatLine]:
        """The kept chat lines, read from the database the first time they are needed."""
        if self.chat_lines is None:
            rows = await self.store(self.hub.store.chat_lines, self.code)
            if self.chat_lines is None:  # not read by another page meanwhile
                self.chat_lines = [protocol.ChatLine(seat=r["seat"], name=r["name"], text=r["text"]) for r in rows]
                self.chat_count = rows[-1]["number"] + 1 if rows else 0
        return self.chat_lines

    async def send_chat_history(self, connection: Connection) -> None:
        """A page that (re)connects is sent the chat it missed, whoever it is (the spectators read it too)."""
        with contextlib.suppress(ServerError):  # the database away: the chat comes with the next connection
            lines = await self.chat_history()
            if lines:
                connection.outbox.put_nowait(protocol.ChatHistory(lines=lines).model_dump(mode="json"))

    async def start(self) -> None:
        if self.status == "waiting":
            await self.commit_state(self.state.clone(), [], {"status": "playing"})

    async def start_when_stored(self) -> None:
        """Start now or, if the database is away, as soon as it is back (`changed` retries it)."""
        with contextlib.suppress(ServerError):
            await self.start()
        self.changed()

    def full(self) -> bool:
        return seats.full(self.seats)

    async def store(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A Store method off the event loop; a database that is away is a clean refusal that changed nothing."""
        self.check_still_here()
        try:
            return await self.hub.store.run(method, *args, **kwargs)
        except SQLAlchemyError:
            log.exception("room %s: the database refused %s", self.code, getattr(method, "__name__", method))
            raise ServerError("unavailable", UNAVAILABLE, 503) from None

    # -- moves --------------------------------------------------------------------------------------
    async def move(self, token: str | None, text: str, version: int, sent: float | None = None,
                   round_trip: float | None = None) -> int:
        """Apply the move of the token's seat; the new version. Refusals change nothing. An answer to a race
        waits for the race's commit window and is judged by its reaction (server/races.py): `sent` is when this
        connection was sent the position at `version`, `round_trip` its measured round trip."""
        if self.racing() and (text != PASS or self.judging is not None):
            arrived = self.clock.time()
            async with self.lock:  # what would be refused anyway is refused at once
                seat = self.mover(token)
                self.authority.check_turn(seat, version)
                self.authority.move(seat, text)
            judged = races.reaction(arrived, sent, round_trip)
            if judged is None:  # no position was sent to it (a REST client): judged by arrival
                judged = arrived - (self.race_opened_at if self.race_opened_at is not None else arrived)
            answered: asyncio.Future[int] = asyncio.get_running_loop().create_future()
            self.enter_race(judged, lambda: self.apply_move(token, text, version), answered)
            return await answered
        return await self.apply_move(token, text, version)

    def mover(self, token: str | None) -> int:
        seat = self.seat_of(token)
        if seat is None:
            raise ServerError("spectator", "spectators cannot move; join a seat to play", 403)
        if self.seats[seat].kind == "bot":
            raise ServerError("computer-seat", "a computer plays this seat since you were away; claim it back "
                                               "to play", 403)
        return seat

    async def apply_move(self, token: str | None, text: str, version: int) -> int:
        async with self.lock:
            seat = self.mover(token)  # checked under the lock: a seat given up cannot move any more
            self.authority.check_turn(seat, version)
            candidate, made = self.authority.move(seat, text)
            await self.commit_state(candidate, made)
            return self.version

    async def take_back(self, token: str | None, version: int) -> int:
        """The seat's last move taken back, where fair play allows it (server/takeback.py): the record cut back
        first, then the room's game, then every page is sent its view afresh (its log too: the move's lines
        are gone) and told who took back what, in the move's public words alone."""
        async with self.lock:
            seat = self.mover(token)
            verdict = self.authority.check_take_back(seat, version)
            number = self.version - 1
            await self.store(self.hub.store.take_back, self.code, number,
                             {"window_opened_at": None, "window_closes_at": None})
            self.authority.taken_back()
            self.clock_kept_for = (seat, self.turn_began(seat))
            event("take-back", room=self.code, seat=seat, version=number)
            for connection in self.connections:
                connection.events_seen = 0
            self.changed()
            what = " ".join(e.text for e in verdict.taken_back)
            self.notify(f"{self.seat_label(seat)} takes back their last move{f' ({what})' if what else ''}.")
            return self.version

    # -- races judged by reaction (server/races.py) --------------------------------------------------
    def racing(self) -> bool:
        """Whether a race is open whose answers are judged by reaction. Its first answer other than a pass opens
        the commit window; a pass before that goes at once, and one within it is judged with the others (so
        that a pass whose player reacted after the winner stays out of the record, as it would by arrival)."""
        window = self.authority.window
        return window is not None and window.kind == "race" and self.settings.race_commit_seconds > 0

    def enter_race(self, reaction: float, apply: Callable[[], Awaitable[int | None]],
                   answered: asyncio.Future[int] | None = None) -> None:
        """An answer to the open race, applied when its commit window closes, in the order of reactions."""
        self.race_answers.append((reaction, next(self.race_order), apply, answered))
        if self.judging is None:
            self.judging = asyncio.get_running_loop().create_task(self.judge_race())

    async def judge_race(self) -> None:
        """The commit window's answers applied in the order of their reactions; answers that come while they
        are applied are late, and follow in theirs."""
        await self.clock.sleep(self.settings.race_commit_seconds)
        while self.race_answers:
            answers, self.race_answers = sorted(self.race_answers, key=lambda a: a[:2]), []
            event("race", room=self.code, answers=len(answers),
                  reactions=",".join(f"{a[0]:.3f}" for a in answers))
            for _, _, apply, answered in answers:  # the first closes the race; the others are refused as late
                try:
                    version = await apply()
                except ServerError as error:
                    if answered is not None:
                        answered.set_exception(error)
                except Exception as error:
                    log.exception("room %s: a race answer failed", self.code)
                    if answered is not None:
                        answered.set_exception(error)
                else:
                    if answered is not None and version is not None:
                        answered.set_result(version)
        self.judging = None

    async def commit_state(self, candidate: State, made: Made, room_values: dict[str, Any] | None = None) -> None:
        """Play the chance outcomes that follow, store every new move with the room's new status and window in
        one transaction, then adopt the new state."""
        change = self.authority.played(candidate, made, self.clock.time(), room_values)
        window = change.window
        change.values.update(window_opened_at=None if window is None else window.opened_at_version,
                             window_closes_at=None if window is None else wall_time(self.clock, window.deadline))
        write = asyncio.ensure_future(self.record(change.made, change.values))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            # The worker thread commits regardless: keep the lock until the room agrees with the database.
            await write
            self.adopt(change)
            raise
        self.adopt(change)

    async def record(self, made: Made, values: dict[str, Any]) -> None:
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

    def adopt(self, change: Change) -> None:
        before = self.authority.window
        self.authority.adopt(change, self.clock.time())
        if self.authority.window is not before:
            self.race_opened_at = self.clock.time() if self.racing() else None
        self.changed()

    def restore(self, moves: list[tuple[int, str]], window_opened_at: int | None, window_closes_at: Any) -> None:
        """A stored room's game: its moves played again, and the window it was in with the time it had left."""
        self.authority.replay_stored(moves)
        left = None if window_closes_at is None else (as_utc(window_closes_at) - self.clock.wall()).total_seconds()
        self.authority.restore_window(window_opened_at, left, self.clock.time())

    # -- after every change: windows, bots, broadcasts ----------------------------------------------
    def changed(self) -> None:
        current = asyncio.current_task()
        for timer in self.timers:
            if timer is not current:
                timer.cancel()
        self.timers = []
        running, self.turn_deadline = self.turn_deadline, None  # the turn clock as it ran until now
        # the computer seats' times first: a move due now (no pace) counts as due now, for `settled`
        arrivals = self.referee.arrivals(self.state) if self.status == "playing" else []
        now = self.clock.time()
        kind = self.state.decision_kind() if self.status == "playing" else None
        if self.window is not None:
            self.later(self.window.deadline - now, self.close_window)
        if self.status == "waiting" and self.full():  # every seat is taken but the database refused the start
            self.later(RETRY_SECONDS, self.start)
        if self.status == "playing":
            for arrival in arrivals:
                self.later(arrival.at - now, self.bot_move, arrival.player)
            for player in self.state.players_to_act():
                if self.computers[player] is not None:
                    continue
                if self.settings.automatic_passes and pacing.automatic_pass(self.state, player) is not None:
                    delay = pacing.pass_delay(self.state, player, self.rng) * self.settings.reaction_scale
                    self.later(delay, self.turn_ran_out, player, self.version)
                elif kind == "turn" and self.turn_seconds is not None:
                    kept = running is not None and self.clock_kept_for == (player, self.turn_began(player))
                    self.turn_deadline = running if kept and running is not None else now + self.turn_seconds
                    self.later(self.turn_deadline - now, self.turn_ran_out, player, self.version)
        elif self.status == "finished":
            self.later(self.settings.finished_room_seconds, self.evict_when_idle)
        self.presence.check()
        self.broadcast()
        self.tell_absent_players()

    # -- turn notices (server/notices.py) -------------------------------------------------------------
    def tell_absent_players(self) -> None:
        """Each person to act on an ordinary turn with no page open and a turn notice set is told, once a turn
        (a move taken back and made again is the same turn)."""
        if not self.subscriptions or self.status != "playing" or self.state.decision_kind() != "turn":
            return
        for player in self.state.players_to_act():
            if self.seats[player].kind != "human" or any(c.seat == player for c in self.connections):
                continue
            turn = self.turn_began(player)
            for kind in KINDS:
                subscription = self.subscriptions.get((player, kind))
                if subscription is not None and subscription.notified_turn != turn:
                    subscription.notified_turn = turn
                    self.hub.notifier.send(TurnNotice(self.code, self.game.info.title, player, turn, subscription))

    def turn_began(self, player: int) -> int:
        """The version the player's turn began at: before its own last moves in a row."""
        recent = self.state.history_since(max(0, self.version - TURN_LOOKBACK))
        return self.version - len(recent) + turn_start([p for p, _ in recent], player)

    def turn_notices(self, token: str | None) -> protocol.TurnNoticeSettings:
        """The token's seat's own turn notices."""
        seat = self.seat_of(token)
        if seat is None:
            raise ServerError("spectator", "send your seat token: turn notices belong to a seat", 403)
        mine = {kind: self.subscriptions.get((seat, kind)) for kind in KINDS}
        return protocol.TurnNoticeSettings(
            email=None if mine["email"] is None else mine["email"].address,
            webhook=None if mine["webhook"] is None else mine["webhook"].address,
            email_available=self.settings.smtp is not None)

    async def set_turn_notices(self, token: str | None, wanted: protocol.TurnNotices,
                               link_base: str) -> protocol.TurnNoticeSettings:
        """The token's seat's turn notices set as asked (null removes one); an address that changes gets a new
        unsubscribe link."""
        async with self.lock:
            seat = self.seat_of(token)
            if seat is None:
                raise ServerError("spectator", "send your seat token: turn notices belong to a seat", 403)
            asked: dict[Kind, str | None] = {"email": wanted.email or None, "webhook": wanted.webhook or None}
            checked = {kind: None if address is None else check_address(kind, address, self.settings)
                       for kind, address in asked.items()}
            for kind, address in checked.items():
                old = self.subscriptions.get((seat, kind))
                if address is None:
                    if old is not None:
                        await self.store(self.hub.store.set_turn_notice, self.code, seat, kind, None)
                        del self.subscriptions[(seat, kind)]
                    continue
                if old is not None and old.address == address:
                    continue
                new = Subscription(kind, address, secrets.token_urlsafe(24), link_base)
                await self.store(self.hub.store.set_turn_notice, self.code, seat, kind,
                                 {"address": address, "token": new.token, "link_base": link_base})
                self.subscriptions[(seat, kind)] = new
                event("turn-notice-set", room=self.code, seat=seat, kind=kind)
            return self.turn_notices(token)

    def later(self, delay: float, job: Callable[..., Awaitable[None]], *args: Any) -> None:
        async def run() -> None:
            await self.clock.sleep(delay)
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
            event("expired", room=self.code, seconds=self.settings.waiting_room_seconds)
            del self.hub.rooms[self.code]
            self.close()
        await self.hub.let_go(self.code)

    async def evict_when_idle(self) -> None:
        """A finished room leaves memory once no one watches it; it loads again from the database on demand."""
        if self.connections:
            self.later(self.settings.finished_room_seconds, self.evict_when_idle)
        elif self.hub.rooms.get(self.code) is self:
            del self.hub.rooms[self.code]
            await self.hub.let_go(self.code)

    async def bot_move(self, player: int) -> None:
        """A computer seat's time has come (the referee's): it moves, if it is still to act."""
        seat = self.computers[player]
        if self.status == "playing" and seat is not None and player in self.state.players_to_act():
            await self.play_for(player, seat.agent, self.referee.choice_seed(self.state, player))

    async def turn_ran_out(self, player: int, version: int) -> None:
        """A person's turn clock ran out: the game's heuristic (or a random move) is made for them."""
        if self.status == "playing" and self.version == version and player in self.state.players_to_act():
            self.notify(f"{self.seat_label(player)}'s turn clock ran out: the computer moved for them.")
            await self.play_for(player, HeuristicAgent(), self.rng.getrandbits(64))

    async def play_for(self, player: int, agent: Agent, seed: int) -> None:
        """The agent's move for the seat, chosen from what that seat may see. A search thinks for a second or
        more: it does so in the server's pool of processes (server/thinking.py; another agent on a worker
        thread), so that the other rooms, and this room's watchers, are served meanwhile; the room's lock,
        held by every job, keeps its state still until the move is made."""
        thinkers = self.hub.thinkers
        if thinkers is not None and searches(agent):
            priority = PEOPLE_FIRST if any(s.kind == "human" for s in self.seats) else BOTS_ONLY
            action: Any = await thinkers.act(agent, self.state, player, seed, priority)
        else:
            action = await asyncio.to_thread(agent.act, SeatView(self.state, player), random.Random(seed))
        if self.racing() and (str(action) != PASS or self.judging is not None):  # judged by its reaction
            version = self.version
            # its reaction is the delay the referee gave it (its answer may be made a little after it was due)
            due = self.referee.due.get(player, self.clock.time())
            reaction = due - (self.race_opened_at if self.race_opened_at is not None else due)
            self.enter_race(reaction, lambda: self.bot_race_answer(player, action, version))
            return
        candidate = self.state.clone()
        candidate.apply_action(action, player=player)
        await self.commit_state(candidate, [(self.version, player, str(action))])

    async def bot_race_answer(self, player: int, action: Any, version: int) -> None:
        async with self.lock:
            if self.status == "playing" and self.version == version and player in self.state.players_to_act():
                candidate = self.state.clone()
                candidate.apply_action(action, player=player)
                await self.commit_state(candidate, [(self.version, player, str(action))])

    async def close_window(self) -> None:
        """Time is up: every listed player who may pass, passes; a choice without `pass` stays open."""
        passes = self.authority.timed_out()
        if passes is not None:
            await self.commit_state(*passes)

    def close(self) -> None:
        self.closed = True
        for timer in self.timers:
            timer.cancel()
        self.timers = []
        if self.judging is not None:
            self.judging.cancel()
        for _, _, _, answered in self.race_answers:
            if answered is not None and not answered.done():
                answered.set_exception(ServerError("busy", "this room has just moved to another worker; try again "
                                                           "in a moment", 503))
        self.race_answers = []
        self.presence.close()
