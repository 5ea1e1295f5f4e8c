"""Two workers on one PostgreSQL database, in one process: a request that reaches the worker not holding its
room (past the proxy, or while the room moves) takes the room over only for one of its players."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bestiary.server.broadcast import Connection
from bestiary.server.errors import ServerError
from tests.server.conftest import POSTGRES_ENV, postgres_url
from tests.server.test_handover import TWO, two_workers


def test_an_anonymous_read_on_the_wrong_worker_takes_no_room_over() -> None:
    """Reached directly, past the proxy: a stranger's read is refused (503 elsewhere) and the room stays where
    it is; its player's token, or someone taking its open seat, may still ask for it."""
    pg_url = postgres_url()
    if pg_url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    async def scenario() -> dict[str, Any]:
        first, second = await two_workers(pg_url)
        room = await first.create(TWO)
        token = await room.join(0, "Ada")
        watcher = Connection(0)
        room.connections.add(watcher)
        seen: dict[str, Any] = {}
        for name, kwargs in [("anonymous", {}), ("forged token", {"token": "x" * 22}), ("taken seat", {"joining": 0})]:
            try:
                await second.room(room.code, **kwargs)
                seen[name] = "taken over"
            except ServerError as error:
                seen[name] = f"{error.status} {error.error}"
        seen["still first"] = room.code in first.rooms and not room.closed and watcher.close_code is None
        seen["player takes it"] = (await second.room(room.code, token)).seats[0].name
        seen["open seat takes it back"] = (await first.room(room.code, joining=1)).code == room.code
        for hub in (first, second):
            hub.close()
        return seen

    assert asyncio.run(scenario()) == {
        "anonymous": "503 elsewhere", "forged token": "503 elsewhere", "taken seat": "503 elsewhere",
        "still first": True, "player takes it": "Ada", "open seat takes it back": True}
