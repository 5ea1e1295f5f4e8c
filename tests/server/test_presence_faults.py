"""Presence across a SIGKILL: seats whose players never come back are handed to a computer within the grace,
counted from the restart, whether they never connected, were connected at the kill, or joined while the
server was being killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.server.live import LiveServer

GRACE = 5.0


@pytest.fixture
def live_server(sqlite_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    log = tmp_path / "server.log"
    with LiveServer(sqlite_url, log, grace=GRACE) as server:
        yield server
    print(f"server log ({server.starts} starts):\n{log.read_text()[-3000:]}")


def seats(http: httpx.Client, code: str) -> list[dict[str, Any]]:
    return list(http.get(f"/api/rooms/{code}").json()["seats"])


async def hold_a_connection(base: str, code: str, token: str, connected: threading.Event) -> None:
    async with connect(base.replace("http", "ws") + f"/api/rooms/{code}/ws") as socket:
        await socket.send(json.dumps({"type": "hello", "token": token}))
        await socket.recv()
        connected.set()
        with_server = True
        while with_server:  # until the server is killed
            try:
                await socket.recv()
            except Exception:
                with_server = False


def test_after_a_restart_every_absent_seat_goes_to_a_computer_within_the_grace(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.base, timeout=30) as http:
        room = http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}}).json()["code"]
        tokens = [http.post(f"/api/rooms/{room}/seats/{seat}", json={"name": f"P{seat}"}).json()["token"]
                  for seat in (0, 1)]
        late = http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}}).json()["code"]
        http.post(f"/api/rooms/{late}/seats/0", json={"name": "early"})
        connected = threading.Event()  # seat 0 of `room` is connected when the server is killed; seat 1 never was
        holder = threading.Thread(target=asyncio.run, args=(hold_a_connection(live_server.base, room, tokens[0],
                                                                              connected),), daemon=True)
        holder.start()
        assert connected.wait(20)
        assert [s["presence"] for s in seats(http, room)] == ["connected", "away"]

        def join_late() -> None:  # its answer may never come: the server is killed meanwhile
            with contextlib.suppress(httpx.HTTPError):
                httpx.post(f"{live_server.base}/api/rooms/{late}/seats/1", json={"name": "late"}, timeout=30)

        joiner = threading.Thread(target=join_late, daemon=True)
        joiner.start()
        time.sleep(0.01)
        live_server.kill()
        holder.join(10)
        live_server.start()
        resumed = time.monotonic()
        joiner.join(30)
        # the grace counts from the restart: no one was handed over at once ...
        assert [s["presence"] for s in seats(http, room)] == ["away", "away"]
        late_seats = seats(http, late)
        late_joined = late_seats[1]["taken"]
        # ... and when it is over, a computer plays every seat whose player did not come back
        deadline = resumed + GRACE + 10
        while True:
            kinds = [s["presence"] for s in seats(http, room)]
            late_kinds = [s["presence"] for s in seats(http, late)]
            if kinds == ["computer", "computer"] and (not late_joined or late_kinds == ["computer", "computer"]):
                break
            assert time.monotonic() < deadline, (kinds, late_kinds)
            time.sleep(0.1)
        assert time.monotonic() - resumed >= GRACE - 0.5
        # the game goes on: the computers play it to the end
        while http.get(f"/api/rooms/{room}").json()["status"] != "finished":
            assert time.monotonic() < deadline + 30, "the game stalled after the hand-over"
            time.sleep(0.2)
        # a seat whose join was never answered is still in the game, as a computer; one never stored stays open
        assert late_joined or http.get(f"/api/rooms/{late}").json()["status"] == "waiting"
        # the player whose seat a computer took sees it as theirs and could claim it back
        claimed = http.post(f"/api/rooms/{room}/claim", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert claimed.status_code == 409 and claimed.json()["error"] == "finished"


def test_the_grace_counts_from_the_restart_not_from_before_the_kill(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.base, timeout=30) as http:
        room = http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}}).json()["code"]
        for seat in (0, 1):
            http.post(f"/api/rooms/{room}/seats/{seat}", json={"name": f"P{seat}"})
        time.sleep(GRACE - 1.5)  # most of the grace is gone when the server is killed
        live_server.kill()
        live_server.start()
        resumed = time.monotonic()
        time.sleep(2.0)  # past the grace counted from before the kill
        assert [s["presence"] for s in seats(http, room)] == ["away", "away"]
        while [s["presence"] for s in seats(http, room)] != ["computer", "computer"]:
            assert time.monotonic() < resumed + GRACE + 10
            time.sleep(0.1)
