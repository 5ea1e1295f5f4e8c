"""Two workers behind HAProxy (deploy/haproxy.cfg): a room's requests reach the worker that holds it however
its path is spelled, so an anonymous client cannot make a room change workers and cut its players off."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import POSTGRES_ENV, postgres_url
from tests.server.live import LiveCluster

ROOMS = 3
ATTACK_SECONDS = 3.0
ATTACKS_PER_SECOND = 5  # for each room, as in the attack that was seen

pytestmark = pytest.mark.skipif(shutil.which("haproxy") is None,
                                reason="no haproxy: .ci/server-services.sh installs Debian's")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveCluster]:
    url = postgres_url()
    if url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    running = LiveCluster(url, tmp_path_factory.mktemp("cluster"))
    try:
        running.start()
        yield running
    finally:
        running.stop()


def spellings(code: str) -> list[str]:
    """Paths a worker reads as this room's view, spelled as no client of ours would."""
    every = "".join(f"%{ord(c):02X}" for c in code)
    first = f"%{ord(code[0]):02x}{code[1:]}"  # lower-case hex
    return [f"/api/rooms/{every}/view", f"/api/rooms/{first}/view", f"/api/rooms/{first}/view?events_from=0",
            f"/api/rooms/{every}"]


def test_an_encoded_path_reaches_the_rooms_worker_and_disconnects_nobody(cluster: LiveCluster) -> None:
    with httpx.Client(base_url=cluster.front, timeout=30) as http:
        seats = []
        for _ in range(ROOMS):
            code = http.post("/api/rooms", json={"game": "cube-creatures", "options": {"players": 2}}).json()["code"]
            for seat in range(2):
                joined = http.post(f"/api/rooms/{code}/seats/{seat}", json={"name": f"player {seat}"})
                assert joined.status_code == 200, joined.text
                seats.append((code, joined.json()["token"]))
    holders_before = cluster.holders()

    async def attack() -> tuple[int, list[int]]:
        closed = 0
        ws_base = cluster.front.replace("http://", "ws://")

        async def player(code: str, token: str, stop: asyncio.Event) -> None:
            nonlocal closed
            async with connect(f"{ws_base}/api/rooms/{code}/ws") as socket:
                await socket.send(json.dumps({"type": "hello", "token": token}))
                assert json.loads(await socket.recv())["type"] == "welcome"
                ready.append(code)
                while not stop.is_set():
                    try:
                        await asyncio.wait_for(socket.recv(), timeout=0.1)
                    except TimeoutError:
                        continue
                    except ConnectionClosed:
                        closed += 1
                        return

        ready: list[str] = []
        stop = asyncio.Event()
        players = [asyncio.create_task(player(code, token, stop)) for code, token in seats]
        while len(ready) < len(seats):
            await asyncio.sleep(0.02)
            for task in players:
                if task.done():
                    task.result()
        statuses = []
        async with httpx.AsyncClient(base_url=cluster.front, timeout=30) as stranger:
            for _ in range(int(ATTACK_SECONDS * ATTACKS_PER_SECOND)):
                for code in sorted({code for code, _ in seats}):
                    for path in spellings(code):
                        statuses.append((await stranger.get(path)).status_code)
                await asyncio.sleep(1 / ATTACKS_PER_SECOND)
        stop.set()
        await asyncio.gather(*players)
        return closed, statuses

    disconnects, statuses = asyncio.run(attack())
    assert disconnects == 0
    assert set(statuses) == {200}  # every spelling was answered by the room's own worker
    assert cluster.holders() == holders_before  # no room changed hands


def test_a_path_that_does_not_decode_is_refused_by_the_proxy(cluster: LiveCluster) -> None:
    with httpx.Client(base_url=cluster.front, timeout=30) as http:
        assert http.get("/api/rooms/%5/view").status_code == 400
        assert http.get("/api/rooms/%zz0123456789abcd/view").status_code == 400
        assert http.get("/api/games").status_code == 200



CALLS_PER_10S, CREATIONS_PER_MINUTE = 60, 6


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveCluster]:
    url = postgres_url()
    if url is None:
        pytest.skip(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    running = LiveCluster(url, tmp_path_factory.mktemp("bounded"), calls_per_10s=CALLS_PER_10S,
                          creations_per_minute=CREATIONS_PER_MINUTE)
    try:
        running.start()
        yield running
    finally:
        running.stop()


def test_one_address_gets_one_budget_across_every_worker(bounded: LiveCluster) -> None:
    # The workers' own buckets are lifted here (LiveCluster), so every 429 below is the proxy's: one budget
    # for the address, however its rooms and calls spread over the workers.
    with httpx.Client(base_url=bounded.front, timeout=30) as http:
        made = [http.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}})
                for _ in range(CREATIONS_PER_MINUTE + 3)]
        assert [r.status_code for r in made] == [201] * CREATIONS_PER_MINUTE + [429] * 3
        refused = made[-1]
        assert refused.json()["error"] == "rate-limited" and refused.headers["Retry-After"] == "60"
        assert f"at most {CREATIONS_PER_MINUTE} a minute" in refused.json()["message"]
        codes = [r.json()["code"] for r in made[:CREATIONS_PER_MINUTE]]
        for code in codes:  # a seat taken: each room moves to its own worker, as the proxy routes it
            assert http.post(f"/api/rooms/{code}/seats/0", json={"name": "Ada"}).status_code == 200

        answered = 0
        for call in range(2 * CALLS_PER_10S):
            reply = http.get(f"/api/rooms/{codes[call % len(codes)]}")
            if reply.status_code == 429:
                break
            assert reply.status_code == 200, (call, reply.status_code, reply.text)
            answered += 1
        # every call of the address counts, the creations, the refused ones and the seats taken included: the
        # bound is met to a call (HAProxy's rate counts the request being judged)
        before = len(made) + len(codes)
        assert CALLS_PER_10S - 1 <= before + answered <= CALLS_PER_10S, answered
        assert reply.json()["error"] == "rate-limited" and reply.headers["Retry-After"] == "10"
        assert http.get("/").status_code == 200  # the pages are not refused: the bound is on the API
