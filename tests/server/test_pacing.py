"""Online, a person's seat that can only pass a response window passes by itself (CUBE-51, LUNGO-72)."""

from __future__ import annotations

import random
import time

from fastapi.testclient import TestClient

from bestiary.server.settings import Settings
from tests.server.conftest import Server, create_room, join, move, view


def test_a_persons_seat_with_nothing_but_pass_passes_by_itself(server: Server, sqlite_url: str) -> None:
    # a fifth of a computer player's answering time (0.12 s to 0.24 s): long enough to see the seat asked
    with server(sqlite_url, Settings(bot_delay=0.0, reaction_scale=0.2)) as client:
        passed = play_until_seats_pass_by_themselves(client)
    assert passed


def play_until_seats_pass_by_themselves(client: TestClient) -> int:
    code = create_room(client, "cube-creatures", options={"players": 3}, window_seconds=600)["code"]
    tokens = [join(client, code, seat) for seat in range(3)]
    rng = random.Random(5)
    passed_by_itself = 0
    for _ in range(400):
        public = view(client, code)
        if public["room"]["status"] == "finished" or passed_by_itself >= 3:
            break
        views = {seat: view(client, code, tokens[seat]) for seat in public["to_act"]}
        deciders = [seat for seat, v in views.items() if v["legal_actions"] != ["pass"]]
        if deciders:
            seat = deciders[0]
            action = rng.choice(views[seat]["legal_actions"])
            assert move(client, code, tokens[seat], action, views[seat]["version"]).status_code == 200
            continue
        # every seat still asked can only pass: nobody sends a move, and the window closes all the same
        deadline = time.monotonic() + 5
        while view(client, code)["version"] == public["version"]:
            assert time.monotonic() < deadline, "the pass-only seats never passed"
            time.sleep(0.01)
        passed_by_itself += 1
    return passed_by_itself
