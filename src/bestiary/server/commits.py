"""Group commit: the moves of many rooms written in one transaction, with one sync to disk.

A room hands its new moves to `GroupCommit.record` and waits; one writer takes everything handed in since
its last transaction, writes it in one transaction and only then wakes each room, which adopts its new state
and broadcasts it. So every move is on disk before anyone is told of it, as before, but a sync (6 ms on this
machine's disk for SQLite, a WAL flush for PostgreSQL) is paid once for every room that moved meanwhile
instead of once a move. If a group's transaction fails, each write in it is tried again on its own, so one
room's bad write (a duplicate move number) fails that room alone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from bestiary.server.db import MoveWrite, Store

log = logging.getLogger("bestiary.server")


class GroupCommit:
    def __init__(self, store: Store, writers: int = 1) -> None:
        self.store = store
        # transactions under way at once: SQLite has one writer; PostgreSQL commits several side by side, and
        # groups their WAL flushes itself (one writer here was slower on it: docs/reliability.md)
        self.writers = writers
        self.pending: list[tuple[MoveWrite, asyncio.Future[None]]] = []
        # writers under way, counted down by each as it finds nothing left, in the same step: a done-callback
        # would run a step later, and a write handed in meanwhile would find no writer and never be written
        self.writing = 0
        self.running: set[asyncio.Task[None]] = set()  # kept referenced until they end

    async def record(self, code: str, moves: list[tuple[int, int, str]], room_values: dict[str, Any]) -> None:
        """Returns once the room's moves and values are committed; raises the database's error if they are not."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append(((code, moves, room_values), done))
        if self.writing < self.writers:
            self.writing += 1
            task = asyncio.get_running_loop().create_task(self.write_groups())
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        await asyncio.shield(done)  # a room cancelled meanwhile still needs to know whether it was written

    async def write_groups(self) -> None:
        try:
            await self.write_pending()
        finally:
            self.writing -= 1

    async def write_pending(self) -> None:
        while self.pending:
            group, self.pending = self.pending, []
            try:
                await self.store.run(self.store.record_moves, [write for write, _ in group])
            except Exception as error:
                if len(group) == 1:
                    group[0][1].set_exception(error)
                    continue
                log.warning("a group of %d writes failed (%s); writing each alone", len(group), error)
                for write, done in group:
                    try:
                        await self.store.run(self.store.record_moves, [write])
                    except Exception as alone:
                        done.set_exception(alone)
                    else:
                        done.set_result(None)
                continue
            for _, done in group:
                done.set_result(None)
