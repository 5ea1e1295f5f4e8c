"""Two workers behind the real proxy (Debian's HAProxy with deploy/haproxy.cfg) on one PostgreSQL database:
one is killed mid-game, and its rooms resume on the other with nothing lost."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from bestiary.server.workers import BESTIARY
from tests.server.conftest import POSTGRES_ENV, postgres_url
from tests.server.scripted import SeatScript, stored_moves, unexplained_records

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 60.0
PLAY_SECONDS = 240.0
TABLES: list[tuple[str, dict[str, Any], list[str]]] = [
    ("critter-capture", {"players": 2}, ["ws", "rest"]),
    ("cube-creatures", {"players": 2}, ["ws", "heuristic"]),
    ("cube-creatures", {"players": 3}, ["ws", "ws", "random"]),
    ("creatures-of-lungo", {"players": 3}, ["ws", "rest", "heuristic"]),
    ("crits-creatures", {"players": 2}, ["ws", "ws"]),
    ("critter-capture", {"players": 3}, ["ws", "ws", "heuristic"]),
]

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None,
                                reason="no haproxy: .ci/server-services.sh installs Debian's")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_up(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert process.poll() is None, f"exited with {process.returncode}: {log.read_text()[-3000:]}"
        try:
            if httpx.get(f"{base}/api/games", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError(f"{base} did not answer: {log.read_text()[-3000:]}")


class Cluster:
    """Two `bestiary serve --cluster` workers and HAProxy in front of them."""

    def __init__(self, url: str, tmp_path: Path) -> None:
        self.url, self.tmp_path = url, tmp_path
        self.worker_ports = [free_port(), free_port()]
        self.front = f"http://127.0.0.1:{free_port()}"
        self.workers: dict[int, subprocess.Popen[bytes]] = {}
        self.proxy: subprocess.Popen[bytes] | None = None

    def start_worker(self, port: int) -> None:
        log = self.tmp_path / f"worker-{port}.log"
        command = [*BESTIARY, "serve", "--port", str(port), "--database-url", self.url,
                   "--cluster", "--bot-delay", "0", "--disconnect-grace", "0", "--message-rate", "1000000",
                   "--message-burst", "1000000", "--waiting-rooms-per-address", "1000"]
        with open(log, "ab") as out:
            self.workers[port] = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
        wait_until_up(f"http://127.0.0.1:{port}", self.workers[port], log)

    def start(self) -> None:
        for port in self.worker_ports:
            self.start_worker(port)
        spare = [free_port(), free_port()]  # the config's third and fourth workers: down, as with --workers 2
        env = {**os.environ, "BESTIARY_BIND": self.front.removeprefix("http://"),
               **{f"BESTIARY_WORKER_{i + 1}": f"127.0.0.1:{p}" for i, p in enumerate(self.worker_ports + spare)}}
        log = self.tmp_path / "haproxy.log"
        with open(log, "ab") as out:
            self.proxy = subprocess.Popen(["haproxy", "-db", "-f", str(ROOT / "deploy" / "haproxy.cfg")], env=env,
                                          stdout=out, stderr=subprocess.STDOUT)
        wait_until_up(self.front, self.proxy, log)

    def holders(self) -> dict[int, int]:
        """For each worker's process id, the rooms it holds a lease on now."""
        engine = create_engine(self.url)
        with engine.connect() as connection:
            rows = connection.execute(text(
                "SELECT a.application_name, count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
                "WHERE l.locktype = 'advisory' AND a.application_name LIKE 'bestiary-worker-%' GROUP BY 1")).all()
        engine.dispose()
        return {int(name.rsplit("-", 1)[1]): int(count) for name, count in rows}

    def kill(self, port: int) -> None:
        os.kill(self.workers[port].pid, signal.SIGKILL)
        self.workers[port].wait()

    def stop(self) -> None:
        for process in [*self.workers.values(), *([self.proxy] if self.proxy else [])]:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    url = postgres_url()
    if url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    running = Cluster(url, tmp_path)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        for log in sorted(tmp_path.glob("*.log")):
            print(f"--- {log.name}:\n{log.read_text()[-2000:]}")


def seat_scripts(base: str, rng: random.Random) -> list[SeatScript]:
    scripts = []
    with httpx.Client(base_url=base, timeout=30) as http:
        for game, options, seats in TABLES:
            specs = [{"kind": "human"} if s in ("ws", "rest") else {"kind": "bot", "agent": s} for s in seats]
            room = http.post("/api/rooms", json={"game": game, "options": options, "seats": specs,
                                                 "window_seconds": 120})
            assert room.status_code == 201, room.text
            code = room.json()["code"]
            for seat, transport in enumerate(seats):
                if transport in ("ws", "rest"):
                    token = http.post(f"/api/rooms/{code}/seats/{seat}", json={"name": f"script {seat}"})
                    assert token.status_code == 200, token.text
                    scripts.append(SeatScript(base, code, seat, token.json()["token"], transport,  # type: ignore[arg-type]
                                              random.Random(rng.randrange(2**32))))
    return scripts


def accepted(scripts: list[SeatScript]) -> int:
    return sum(s.outcome == "accepted" for script in scripts for s in script.sent)


def test_a_worker_killed_mid_game_loses_nothing_its_rooms_resume_on_the_other(cluster: Cluster) -> None:
    rng = random.Random(20261201)
    scripts = seat_scripts(cluster.front, rng)
    killed: dict[str, Any] = {}

    async def play() -> None:
        players = [asyncio.create_task(script.play()) for script in scripts]
        try:
            while accepted(scripts) < 40 and not all(p.done() for p in players):
                await asyncio.sleep(0.005)
            holders = cluster.holders()
            port = max(cluster.worker_ports, key=lambda p: holders.get(cluster.workers[p].pid, 0))
            killed.update(port=port, rooms=holders.get(cluster.workers[port].pid, 0), at=accepted(scripts))
            cluster.kill(port)
            done, _ = await asyncio.wait(players, timeout=PLAY_SECONDS)
            assert len(done) == len(players), "some games did not finish"
            for player in players:
                player.result()
        finally:
            for player in players:
                player.cancel()

    asyncio.run(play())
    assert killed["rooms"] >= 1, "the killed worker held no room"
    survivor = next(p for p in cluster.worker_ports if p != killed["port"])
    assert set(cluster.holders()) <= {cluster.workers[survivor].pid}
    with httpx.Client(base_url=cluster.front, timeout=30) as http:
        for code in sorted({s.code for s in scripts}):
            assert http.get(f"/api/rooms/{code}").json()["status"] == "finished"
            assert unexplained_records([s for s in scripts if s.code == code], stored_moves(cluster.url, code)) == []
        for script in scripts:
            auth = {"Authorization": f"Bearer {script.token}"}
            assert http.get(f"/api/rooms/{script.code}/view", headers=auth).json()["events"] == script.events
    moved = sum(script.connections > 1 for script in scripts if script.transport == "ws")
    assert moved >= 1  # some websockets were on the killed worker and came back through the proxy
    print(f"killed the worker on {killed['port']} holding {killed['rooms']} rooms after {killed['at']} accepted "
          f"moves; {accepted(scripts)} accepted in all; {moved} websocket players reconnected")
