"""The FastAPI application: the JSON API, the play websocket and the browser UI's files."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from bestiary.agents import agent_names
from bestiary.server import protocol
from bestiary.server.db import Store, open_database
from bestiary.server.rooms import Connection, Hub, Room, ServerError, Settings, known_games

WEB = Path(__file__).resolve().parent.parent / "web"
MAX_MESSAGE = 4096  # bytes of one websocket message
HELLO_SECONDS = 15.0

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


def create_app(database_url: str, settings: Settings | None = None) -> FastAPI:
    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub = Hub(Store(open_database(database_url)), settings)
        app.state.hub = hub
        await hub.resume()
        yield
        hub.close()
        hub.store.engine.dispose()

    app = FastAPI(title="Bestiary", summary="Play Bestiary's games online: rooms, seats, moves, replays.",
                  lifespan=lifespan)

    def hub() -> Hub:
        found: Hub = app.state.hub
        return found

    @app.exception_handler(ServerError)
    async def server_error(_: Request, error: ServerError) -> JSONResponse:
        return JSONResponse({"error": error.error, "message": error.message}, status_code=error.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": "bad-request", "message": describe(error)}, status_code=422)

    errors: dict[int | str, dict[str, Any]] = {
        status: {"model": protocol.ErrorBody} for status in (400, 401, 403, 404, 409, 422)}

    @app.get("/api/games")
    async def games() -> dict[str, Any]:
        """The games that can be played, with their options' schema, and the bots that can sit down."""
        return {"games": known_games(), "agents": agent_names()}

    @app.get("/api/protocol")
    async def protocol_schema() -> dict[str, Any]:
        """JSON Schema of every websocket message (docs/protocol.md explains them)."""
        return protocol.protocol_schema()

    @app.post("/api/rooms", status_code=201, responses=errors)
    async def create_room(request: protocol.CreateRoom) -> protocol.RoomInfo:
        """A new room; seats not given are open human seats. A room of bots only starts at once."""
        return (await hub().create(request)).info()

    @app.get("/api/rooms")
    async def open_rooms() -> list[protocol.RoomInfo]:
        """Rooms waiting for players."""
        return hub().open_rooms()

    @app.get("/api/rooms/{code}", responses=errors)
    async def room_info(code: str) -> protocol.RoomInfo:
        room = hub().room(code)
        await room.settled()
        return room.info()

    @app.post("/api/rooms/{code}/seats/{seat}", responses=errors)
    async def join(code: str, seat: int, request: protocol.JoinSeat) -> protocol.SeatToken:
        """Take an open seat; the answer holds the seat's secret token, given only here, only once."""
        token = await hub().room(code).join(seat, request.name)
        return protocol.SeatToken(room=code, seat=seat, token=token)

    @app.post("/api/rooms/{code}/leave", responses=errors)
    async def leave(code: str, authorization: Token = None) -> protocol.RoomInfo:
        """Give up the seat: before the game it opens again, during it a bot plays it to the end."""
        room = hub().room(code)
        seat = seat_or_refuse(room, bearer(authorization))
        await room.leave(seat)
        return room.info()

    @app.post("/api/rooms/{code}/rematch", responses=errors)
    async def rematch(code: str) -> protocol.RoomInfo:
        """A new room with the same game, options and bots (the same one for everyone who asks)."""
        return (await hub().rematch(code)).info()

    @app.get("/api/rooms/{code}/view", responses=errors)
    async def view(code: str, events_from: int = 0, authorization: Token = None) -> protocol.View:
        """The position as the token's seat sees it (no token: as a spectator)."""
        room = hub().room(code)
        await room.settled()
        return room.view(room.seat_of(bearer(authorization)), max(0, events_from))

    @app.post("/api/rooms/{code}/moves", responses=errors)
    async def move(code: str, request: protocol.MoveRequest, authorization: Token = None) -> protocol.View:
        """Make a move for the token's seat against the state version it was chosen on."""
        room = hub().room(code)
        token = bearer(authorization)
        await room.move(token, request.action, request.version)
        return room.view(room.seat_of(token))

    @app.get("/api/rooms/{code}/replay", responses=errors)
    async def replay(code: str, step: int, authorization: Token = None) -> protocol.ReplayView:
        """The game after `step` moves (chance outcomes count as moves), as the viewer may see it."""
        room = hub().room(code)
        return room.replay_view(room.seat_of(bearer(authorization)), step)

    @app.websocket("/api/rooms/{code}/ws")
    async def play(websocket: WebSocket, code: str) -> None:
        await websocket.accept()
        try:
            room = hub().room(code)
            hello = await receive_hello(websocket)
            seat = room.seat_of(hello.token)
        except ServerError as error:
            await websocket.send_json(protocol.ErrorMessage(error=error.error, message=error.message).model_dump())
            await websocket.close(code=4000 + error.status)
            return
        except WebSocketDisconnect:
            return
        connection = Connection(seat, events_seen=hello.events_seen)
        writer = asyncio.create_task(write_outbox(websocket, connection))
        async with room.lock:
            room.connections.add(connection)
            room.send_view(connection, "welcome")
        try:
            while True:
                answer = await handle(room, hello.token, await websocket.receive_text())
                if answer is not None:
                    connection.outbox.put_nowait(answer)
        except WebSocketDisconnect:
            pass
        finally:
            room.connections.discard(connection)
            writer.cancel()
            if not any(other.seat == connection.seat for other in room.connections):
                room.disconnected(connection.seat)

    app.mount("/", StaticFiles(directory=WEB, html=True), name="web")
    return app


def seat_or_refuse(room: Room, token: str | None) -> int:
    seat = room.seat_of(token)
    if seat is None:
        raise ServerError("bad-token", "send your seat token as 'Authorization: Bearer <token>'", 401)
    return seat


async def receive_hello(websocket: WebSocket) -> protocol.Hello:
    try:
        raw = await asyncio.wait_for(websocket.receive_text(), HELLO_SECONDS)
    except TimeoutError:
        raise ServerError("bad-message", "send a hello message first", 408) from None
    message = parse(raw)
    if not isinstance(message, protocol.Hello):
        raise ServerError("bad-message", "the first message must be a hello")
    return message


def parse(raw: str) -> protocol.Hello | protocol.Move | protocol.Chat | protocol.Ping:
    if len(raw.encode()) > MAX_MESSAGE:
        raise ServerError("too-large", f"a message may hold at most {MAX_MESSAGE} bytes", 413)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        raise ServerError("bad-message", "messages are JSON objects with a 'type'") from None
    try:
        return protocol.client_message.validate_python(data)
    except ValidationError as error:
        raise ServerError("bad-message", describe(error)) from None


async def handle(room: Room, token: str | None, raw: str) -> dict[str, Any] | None:
    """One client message; the answer for this client alone (broadcasts go through the room)."""
    ref = None
    try:
        message = parse(raw)
        if isinstance(message, protocol.Move):
            ref = message.ref
            version = await room.move(token, message.action, message.version)
            return protocol.Accepted(ref=ref, version=version).model_dump()
        if isinstance(message, protocol.Chat):
            await room.chat(token, message.text)
            return None
        if isinstance(message, protocol.Ping):
            return protocol.Pong().model_dump()
        raise ServerError("bad-message", "already said hello; to change seats, open a new connection")
    except ServerError as error:
        return protocol.ErrorMessage(error=error.error, message=error.message, ref=ref).model_dump()


async def write_outbox(websocket: WebSocket, connection: Connection) -> None:
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await websocket.send_json(await connection.outbox.get())
