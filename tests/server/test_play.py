"""Authoritative play: legal moves go through, illegal and stale ones are refused and change nothing."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.server.clocks import ManualClock
from tests.server.conftest import INSTANT, Server, create_room, join, move, view


def two_player_room(client: TestClient) -> tuple[str, str, str]:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    return code, join(client, code, 0), join(client, code, 1)


def test_a_move_before_the_game_starts_is_refused(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    first = join(client, code, 0)
    answer = move(client, code, first, "draw fish", 0)
    assert answer.status_code == 409 and answer.json()["error"] == "not-started"


def test_illegal_moves_are_refused_with_the_reason_and_change_nothing(client: TestClient) -> None:
    code, first, _ = two_player_room(client)
    before = view(client, code, first)
    cases = {"draw purple": "no action reads 'draw purple'",
             "choose size": "commonness or size is chosen only before the active card is flipped",
             "flip a-card": "no action reads"}
    for action, reason in cases.items():
        answer = move(client, code, first, action, before["version"])
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"] == "illegal" and reason in answer.json()["message"], answer.json()
    spectator = client.post(f"/api/rooms/{code}/moves", json={"action": "draw fish", "version": 0})
    assert spectator.status_code == 403 and spectator.json()["error"] == "spectator"
    assert view(client, code, first) == before


def test_a_stale_move_is_refused_and_the_fresh_one_applies(client: TestClient) -> None:
    code, first, _ = two_player_room(client)
    start = view(client, code, first)
    assert move(client, code, first, "draw bird", start["version"]).status_code == 200
    after = view(client, code, first)
    assert after["version"] == start["version"] + 1
    again = move(client, code, first, "choose size", start["version"])  # chosen against the old position
    assert again.status_code == 409 and again.json()["error"] == "stale"
    assert "look again" in again.json()["message"]
    future = move(client, code, first, "choose size", after["version"] + 5)
    assert future.status_code == 409 and future.json()["error"] == "stale"
    assert view(client, code, first) == after
    assert move(client, code, first, "choose size", after["version"]).status_code == 200


def play_to_the_end(client: TestClient, code: str, tokens: list[str]) -> dict[str, Any]:
    state = view(client, code)
    for _ in range(500):
        if state["room"]["status"] == "finished":
            return view(client, code)
        seat = state["to_act"][0]
        mine = view(client, code, tokens[seat])
        answer = move(client, code, tokens[seat], mine["legal_actions"][-1], mine["version"])
        assert answer.status_code == 200, answer.text
        state = answer.json()  # the mover's view; who acts next and the status are public
    raise AssertionError("the game did not end in 500 moves")


def test_two_humans_play_critter_capture_to_the_end(client: TestClient) -> None:
    code, first, second = two_player_room(client)
    end = play_to_the_end(client, code, [first, second])
    result = end["room"]["result"]
    assert sum(result["returns"]) == 1.0
    assert len(end["observation"]["corrals"]) == 2
    assert sum(len(c) for c in end["observation"]["corrals"]) == 48
    assert move(client, code, first, "draw fish", end["version"]).json()["error"] == "finished"
    # the replay walks the whole game, and its last step is the final position
    last = client.get(f"/api/rooms/{code}/replay", params={"step": end["version"]}).json()
    assert last["observation"] == end["observation"] and last["steps"] == end["version"]
    first_step = client.get(f"/api/rooms/{code}/replay", params={"step": 0}).json()
    assert first_step["observation"]["round"] == 1 and first_step["observation"]["corrals"] == [[], []]
    beyond = client.get(f"/api/rooms/{code}/replay", params={"step": end["version"] + 1})
    assert beyond.status_code == 404


def test_bots_fill_their_seats_and_a_bot_only_room_plays_itself(client: TestClient) -> None:
    room = create_room(client, "critter-capture", options={"players": 3},
                       seats=[{"kind": "human"}, {"kind": "bot", "agent": "heuristic"},
                              {"kind": "bot", "agent": "random"}])
    token = join(client, room["code"], 0)
    state = view(client, room["code"], token)
    moves_made = 0
    while state["room"]["status"] == "playing":
        assert state["to_act"] == [0]
        assert move(client, room["code"], token, state["legal_actions"][0], state["version"]).status_code == 200
        moves_made += 1
        state = view(client, room["code"], token)
    assert moves_made >= 16  # one draw a round at least, over 16 rounds
    bots = create_room(client, "critter-capture", options={"players": 2},
                       seats=[{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "heuristic"}])
    for _ in range(200):
        if client.get(f"/api/rooms/{bots['code']}").json()["status"] == "finished":
            break
        client.get("/api/games")  # gives the server's event loop a turn
    assert client.get(f"/api/rooms/{bots['code']}").json()["status"] == "finished"


def test_a_turn_clock_moves_for_a_person_whose_time_runs_out(server: Server, sqlite_url: str,
                                                             clock: ManualClock) -> None:
    with server(sqlite_url, replace(INSTANT, clock=clock)) as client:
        room = create_room(client, "critter-capture", options={"players": 2}, turn_seconds=30)
        assert room["turn_seconds"] == 30
        first, second = join(client, room["code"], 0), join(client, room["code"], 1)
        start = view(client, room["code"], first)
        assert start["turn_closes_in"] == 30
        clock.advance(29.9)
        assert view(client, room["code"])["version"] == start["version"]  # not before its time
        assert view(client, room["code"], first)["turn_closes_in"] == pytest.approx(0.1)
        clock.advance(0.1)
        deadline = time.monotonic() + 5
        while view(client, room["code"])["version"] == start["version"]:
            assert time.monotonic() < deadline, "the clock did not move"
        after = view(client, room["code"], first)
        assert after["events"][-1]["text"].startswith("P1 draws")
        assert move(client, room["code"], first, "draw fish", start["version"]).json()["error"] == "stale"
        # the next turn, whoever's it is, has its full time again
        assert view(client, room["code"], second)["turn_closes_in"] == after["turn_closes_in"] == 30
