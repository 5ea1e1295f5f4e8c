"""Faults against a real server process: SIGKILL at random points while scripted clients play many games over
the websocket and REST, a database that is locked for a while; afterwards the clients' view is checked
against the database. BESTIARY_FAULT_KILLS and BESTIARY_FAULT_SEED make a longer or another run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import make_url

from tests.server.conftest import postgres_url
from tests.server.live import LiveServer
from tests.server.scripted import SeatScript, Table, accepted, seat_scripts, stored_moves, unexplained_records

KILLS = int(os.environ.get("BESTIARY_FAULT_KILLS", "3"))
SEED = int(os.environ.get("BESTIARY_FAULT_SEED", "20261130"))
PLAY_SECONDS = 240.0
# game, options, and per seat: a scripted player ("ws" or "rest") or a bot agent
TABLES: list[Table] = [
    ("critter-capture", {"players": 2}, ["ws", "rest"]),
    ("cube-creatures", {"players": 2}, ["ws", "heuristic"]),
    ("cube-creatures", {"players": 3}, ["ws", "ws", "random"]),
    ("creatures-of-lungo", {"players": 3}, ["ws", "rest", "heuristic"]),
    ("crits-creatures", {"players": 2}, ["ws", "ws"]),
    ("secret-duel", {}, ["ws", "ws", "rest"]),
]


@pytest.fixture
def live_server(database_url: str, tmp_path: Path) -> Iterator[LiveServer]:
    log = tmp_path / "server.log"
    with LiveServer(database_url, log) as server:
        yield server
    print(f"server log ({server.starts} starts):\n{log.read_text()[-3000:]}")


async def play_through_kills(server: LiveServer, scripts: list[SeatScript], rng: random.Random) -> list[float]:
    """Every script plays to the end while the server is killed KILLS times; the restart times."""
    players = [asyncio.create_task(script.play()) for script in scripts]
    restarts = []
    try:
        for _ in range(KILLS):
            target = accepted(scripts) + rng.randint(10, 40)
            while accepted(scripts) < target and not all(p.done() for p in players):
                await asyncio.sleep(0.002)
            await asyncio.sleep(rng.uniform(0.0, 0.02))  # lands between, or in the middle of, moves
            server.kill()
            restarts.append(await asyncio.to_thread(server.start))
        done, _ = await asyncio.wait(players, timeout=PLAY_SECONDS)
        assert len(done) == len(players), "some games did not finish"
        for player in players:
            player.result()  # a script's failed check fails the test
    finally:
        for player in players:
            player.cancel()
    return restarts


def test_killed_at_random_points_the_server_loses_and_repeats_no_acknowledged_move(
        live_server: LiveServer, database_url: str) -> None:
    rng = random.Random(SEED)
    scripts = seat_scripts(live_server.base, TABLES, rng)
    began = time.perf_counter()
    restarts = asyncio.run(play_through_kills(live_server, scripts, rng))
    assert len(restarts) == KILLS

    rooms = sorted({s.code for s in scripts})
    with httpx.Client(base_url=live_server.base, timeout=30) as http:
        for code in rooms:
            assert http.get(f"/api/rooms/{code}").json()["status"] == "finished"
            rows = stored_moves(database_url, code)
            assert unexplained_records([s for s in scripts if s.code == code], rows) == []
        for script in scripts:
            auth = {"Authorization": f"Bearer {script.token}"}
            # the log pieced together across every reconnect is the whole log, once
            assert http.get(f"/api/rooms/{script.code}/view", headers=auth).json()["events"] == script.events
            # what the mover saw right after its last accepted move is what the stored game replays to
            last = [s for s in script.sent if s.outcome == "accepted"][-1]
            replay = http.get(f"/api/rooms/{script.code}/replay", params={"step": last.version_after}, headers=auth)
            assert replay.json()["observation"] == last.observation
    outcomes = [s.outcome for script in scripts for s in script.sent]
    print(f"{KILLS} kills, restarts {[round(r, 2) for r in restarts]} s; {len(rooms)} games, "
          f"{accepted(scripts)} accepted moves, {outcomes.count('unknown') + outcomes.count('superseded')} "
          f"answers lost in flight ({outcomes.count('superseded')} of those moves made by their resend); "
          f"{sum(s.connections for s in scripts)} connections; {time.perf_counter() - began:.1f} s")


def test_a_locked_database_refuses_moves_cleanly_and_the_server_recovers(tmp_path: Path) -> None:
    path = tmp_path / "bestiary.sqlite3"
    url = f"sqlite:///{path}"
    with LiveServer(url, tmp_path / "server.log") as server, httpx.Client(base_url=server.base, timeout=60) as http:
        code = http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}, "seats": [
            {"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]}).json()["code"]
        auth = {"Authorization": f"Bearer {http.post(f'/api/rooms/{code}/seats/0', json={}).json()['token']}"}
        before = http.get(f"/api/rooms/{code}/view", headers=auth).json()
        blocker = sqlite3.connect(path, isolation_level=None)
        blocker.execute("BEGIN EXCLUSIVE")  # another program holds the file's write lock
        try:
            refused = http.post(f"/api/rooms/{code}/moves", headers=auth,
                                json={"action": before["legal_actions"][0], "version": before["version"]})
            assert refused.status_code == 503 and refused.json()["error"] == "unavailable"
            assert "nothing was changed" in refused.json()["message"]
            assert http.get(f"/api/rooms/{code}/view", headers=auth).json() == before
            stored = blocker.execute("SELECT count(*) FROM moves WHERE room_code = ?", (code,)).fetchone()[0]
            assert stored == before["version"]
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        for _ in range(5):  # back: the same move goes through, the bot answers, play goes on
            state = http.get(f"/api/rooms/{code}/view", headers=auth).json()
            answer = http.post(f"/api/rooms/{code}/moves", headers=auth,
                               json={"action": state["legal_actions"][0], "version": state["version"]})
            assert answer.status_code == 200, answer.text
        version = http.get(f"/api/rooms/{code}/view").json()["version"]  # once the bot's answer is in
        assert len(stored_moves(url, code)) == version


class Gate:
    """A TCP relay in front of PostgreSQL that can go down: it then cuts every relayed connection and closes
    each new one at once, as a database server that restarts or a network that drops does; or, when
    `silent`, holds each new one without an answer, as an unreachable host does."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.silent = False
        self.relayed: list[socket.socket] = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        with contextlib.suppress(OSError):  # the listener closed
            while True:
                client, _ = self.listener.accept()
                if self.silent:
                    self.relayed.append(client)
                    continue
                if not self.open:
                    client.close()
                    continue
                upstream = socket.create_connection(self.target)
                self.relayed += [client, upstream]
                for source, sink in ((client, upstream), (upstream, client)):
                    threading.Thread(target=self.pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def down(self) -> None:
        self.open = False
        for end in self.relayed:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
        self.relayed = []

    def close(self) -> None:
        self.down()
        self.listener.close()


def test_a_postgresql_server_that_goes_away_refuses_moves_cleanly_and_the_server_recovers(tmp_path: Path) -> None:
    url = postgres_url()
    real = make_url(url)
    gate = Gate(real.host or "127.0.0.1", real.port or 5432)
    through_gate = real.set(host="127.0.0.1", port=gate.port).render_as_string(hide_password=False)
    try:
        with LiveServer(through_gate, tmp_path / "server.log") as server, \
                httpx.Client(base_url=server.base, timeout=60) as http:
            code = http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}, "seats": [
                {"kind": "human"}, {"kind": "bot", "agent": "heuristic"}]}).json()["code"]
            token = http.post(f"/api/rooms/{code}/seats/0", json={}).json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            before = http.get(f"/api/rooms/{code}/view", headers=auth).json()
            gate.down()
            for _ in range(2):  # the pool's connections are dead, and new ones are refused
                refused = http.post(f"/api/rooms/{code}/moves", headers=auth,
                                    json={"action": before["legal_actions"][0], "version": before["version"]})
                assert refused.status_code == 503 and refused.json()["error"] == "unavailable"
                assert http.get(f"/api/rooms/{code}/view", headers=auth).json() == before
            gate.silent = True  # a host that does not answer: the connection attempt gives up, the move too
            began = time.perf_counter()
            refused = http.post(f"/api/rooms/{code}/moves", headers=auth,
                                json={"action": before["legal_actions"][0], "version": before["version"]})
            assert refused.status_code == 503 and time.perf_counter() - began < 30
            gate.down()
            gate.open, gate.silent = True, False
            for cut_while_idle in (False, False, True, False, False):
                state = http.get(f"/api/rooms/{code}/view", headers=auth).json()  # after the bot's answer
                assert state["to_act"] == [0], "the bot's answer was not stored at once"
                if cut_while_idle:  # PostgreSQL restarted between two moves: the pooled connections are dead
                    gate.down()
                    gate.open = True
                answer = http.post(f"/api/rooms/{code}/moves", headers=auth,
                                   json={"action": state["legal_actions"][0], "version": state["version"]})
                assert answer.status_code == 200, answer.text
            version = http.get(f"/api/rooms/{code}/view").json()["version"]
    finally:
        gate.close()
    assert len(stored_moves(url, code)) == version
