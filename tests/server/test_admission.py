"""Room creations are counted the moment they are allowed: parallel creations never pass a bound together,
and rooms of bots only (which start at once and hold their game in memory) have bounds of their own."""

from __future__ import annotations

import asyncio
from collections import Counter

from bestiary.server import protocol
from bestiary.server.db import Store, open_database
from bestiary.server.errors import ServerError
from bestiary.server.hub import Hub
from bestiary.server.settings import Settings

WAITING = protocol.CreateRoom(game="critter-capture", options={"players": 2})
BOTS_ONLY = protocol.CreateRoom(game="critter-capture", options={"players": 2},
                                seats=[protocol.SeatSpec(kind="bot", agent="random")] * 2)


def outcomes(sqlite_url: str, settings: Settings, requests: list[tuple[protocol.CreateRoom, str]]
             ) -> tuple[Counter[str], Hub]:
    """Every request made at once; how many were made and how each refusal read."""
    async def run() -> tuple[Counter[str], Hub]:
        hub = Hub(Store(open_database(sqlite_url)), settings)
        results = await asyncio.gather(*(hub.create(request, address=address) for request, address in requests),
                                       return_exceptions=True)
        counted: Counter[str] = Counter()
        for result in results:
            if isinstance(result, ServerError):
                counted[f"{result.status} {result.error}"] += 1
            elif isinstance(result, BaseException):
                raise result
            else:
                counted["made"] += 1
        hub.close()
        return counted, hub
    return asyncio.run(run())


def test_fifty_parallel_creations_from_one_address_never_pass_its_bound(sqlite_url: str) -> None:
    made, hub = outcomes(sqlite_url, Settings(waiting_rooms_per_address=20), [(WAITING, "203.0.113.9")] * 50)
    assert made == {"made": 20, "429 too-many-rooms": 30}
    assert sum(room.status == "waiting" for room in hub.rooms.values()) == 20
    assert hub.admitted == {}  # every admission given back


def test_parallel_creations_from_many_addresses_never_pass_the_servers_bound(sqlite_url: str) -> None:
    requests = [(WAITING, f"203.0.113.{i}") for i in range(40)]
    made, _ = outcomes(sqlite_url, Settings(max_waiting_rooms=10), requests)
    assert made == {"made": 10, "503 too-many-rooms": 30}


def test_rooms_of_bots_only_are_bounded_per_address_and_in_all(sqlite_url: str) -> None:
    slow = Settings(bot_delay=30.0, bot_rooms_per_address=2, max_bot_rooms=5)  # they stay playing
    requests = [(BOTS_ONLY, "203.0.113.1")] * 4 + [(BOTS_ONLY, f"198.51.100.{i}") for i in range(6)]
    made, hub = outcomes(sqlite_url, slow, requests)
    assert made["made"] == 5
    assert made["429 too-many-rooms"] >= 2  # the first address past its 2
    assert sum(room.creator == "203.0.113.1" for room in hub.rooms.values()) <= 2
    assert all(room.bots_only and room.status == "playing" for room in hub.rooms.values())
