"""Two workers behind the real proxy (Debian's HAProxy with deploy/haproxy.cfg) on one PostgreSQL database:
one is killed mid-game, and its rooms resume on the other with nothing lost."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.conftest import postgres_url, require_haproxy
from tests.server.live import LiveCluster
from tests.server.scripted import Table, accepted, seat_scripts, stored_moves, unexplained_records

PLAY_SECONDS = 240.0
TABLES: list[Table] = [
    ("critter-capture", {"players": 2}, ["ws", "rest"]),
    ("cube-creatures", {"players": 2}, ["ws", "heuristic"]),
    ("cube-creatures", {"players": 3}, ["ws", "ws", "random"]),
    ("creatures-of-lungo", {"players": 3}, ["ws", "rest", "heuristic"]),
    ("crits-creatures", {"players": 2}, ["ws", "ws"]),
    ("critter-capture", {"players": 3}, ["ws", "ws", "heuristic"]),
]

require_haproxy()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[LiveCluster]:
    url = postgres_url()
    running = LiveCluster(url, tmp_path)
    try:
        running.start()
        yield running
    finally:
        running.stop()
        for log in sorted(tmp_path.glob("*.log")):
            print(f"--- {log.name}:\n{log.read_text()[-2000:]}")


def test_a_worker_killed_mid_game_loses_nothing_its_rooms_resume_on_the_other(cluster: LiveCluster) -> None:
    rng = random.Random(20261201)
    scripts = seat_scripts(cluster.front, TABLES, rng)
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
