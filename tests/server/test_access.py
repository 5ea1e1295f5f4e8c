"""Who may do and see what: every endpoint and websocket message, for every game, as each seat, as a spectator
and with other seats' and other rooms' tokens.

A token acts for its own seat in its own room only, spectators cannot act, room codes cannot be guessed or
listed, and no answer holds anything beyond the engine's own observation(seat) and events(seat).
"""

from __future__ import annotations

import json
import math
import random
import string
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from bestiary.core.api import CHANCE, State
from bestiary.core.errors import BestiaryError
from tests.server.conftest import Server, auth, create_room
from tests.server.tables import (
    GAMES,
    TABLE_TALK,
    UNLIMITED,
    Table,
    assert_clear_error,
    live_room,
    open_table,
    play_one,
    snapshot,
)

URLSAFE = string.ascii_letters + string.digits + "-_"


def plain(value: Any) -> Any:
    """As it reads after a trip through JSON."""
    return json.loads(json.dumps(value))


def engine_events(state: State, viewer: int | None) -> list[dict[str, Any]]:
    return plain([{"kind": e.kind, "text": e.text, "data": dict(e.data), "rules": list(e.rules)}
                  for e in state.events(viewer)])


def replayed(client: TestClient, table: Table, step: int) -> State:
    """The game after `step` actions, rebuilt by the engine from the room's seed and history."""
    room = live_room(client, table.code)
    state = room.game.new_initial_state(seed=room.seed)
    for player, action in room.state.history()[:step]:
        state.apply_action(action, player=None if player == CHANCE else player)
    return state


def refusal(state: State, text: str, seat: int) -> str | None:
    """The engine's reason for refusing `text` from `seat` in `state`; None if it is legal."""
    try:
        state.clone().apply_action(text, player=seat)
    except BestiaryError as error:
        return str(error)
    return None


def assert_view_is_the_engines(answer: dict[str, Any], state: State, viewer: int | None) -> None:
    assert answer["seat"] == viewer
    assert answer["observation"] == plain(state.observation(viewer))
    assert answer["events"] == engine_events(state, viewer)[answer["events_from"]:]
    legal = [str(a) for a in state.legal_actions(viewer)] if viewer in answer["to_act"] else []
    assert answer["legal_actions"] == legal
    assert_room_info_is_public(answer["room"], state)



def assert_room_info_is_public(info: dict[str, Any], state: State) -> None:
    """RoomInfo carries no game state: only the lobby's facts, and the result once the game is over."""
    assert set(info) == {"code", "game", "title", "options", "status", "seats", "window_seconds", "turn_seconds",
                         "version", "result", "rematch", "public", "watching", "spectator_chat"}
    assert info["options"] == plain(state.game.options_dict())
    assert info["version"] == len(state.history())
    assert (info["result"] is None) == (info["status"] != "finished")
    for seat in info["seats"]:
        assert set(seat) == {"seat", "kind", "agent", "name", "taken", "presence", "hand_over_at", "reclaimable"}


