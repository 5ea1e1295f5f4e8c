"""Presence, hand-over and reclaim, private rooms and rematches, in the server process.

The restart cases (a seat away across a SIGKILL) are in test_presence_faults.py.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient

from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock
from tests.server.conftest import Server, auth, create_room, join, move, view
from tests.server.test_realtime import hello, receive_until


def presence(client: TestClient, code: str) -> list[str]:
    return [seat["presence"] for seat in view(client, code)["room"]["seats"]]


def wait_for_presence(client: TestClient, code: str, wanted: list[str], seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while (seen := presence(client, code)) != wanted:
        assert time.monotonic() < deadline, f"presence {seen}, wanted {wanted}"
        time.sleep(0.02)


def seconds_left(seat: dict[str, Any]) -> float:
    return (datetime.fromisoformat(seat["hand_over_at"]) - datetime.now(UTC)).total_seconds()


def test_every_viewer_sees_who_is_connected_away_or_a_computer(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, Settings(bot_delay=3600, reaction_scale=0.0, disconnect_grace=60)) as client:
        code = create_room(client, "secret-duel", seats=[{"kind": "human"}, {"kind": "human"},
                                                         {"kind": "bot", "agent": "random"}])["code"]
        assert presence(client, code) == ["open", "open", "computer"]
        tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
        seats = view(client, code)["room"]["seats"]
        assert [s["presence"] for s in seats] == ["away", "away", "computer"]  # taken, never connected
        assert all(55 < seconds_left(s) <= 60 for s in seats[:2])  # the grace runs from the start
        with client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
            hello(watcher)
            with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
                hello(ada, tokens[0])
                told = receive_until(watcher, "state")["view"]["room"]["seats"]  # the spectator is told at once
                assert [s["presence"] for s in told] == ["connected", "away", "computer"]
                assert told[0]["hand_over_at"] is None
            gone = receive_until(watcher, "state")["view"]["room"]["seats"]
            assert gone[0]["presence"] == "away" and 59 < seconds_left(gone[0]) <= 60  # a fresh grace
        # a REST player counts as connected for a while after each request
        view(client, code, tokens[1])
        assert presence(client, code) == ["away", "connected", "computer"]


def test_the_others_hand_an_away_seat_to_a_computer_and_its_player_claims_it_back(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
        hello(ada, tokens[0])
        refused = client.post(f"/api/rooms/{code}/seats/1/hand-over")  # a spectator may not
        assert refused.status_code == 403 and refused.json()["error"] == "spectator"
        mine = client.post(f"/api/rooms/{code}/seats/0/hand-over", headers=auth(tokens[1]))
        assert mine.status_code == 409 and mine.json()["error"] == "not-away"  # Ada is here
        handed = client.post(f"/api/rooms/{code}/seats/1/hand-over", headers=auth(tokens[0]))
        assert handed.status_code == 200, handed.text
        bo = handed.json()["seats"][1]
        assert (bo["presence"], bo["reclaimable"], bo["name"]) == ("computer", True, "Bo")
        # while the computer plays it, Bo's token shows Bo's seat but cannot move
        state = view(client, code, tokens[1])
        assert state["seat"] == 1 and state["legal_actions"] == []
        refused = move(client, code, tokens[1], "draw fish", state["version"])
        assert refused.status_code == 403 and refused.json()["error"] == "computer-seat"
        # the computer plays Bo's turns; Ada plays hers until Bo claims the seat back
        deadline = time.monotonic() + 10
        while (state := view(client, code, tokens[0]))["version"] < 6:
            assert time.monotonic() < deadline
            if state["legal_actions"]:
                move(client, code, tokens[0], state["legal_actions"][0], state["version"])
        claimed = client.post(f"/api/rooms/{code}/claim", headers=auth(tokens[1]))
        assert claimed.status_code == 200 and claimed.json()["seats"][1]["kind"] == "human"
        assert client.post(f"/api/rooms/{code}/claim").status_code == 401
        deadline = time.monotonic() + 10
        while not (state := view(client, code, tokens[1]))["legal_actions"]:  # Bo's next turn is Bo's again
            assert time.monotonic() < deadline and state["room"]["status"] == "playing"
            ada_view = view(client, code, tokens[0])
            if ada_view["legal_actions"]:
                move(client, code, tokens[0], ada_view["legal_actions"][0], ada_view["version"])
        assert move(client, code, tokens[1], state["legal_actions"][0], state["version"]).status_code == 200


def test_the_grace_counts_again_from_each_return(server: Server, sqlite_url: str, clock: ManualClock) -> None:
    grace = 60.0
    settings = Settings(bot_delay=3600, reaction_scale=0.0, disconnect_grace=grace, clock=clock)
    with server(sqlite_url, settings) as client:
        code = create_room(client, "secret-duel", seats=[{"kind": "human"}, {"kind": "bot", "agent": "random"},
                                                         {"kind": "bot", "agent": "random"}])["code"]
        token = join(client, code, 0, "Ada")
        for _ in range(3):  # away for 0.6 of the grace each time, 1.8 graces in all since the first departure
            with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
                hello(ws, token)
            wait_for_presence(client, code, ["away", "computer", "computer"])
            clock.advance(0.6 * grace)
            assert presence(client, code)[0] == "away"
        clock.advance(0.3 * grace)  # 0.9 of the grace since the last departure
        assert presence(client, code)[0] == "away"
        clock.advance(0.1 * grace)
        wait_for_presence(client, code, ["computer", "computer", "computer"])


def test_reconnecting_many_times_keeps_one_grace_timer_at_most(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    tokens = [join(client, code, 0), join(client, code, 1)]
    room = client.app.state.hub.rooms[code]  # type: ignore[attr-defined]
    for _ in range(200):
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
            hello(ws, tokens[0])
    assert set(room.presence.timers) == {0, 1}  # one per away seat, however often seat 0 came and went
    assert all(not timer.done() for timer in room.presence.timers.values())


def test_rooms_are_private_unless_made_public(client: TestClient) -> None:
    private = create_room(client, "critter-capture", options={"players": 2})
    public = create_room(client, "critter-capture", options={"players": 2}, public=True)
    assert (private["public"], public["public"]) == (False, True)
    listed = [room["code"] for room in client.get("/api/rooms").json()]
    assert listed == [public["code"]]
    join(client, private["code"], 0, "Ada")  # the invite link still works
    assert client.get(f"/api/rooms/{private['code']}").json()["seats"][0]["name"] == "Ada"


def play_out(client: TestClient, code: str, tokens: list[str | None]) -> dict[str, Any]:
    deadline = time.monotonic() + 30
    while (state := view(client, code))["room"]["status"] != "finished":
        assert time.monotonic() < deadline, state
        for token in tokens:
            if token is not None:
                mine = view(client, code, token)
                if mine["legal_actions"]:
                    move(client, code, token, mine["legal_actions"][0], mine["version"])
    return state


def test_a_rematch_seats_the_same_people_and_keeps_a_seat_left_open_for_the_grace(server: Server,
                                                                                sqlite_url: str) -> None:
    with server(sqlite_url, Settings(bot_delay=0.0, reaction_scale=0.0, disconnect_grace=1.0)) as client:
        room = create_room(client, "critter-capture", options={"players": 3},
                           seats=[{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "agent": "random"}])
        code = room["code"]
        tokens: list[str | None] = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
        assert client.post(f"/api/rooms/{code}/leave", headers=auth(str(tokens[1]))).status_code == 200
        play_out(client, code, [tokens[0]])
        again = client.post(f"/api/rooms/{code}/rematch", headers=auth(str(tokens[0]))).json()
        assert again["options"]["first_player"] == 1  # the next seat goes first
        seats = again["seats"]
        assert [(s["kind"], s["name"], s["presence"]) for s in seats] == [
            ("human", "Ada", "away"), ("human", None, "open"), ("bot", "random bot", "computer")]
        assert again["status"] == "waiting"
        # Ada's token is her seat's in the new room; Bo, who had left, may come back within the grace ...
        assert view(client, again["code"], tokens[0])["seat"] == 0
        # ... and no one came: a computer takes the seat and the game starts
        deadline = time.monotonic() + 5
        while (info := client.get(f"/api/rooms/{again['code']}").json())["status"] != "playing":
            assert time.monotonic() < deadline, info
            time.sleep(0.05)
        assert [s["kind"] for s in info["seats"]] == ["human", "bot", "bot"]


def test_a_rematch_gives_a_seat_back_to_the_player_a_computer_had_replaced(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
        hello(ada, tokens[0])
        assert client.post(f"/api/rooms/{code}/seats/1/hand-over", headers=auth(tokens[0])).status_code == 200
    play_out(client, code, [tokens[0]])
    again = client.post(f"/api/rooms/{code}/rematch", headers=auth(tokens[1])).json()  # Bo asks for it
    assert [(s["kind"], s["name"]) for s in again["seats"]] == [("human", "Ada"), ("human", "Bo")]
    assert again["status"] == "playing"  # everyone has a seat: it starts at once
    assert [view(client, again["code"], token)["seat"] for token in tokens] == [0, 1]
    assert client.post(f"/api/rooms/{code}/rematch", headers=auth(tokens[0])).json()["code"] == again["code"]


def test_the_api_docs_page_needs_nothing_from_the_internet(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "http" not in page.text.replace('href="/', "")  # no CDN: every asset is served here
    script = client.get("/js/apidocs.js")
    assert script.status_code == 200 and "/openapi.json" in script.text and "https://" not in script.text
    assert client.get("/redoc").status_code == 404


def test_a_replay_stops_after_each_decision_with_the_chance_it_caused() -> None:
    from bestiary.core.api import CHANCE
    from bestiary.server.authority import decision_steps

    # a deal of three cards, P1 draws (one card flipped), P2 passes, P1 rolls (two dice)
    players = [CHANCE, CHANCE, CHANCE, 0, CHANCE, 1, 0, CHANCE, CHANCE]
    assert decision_steps(players) == [3, 5, 6, 9]
    assert decision_steps([]) == [0]
    assert decision_steps([0, 1]) == [0, 1, 2]


def test_the_replay_names_its_decision_steps(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2},
                       seats=[{"kind": "bot", "agent": "random"}, {"kind": "bot", "agent": "random"}])["code"]
    deadline = time.monotonic() + 20
    while client.get(f"/api/rooms/{code}").json()["status"] != "finished":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    replay = client.get(f"/api/rooms/{code}/replay", params={"step": 0}).json()
    decisions = replay["decisions"]
    assert decisions[-1] == replay["steps"] and decisions == sorted(set(decisions))
    assert len(decisions) < replay["steps"]  # chance outcomes are folded into the decisions that caused them
