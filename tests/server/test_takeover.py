"""A room read from the database on a request (a worker taking over a dead worker's room when its players come
back before the worker's next round of adoption, or a room handed over on request) runs its bots, windows and
clocks again at once, as a room resumed at start does: nothing waits for the next move of a person."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

from sqlalchemy import create_engine, update

from bestiary.server.db import Store, now, open_database, rooms
from bestiary.server.hub import Hub
from bestiary.server.room import Room
from bestiary.server.settings import Settings
from tests.server.conftest import create_room, join, move

ON_DEMAND = Settings(bot_delay=0.0, reaction_scale=0.0, bot_processes=0)
WAIT_SECONDS = 10.0


def moves_on_after_a_load_on_demand(database_url: str, code: str) -> tuple[int, int]:
    """The room's version when read on a request, and once its due timers have run (or WAIT_SECONDS passed),
    on a hub that has not resumed anything itself."""
    async def scenario() -> tuple[int, int]:
        hub = Hub(Store(open_database(database_url)), ON_DEMAND)
        try:
            room: Room = await hub.room(code)
            loaded = room.version
            deadline = asyncio.get_running_loop().time() + WAIT_SECONDS
            while room.version == loaded and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(0.02)
            return loaded, room.version
        finally:
            hub.close()
    return asyncio.run(scenario())


def test_a_bot_to_move_in_a_room_loaded_on_demand_moves(server: Any, database_url: str) -> None:
    with server(database_url, Settings(bot_delay=3600.0)) as client:  # the bot's move is due after the stop
        code = create_room(client, "critter-capture", options={"players": 2},
                           seats=[{"kind": "bot", "agent": "heuristic"}, {"kind": "human"}])["code"]
        join(client, code, 1)
        assert client.get(f"/api/rooms/{code}/view").json()["to_act"] == [0]
    loaded, later = moves_on_after_a_load_on_demand(database_url, code)
    assert later > loaded


def test_a_window_that_ran_out_while_no_worker_held_the_room_closes_when_it_is_loaded(server: Any,
                                                                                      database_url: str) -> None:
    with server(database_url) as client:
        code = create_room(client, "secret-duel", window_seconds=600)["code"]
        tokens = [join(client, code, seat) for seat in range(3)]
        assert move(client, code, tokens[0], "claim", 0).status_code == 200  # a response window for seats 1, 2
        assert client.get(f"/api/rooms/{code}/view").json()["window"]["kind"] == "response"
    engine = create_engine(database_url)  # its time runs out while the room is held by no worker
    with engine.begin() as connection:
        connection.execute(update(rooms).where(rooms.c.code == code)
                           .values(window_closes_at=now() - timedelta(seconds=1)))
    engine.dispose()
    loaded, later = moves_on_after_a_load_on_demand(database_url, code)
    assert later > loaded  # the seats that did not answer passed
