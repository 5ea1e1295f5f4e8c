"""More than one worker on one PostgreSQL database: each room is played by one worker at a time.

A worker holds a room while it holds the room's lease, a PostgreSQL session advisory lock taken on the
worker's own connection. The lease ends with that connection, so when a worker dies (the kernel closes its
socket, PostgreSQL ends the session) its rooms are free at once. A proxy in front (deploy/haproxy.cfg)
sends every request and websocket for a room to one worker, chosen by the room's code; a worker asked for a
room that another still holds (a room made on another worker, or one taken over while its worker was down
and now routed back) asks the holder, over LISTEN/NOTIFY, to hand it over: the holder finishes what it is
doing, closes the room's websockets with 1012 (the clients reconnect, through the proxy, to the new owner)
and lets the lease go. Every few seconds a worker takes over the unfinished rooms no one holds, so that the
bots, windows and clocks of a dead worker's rooms run again even where no person comes back to them.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import psycopg
from sqlalchemy import make_url

log = logging.getLogger("bestiary.server")
CHANNEL = "bestiary_rooms"  # LISTEN/NOTIFY: "release CODE", a worker asking the holder to hand a room over
CLAIM_SECONDS = 10.0  # how long a worker waits for a room's holder to hand it over
CLAIM_RETRY = 0.05
ASK_AGAIN_SECONDS = 1.0  # a holder that has not answered is asked again (it may have just taken the room back)
ADOPT_SECONDS = 2.0  # how often a worker looks for unfinished rooms no one holds
HANDED_OVER_SECONDS = 30.0  # a room a worker handed over is not taken back by it unasked for this long
RELEASE = "release "
CONNECT_SECONDS = 5


def lease_key(code: str) -> int:
    """The room's advisory lock: 64 bits of its code's hash, as PostgreSQL's signed bigint."""
    return int.from_bytes(hashlib.blake2b(code.encode(), digest_size=8).digest(), "big", signed=True)


def psycopg_url(database_url: str) -> str:
    """The libpq URL of a SQLAlchemy PostgreSQL URL (postgresql+psycopg://... to postgresql://...)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class Leases:
    """This worker's leases on rooms, and the channel on which workers ask each other to hand rooms over."""

    def __init__(self, database_url: str, on_release: Callable[[str], None]) -> None:
        url = psycopg_url(database_url)
        # the leases live and die with this connection; its name tells an operator (and the tests) whose they are
        self.connection = psycopg.connect(url, autocommit=True, application_name=f"bestiary-worker-{os.getpid()}",
                                          connect_timeout=CONNECT_SECONDS)
        self.calls = ThreadPoolExecutor(max_workers=1, thread_name_prefix="bestiary-leases")
        self.held: set[str] = set()
        self.loop = asyncio.get_running_loop()
        self.on_release = on_release
        self.stopping = threading.Event()
        self.listener = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_SECONDS)
        self.listener.execute(f"LISTEN {CHANNEL}")
        self.listening = threading.Thread(target=self.listen, name="bestiary-listen", daemon=True)
        self.listening.start()

    async def run(self, sql: str, *params: Any) -> Any:
        def call() -> Any:
            row = self.connection.execute(sql, params).fetchone()
            return None if row is None else row[0]
        return await self.loop.run_in_executor(self.calls, call)

    async def alive(self) -> bool:
        """Whether the session holding the leases still answers."""
        try:
            await self.run("SELECT 1")
        except psycopg.Error:
            return False
        return True

    async def take(self, code: str) -> bool:
        """The room's lease, if no other worker holds it."""
        if code in self.held:
            return True
        if await self.run("SELECT pg_try_advisory_lock(%s)", lease_key(code)):
            self.held.add(code)
            return True
        return False

    async def claim(self, code: str) -> bool:
        """The room's lease, asking its holder to hand it over; False if it did not within CLAIM_SECONDS."""
        began = self.loop.time()
        asked = began - ASK_AGAIN_SECONDS
        while self.loop.time() < began + CLAIM_SECONDS:
            if await self.take(code):
                return True
            if self.loop.time() - asked >= ASK_AGAIN_SECONDS:
                await self.run("SELECT pg_notify(%s, %s)", CHANNEL, RELEASE + code)
                asked = self.loop.time()
            await asyncio.sleep(CLAIM_RETRY)
        return False

    async def give_up(self, code: str) -> None:
        if code in self.held:
            self.held.discard(code)
            await self.run("SELECT pg_advisory_unlock(%s)", lease_key(code))

    def listen(self) -> None:
        """On its own thread: every request to hand a room over, passed to the event loop."""
        while not self.stopping.is_set():
            try:
                for notice in self.listener.notifies(timeout=1.0):
                    if notice.payload.startswith(RELEASE):
                        self.loop.call_soon_threadsafe(self.on_release, notice.payload[len(RELEASE):])
            except psycopg.Error:
                if not self.stopping.is_set():
                    log.exception("the room channel failed; no more hand-over requests are heard")
                return

    def close(self) -> None:
        self.stopping.set()
        self.listening.join(timeout=5)
        self.listener.close()
        self.calls.shutdown(wait=True)
        self.connection.close()
        self.held.clear()
