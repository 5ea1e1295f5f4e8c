"""The Hub: every live room on this worker, and the lobby's operations on them: making, loading and
resuming rooms, rematches, the lobby's pages, the sweep of rooms nobody came to, and, with other workers on
one PostgreSQL database, the rooms' leases and their adoption (server/cluster.py).

Why this file is over 400 lines: every way a room enters or leaves this worker's table (made, read, resumed,
adopted, handed over, expired, let go) is here, so that no room can be held twice or lost between two of
them; what the rooms do is in room.py, the leases in cluster.py, storage in db.py."""

from __future__ import annotations

import asyncio
import itertools
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from bestiary.agents import make_agent
from bestiary.core.api import Game
from bestiary.core.errors import BestiaryError
from bestiary.core.registry import game_class, list_games, load_game
from bestiary.server import protocol
from bestiary.server.broadcast import hang_up
from bestiary.server.cluster import ADOPT_SECONDS, HANDED_OVER_SECONDS, Leases
from bestiary.server.commits import GroupCommit
from bestiary.server.db import Store, hash_token, now
from bestiary.server.errors import ServerError
from bestiary.server.limits import LOBBY_PAGE, ConfiguredGames, out_of_range
from bestiary.server.logs import event
from bestiary.server.notices import Notifier, Subscription
from bestiary.server.reviews import Reviews
from bestiary.server.room import Room
from bestiary.server.seats import Seat, seat_from_row
from bestiary.server.settings import Settings
from bestiary.server.thinking import Thinkers

