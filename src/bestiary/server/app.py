"""The FastAPI application: the JSON API, the play websocket and the browser UI's files.

Why this file is over 400 lines: it is every route the server answers, each a few lines handing over to the
hub and its rooms (server/hub.py, server/room.py), with the websocket's reading and writing loops; the
bounds they enforce are in server/limits.py."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, NoReturn
from urllib.parse import parse_qsl

from fastapi import FastAPI, Header, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bestiary.agents import agent_names
from bestiary.server import protocol, teaching
from bestiary.server.broadcast import CLOSE_MOVED, Connection
from bestiary.server.db import Store, open_database
from bestiary.server.errors import ServerError
from bestiary.server.guard import ROUND_TRIP, Bounds, Guard, Ledger, TokenBucket
from bestiary.server.hub import Hub, known_games
from bestiary.server.limits import CLOSE_BEHIND, HANG_UP, LOBBY_OFFSET_MAX, LOBBY_PAGE, LOBBY_PAGE_MAX, Outbox
from bestiary.server.races import RoundTrip
from bestiary.server.room import Room
from bestiary.server.settings import Settings

WEB = Path(__file__).resolve().parent.parent / "web"
HELLO_SECONDS = 15.0
HTTP_ERRORS = {400: "bad-request", 404: "not-found", 405: "bad-method", 413: "too-large"}
CLOSE_POLICY, CLOSE_TOO_BIG = 1008, 1009  # RFC 6455 close codes
DRAIN_SECONDS = 10.0
UNSUBSCRIBE_PAGE = ('<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
                    'content="width=device-width, initial-scale=1"><title>Bestiary: turn notices</title>'
                    '<link rel="stylesheet" href="/style.css"></head><body><main class="panel">{body}</main></body>'
                    '</html>')  # how long a connection being closed may take to read the answers queued for it

Token = Annotated[str | None, Header(alias="Authorization", description="Bearer <seat token>")]


def bearer(header: str | None) -> str | None:
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServerError("bad-token", "send the seat token as 'Authorization: Bearer <token>'", 401)
    return token.strip()


def describe(error: ValidationError | RequestValidationError) -> str:
    parts = []
    for problem in error.errors():
        where = ".".join(str(p) for p in problem["loc"] if p != "body") or "message"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


class TooManyStrikes(Exception):
    """A connection kept breaking the limits: it is closed with `close_code` after `error` is sent."""

    def __init__(self, error: ServerError, close_code: int) -> None:
        super().__init__(error.message)
        self.error = error
        self.close_code = close_code


class MessageGuard:
    """One websocket's limits: message size, message rate, text frames only; too many breaches close it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.bucket = TokenBucket(settings.message_rate, settings.message_burst)
        self.bucket.filled_at = asyncio.get_running_loop().time()
        self.strikes = 0

    async def receive(self, websocket: WebSocket) -> str:
        """The next text message; a breach raises ServerError, or TooManyStrikes past the bound."""
        frame = await websocket.receive()
        if frame["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(frame.get("code", 1000))
        text, data = frame.get("text"), frame.get("bytes")
        limit = self.settings.max_message_bytes
        if not self.bucket.take(asyncio.get_running_loop().time()):
            self.strike(ServerError("rate-limited", f"too many messages: at most {self.settings.message_rate:g} a "
                                                    f"second ({self.settings.message_burst} at once); slow down",
                                    429), CLOSE_POLICY)
        if len(data if data is not None else (text or "").encode()) > limit:
            self.strike(ServerError("too-large", f"a message may hold at most {limit} bytes", 413), CLOSE_TOO_BIG)
        if text is None:
            self.strike(ServerError("bad-message", "messages are JSON text frames; binary frames are not read"),
                        CLOSE_POLICY)
        return str(text)

    def strike(self, error: ServerError, close_code: int) -> NoReturn:
        self.strikes += 1
        if self.strikes > self.settings.max_strikes:
            raise TooManyStrikes(ServerError("closed", f"closing: {self.strikes} messages broke the limits "
                                                       f"(last: {error.message})", error.status), close_code)
        raise error


class BodyLimit:
    """Refuses a REST request whose body is larger than `max_bytes`, before anyone parses it."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_bytes:
                answer = JSONResponse({"error": "too-large", "message": f"a request body may hold at most "
                                                                       f"{self.max_bytes} bytes"}, status_code=413)
                await answer(scope, receive, send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def error_message(error: ServerError, ref: str | None = None) -> dict[str, Any]:
    return protocol.ErrorMessage(error=error.error, message=error.message, ref=ref).model_dump()


def create_app(database_url: str, settings: Settings | None = None, bounds: Bounds | None = None,
               ledger: Ledger | None = None) -> FastAPI:
    """The application; with `bounds`, every client is held to them (server/guard.py), counted in `ledger`
    (shared with the guarded protocol classes that count the process's connections)."""
    limits = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = Hub(Store(open_database(database_url)), limits)
        app.state.hub = hub
        await hub.resume()
        yield
        hub.close()
        hub.store.engine.dispose()

    app = FastAPI(title="Bestiary", summary="Play Bestiary's games online: rooms, seats, moves, replays.",
                  lifespan=lifespan, docs_url=None, redoc_url=None)  # /docs is our own page: no CDN, works offline
    app.add_middleware(BodyLimit, max_bytes=limits.max_body_bytes)
    if bounds is not None:  # outermost: a refused call costs no body read and no routing
        app.add_middleware(Guard, bounds=bounds, ledger=ledger)

    def hub() -> Hub:
        found: Hub = app.state.hub
        return found

    @app.exception_handler(ServerError)
    async def server_error(_: Request, error: ServerError) -> JSONResponse:
        return JSONResponse({"error": error.error, "message": error.message}, status_code=error.status)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        messages = {404: f"nothing is at {request.url.path}",
                    405: f"{request.method} is not allowed on {request.url.path}"}
        return JSONResponse({"error": HTTP_ERRORS.get(error.status_code, "bad-request"),
                             "message": messages.get(error.status_code, str(error.detail))},
                            status_code=error.status_code, headers=error.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "bad-request", "message": describe(error)}, status_code=422)

    errors: dict[int | str, dict[str, Any]] = {
        status: {"model": protocol.ErrorBody} for status in (400, 401, 403, 404, 409, 422, 429, 503)}

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> FileResponse:
        """The REST API, read from /openapi.json by a page that needs nothing from the internet."""
        return FileResponse(WEB / "docs.html")

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        """That this process answers, for a proxy's or a container's checks: nothing is built or read for it
        (the game list takes some 16 ms of the event loop to build; checked every 300 ms it would cost a worker
        a twentieth of its time)."""
        return {"ok": True, "rooms": len(hub().rooms)}

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        """The games that can be played, with their options' schema, and the bots that can sit down."""
        return {"games": known_games(), "agents": agent_names()}

    @app.get("/api/protocol")
    async def protocol_schema() -> dict[str, Any]:
        """JSON Schema of every websocket message (docs/protocol.md explains them)."""
        return protocol.protocol_schema()

    @app.post("/api/rooms", status_code=201, responses=errors)
    async def create_room(request: protocol.CreateRoom, http: Request) -> protocol.RoomInfo:
        """A new room; seats not given are open human seats. A room of bots only starts at once."""
        return (await hub().create(request, address=client_address(http))).info()

    @app.get("/api/rooms")
    async def open_rooms(offset: Annotated[int, Query(ge=0, le=LOBBY_OFFSET_MAX)] = 0,
                         limit: Annotated[int, Query(ge=1, le=LOBBY_PAGE_MAX)] = LOBBY_PAGE,
                         after: Annotated[str | None, Query(max_length=64)] = None
                         ) -> list[protocol.RoomInfo]:
        """Rooms waiting for players, oldest first: `limit` of them from the `offset`-th, counted after the room
        `after` (the last one a client was shown, so that rooms filling up meanwhile shift nothing)."""
        return await hub().lobby(offset, limit, after)

    @app.get("/api/rooms/{code}", responses=errors)
    async def room_info(code: str) -> protocol.RoomInfo:
        room = await hub().room(code)
        await room.settled()
        return room.info()

    @app.post("/api/rooms/{code}/seats/{seat}", responses=errors)
    async def join(code: str, seat: int, request: protocol.JoinSeat) -> protocol.SeatToken:
        """Take an open seat; the answer holds the seat's secret token, given only here, only once."""
        token = await (await hub().room(code, joining=seat)).join(seat, request.name)
        return protocol.SeatToken(room=code, seat=seat, token=token)

    @app.post("/api/rooms/{code}/leave", responses=errors)
    async def leave(code: str, authorization: Token = None) -> protocol.RoomInfo:
        """Give up the seat: before the game it opens again, during it a bot plays it to the end."""
        room = await hub().room(code, bearer(authorization))
        seat = seat_or_refuse(room, bearer(authorization))
        await room.leave(seat)
        return room.info()

    @app.post("/api/rooms/{code}/rematch", responses=errors)
    async def rematch(code: str, http: Request, authorization: Token = None) -> protocol.RoomInfo:
        """The next game with the same people in the same seats (the same room for every player who asks);
        only a player of the finished game may start it."""
        return (await hub().rematch(code, bearer(authorization), client_address(http))).info()

    @app.post("/api/rooms/{code}/seats/{seat}/hand-over", responses=errors)
    async def hand_over(code: str, seat: int, authorization: Token = None) -> protocol.RoomInfo:
        """A player at the table hands an away player's seat to a computer now, without waiting for the grace."""
        room = await hub().room(code, bearer(authorization))
        await room.hand_over(bearer(authorization), seat)
        return room.info()

    @app.post("/api/rooms/{code}/claim", responses=errors)
    async def claim(code: str, authorization: Token = None) -> protocol.RoomInfo:
        """Take back the seat a computer played while you were away."""
        room = await hub().room(code, bearer(authorization))
        await room.claim(bearer(authorization))
        return room.info()

    @app.get("/api/rooms/{code}/view", responses=errors)
    async def view(code: str, events_from: int = 0, authorization: Token = None) -> protocol.View:
        """The position as the token's seat sees it (no token: as a spectator)."""
        room = await hub().room(code, bearer(authorization))
        await room.settled()
        seat = room.seat_of(bearer(authorization))
        room.presence.returned_by_rest(seat)
        return room.view(seat, max(0, events_from))

    @app.post("/api/rooms/{code}/moves", responses=errors)
    async def move(code: str, request: protocol.MoveRequest, authorization: Token = None) -> protocol.View:
        """Make a move for the token's seat against the state version it was chosen on."""
        token = bearer(authorization)
        room = await hub().room(code, token)
        await room.move(token, request.action, request.version)
        seat = room.seat_of(token)
        room.presence.returned_by_rest(seat)
        return room.view(seat)

    @app.post("/api/rooms/{code}/take-back", responses=errors)
    async def take_back(code: str, request: protocol.TakeBackRequest, authorization: Token = None) -> protocol.View:
        """Take back the token's seat's last move, where the view's `take_back` allows it; a refusal says why."""
        token = bearer(authorization)
        room = await hub().room(code, token)
        await room.take_back(token, request.version)
        seat = room.seat_of(token)
        room.presence.returned_by_rest(seat)
        return room.view(seat)

    @app.get("/api/rooms/{code}/notices", responses=errors)
    async def turn_notices(code: str, authorization: Token = None) -> protocol.TurnNoticeSettings:
        """The token's seat's own turn notices (no one else is ever shown them)."""
        room = await hub().room(code, bearer(authorization))
        return room.turn_notices(bearer(authorization))

    @app.put("/api/rooms/{code}/notices", responses=errors)
    async def set_turn_notices(code: str, request: protocol.TurnNotices, http: Request,
                               authorization: Token = None) -> protocol.TurnNoticeSettings:
        """Be told by e-mail or a webhook when it is your turn and no page of yours is open (null: not that way).
        Each notice ends with a link that stops them."""
        room = await hub().room(code, bearer(authorization))
        link_base = limits.public_url or str(http.base_url)
        return await room.set_turn_notices(bearer(authorization), request, link_base)

    @app.get("/api/rooms/{code}/notices/unsubscribe", include_in_schema=False)
    async def unsubscribe_page(code: str, token: Annotated[str, Query(max_length=100)]) -> HTMLResponse:
        """The unsubscribe link's page: a button, so that a mail program that opens links stops nothing."""
        return HTMLResponse(UNSUBSCRIBE_PAGE.format(body=(
            '<form method="post"><p>Stop the turn notices for this table?</p>'
            f'<input type="hidden" name="token" value="{html.escape(token)}">'
            '<button type="submit">Stop them</button></form>')))

    @app.post("/api/rooms/{code}/notices/unsubscribe", include_in_schema=False)
    async def unsubscribe(code: str, http: Request) -> HTMLResponse:
        """The room's code is in the path so that, with several workers, the proxy brings it to the room's own
        worker, whose memory forgets the notice at once (another worker's notice would find it gone and stop)."""
        form = dict(parse_qsl((await http.body()).decode(errors="replace")))
        token = form.get("token") or http.query_params.get("token") or ""
        stopped = len(token) <= 100 and await hub().unsubscribe(code, token)
        return HTMLResponse(UNSUBSCRIBE_PAGE.format(body=(
            "<p>No more turn notices for this table.</p>" if stopped
            else "<p>These turn notices were already stopped.</p>")), status_code=200 if stopped else 404)

    @app.get("/api/rooms/{code}/replay", responses=errors)
    async def replay(code: str, step: int, authorization: Token = None) -> protocol.ReplayView:
        """The game after `step` moves (chance outcomes count as moves), as the viewer may see it."""
        room = await hub().room(code, bearer(authorization))
        return room.replay_view(room.seat_of(bearer(authorization)), step)

    @app.post("/api/rooms/{code}/review", status_code=202, responses=errors)
    async def ask_review(code: str, authorization: Token = None) -> protocol.ReviewStatus:
        """Review the finished game (once: asking again changes nothing); made in the background, at the
        lowest priority of the search bots' processes. The answer is as GET's, with how far it has come."""
        room = await hub().room(code, bearer(authorization))
        viewer = room.seat_of(bearer(authorization))
        await hub().reviews.ask(code, room.game, room.seed, review_actions(room), room.status)
        return await hub().reviews.status(code, viewer, room.game, room.seed, review_actions(room))

    @app.get("/api/rooms/{code}/review", responses=errors)
    async def review(code: str, authorization: Token = None) -> protocol.ReviewStatus:
        """The game's review as the token's seat may see it (no token: as a spectator), as the replay shows
        the game to it; or how far it has come."""
        room = await hub().room(code, bearer(authorization))
        return await hub().reviews.status(code, room.seat_of(bearer(authorization)), room.game, room.seed,
                                          review_actions(room))

    @app.websocket("/api/rooms/{code}/ws")
    async def play(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        guard = MessageGuard(limits)
        try:
            try:
                room: Room | None = await hub().room(code)
            except ServerError as error:
                if error.error != "elsewhere":
                    raise
                room = None  # another worker holds it: asked for only on behalf of one of its players
            hello = await receive_hello(websocket, guard)
            if room is None:
                room = await hub().room(code, hello.token)
            seat = room.seat_of(hello.token)
        except ServerError as error:
            await websocket.send_json(error_message(error))
            await websocket.close(code=4000 + error.status)
            return
        except TooManyStrikes as abuse:
            await websocket.send_json(error_message(abuse.error))
            await websocket.close(code=abuse.close_code)
            return
        except WebSocketDisconnect:
            return
        connection = Connection(seat, outbox=Outbox(limits.max_outbox), events_seen=hello.events_seen)
        writer = asyncio.create_task(write_outbox(websocket, connection))
        async with room.lock:
            if room.closed:  # handed over to another worker meanwhile: the client reconnects there
                connection.close_code = CLOSE_MOVED
                connection.outbox.put_nowait(HANG_UP)
            else:
                room.connections.add(connection)
                room.send_view(connection, "welcome")
                room.presence.arrived(connection)
                if seat is None:  # one more watching: the table shows it
                    room.tell_watching(arrived=connection)
        # the kept chat follows the welcome, read off the event loop while the connection is already served
        history = asyncio.create_task(room.send_chat_history(connection))
        reader = asyncio.create_task(read_messages(websocket, guard, room, hello.token, connection))
        cut_off = asyncio.create_task(connection.outbox.behind.wait())  # it stopped reading (Outbox)
        try:
            await asyncio.wait((reader, cut_off), return_when=asyncio.FIRST_COMPLETED)
            if reader.done():
                reader.result()
        except TooManyStrikes as abuse:
            # the answers queued for the earlier messages go first, then the closing one, then the close
            connection.outbox.put_nowait(error_message(abuse.error))
            connection.outbox.put_nowait(HANG_UP)
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(writer), DRAIN_SECONDS)
                await websocket.close(code=abuse.close_code)
        except WebSocketDisconnect:
            pass
        finally:
            reader.cancel()
            history.cancel()
            cut_off.cancel()
            room.connections.discard(connection)
            room.chat_times.pop(connection, None)  # a spectator's chat limit goes with its connection
            writer.cancel()
            if not room.closed and not any(other.seat == connection.seat for other in room.connections):
                room.disconnected(connection.seat)
            if not room.closed and connection.seat is None:  # one fewer watching
                room.tell_watching()
        if connection.outbox.behind.is_set():  # the close frame goes once the client reads what its socket holds
            with contextlib.suppress(WebSocketDisconnect, RuntimeError, TimeoutError):
                await asyncio.wait_for(websocket.close(code=CLOSE_BEHIND), DRAIN_SECONDS)

    app.include_router(teaching.router)  # the rules, computer levels and the guided first game
    app.mount("/", StaticFiles(directory=WEB, html=True), name="web")
    return app


def review_actions(room: Room) -> list[tuple[int, str]]:
    """The room's game as a record's actions: who moved (CHANCE for an outcome) and what."""
    return [(player, str(action)) for player, action in room.state.history()]


def client_address(request: Request) -> str | None:
    """The client's address (behind a proxy, the one it forwards when uvicorn trusts it: --forwarded-allow-ips)."""
    return request.client.host if request.client is not None else None


def seat_or_refuse(room: Room, token: str | None) -> int:
    seat = room.seat_of(token)
    if seat is None:
        raise ServerError("bad-token", "send your seat token as 'Authorization: Bearer <token>'", 401)
    return seat


async def receive_hello(websocket: WebSocket, guard: MessageGuard) -> protocol.Hello:
    try:
        raw = await asyncio.wait_for(guard.receive(websocket), HELLO_SECONDS)
    except TimeoutError:
        raise ServerError("bad-message", "send a hello message first", 408) from None
    message = parse(raw)
    if not isinstance(message, protocol.Hello):
        raise ServerError("bad-message", "the first message must be a hello")
    return message


def parse(raw: str) -> protocol.Hello | protocol.Move | protocol.TakeBack | protocol.Chat | protocol.Ping:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nested deeper than Python parses
        raise ServerError("bad-message", "messages are JSON objects with a 'type'") from None
    try:
        return protocol.client_message.validate_python(data)
    except ValidationError as error:
        raise ServerError("bad-message", describe(error)) from None


async def handle(room: Room, token: str | None, raw: str, connection: Connection | None = None,
                 round_trip: RoundTrip | None = None) -> dict[str, Any] | None:
    """One client message; the answer for this client alone (broadcasts go through the room). A move carries
    when its position was sent to this connection and the connection's round trip, for races (races.py)."""
    ref = None
    try:
        message = parse(raw)
        if isinstance(message, protocol.Move):
            ref = message.ref
            sent = connection.sent.get(message.version) if connection is not None else None
            version = await room.move(token, message.action, message.version, sent,
                                      round_trip.seconds if round_trip is not None else None)
            return protocol.Accepted(ref=ref, version=version).model_dump()
        if isinstance(message, protocol.TakeBack):
            ref = message.ref
            return protocol.Accepted(ref=ref, version=await room.take_back(token, message.version)).model_dump()
        if isinstance(message, protocol.Chat):
            await room.chat(token, message.text, message.name, connection)
            return None
        if isinstance(message, protocol.Ping):
            return protocol.Pong().model_dump()
        raise ServerError("bad-message", "already said hello; to change seats, open a new connection")
    except ServerError as error:
        return error_message(error, ref)


async def read_messages(websocket: WebSocket, guard: MessageGuard, room: Room, token: str | None,
                        connection: Connection) -> NoReturn:
    round_trip = websocket.scope.get("extensions", {}).get(ROUND_TRIP)  # measured under `bestiary serve`
    """Answers the client's messages, in order, until it goes (WebSocketDisconnect) or breaks the limits once
    too often (TooManyStrikes)."""
    while True:
        try:
            raw = await guard.receive(websocket)
        except ServerError as error:
            connection.outbox.put_nowait(error_message(error))
            continue
        answer = await handle(room, token, raw, connection, round_trip)
        if answer is not None:
            connection.outbox.put_nowait(answer)


async def write_outbox(websocket: WebSocket, connection: Connection) -> None:
    """Sends the connection's messages in order until HANG_UP."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while (message := await connection.outbox.get()) is not HANG_UP:
            await websocket.send_text(message)
            connection.outbox.written(message)
        if connection.close_code is not None:  # the room moved to another worker
            await websocket.close(code=connection.close_code)
