"""The lobby: games, rooms, seats and their tokens, leaving, rematches."""

from __future__ import annotations

from fastapi.testclient import TestClient

from bestiary.server.db import Store, open_database
from tests.server.conftest import Server, auth, create_room, join, move, view


def test_games_list_every_registered_game_with_its_options(client: TestClient) -> None:
    answer = client.get("/api/games").json()
    names = [g["name"] for g in answer["games"]]
    assert "critter-capture" in names
    critters = next(g for g in answer["games"] if g["name"] == "critter-capture")
    assert critters["player_counts"] == [2, 3, 4, 6]
    assert "ecoregions" in critters["options"]["properties"]
    assert {"random", "heuristic"} <= set(answer["agents"])


def test_health_answers_with_the_rooms_in_memory(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"ok": True, "rooms": 0}
    create_room(client, "critter-capture", options={"players": 2})
    assert client.get("/api/health").json() == {"ok": True, "rooms": 1}


def test_a_room_waits_for_its_seats_then_starts(client: TestClient) -> None:
    room = create_room(client, "critter-capture", options={"players": 2}, public=True)
    assert room["status"] == "waiting"
    assert len(room["code"]) >= 16  # unguessable: 72 random bits
    assert [s["taken"] for s in room["seats"]] == [False, False]
    assert room["code"] in [r["code"] for r in client.get("/api/rooms").json()]
    join(client, room["code"], 0, "Ada")
    assert client.get(f"/api/rooms/{room['code']}").json()["status"] == "waiting"
    join(client, room["code"], 1, "Bo")
    info = client.get(f"/api/rooms/{room['code']}").json()
    assert info["status"] == "playing"
    assert [s["name"] for s in info["seats"]] == ["Ada", "Bo"]
    assert room["code"] not in [r["code"] for r in client.get("/api/rooms").json()]


