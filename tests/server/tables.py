"""Rooms of every game in play, for the fuzz, access and concurrency tests, and what a refusal must look like."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from bestiary.server.app import create_app
from bestiary.server.room import Room
from bestiary.server.settings import Settings
from tests.server.conftest import auth, create_room, join, view

# Every game the server plays, at a size with hidden hands, windows or races where the game has them.
GAMES: dict[str, dict[str, Any]] = {
    "critter-capture": {"players": 3},
    "cube-creatures": {"players": 3},
    "creatures-of-lungo": {"players": 3},
    "crits-creatures": {},
    "secret-duel": {},
}
# No timers: nothing but the clients' own messages may change a room during a test (bots in rooms the
# fuzzers make wait an hour), and no limit on how fast a test may send. No turn notice is ever sent: a fuzzer
# may give a seat any http URL as its webhook, and nothing may leave the machine.
UNLIMITED = Settings(bot_delay=3600.0, reaction_scale=1e4, disconnect_grace=None, message_rate=1e9,
                     message_burst=10**9, max_strikes=10**9, notice_attempts=0)
WINDOW_SECONDS = 600.0
TABLE_TALK = ("chat_history", "watching")  # messages about the room, not the game, that come unasked
ERROR_CODES = {"illegal", "bad-room", "bad-seats", "bad-token", "spectator", "no-room", "no-seat", "no-step", "stale",
               "not-your-turn", "not-started", "finished", "seat-taken", "bad-request", "bad-message", "too-large",
               "rate-limited", "not-found", "bad-method", "cannot-load", "too-many-rooms", "busy", "not-finished",
               "not-away", "computer-seat", "elsewhere", "too-fast", "no-take-back", "bad-notice",
               "no-email"}


@dataclass
class Table:
    """A room in play, every seat held by the test."""

    game: str
    code: str
    tokens: list[str]


def open_table(client: TestClient, game: str, rng: random.Random, moves: int) -> Table:
    """A room of `game` with every seat joined and `moves` random legal moves played by its seats."""
    code = create_room(client, game, options=GAMES[game], window_seconds=WINDOW_SECONDS)["code"]
    seats = len(client.get(f"/api/rooms/{code}").json()["seats"])
    table = Table(game, code, [join(client, code, seat) for seat in range(seats)])
    for _ in range(moves):
        if not play_one(client, table, rng):
            break
    return table


def play_one(client: TestClient, table: Table, rng: random.Random) -> bool:
    """One random legal move by a seat whose turn it is; False once the game is over."""
    public = view(client, table.code)
    if public["room"]["status"] != "playing":
        return False
    seat = rng.choice(public["to_act"])
    mine = view(client, table.code, table.tokens[seat])
    answer = client.post(f"/api/rooms/{table.code}/moves", headers=auth(table.tokens[seat]),
                         json={"action": rng.choice(mine["legal_actions"]), "version": mine["version"]})
    assert answer.status_code == 200, answer.text
    return True


def live_room(client: TestClient, code: str) -> Room:
    room: Room = client.app.state.hub.rooms[code]  # type: ignore[attr-defined]
    return room


def snapshot(client: TestClient, code: str) -> tuple[int, str]:
    """The room's true state: what no refused message may change."""
    room = live_room(client, code)
    return room.version, room.state.to_json()


def assert_clear_error(body: Any, websocket: bool = False) -> None:
    """A refusal of the documented shape: a known code and a sentence for a person."""
    assert isinstance(body, dict), body
    keys = {"type", "error", "message", "ref"} if websocket else {"error", "message"}
    assert set(body) == keys, body
    assert body["error"] in ERROR_CODES, body
    assert isinstance(body["message"], str) and len(body["message"]) >= 10, body


@contextlib.contextmanager
def live_server(database_url: str, settings: Settings = UNLIMITED) -> Iterator[str]:
    """The app under uvicorn on a loopback port, in a thread: real sockets, real concurrency. Yields host:port."""
    with serving(create_app(database_url, settings)) as host:
        yield host


@contextlib.contextmanager
def serving(app: FastAPI, send_buffer: int | None = None) -> Iterator[str]:
    """`app` under uvicorn on a loopback port, in a thread; `send_buffer`: each connection's kernel send buffer
    in bytes (a small one makes a client that does not read fill it soon). Yields host:port."""
    listener = socket.create_server(("127.0.0.1", 0))
    if send_buffer is not None:  # accepted sockets inherit it from the listening one
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(20)
        listener.close()