def walk(client: TestClient, table: Table, others: list[Table], rng: random.Random, seen: Counter[str]) -> None:
    """Every endpoint and message type as each seat, a spectator and strangers, at the table's position now."""
    room = live_room(client, table.code)
    state = room.state
    before = snapshot(client, table.code)
    foreign = [t for other in others for t in other.tokens]
    viewers: list[int | None] = [*range(len(table.tokens)), None]
    every_text = {str(a) for seat in range(len(table.tokens)) for a in state.legal_actions(seat)}
    table_texts = [str(a) for a in room.game.player_action_table()]
    every_text |= set(rng.sample(table_texts, min(15, len(table_texts))))
    texts: list[str] = []
    for viewer in viewers:
        headers = auth(table.tokens[viewer]) if viewer is not None else {}
        answer = client.get(f"/api/rooms/{table.code}/view", headers=headers)
        assert answer.status_code == 200
        assert_view_is_the_engines(answer.json(), state, viewer)
        texts.append(answer.text)
        info = client.get(f"/api/rooms/{table.code}", headers=headers)
        assert_room_info_is_public(info.json(), state)
        texts.append(info.text)
        for step in sorted({0, len(state.history()) // 2, len(state.history())}):
            answer = client.get(f"/api/rooms/{table.code}/replay", params={"step": step}, headers=headers)
            then = replayed(client, table, step)
            answered = answer.json()
            assert answered.pop("decisions")[-1] == len(state.history())  # the replay's last stop is now
            assert answered == {"step": step, "steps": len(state.history()),
                                "observation": plain(then.observation(viewer)), "events": engine_events(then, viewer)}
            texts.append(answer.text)
        seen["views"] += 1
        # acting: a spectator never may; a seat only on its turn, and its refusals hide what it cannot see
        for text in sorted(every_text):
            if viewer is not None and viewer in state.players_to_act() and refusal(state, text, viewer) is None:
                continue  # legal for this seat: it would be played, not refused
            answer = client.post(f"/api/rooms/{table.code}/moves", headers=headers,
                                 json={"action": text, "version": len(state.history())})
            body = answer.json()
            assert_clear_error(body)
            texts.append(answer.text)
            seen["moves refused"] += 1
            seen[body["error"]] += 1
            if viewer is None:
                assert body["error"] == "spectator"
            elif room.status != "playing":
                assert body["error"] == "finished"
            elif viewer not in state.players_to_act():
                assert body["error"] == "not-your-turn"
            else:
                assert body["error"] == "illegal"
                reasons = {refusal(state.determinize(viewer, random.Random(n)), text, viewer) for n in range(3)}
                assert reasons == {refusal(state, text, viewer)}, (text, reasons)  # the same in every world
                assert body["message"] == refusal(state, text, viewer)
        if viewer is None:
            assert client.post(f"/api/rooms/{table.code}/leave").json()["error"] == "bad-token"
        with client.websocket_connect(f"/api/rooms/{table.code}/ws") as ws:
            ws.send_json({"type": "hello", "token": None if viewer is None else table.tokens[viewer]})
            welcome = ws.receive_json()
            assert welcome["seat"] == viewer
            assert_view_is_the_engines(welcome["view"], state, viewer)
            texts.append(json.dumps(welcome))
            for message in ({"type": "ping"}, {"type": "hello", "token": None},
                            {"type": "move", "action": sorted(every_text)[0], "version": len(state.history()) + 1},
                            {"type": "chat", "text": "hello all"}):
                ws.send_json(message)
                answer = ws.receive_json()
                texts.append(json.dumps(answer))
                while answer["type"] in TABLE_TALK:  # the room's kept chat, sent after the welcome; a watcher
                    answer = ws.receive_json()
                    texts.append(json.dumps(answer))
                if answer["type"] == "error":
                    assert_clear_error(answer, websocket=True)
                if message["type"] == "move":
                    assert answer["error"] == ("spectator" if viewer is None else
                                               "stale" if room.status == "playing" else "finished")
                if message["type"] == "chat":
                    assert answer == ({"type": "chat", "seat": viewer, "name": f"player {viewer + 1}",
                                       "text": "hello all"} if viewer is not None else
                                      {"type": "error", "error": "spectator", "ref": None,
                                       "message": "spectators cannot chat; join a seat to talk"})
            seen["sockets"] += 1
    # strangers: another room's tokens and forged ones act nowhere and see nothing
    for token in [*foreign, table.tokens[0][::-1]]:
        for method, path in (("GET", "view"), ("GET", "replay?step=0"), ("POST", "leave"), ("POST", "moves")):
            answer = client.request(method, f"/api/rooms/{table.code}/{path}", headers=auth(token),
                                    json={"action": sorted(every_text)[0], "version": len(state.history())})
            assert answer.status_code == 403 and answer.json()["error"] == "bad-token", answer.text
            texts.append(answer.text)
        with client.websocket_connect(f"/api/rooms/{table.code}/ws") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["error"] == "bad-token"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403
        seen["strangers"] += 1
    for seat in range(len(table.tokens)):
        taken = client.post(f"/api/rooms/{table.code}/seats/{seat}", json={"name": "thief"})
        assert taken.json()["error"] == "seat-taken"
    assert snapshot(client, table.code) == before
    everything = "\n".join(texts)
    for other in [table, *others]:
        for token in other.tokens:
            assert token not in everything  # no token is ever sent back, not even to its own seat


@pytest.fixture
def client(server: Server, sqlite_url: str) -> Any:
    with server(sqlite_url, UNLIMITED) as running:
        yield running


@pytest.mark.parametrize("game", list(GAMES))
def test_every_endpoint_and_message_shows_each_viewer_only_its_own_observation(client: TestClient,
                                                                               game: str) -> None:
    rng = random.Random(game)
    tables = [open_table(client, name, rng, moves=rng.randrange(1, 4)) for name in (game, game)]
    table, other = tables
    seen: Counter[str] = Counter()
    watchers = {viewer: client.websocket_connect(f"/api/rooms/{table.code}/ws")
                for viewer in [*range(len(table.tokens)), None]}
    for viewer, ws in watchers.items():  # kept open: every state broadcast is checked too
        ws.__enter__()
        ws.send_json({"type": "hello", "token": None if viewer is None else table.tokens[viewer]})
        assert ws.receive_json()["type"] == "welcome"
    for viewer, ws in watchers.items():  # each seat that came later was announced to those already there
        for _ in range(0 if viewer is None else len(table.tokens) - 1 - viewer):
            assert ws.receive_json()["type"] == "state"
    for _ in range(3):  # three positions along the game, hidden hands and windows among them
        walk(client, table, [other], rng, seen)
        for _ in range(rng.randrange(1, 4)):
            if not play_one(client, table, rng):
                break
            for viewer, ws in watchers.items():
                while (message := ws.receive_json())["type"] in ("chat", *TABLE_TALK):
                    continue  # the walk's chat lines, and its spectator coming and going
                assert message["type"] == "state"
                assert_view_is_the_engines(message["view"], live_room(client, table.code).state, viewer)
                seen["broadcasts"] += 1
    for ws in watchers.values():
        ws.__exit__(None, None, None)
    assert seen["views"] == 3 * (len(table.tokens) + 1) and seen["broadcasts"] > 0
    assert seen["strangers"] == 3 * (len(other.tokens) + 1)
    assert seen["illegal"] > 0 and seen["not-your-turn"] > 0 and seen["spectator"] > 0, seen


def test_room_codes_are_unguessable_and_only_the_lobby_lists_rooms(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    hub.settings = replace(hub.settings, waiting_rooms_per_address=200)  # all from this test's one address
    random.seed(0)  # the global generator has no part in a code
    codes = [create_room(client, "critter-capture", options={"players": 2}, public=True)["code"] for _ in range(120)]
    random.seed(0)
    codes.append(create_room(client, "critter-capture", options={"players": 2}, public=True)["code"])
    assert len(set(codes)) == len(codes)
    assert all(len(code) == 16 and set(code) <= set(URLSAFE) for code in codes)
    counts = Counter("".join(codes))  # 96 random bits each: every character equally likely
    expected = 16 * len(codes) / len(URLSAFE)
    chi_square = sum((counts[c] - expected) ** 2 / expected for c in URLSAFE)
    assert chi_square < 63 + 8 * math.sqrt(2 * 63), chi_square  # 63 degrees of freedom, 8 standard deviations
    # the lobby lists waiting rooms with an open seat; no other answer names a room it was not asked about
    playing = open_table(client, "critter-capture", random.Random(1), moves=2)
    full_waiting = create_room(client, "secret-duel")["code"]
    for seat in range(3):
        client.post(f"/api/rooms/{full_waiting}/seats/{seat}", json={})
    schema = client.get("/openapi.json").json()
    listed = [path for path, methods in schema["paths"].items() if "get" in methods and "{" not in path]
    assert sorted(listed) == ["/api/games", "/api/health", "/api/protocol", "/api/rooms"]
    answers = "\n".join(client.get(path).text for path in [*listed, "/openapi.json"])
    assert playing.code not in answers and full_waiting not in answers
    assert set(codes) <= {room["code"] for room in client.get("/api/rooms", params={"limit": 200}).json()}


def test_a_token_acts_for_its_own_seat_only(client: TestClient) -> None:
    table = open_table(client, "secret-duel", random.Random(3), moves=0)
    room = live_room(client, table.code)
    assert room.state.players_to_act() == [0]
    for seat in (1, 2):  # another seat's token cannot play seat 0's turn
        answer = client.post(f"/api/rooms/{table.code}/moves", headers=auth(table.tokens[seat]),
                             json={"action": "ring", "version": 0})
        assert answer.json()["error"] == "not-your-turn"
    assert client.post(f"/api/rooms/{table.code}/moves", headers=auth(table.tokens[0]),
                       json={"action": "ring", "version": 0}).status_code == 200
    assert room.state.history()[-1][0] == 0  # the move went to the token's own seat
