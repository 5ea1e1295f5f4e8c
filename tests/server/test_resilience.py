"""Windows across restarts and reconnects, and a database that refuses writes for a while (in process)."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError

from bestiary.server import protocol
from bestiary.server.db import Store, open_database
from bestiary.server.hub import Hub
from tests.server.clocks import ManualClock
from tests.server.conftest import INSTANT, create_room, join, move, view
from tests.server.scripted import stored_moves
from tests.server.test_realtime import duel, hello, receive_until, wait_for


def database_down(*_: Any, **__: Any) -> None:
    raise OperationalError("UPDATE", {}, Exception("database is locked"))


def test_a_restart_keeps_the_window_s_remaining_time_and_the_version_it_opened_at(
        server: Any, database_url: str, clock: ManualClock) -> None:
    settings = replace(INSTANT, clock=clock)
    with server(database_url, settings) as client:
        code, tokens = duel(client, window_seconds=30)
        assert move(client, code, tokens[0], "claim", 0).status_code == 200
        assert move(client, code, tokens[1], "challenge", 1).status_code == 200
    clock.advance(1.0)  # while the server is down
    with server(database_url, settings) as client:
        window = view(client, code, tokens[2])["window"]
        assert window["kind"] == "response" and window["opened_at_version"] == 1
        assert window["closes_in"] == pytest.approx(29.0, abs=0.01)  # not a fresh 30 s
        # an answer chosen when the window opened still counts, as it would have before the restart
        assert move(client, code, tokens[2], "pass", 1).status_code == 200


def test_a_window_that_ran_out_while_the_server_was_down_closes_as_soon_as_it_is_back(
        server: Any, database_url: str, clock: ManualClock) -> None:
    settings = replace(INSTANT, clock=clock)
    with server(database_url, settings) as client:
        code, tokens = duel(client, window_seconds=2)
        assert move(client, code, tokens[0], "claim", 0).status_code == 200
        assert view(client, code)["window"]["kind"] == "response"
    clock.advance(2.1)  # the window's time runs out with no server to close it
    with server(database_url, settings) as client:
        state = view(client, code)
        assert state["window"] is None and state["version"] == 3  # both listed players passed at once


def test_reconnecting_inside_a_response_window_gives_the_rest_of_the_log_and_the_same_window(
        client: TestClient) -> None:
    code, tokens = duel(client, window_seconds=30)
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        hello(socket, tokens[2])
        assert move(client, code, tokens[0], "claim", 0).status_code == 200
        before = receive_until(socket, "state")["view"]
        seen = before["events_from"] + len(before["events"])
    assert move(client, code, tokens[1], "challenge", 1).status_code == 200
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        socket.send_json({"type": "hello", "token": tokens[2], "events_seen": seen})
        again = receive_until(socket, "welcome")["view"]
        whole = view(client, code, tokens[2])
        assert again["events_from"] == seen and again["events"] == whole["events"][seen:]
        assert again["version"] == 2 and again["legal_actions"] == ["challenge", "pass"]
        assert again["window"]["opened_at_version"] == before["window"]["opened_at_version"] == 1
        assert again["window"]["closes_in"] <= before["window"]["closes_in"]
        assert again["observation"] == whole["observation"]
        socket.send_json({"type": "move", "action": "challenge", "version": 1, "ref": "late"})
        assert receive_until(socket, "accepted") == {"type": "accepted", "ref": "late", "version": 3}


def test_reconnecting_after_a_race_was_won_shows_it_won_and_refuses_the_late_grab(client: TestClient) -> None:
    code, tokens = duel(client, window_seconds=30)
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        hello(socket, tokens[1])
        assert move(client, code, tokens[0], "ring", 0).status_code == 200
        race = receive_until(socket, "state")["view"]
        assert race["decision_kind"] == "race"
    assert move(client, code, tokens[2], "grab", 1).status_code == 200
    with client.websocket_connect(f"/api/rooms/{code}/ws") as socket:
        again = hello(socket, tokens[1])["view"]
        assert again["version"] == 2 and again["decision_kind"] != "race" and again["window"] is None
        assert again["events"] == view(client, code, tokens[1])["events"]
        socket.send_json({"type": "move", "action": "grab", "version": 1, "ref": "late"})
        assert receive_until(socket, "error")["error"] in ("stale", "not-your-turn")


def test_a_seat_handed_to_a_bot_during_a_race_leaves_the_race_s_time_alone(server: Any, sqlite_url: str,
                                                                            clock: ManualClock) -> None:
    with server(sqlite_url, replace(INSTANT, clock=clock)) as client:
        code, tokens = duel(client, window_seconds=30)
        assert move(client, code, tokens[0], "ring", 0).status_code == 200
        clock.advance(1.0)
        assert client.post(f"/api/rooms/{code}/leave", headers={"Authorization": f"Bearer {tokens[0]}"}
                           ).status_code == 200
        race = view(client, code)
        assert race["decision_kind"] == "race" and race["window"]["closes_in"] == 29.0


def test_a_seat_cannot_be_taken_while_the_database_refuses_it(client: TestClient, monkeypatch: Any) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    monkeypatch.setattr(client.app.state.hub.store, "update_seat", database_down)
    answer = client.post(f"/api/rooms/{code}/seats/0", json={"name": "Ada"})
    assert answer.status_code == 503 and answer.json()["error"] == "unavailable"
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["taken"] is False  # not lost to a token no one has
    monkeypatch.undo()
    join(client, code, 0)


def test_a_room_not_in_memory_answers_unavailable_while_the_database_is_away(client: TestClient,
                                                                              monkeypatch: Any) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    hub = client.app.state.hub
    del hub.rooms[code]  # as a finished room is evicted, or any room after a restart before it is asked for
    monkeypatch.setattr(hub.store, "load_room", database_down)
    for answer in (client.get(f"/api/rooms/{code}"), client.post(f"/api/rooms/{code}/seats/0", json={"name": "A"})):
        assert answer.status_code == 503 and answer.json()["error"] == "unavailable", answer.text
    monkeypatch.undo()
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["taken"] is False
    join(client, code, 0)


def test_the_last_seat_taken_while_the_database_is_away_starts_the_game_once_it_is_back(
        client: TestClient, monkeypatch: Any) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    join(client, code, 0)
    monkeypatch.setattr(client.app.state.hub.store, "record_moves", database_down)
    join(client, code, 1)  # the seat is stored; the start is not
    assert client.get(f"/api/rooms/{code}").json()["status"] == "waiting"
    monkeypatch.undo()
    assert wait_for(client, code, lambda state: state["room"]["status"] == "playing")["to_act"] == [0]


def test_a_move_cancelled_while_it_is_written_still_leaves_the_room_as_the_database_has_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"

    async def scenario() -> tuple[str, int, int]:
        hub = Hub(Store(open_database(url)), INSTANT)
        room = await hub.create(protocol.CreateRoom(game="critter-capture", options={"players": 2}))
        tokens = [await room.join(0, "a"), await room.join(1, "b")]
        record = hub.store.record_moves
        writing, release = threading.Event(), threading.Event()

        def slow_record(*args: Any, **kwargs: Any) -> None:
            writing.set()
            release.wait(10)
            record(*args, **kwargs)

        hub.store.record_moves = slow_record  # type: ignore[method-assign]
        moving = asyncio.ensure_future(room.move(tokens[0], str(room.state.legal_actions(0)[0]), 0))
        assert await asyncio.to_thread(writing.wait, 10)
        moving.cancel()  # e.g. the server shutting down while the row is being written
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await moving
        version = room.version
        # the next move is numbered after what is stored, not refused as a duplicate
        await room.move(tokens[0], str(room.state.legal_actions(0)[0]), version)
        hub.close()
        return room.code, version, room.version

    code, version, after = asyncio.run(scenario())
    assert version == 1 and after > version
    assert len(stored_moves(url, code)) == after


def test_the_event_loop_serves_everyone_else_while_a_move_is_written(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"

    async def scenario() -> tuple[float, int]:
        hub = Hub(Store(open_database(url)), INSTANT)
        room = await hub.create(protocol.CreateRoom(game="critter-capture", options={"players": 2}))
        token = await room.join(0, "a")
        await room.join(1, "b")
        record = hub.store.record_moves
        writing, release = threading.Event(), threading.Event()

        def slow_record(*args: Any, **kwargs: Any) -> None:
            writing.set()
            release.wait(10)  # a disk or a database server that is slow to commit
            record(*args, **kwargs)

        hub.store.record_moves = slow_record  # type: ignore[method-assign]
        moving = asyncio.ensure_future(room.move(token, str(room.state.legal_actions(0)[0]), 0))
        assert await asyncio.to_thread(writing.wait, 10)
        served = await asyncio.wait_for(hub.room(room.code), 5)  # the loop answers while the move is written
        assert served is room and not moving.done()
        release.set()
        version = await moving
        hub.close()
        return version

    assert asyncio.run(scenario()) >= 1
