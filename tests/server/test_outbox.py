"""A websocket client that does not read its socket costs the server a bounded outbox: past `max_outbox` it is
cut off with close code 1013 and let go, while the other clients' games go on, and its player comes back."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.uri import parse_uri

from bestiary.server.app import create_app
from bestiary.server.broadcast import Connection
from bestiary.server.hub import Hub
from bestiary.server.limits import CLOSE_BEHIND
from bestiary.server.settings import Settings
from tests.server.tables import serving

LIMIT = 32 * 1024  # characters of JSON waiting for one websocket
SMALL_BUFFER = 4096  # the kernel's socket buffers, so that a client that does not read fills them soon
MAX_LINES = 2000  # chat lines of LINE characters the other player sends at most
LINE = "a" * 500
SETTINGS = Settings(bot_delay=0.0, reaction_scale=0.0, disconnect_grace=None, message_rate=1e9,
                    message_burst=10**9, chat_burst=10**9, max_outbox=LIMIT, bot_processes=0)


def seat_connection(hub: Hub, code: str, seat: int) -> Connection | None:
    """The server's connection for the seat (read from the test's thread: a copy of the set, taken at once)."""
    return next((c for c in list(hub.rooms[code].connections) if c.seat == seat), None)


async def opened(host: str, code: str, token: str) -> ClientConnection:
    ws = await websockets.connect(f"ws://{host}/api/rooms/{code}/ws", max_size=None)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


class Sleeper:
    """A client that says hello and then does not read its socket (a small receive buffer, no library reading
    ahead of it), until `wake` reads everything the server sent it, up to the close."""

    def __init__(self, host: str, code: str, token: str) -> None:
        address, port = host.rsplit(":", 1)
        self.socket = socket.socket()
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_BUFFER)
        self.socket.settimeout(15)
        self.socket.connect((address, int(port)))
        self.protocol = ClientProtocol(parse_uri(f"ws://{host}/api/rooms/{code}/ws"), max_size=None)
        self.protocol.send_request(self.protocol.connect())
        self.flush()
        while self.protocol.handshake_exc is None and not self.protocol.events_received():  # the 101 answer
            self.protocol.receive_data(self.socket.recv(SMALL_BUFFER))
        self.protocol.send_text(json.dumps({"type": "hello", "token": token}).encode())
        self.flush()

    def flush(self) -> None:
        for data in self.protocol.data_to_send():
            self.socket.sendall(data)

    def wake(self) -> tuple[int, int | None]:
        """Reads until the server closes: the messages read, and the close code."""
        messages = 0
        while self.protocol.close_rcvd is None:
            data = self.socket.recv(65536)
            if not data:
                break
            self.protocol.receive_data(data)
            messages += sum(frame.opcode == Opcode.TEXT for frame in self.protocol.events_received())
        self.socket.close()
        return messages, None if self.protocol.close_rcvd is None else self.protocol.close_rcvd.code


async def until(ws: ClientConnection, kind: str) -> dict[str, Any]:
    while (message := json.loads(await ws.recv()))["type"] != kind:
        pass
    return dict(message)


async def table(http: httpx.AsyncClient) -> tuple[str, list[str]]:
    code = (await http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}})).json()["code"]
    tokens = [(await http.post(f"/api/rooms/{code}/seats/{seat}", json={"name": f"P{seat + 1}"})).json()["token"]
              for seat in (0, 1)]
    return code, tokens


async def move_on(http: httpx.AsyncClient, code: str, tokens: list[str]) -> int:
    """One legal move by the seat to act, over REST; the version after it."""
    public = (await http.get(f"/api/rooms/{code}/view")).json()
    seat = public["to_act"][0]
    mine = (await http.get(f"/api/rooms/{code}/view", headers={"Authorization": f"Bearer {tokens[seat]}"})).json()
    answer = await http.post(f"/api/rooms/{code}/moves", headers={"Authorization": f"Bearer {tokens[seat]}"},
                             json={"action": mine["legal_actions"][0], "version": mine["version"]})
    assert answer.status_code == 200, answer.text
    return int(answer.json()["version"])


def test_a_client_that_does_not_read_is_cut_off_with_its_outbox_bounded_and_comes_back(sqlite_url: str) -> None:
    app = create_app(sqlite_url, SETTINGS)

    async def scenario(host: str) -> dict[str, Any]:
        hub: Hub = app.state.hub
        async with httpx.AsyncClient(base_url=f"http://{host}") as http:
            code, tokens = await table(http)
            other, other_tokens = await table(http)  # another game, played on meanwhile
            sleeper = await asyncio.to_thread(Sleeper, host, code, tokens[0])
            for _ in range(500):  # its hello is read
                if seat_connection(hub, code, 0) is not None:
                    break
                await asyncio.sleep(0.01)
            talker = await opened(host, code, tokens[1])
            await until(talker, "welcome")
            peak, lines, other_moves, other_version = 0, 0, 0, 0
            while (held := seat_connection(hub, code, 0)) is not None and lines < MAX_LINES:
                peak = max(peak, held.outbox.queued)
                await talker.send(json.dumps({"type": "chat", "text": LINE}))
                await until(talker, "chat")  # the talker is answered at once, however far the sleeper is behind
                lines += 1
                if lines % 100 == 0:
                    other_version = await move_on(http, other, other_tokens)
                    other_moves += 1
            cut_off = seat_connection(hub, code, 0) is None
            other_after = await move_on(http, other, other_tokens)  # the other game goes on
            await talker.send(json.dumps({"type": "ping"}))
            talker_served = (await until(talker, "pong")) == {"type": "pong"}
            # the sleeper wakes: what its socket held, then the close that says why
            held_back, close_code = await asyncio.to_thread(sleeper.wake)
            back = await opened(host, code, tokens[0])  # and reconnects as its seat
            welcome = await until(back, "welcome")
            public = (await http.get(f"/api/rooms/{code}")).json()
            for ws in (back, talker):
                await ws.close()
        return {"cut off": cut_off, "lines": lines, "held back": held_back, "peak": peak, "close code": close_code,
                "talker served": talker_served, "other moves": other_moves, "other after": other_after,
                "other version": other_version, "back": welcome["seat"], "back version": welcome["view"]["version"],
                "version": public["version"], "presence": public["seats"][0]["presence"]}

    with serving(app, send_buffer=SMALL_BUFFER) as host:
        seen = asyncio.run(scenario(host))
    assert seen["cut off"], seen
    assert 0 < seen["peak"] <= LIMIT, seen  # the outbox never held more than the bound
    assert seen["lines"] * len(LINE) > LIMIT, seen  # it was cut off past the bound, not before
    assert seen["close code"] == CLOSE_BEHIND, seen
    assert seen["talker served"] and seen["other after"] > seen["other version"], seen
    assert seen["back"] == 0 and seen["back version"] == seen["version"] and seen["presence"] == "connected", seen
