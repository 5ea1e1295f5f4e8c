"""A bot thinks off the server's event loop: while it searches, the server answers everyone else."""

from __future__ import annotations

import random
import threading

from fastapi.testclient import TestClient

from bestiary.agents.base import Agent, RandomAgent, SeatView, register_agent
from tests.server.conftest import create_room, join

THINKING = threading.Event()  # the bot has started to think
ANSWERED = threading.Event()  # the server answered a request while it thought
SEEN: list[bool] = []  # for each move: whether the answer came while the bot was still thinking


class Ponderer(Agent):
    """Thinks until the server has answered a request (or 10 s pass), then moves at random."""

    name = "ponderer"

    def act(self, view: SeatView, rng: random.Random) -> object:
        THINKING.set()
        SEEN.append(ANSWERED.wait(10))
        return RandomAgent().act(view, rng)


register_agent("ponderer", lambda settings: Ponderer())


def test_a_thinking_bot_leaves_the_server_free(client: TestClient) -> None:
    room = create_room(client, "critter-capture", options={"players": 2},
                       seats=[{"kind": "bot", "agent": "ponderer"}, {"kind": "human"}])
    join(client, room["code"], 1)  # the game starts, the bot's seat first
    assert THINKING.wait(10), "the bot never started to think"
    assert client.get("/api/games").status_code == 200  # served by the event loop the bot must not hold
    ANSWERED.set()
    for _ in range(200):
        if client.get(f"/api/rooms/{room['code']}/view").json()["version"] > 0:
            break
    assert SEEN[:1] == [True]
