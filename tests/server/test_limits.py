"""Limits on what a client may send: message size and rate, binary frames, REST bodies, options; room eviction."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from typer.testing import CliRunner

from bestiary.server.app import CLOSE_POLICY, CLOSE_TOO_BIG, TokenBucket
from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock, advance_until
from tests.server.conftest import create_room, join, view
from tests.server.tables import live_server


def limited(**limits: Any) -> Settings:
    return Settings(bot_delay=0.0, reaction_scale=0.0, **limits)


def hello(ws: Any, token: str | None = None) -> dict[str, Any]:
    ws.send_json({"type": "hello", "token": token})
    welcome = ws.receive_json()
    assert welcome["type"] == "welcome", welcome
    return dict(welcome)


def test_the_token_bucket_allows_a_burst_then_the_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3)
    assert [bucket.take(0.0) for _ in range(4)] == [True, True, True, False]
    assert bucket.take(0.25) is False  # half a token
    assert bucket.take(0.5) is True and bucket.take(0.5) is False
    assert [bucket.take(100.0) for _ in range(4)] == [True, True, True, False]  # never more than the burst


def test_too_many_messages_are_refused_then_the_socket_is_closed(server: Any, sqlite_url: str) -> None:
    with server(sqlite_url, limited(message_rate=0.01, message_burst=3, max_strikes=2)) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
            hello(ws)  # the hello takes one of the three
            ws.send_json({"type": "ping"})
            ws.send_json({"type": "ping"})
            assert [ws.receive_json(), ws.receive_json()] == [{"type": "pong"}] * 2
            for _ in range(2):
                ws.send_json({"type": "ping"})
                answer = ws.receive_json()
                assert answer["error"] == "rate-limited" and "at most 0.01 a second" in answer["message"]
            ws.send_json({"type": "ping"})
            closing = ws.receive_json()
            assert closing["error"] == "closed" and "3 messages broke the limits" in closing["message"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == CLOSE_POLICY


def test_oversized_messages_are_refused_then_the_socket_is_closed_as_too_big(server: Any, sqlite_url: str) -> None:
    with server(sqlite_url, limited(max_message_bytes=100, max_strikes=1)) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
            hello(ws)
            ws.send_json({"type": "chat", "text": "x" * 101})
            assert ws.receive_json()["error"] == "too-large"
            ws.send_json({"type": "ping"})  # still open after one
            assert ws.receive_json() == {"type": "pong"}
            ws.send_bytes(b"y" * 101)
            assert ws.receive_json()["error"] == "closed"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == CLOSE_TOO_BIG


def test_a_binary_frame_gets_a_clear_error_and_the_connection_goes_on(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        ws.send_bytes(json.dumps({"type": "hello"}).encode())  # even a hello must be text
        answer = ws.receive_json()
        assert answer["error"] == "bad-message" and "binary" in answer["message"]
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws)
        ws.send_bytes(b"\x00\xff")
        answer = ws.receive_json()
        assert answer["type"] == "error" and answer["error"] == "bad-message" and "binary" in answer["message"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_json_nested_too_deep_is_a_bad_message_not_a_crash(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws)
        ws.send_text("[" * 3000)
        assert ws.receive_json()["error"] == "bad-message"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
    deep = client.post("/api/rooms", content=b"[" * 30000, headers={"Content-Type": "application/json"})
    assert deep.status_code in (400, 422) and set(deep.json()) == {"error", "message"}, deep.text


def test_a_rest_body_over_the_limit_is_refused_before_it_is_read(server: Any, sqlite_url: str) -> None:
    with server(sqlite_url, limited(max_body_bytes=1000)) as client:
        body = {"game": "critter-capture", "options": {"players": 2}, "seats": [{"kind": "human"}] * 80}
        large = client.post("/api/rooms", json=body)
        assert large.status_code == 413, large.text
        assert large.json() == {"error": "too-large", "message": "a request body may hold at most 1000 bytes"}

        def chunks() -> Any:  # no Content-Length: the server counts what arrives
            yield b'{"game": "critter-capture", "options": {"players": 2}, "x": "'
            for _ in range(20):
                yield b"z" * 100
            yield b'"}'

        streamed = client.post("/api/rooms", content=chunks(), headers={"Content-Type": "application/json"})
        assert streamed.status_code == 413 and streamed.json()["error"] == "too-large"
        assert client.get("/api/rooms").json() == []  # nothing was made
        assert create_room(client, "critter-capture", options={"players": 2})["status"] == "waiting"


def test_unknown_paths_and_methods_answer_in_the_error_shape(client: TestClient) -> None:
    missing = client.get("/api/nothing-here")
    assert missing.status_code == 404
    assert missing.json() == {"error": "not-found", "message": "nothing is at /api/nothing-here"}
    wrong = client.delete("/api/rooms")
    assert wrong.status_code == 405
    assert wrong.json() == {"error": "bad-method", "message": "DELETE is not allowed on /api/rooms"}
    assert client.get("/").status_code == 200  # the browser UI is still served


@pytest.mark.parametrize("code", ["x", "A" * 17, "abc%00defghijklmn", "../../etc/passwd", "é" * 16])
def test_a_malformed_room_code_is_no_room(client: TestClient, code: str) -> None:
    answer = client.get(f"/api/rooms/{code}")
    assert answer.status_code == 404 and answer.json()["error"] in ("no-room", "not-found"), answer.text


@pytest.mark.parametrize(("options", "reason"), [
    ({"name": "x"}, "unknown option 'name'"),  # once a TypeError inside load_game: a 500
    ({"cls": 1}, "unknown option 'cls'"),
    ({"armies": ["/etc/hostname", "verdant-host"]}, "'/etc/hostname' cannot be used online"),
    ({"armies": ["../../crits/armies/grave-legion", "verdant-host"]}, "cannot be used online"),
    ({"armies": ["army.toml", "verdant-host"]}, "'army.toml' cannot be used online"),
])
def test_options_that_could_reach_the_servers_files_or_code_are_refused(client: TestClient, options: dict[str, Any],
                                                                        reason: str) -> None:
    answer = client.post("/api/rooms", json={"game": "crits-creatures", "options": options})
    assert answer.status_code == 400 and answer.json()["error"] == "bad-room", answer.text
    assert reason in answer.json()["message"]


def test_bots_online_take_a_name_and_a_level_only(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "agent": "mcts:sims=99999999"}]
    greedy = client.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}, "seats": seats})
    assert greedy.status_code == 400 and "at most a level" in greedy.json()["message"]
    seats[1]["agent"] = "mcts:easy"
    easy = create_room(client, "critter-capture", options={"players": 2}, seats=seats)
    assert easy["seats"][1]["agent"] == "mcts:easy"


def test_a_name_with_control_characters_is_refused_and_the_seat_stays_open(client: TestClient) -> None:
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    answer = client.post(f"/api/rooms/{code}/seats/0", json={"name": "Ada\x00"})
    assert answer.status_code == 422 and answer.json()["error"] == "bad-request"
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["taken"] is False
    join(client, code, 0, "Ada")


def test_a_finished_room_leaves_memory_and_loads_again_on_demand(server: Any, sqlite_url: str,
                                                                  clock: ManualClock) -> None:
    with server(sqlite_url, limited(finished_room_seconds=300, clock=clock)) as client:
        hub = client.app.state.hub
        code = create_room(client, "critter-capture", options={"players": 2},
                           seats=[{"kind": "bot", "agent": "random"}] * 2)["code"]
        deadline = time.monotonic() + 20
        while view(client, code)["room"]["status"] != "finished":  # the bots play without delay
            assert time.monotonic() < deadline, "the bots' game did not finish"
        clock.advance(299)
        assert code in hub.rooms  # not before its time
        advance_until(clock, lambda: code not in hub.rooms, step=1.0)
        final = view(client, code)  # loads it again from the database
        assert final["room"]["status"] == "finished" and code in hub.rooms
        assert client.get(f"/api/rooms/{code}/replay", params={"step": final["version"]}).json()["observation"] \
            == final["observation"]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:  # watched: it stays
            hello(ws)
            clock.advance(3600)
            assert code in hub.rooms
        advance_until(clock, lambda: code not in hub.rooms, step=300)


def test_serve_passes_its_limits_to_the_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    import uvicorn

    from bestiary.cli.main import app
    from bestiary.server import app as server_app

    made: dict[str, Any] = {}
    monkeypatch.setattr(server_app, "create_app", lambda url, settings, *_: made.update(url=url, settings=settings))
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: made.update(run=kwargs))
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), "--max-message-bytes", "2048",
                                      "--message-rate", "4", "--message-burst", "8", "--max-strikes", "3",
                                      "--max-body-bytes", "5000", "--finished-room-seconds", "60",
                                      "--max-outbox", "4096"])
    assert result.exit_code == 0, result.output
    settings = made["settings"]
    assert (settings.max_message_bytes, settings.message_rate, settings.message_burst, settings.max_strikes,
            settings.max_body_bytes, settings.finished_room_seconds, settings.max_outbox
            ) == (2048, 4.0, 8, 3, 5000, 60.0, 4096)
    assert made["run"]["ws_max_size"] >= 2048



def test_every_queued_answer_is_sent_before_the_close_for_too_many_strikes(sqlite_url: str) -> None:
    """25 oversized messages sent at once on a real socket: 24 answers, then the closing one, then the close."""
    async def strike_out(host: str) -> tuple[list[str], int | None]:
        async with httpx.AsyncClient(base_url=f"http://{host}") as http:
            code = (await http.post("/api/rooms", json={"game": "critter-capture"})).json()["code"]
        async with websockets.connect(f"ws://{host}/api/rooms/{code}/ws", max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello"}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            for _ in range(25):
                await ws.send("x" * 101)
            answers = []
            with contextlib.suppress(websockets.ConnectionClosed):
                while True:
                    answers.append(json.loads(await ws.recv())["error"])
            return answers, ws.close_code

    settings = limited(max_message_bytes=100, max_strikes=24, message_rate=1e6, message_burst=10**6)
    with live_server(sqlite_url, settings) as host:
        answers, close_code = asyncio.run(strike_out(host))
    assert answers == ["too-large"] * 24 + ["closed"]
    assert close_code == CLOSE_TOO_BIG


def test_a_connection_that_says_no_hello_in_time_is_closed_with_4408(monkeypatch: pytest.MonkeyPatch,
                                                                      client: TestClient) -> None:
    from bestiary.server import app as server_app

    monkeypatch.setattr(server_app, "HELLO_SECONDS", 0.2)
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        answer = ws.receive_json()
        assert answer["error"] == "bad-message" and "hello" in answer["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4408