def test_a_taken_seat_cannot_be_joined_again(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    join(client, code, 0)
    again = client.post(f"/api/rooms/{code}/seats/0", json={"name": "thief"})
    assert again.status_code == 409
    assert again.json() == {"error": "seat-taken", "message": "seat 1 is taken"}
    missing = client.post(f"/api/rooms/{code}/seats/5", json={})
    assert missing.status_code == 404 and "seats 0 to 1" in missing.json()["message"]


def test_tokens_are_secret_and_act_only_for_their_seat(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    first, second = join(client, code, 0), join(client, code, 1)
    assert first != second
    for text in (client.get(f"/api/rooms/{code}").text, client.get("/api/rooms").text,
                 client.get(f"/api/rooms/{code}/view", headers=auth(first)).text):
        assert first not in text and second not in text
    version = view(client, code)["version"]
    assert view(client, code, first)["to_act"] == [0]
    wrong = move(client, code, second, "draw fish", version)  # P2's token cannot play P1's turn
    assert wrong.status_code == 409 and wrong.json()["error"] == "not-your-turn"
    forged = move(client, code, "not-a-token", "draw fish", version)
    assert forged.status_code == 403 and forged.json()["error"] == "bad-token"
    other = create_room(client, "critter-capture", options={"players": 2})["code"]
    join(client, other, 0)
    join(client, other, 1)
    assert move(client, other, first, "draw fish", view(client, other)["version"]).status_code == 403
    assert view(client, code)["version"] == version


def test_bad_rooms_are_refused_with_a_readable_reason(client: TestClient) -> None:
    cases = [
        ({"game": "chess"}, "no game named 'chess'"),
        ({"game": "critter-capture", "options": {"players": 5}}, "5 players cannot play"),
        ({"game": "critter-capture", "options": {"colour": "red"}}, "unknown option 'colour'"),
        ({"game": "critter-capture", "options": {"cards": "/etc/passwd"}}, "'/etc/passwd' cannot be used online"),
        ({"game": "crits-creatures", "options": {"armies": ["grave-legion", "../../../etc/passwd"]}},
         "'../../../etc/passwd' cannot be used online"),  # only preset armies: a client reads no server file
        ({"game": "critter-capture", "seats": [{"kind": "bot", "agent": "oracle"}]}, "no agent named 'oracle'"),
        ({"game": "critter-capture", "window_seconds": -1}, "window_seconds"),
    ]
    for body, reason in cases:
        answer = client.post("/api/rooms", json=body)
        assert answer.status_code in (400, 422), body
        assert reason in answer.json()["message"], answer.json()
    assert client.get("/api/rooms").json() == []


def test_leaving_before_the_game_reopens_the_seat_and_during_it_hands_it_to_a_bot(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    first = join(client, code, 0)
    assert client.post(f"/api/rooms/{code}/leave", headers=auth(first)).status_code == 200
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["taken"] is False
    assert client.get(f"/api/rooms/{code}/view", headers=auth(first)).status_code == 403  # the old token is void
    first, second = join(client, code, 0), join(client, code, 1)
    left = client.post(f"/api/rooms/{code}/leave", headers=auth(second)).json()
    assert left["seats"][1] == {"seat": 1, "kind": "bot", "agent": "heuristic", "name": "player 2", "taken": True,
                                "presence": "computer", "hand_over_at": None, "reclaimable": False}
    while (state := view(client, code, first))["room"]["status"] == "playing":
        assert state["to_act"] == [0]  # the bot has answered every time before we look
        assert move(client, code, first, state["legal_actions"][0], state["version"]).status_code == 200
    assert state["room"]["result"]["returns"]


def test_rematch_makes_one_new_room_with_the_same_settings(client: TestClient) -> None:
    room = create_room(client, "critter-capture", options={"players": 2, "ecoregions": 2},
                       seats=[{"kind": "human"}, {"kind": "bot", "agent": "random"}], window_seconds=3)
    token = join(client, room["code"], 0, "Ada")
    early = client.post(f"/api/rooms/{room['code']}/rematch", headers=auth(token))
    assert early.status_code == 409 and early.json()["error"] == "not-finished"
    while (state := view(client, room["code"], token))["room"]["status"] == "playing":
        assert move(client, room["code"], token, state["legal_actions"][0], state["version"]).status_code == 200
    stranger = client.post(f"/api/rooms/{room['code']}/rematch")
    assert stranger.status_code == 403 and stranger.json()["error"] == "spectator"
    again = client.post(f"/api/rooms/{room['code']}/rematch", headers=auth(token)).json()
    assert again["code"] != room["code"]
    assert again["options"] == {**room["options"], "first_player": 1} and again["window_seconds"] == 3
    assert [s["kind"] for s in again["seats"]] == ["human", "bot"]
    assert client.post(f"/api/rooms/{room['code']}/rematch", headers=auth(token)).json()["code"] == again["code"]
    assert client.get(f"/api/rooms/{room['code']}").json()["rematch"] == again["code"]


def test_unknown_rooms_and_malformed_tokens_get_clear_errors(client: TestClient) -> None:
    answer = client.get("/api/rooms/nope/view")
    assert answer.status_code == 404 and answer.json() == {"error": "no-room", "message": "no room has this code"}
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    answer = client.get(f"/api/rooms/{code}/view", headers={"Authorization": "Basic abc"})
    assert answer.status_code == 401 and "Bearer" in answer.json()["message"]


def test_a_lobby_page_out_of_range_is_refused_with_its_range(client: TestClient) -> None:
    create_room(client, "critter-capture", options={"players": 2}, public=True)
    for query in ("offset=27005697775632875520", "offset=100001", "offset=-1", "limit=0", "limit=201"):
        answer = client.get(f"/api/rooms?{query}")
        assert answer.status_code == 422, (query, answer.text)
    assert client.get("/api/rooms?offset=100000").json() == []


def test_a_lobby_page_after_a_room_starts_there_though_rooms_shown_before_fill_up(server: Server,
                                                                                database_url: str) -> None:
    with server(database_url) as client:
        codes = [create_room(client, "critter-capture", options={"players": 2}, public=True)["code"]
                 for _ in range(7)]
        assert [r["code"] for r in client.get("/api/rooms?limit=3").json()] == codes[:3]
        join(client, codes[1], 0)
        join(client, codes[1], 1)  # a room on the first page fills up and leaves the lobby
        by_offset = [r["code"] for r in client.get("/api/rooms?limit=3&offset=3").json()]
        after = [r["code"] for r in client.get(f"/api/rooms?limit=3&after={codes[2]}").json()]
        assert by_offset == codes[4:7] and after == codes[3:6]  # counted by offset, codes[3] would be missed
        assert [r["code"] for r in client.get(f"/api/rooms?after={codes[2]}&offset=2").json()] == codes[5:]
        assert [r["code"] for r in client.get("/api/rooms?after=no-such-room").json()] == [
            c for c in codes if c != codes[1]]  # a room the server does not know: from the start
        # several workers read the lobby from the database, in the same order
        stored = Store(open_database(database_url))
        assert [row["code"] for row, _ in stored.waiting_rooms(0, 3, codes[2])] == codes[3:6]
        assert [row["code"] for row, _ in stored.waiting_rooms(0, 3, "no-such-room")] == [codes[0], *codes[2:4]]
        stored.engine.dispose()