log = logging.getLogger("bestiary.server")
ROOM_CODE = re.compile(r"[A-Za-z0-9_-]{16}")  # secrets.token_urlsafe(12): 96 random bits
ONLINE_AGENT = re.compile(r"[a-z][a-z0-9_-]*(:[a-z]+)?")  # a name and at most a level: no custom search budgets


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
        self.reviews = Reviews(store, self.settings, self.thinkers)
        self.sweeper: asyncio.Task[None] | None = None
        self.leases: Leases | None = None  # with other workers: the rooms this one holds (server/cluster.py)
        self.adopter: asyncio.Task[None] | None = None
        self.handing_over: set[asyncio.Task[None]] = set()
        self.handed_over: dict[str, float] = {}  # room code: when this worker last handed it over
        self.admitted: dict[int, tuple[str | None, bool]] = {}  # rooms being made: (creator, bots only) (admit)
        self.tickets = itertools.count()
        self.notifier = Notifier(self.settings, store)  # turn notices, sent off the game loop

    async def game(self, name: str, options: dict[str, Any]) -> Game:
        """The configured game, shared by every room that plays it with these options (server/limits.py)."""
        return await self.games.get(name, options)

    def admit(self, address: str | None, bots_only: bool) -> int:
        """Counts a room about to be made, or refuses it past its bounds: rooms waiting for players, or rooms of
        bots only playing (each holds its game in memory), on the server and per address. The check and the
        count are one step with no await between, so parallel creations cannot all pass a check made before
        any of them is stored. The admission's ticket is given back (popped from `self.admitted`) when the room
        is put in `self.rooms`, or when making it fails."""
        if bots_only:
            live = [room.creator for room in self.rooms.values() if room.bots_only and room.status != "finished"]
            total, per_address = self.settings.max_bot_rooms, self.settings.bot_rooms_per_address
            what = "rooms of bots only playing"
        else:
            live = [room.creator for room in self.rooms.values() if room.status == "waiting"]
            total, per_address = self.settings.max_waiting_rooms, self.settings.waiting_rooms_per_address
            what = "rooms waiting for players"
        creators = live + [creator for creator, bots in self.admitted.values() if bots == bots_only]
        if len(creators) >= total:
            event("limit", limit="bot-rooms" if bots_only else "waiting-rooms", rooms=len(creators))
            raise ServerError("too-many-rooms", f"there are {len(creators)} {what}, as many as this server holds: "
                                                f"join a room from the lobby, or try again later", 503)
        mine = creators.count(address) if address is not None else 0
        if mine >= per_address:
            event("limit", limit="bot-rooms-per-address" if bots_only else "waiting-rooms-per-address",
                  address=address, rooms=mine)
            raise ServerError("too-many-rooms", f"you have {mine} {what}, as many as one address may: "
                                                f"{'let one finish' if bots_only else 'start or leave one'} first",
                              429)
        ticket = next(self.tickets)
        self.admitted[ticket] = (address, bots_only)
        return ticket

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
            refusal = out_of_range(cls.info, chosen, self.settings.option_ranges)
            if refusal is not None:
                raise ServerError("bad-room", refusal)
            bots = [spec for spec in request.seats or [] if spec.kind == "bot"]
            bots_only = len(bots) == chosen.get("players")  # it starts at once: it never waits
            ticket = self.admit(address, bots_only)
        except BestiaryError as error:
            raise ServerError("bad-room", str(error)) from None
        try:
            return await self.make(request, chosen, ticket, rematch_of, carried)
        finally:
            self.admitted.pop(ticket, None)

    async def make(self, request: protocol.CreateRoom, chosen: dict[str, Any], ticket: int,
                   rematch_of: str | None, carried: list[Seat] | None) -> Room:
        """The admitted room (`ticket`): its game built, its seats set, stored, and started if it is full."""
        address, bots_only = self.admitted[ticket]
        try:
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
        seed = self.settings.new_seed()
        room = Room(self, code, game, seed, seats, request.window_seconds, request.turn_seconds,
                    public=request.public, rematch_of=rematch_of, spectator_chat=request.spectator_chat)
        room.creator, room.bots_only = address, bots_only
        if self.leases is not None:
            await self.leases.take(code)  # a new code: no one else holds it
        await room.store(
            self.store.create_room,
            {"code": code, "game": game.info.name, "options": game.options_dict(), "seed": seed,
             "status": "waiting", "window_seconds": request.window_seconds,
             "turn_seconds": request.turn_seconds, "rematch_of": rematch_of,
             "created_at": now(), "public": request.public, "spectator_chat": request.spectator_chat},
            [s.row() for s in seats])
        self.rooms[code] = room
        del self.admitted[ticket]  # counted in self.rooms from here
        event("create", room=code, game=game.info.name, address=address, bots_only=bots_only)
        async with room.lock:
            if room.full():
                await room.start_when_stored()
            else:
                room.changed()  # a rematch's seat whose player had left waits for them for the grace
        return room

    async def room(self, code: str, token: str | None = None, joining: int | None = None) -> Room:
        """The room, loaded if it is not in memory. With other workers, a room another worker holds is asked
        for only on behalf of one of its players (`token`, checked against the stored seats) or of someone
        taking an open seat (`joining`): an anonymous read never makes a room change workers, which would cut
        its players' websockets (1012); it is answered 503 "elsewhere" instead (the proxy routes a room's
        requests to its holder, so only a request that bypassed it, or one sent while a room moves, gets it)."""
        if not ROOM_CODE.fullmatch(code):  # not one of ours: no need to ask the database
            raise ServerError("no-room", "no room has this code", 404)
        room = self.rooms.get(code)
        if room is None:
            try:
                room = await self.load(code, lambda: self.may_take_over(code, token, joining))
            except BestiaryError as error:
                raise ServerError("cannot-load", f"this room's game cannot be set up here: {error}", 409) from None
            except SQLAlchemyError:
                log.exception("room %s: the database refused to load it", code)
                raise ServerError("unavailable", "the database is not answering; try again in a moment", 503) \
                    from None
        if room is None:
            raise ServerError("no-room", "no room has this code", 404)
        return room

    async def may_take_over(self, code: str, token: str | None, joining: int | None) -> bool:
        """Whether a request may ask another worker for this room: it holds one of its seats' tokens, or asks
        for a seat that is open (taking it is a write only the room's holder may make)."""
        if token is not None and await self.store.run(self.store.holds_seat, code, hash_token(token)):
            return True
        return joining is not None and await self.store.run(self.store.seat_is_open, code, joining)

    async def load(self, code: str, take_over: Callable[[], Awaitable[bool]] | None = None) -> Room | None:
        """A room from its record: the initial state with every stored move applied again. Requests for a room
        being loaded wait for that load. With other workers, a room another holds is asked for only when
        `take_over()` says so (Hub.room)."""
        if code in self.loading:
            return await asyncio.shield(self.loading[code])
        self.loading[code] = asyncio.get_running_loop().create_future()
        try:
            room = await self.read(code, take_over)
        except BaseException as error:
            failed = self.loading.pop(code)
            failed.set_exception(error)
            failed.exception()  # retrieved: no one else may be waiting for it
            raise
        self.loading.pop(code).set_result(room)
        return room

    async def read(self, code: str, take_over: Callable[[], Awaitable[bool]] | None = None) -> Room | None:
        if self.leases is not None and not await self.leases.take(code):
            if take_over is None or not await take_over():
                raise ServerError("elsewhere", "another worker plays this room; ask again in a moment", 503)
            if not await self.leases.claim(code):
                raise ServerError("busy", "another worker is still handing this room over; try again in a moment",
                                  503)
        stored = await self.store.run(self.store.load_room, code)
        if code in self.rooms:  # made or loaded meanwhile
            return self.rooms[code]
        if stored is None:
            await self.let_go(code)
            return None
        row, seat_rows, move_rows = stored
        game = await self.game(row["game"], row["options"])
        seats = [seat_from_row(r) for r in seat_rows]
        room = Room(self, code, game, row["seed"], seats, row["window_seconds"], row["turn_seconds"], row["status"],
                    row["result"], row["rematch"], bool(row["public"]), row["rematch_of"], bool(row["spectator_chat"]))
        room.restore(move_rows, row["window_opened_at"], row["window_closes_at"])
        room.subscriptions = {(r["seat"], r["kind"]): Subscription(r["kind"], r["address"], r["token"], r["link_base"],
                                                                    r["notified_turn"])
                              for r in await self.store.run(self.store.turn_notices, code)}
        if code in self.rooms:  # made or loaded meanwhile
            return self.rooms[code]
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
                event("take-over", room=code)
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
            hang_up(room.connections)
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
                hang_up(room.connections)
            event("hand-over", room=code, connections=len(room.connections))
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
        clock = self.settings.clock
        while True:
            await clock.sleep(min(30.0, bound / 4))
            for room in [room for room in self.rooms.values() if room.status == "waiting"]:
                if room.connections:
                    room.idle_since = clock.time()
                elif clock.time() - room.idle_since >= bound:
                    try:
                        await room.expire()
                    except ServerError as error:  # the database is away: the next sweep tries again
                        log.warning("room %s: not expired (%s)", room.code, error.message)

    async def unsubscribe(self, code: str, token: str) -> bool:
        """The turn notice whose unsubscribe link holds this token stopped; False when there is none."""
        try:
            found = await self.store.run(self.store.unsubscribe, code, token)
        except SQLAlchemyError:
            log.exception("the database refused an unsubscribe")
            raise ServerError("unavailable", "the database is not answering; try again in a moment", 503) from None
        if found is None:
            return False
        seat, kind = found
        room = self.rooms.get(code)
        if room is not None:
            room.subscriptions.pop((seat, kind), None)  # type: ignore[arg-type]
        event("turn-notice-stopped", room=code, seat=seat, kind=kind)
        return True

    async def rematch(self, code: str, token: str | None, address: str | None = None) -> Room:
        """The next game at the same table: the same people in the same seats, the first player rotated."""
        room = await self.room(code, token)
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
                                                    turn_seconds=room.turn_seconds, public=room.public,
                                                    spectator_chat=room.spectator_chat),
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
        self.reviews.close()
        if self.thinkers is not None:
            self.thinkers.close()
        for room in self.rooms.values():
            room.close()
        self.store.close()


def stored_room_info(row: dict[str, Any], seat_rows: list[dict[str, Any]]) -> protocol.RoomInfo:
    """A waiting room's description from its record, without building its game."""
    seats = [seat_from_row(r).info() for r in seat_rows]
    return protocol.RoomInfo(code=row["code"], game=row["game"], title=game_class(row["game"]).info.title,
                             options=row["options"], status=row["status"], seats=seats,
                             window_seconds=row["window_seconds"], turn_seconds=row["turn_seconds"], version=0,
                             result=row["result"], rematch=row["rematch"], public=row["public"],
                             spectator_chat=row["spectator_chat"])


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
