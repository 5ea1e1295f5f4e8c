"""Workers sharing one PostgreSQL database, in one process: a room is held by one worker at a time, handed
over when another asks for it, taken over when its worker is gone; the lobby lists every worker's rooms."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bestiary.server import protocol
from bestiary.server.broadcast import CLOSE_MOVED, Connection
from bestiary.server.db import Store, open_database
from bestiary.server.hub import Hub
from bestiary.server.limits import HANG_UP
from bestiary.server.settings import Settings
from bestiary.server.workers import worker_arguments
from tests.server.conftest import postgres_url

WORKER = Settings(bot_delay=0.0, reaction_scale=0.0, cluster=True)
TWO = protocol.CreateRoom(game="critter-capture", options={"players": 2}, public=True)


@pytest.fixture
def pg_url() -> str:
    url = postgres_url()
    return url


async def two_workers(url: str) -> tuple[Hub, Hub]:
    hubs = (Hub(Store(open_database(url)), WORKER), Hub(Store(open_database(url)), WORKER))
    for hub in hubs:
        await hub.resume()
    return hubs


def test_a_room_asked_for_on_another_worker_is_handed_over_with_its_websockets_closed(pg_url: str) -> None:
    async def scenario() -> dict[str, Any]:
        first, second = await two_workers(pg_url)
        room = await first.create(TWO)
        token = await room.join(0, "Ada")
        watcher = Connection(None)
        room.connections.add(watcher)
        taken = await second.room(room.code, token)  # the first worker still holds it: asked to hand it over
        seen = {"first holds": room.code in first.rooms, "second holds": room.code in second.rooms,
                "seat name": taken.seats[0].name, "closed": room.closed, "close code": watcher.close_code,
                "hung up": watcher.outbox.get_nowait() is HANG_UP if not watcher.outbox.empty() else False}
        back = await first.room(room.code, token)  # and back again, as when its first worker is routed to again
        seen["back"] = back is not room and room.code in first.rooms and room.code not in second.rooms
        for hub in (first, second):
            hub.close()
        return seen

    seen = asyncio.run(scenario())
    assert seen == {"first holds": False, "second holds": True, "seat name": "Ada", "closed": True,
                    "close code": CLOSE_MOVED, "hung up": True, "back": True}


def test_a_dead_workers_rooms_are_taken_over_and_the_lobby_lists_every_workers_rooms(pg_url: str) -> None:
    async def scenario() -> tuple[int, bool, list[str], list[str]]:
        first, second = await two_workers(pg_url)
        waiting = await first.create(TWO)
        playing = await first.create(TWO)
        for seat in (0, 1):
            await playing.join(seat, f"P{seat + 1}")
        lobby = [info.code for info in await second.lobby(0, 50)]  # the first worker's room, from the database
        watcher = Connection(0)
        playing.connections.add(watcher)
        assert first.leases is not None
        first.leases.connection.close()  # the first worker's session ends, as when it dies
        taken = await second.adopt()
        assert not await first.leases.alive()
        first.lost_leases()  # were it alive, it lets every room go
        assert not first.rooms and watcher.close_code == CLOSE_MOVED
        resumed = second.rooms[playing.code].status == "playing" and waiting.code in second.rooms
        codes = [info.code for info in await second.lobby(0, 50)]
        for hub in (first, second):
            hub.close()
        return taken, resumed, lobby, codes

    taken, resumed, lobby, codes = asyncio.run(scenario())
    assert taken == 2 and resumed
    assert len(lobby) == 1 and lobby == codes


def test_each_worker_gets_the_command_line_with_its_own_port() -> None:
    argv = ["serve", "--workers", "3", "--port=8000", "--database-url", "postgresql+psycopg://x/y", "--bot-delay", "0"]
    assert worker_arguments(argv, 8002) == ["serve", "--database-url", "postgresql+psycopg://x/y", "--bot-delay", "0",
                                            "--port", "8002", "--cluster"]
