"""Group commit: many rooms' moves in one transaction, each room told only once its moves are committed."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path
from typing import Any

from sqlalchemy.exc import IntegrityError

from bestiary.server import protocol
from bestiary.server.commits import GroupCommit
from bestiary.server.db import MoveWrite, Store, open_database
from bestiary.server.errors import ServerError
from bestiary.server.hub import Hub
from bestiary.server.room import Room
from tests.server.conftest import INSTANT
from tests.server.scripted import stored_moves

ROOMS = 6


async def rooms_in_play(hub: Hub) -> list[tuple[Room, str]]:
    """Rooms of critter capture with both seats taken; each with the token of the seat to move."""
    made = []
    for _ in range(ROOMS):
        room = await hub.create(protocol.CreateRoom(game="critter-capture", options={"players": 2}))
        tokens = [await room.join(0, "a"), await room.join(1, "b")]
        made.append((room, tokens[room.state.players_to_act()[0]]))
    return made


def first_move(room: Room) -> str:
    return str(room.state.legal_actions(room.state.players_to_act()[0])[0])


def test_many_rooms_moves_share_one_transaction_and_none_is_adopted_before_it_commits(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"
    groups: list[list[str]] = []
    release, writing = threading.Event(), threading.Event()

    async def scenario() -> tuple[list[int], list[int]]:
        hub = Hub(Store(open_database(url)), INSTANT)
        tables = await rooms_in_play(hub)
        record = hub.store.record_moves

        def slow_record(writes: list[MoveWrite]) -> None:
            groups.append([code for code, _, _ in writes])
            writing.set()
            release.wait(5)  # the first transaction takes its time: the others' moves arrive meanwhile
            record(writes)

        hub.store.record_moves = slow_record  # type: ignore[method-assign]
        before = [room.version for room, _ in tables]
        moving = [asyncio.ensure_future(room.move(token, first_move(room), room.version)) for room, token in tables]
        assert await asyncio.to_thread(writing.wait, 5)
        during = [room.version for room, _ in tables]  # nothing adopted while its commit is under way
        assert during == before
        release.set()
        await asyncio.gather(*moving)
        hub.close()
        return during, [room.version for room, _ in tables]

    during, after = asyncio.run(scenario())
    assert all(later > earlier for earlier, later in zip(during, after, strict=True))
    assert len(groups) == 1 and len(set(groups[0])) == ROOMS  # every room's move in one transaction
    assert sum(len(stored_moves(url, code)) for code in groups[0]) == sum(after)


def test_a_write_that_fails_in_a_group_fails_its_room_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"

    async def scenario() -> tuple[list[Any], list[int], list[int]]:
        hub = Hub(Store(open_database(url)), INSTANT)
        tables = await rooms_in_play(hub)
        before = [len(stored_moves(url, room.code)) for room, _ in tables]
        record = hub.store.record_moves
        doomed = tables[2][0].code

        def refuse_one(writes: list[MoveWrite]) -> None:
            if any(code == doomed for code, _, _ in writes):
                raise IntegrityError("INSERT", {}, Exception("UNIQUE constraint failed: moves.number"))
            record(writes)

        hub.store.record_moves = refuse_one  # type: ignore[method-assign]
        outcomes = await asyncio.gather(*(room.move(token, first_move(room), room.version) for room, token in tables),
                                        return_exceptions=True)
        hub.close()
        return outcomes, before, [len(stored_moves(url, room.code)) for room, _ in tables]

    outcomes, before, after = asyncio.run(scenario())
    refused = [o for o in outcomes if isinstance(o, ServerError)]
    assert len(refused) == 1 and outcomes[2] is refused[0] and refused[0].error == "unavailable"
    assert [later > earlier for earlier, later in zip(before, after, strict=True)] == [True, True, False] + [True] * 3



def test_a_write_handed_in_as_the_writer_finishes_is_written() -> None:
    """Twenty rooms hand in moves a few steps apart, on one writer: some are handed in at the very step the writer
    finds nothing left and ends. Each must still be written; one that found the ending writer still counted as
    running waited for ever (a whole suite's run once hung on it)."""
    written: list[str] = []

    class InstantStore:
        async def run(self, method: Any, writes: list[MoveWrite]) -> None:
            await asyncio.sleep(0)
            method(writes)

        def record_moves(self, writes: list[MoveWrite]) -> None:
            written.extend(code for code, _, _ in writes)

    async def scenario() -> None:
        commits = GroupCommit(InstantStore(), writers=1)  # type: ignore[arg-type]
        rng = random.Random(1)

        async def room(code: str) -> None:
            for number in range(50):
                for _ in range(rng.randrange(3)):
                    await asyncio.sleep(0)
                await commits.record(code, [(number, 0, "pass")], {})

        await asyncio.wait_for(asyncio.gather(*(room(f"R{i}") for i in range(20))), 10)
        assert commits.writing == 0 and not commits.pending

    asyncio.run(scenario())
    assert len(written) == 20 * 50
