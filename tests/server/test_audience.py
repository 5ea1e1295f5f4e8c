"""A view is made once per audience (each seat, the spectators) and state, however many connections share it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from bestiary.server import protocol
from bestiary.server.broadcast import Connection
from bestiary.server.db import Store, open_database
from bestiary.server.hub import Hub
from tests.server.conftest import INSTANT


def test_one_view_per_audience_and_every_connection_gets_its_own(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, dict[str, list[Any]]]:
        hub = Hub(Store(open_database(f"sqlite:///{tmp_path / 'bestiary.sqlite3'}")), INSTANT)
        room = await hub.create(protocol.CreateRoom(game="critter-capture", options={"players": 2}))
        tokens = [await room.join(0, "a"), await room.join(1, "b")]
        watchers = {"spectator": [Connection(None) for _ in range(3)], "seat 0": [Connection(0) for _ in range(2)],
                    "seat 1": [Connection(1)]}
        room.connections.update(c for group in watchers.values() for c in group)
        made = room.view
        calls = []

        def counted(seat: int | None, events_from: int = 0, info: protocol.RoomInfo | None = None) -> protocol.View:
            calls.append(seat)
            return made(seat, events_from, info)

        room.view = counted  # type: ignore[method-assign]
        mover = room.state.players_to_act()[0]
        await room.move(tokens[mover], str(room.state.legal_actions(mover)[0]), room.version)
        hub.close()
        sent = {name: [json.loads(c.outbox.get_nowait()) for c in group] for name, group in watchers.items()}
        return len(calls), sent

    views, sent = asyncio.run(scenario())
    assert views == 3
    for name, seat in (("spectator", None), ("seat 0", 0), ("seat 1", 1)):
        messages = sent[name]
        assert all(m == messages[0] for m in messages) and messages[0]["view"]["seat"] == seat
    assert sent["seat 0"][0]["view"]["observation"] != sent["spectator"][0]["view"]["observation"]
