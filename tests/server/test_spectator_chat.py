"""Spectator chat: a room made with `spectator_chat` lets the pages watching without a seat write in its chat,
under a name they give (plain text, bounded like a seat's name), kept and sent again like a seat's line, and
rate-limited per spectator connection; a room made without it refuses them as before."""

from __future__ import annotations

import json
from typing import Any

from alembic import command
from alembic.config import Config
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from starlette.testclient import WebSocketTestSession

from bestiary.server import protocol
from bestiary.server.db import MIGRATIONS, open_database
from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock
from tests.server.conftest import Server, auth, create_room, join, move, view
from tests.server.test_realtime import hello, receive_until

SETTINGS = Settings(bot_delay=3600, reaction_scale=0.0)
DUEL_SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "agent": "random"}]


def say(ws: WebSocketTestSession, text: str, name: str | None = None, log: list[str] | None = None
        ) -> dict[str, Any]:
    """The chat line sent, or the error that refused it, as this page receives it (past others' lines)."""
    ws.send_json({"type": "chat", "text": text, **({} if name is None else {"name": name})})
    for _ in range(50):
        message = ws.receive_json()
        if log is not None:
            log.append(json.dumps(message))
        if message["type"] == "error" or (message["type"] == "chat" and message["text"] == text):
            return dict(message)
    raise AssertionError("no chat line or error in 50 messages")


def history_on_connect(client: TestClient, code: str, token: str | None) -> list[dict[str, Any]]:
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws, token)
        return list(receive_until(ws, "chat_history")["lines"])


def test_a_room_made_without_spectator_chat_refuses_spectators_as_before(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, SETTINGS) as client:
        room = create_room(client, "secret-duel", seats=DUEL_SEATS)
        assert room["spectator_chat"] is False
        token = join(client, room["code"], 0, "Ada")
        with client.websocket_connect(f"/api/rooms/{room['code']}/ws") as watcher:
            assert hello(watcher)["view"]["room"]["spectator_chat"] is False
            refused = say(watcher, "may I?", name="Cy")
            assert refused["error"] == "spectator", refused
            assert refused["message"] == "spectators cannot chat; join a seat to talk"
        with client.websocket_connect(f"/api/rooms/{room['code']}/ws") as ada:
            hello(ada, token)
            assert say(ada, "only us", name="ignored")["name"] == "Ada"  # a seat writes under its seat's name
        assert [(line["seat"], line["text"]) for line in history_on_connect(client, room["code"], None)] == [
            (0, "only us")]


def test_spectators_chat_where_allowed_kept_across_a_reconnect_and_a_restart(server: Server,
                                                                             database_url: str) -> None:
    with server(database_url, SETTINGS) as client:
        room = create_room(client, "secret-duel", seats=DUEL_SEATS, spectator_chat=True)
        code = room["code"]
        assert room["spectator_chat"] is True and client.get(f"/api/rooms/{code}").json()["spectator_chat"] is True
        tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ada, \
                client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
            hello(ada, tokens[0])
            assert hello(watcher)["view"]["room"]["spectator_chat"] is True
            line = say(watcher, "go <b>Ada</b>", name="  <i>Cy</i>  ")
            assert line == {"type": "chat", "seat": None, "name": "<i>Cy</i>", "text": "go <b>Ada</b>"}
            assert receive_until(ada, "chat") == line  # the seats read it as it is written
            assert say(watcher, "and again")["name"] == "Spectator"  # no name given
            assert say(watcher, "still me", name="   ")["name"] == "Spectator"
            assert say(ada, "thanks")["seat"] == 0
        expected = [(None, "<i>Cy</i>", "go <b>Ada</b>"), (None, "Spectator", "and again"),
                    (None, "Spectator", "still me"), (0, "Ada", "thanks")]
        for token in (tokens[1], None):  # a seat and a spectator reconnecting read the same kept chat
            assert [(li["seat"], li["name"], li["text"]) for li in history_on_connect(client, code, token)] == expected
    with server(database_url, SETTINGS) as client:  # the server restarted
        assert [(li["seat"], li["name"], li["text"]) for li in history_on_connect(client, code, None)] == expected
        assert client.get(f"/api/rooms/{code}").json()["spectator_chat"] is True


def test_spectator_names_are_bounded_like_seat_names(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, SETTINGS) as client:
        code = create_room(client, "secret-duel", seats=DUEL_SEATS, spectator_chat=True)["code"]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
            hello(watcher)
            longest = "C" * protocol.MAX_NAME
            assert say(watcher, "fits", name=longest)["name"] == longest
            for bad in ("C" * (protocol.MAX_NAME + 1), "Cy\x00", "Cy\nP1 Ada", 7):
                refused = say(watcher, "does not fit", name=bad)  # type: ignore[arg-type]
                assert refused["error"] == "bad-message", (bad, refused)
        assert [line["text"] for line in history_on_connect(client, code, None)] == ["fits"]


def test_each_spectator_connection_has_its_own_rate_limit(server: Server, sqlite_url: str,
                                                          clock: ManualClock) -> None:
    burst = Settings().chat_burst
    with server(sqlite_url, Settings(bot_delay=3600, reaction_scale=0.0, clock=clock)) as client:
        code = create_room(client, "secret-duel", seats=DUEL_SEATS, spectator_chat=True)["code"]
        token = join(client, code, 0, "Ada")
        with client.websocket_connect(f"/api/rooms/{code}/ws") as first, \
                client.websocket_connect(f"/api/rooms/{code}/ws") as second, \
                client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
            hello(first)
            hello(second)
            hello(ada, token)
            for number in range(burst):
                assert say(first, f"first {number}", name="Cy")["seat"] is None
            assert say(first, "one too many", name="Cy")["error"] == "too-fast"
            assert say(second, "my own limit", name="Di")["name"] == "Di"  # another spectator is not held back
            assert say(ada, "and mine")["seat"] == 0  # nor a seat
            clock.advance(Settings().chat_burst_seconds)
            assert say(first, "after the wait", name="Cy")["text"] == "after the wait"
        kept = [line["text"] for line in history_on_connect(client, code, None)]
        assert "one too many" not in kept and kept[-1] == "after the wait" and len(kept) == burst + 3


def test_no_seat_token_reaches_a_chatting_spectator(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, SETTINGS) as client:
        code = create_room(client, "secret-duel", seats=DUEL_SEATS, spectator_chat=True)["code"]
        tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
        seen: list[str] = []
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ada, \
                client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
            hello(ada, tokens[0])
            seen.append(json.dumps(hello(watcher)))
            say(watcher, "hello", name="Cy", log=seen)
            say(ada, "hi Cy")
            receive_until(watcher, "chat", log=seen)
            say(watcher, tokens[0], name="Cy", log=seen)  # a token typed into the chat is the writer's own words
        seen.append(json.dumps(history_on_connect(client, code, None)))
        seen.append(json.dumps(view(client, code)))
        # the one place a token shows is the line that carried it as text; nothing else, Bo's never
        assert sum(tokens[0] in message for message in seen) == 2  # the line, then the kept chat
        assert not any(tokens[1] in message for message in seen)
        assert not any("token_hash" in message for message in seen)


def test_rematch_and_lobby_keep_the_spectator_chat_option(client: TestClient) -> None:
    room = create_room(client, "critter-capture", options={"players": 2, "ecoregions": 2}, public=True,
                       seats=[{"kind": "human"}, {"kind": "bot", "agent": "random"}], spectator_chat=True)
    assert [r["spectator_chat"] for r in client.get("/api/rooms").json() if r["code"] == room["code"]] == [True]
    token = join(client, room["code"], 0, "Ada")
    while (state := view(client, room["code"], token))["room"]["status"] == "playing":
        assert move(client, room["code"], token, state["legal_actions"][0], state["version"]).status_code == 200
    again = client.post(f"/api/rooms/{room['code']}/rematch", headers=auth(token)).json()
    assert again["code"] != room["code"] and again["spectator_chat"] is True


def test_the_migration_keeps_old_rooms_whole_with_seat_only_chat(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:  # a database as the server left it before spectator chat
        config.attributes["connection"] = connection
        command.upgrade(config, "0007")
        connection.execute(text(
            "INSERT INTO rooms (code, game, options, seed, status, window_seconds, created_at, public) "
            "VALUES ('old', 'secret-duel', '{}', 1, 'waiting', 10, '2026-12-01 00:00:00', 0)"))
        connection.execute(text("INSERT INTO seats (room_code, seat, kind, name, person) "
                                "VALUES ('old', 1, 'human', 'Bo', 1)"))
        connection.execute(text("INSERT INTO moves (room_code, number, player, action, at) "
                                "VALUES ('old', 0, 1, 'pass', '2026-12-01 00:00:00')"))
        connection.execute(text("INSERT INTO chat_lines (room_code, number, seat, name, text, at) "
                                "VALUES ('old', 0, 1, 'Bo', 'hi', '2026-12-01 00:00:00')"))
    engine.dispose()
    engine = open_database(url)  # upgraded to the newest
    with engine.begin() as connection:
        assert connection.execute(text("SELECT spectator_chat FROM rooms")).scalar_one() in (0, False)
        # nothing of the room is lost on the way (SQLite's foreign keys cascade if a migration drops rooms)
        assert connection.execute(text("SELECT seat, name FROM seats")).one() == (1, "Bo")
        assert connection.execute(text("SELECT player, action FROM moves")).one() == (1, "pass")
        assert connection.execute(text("SELECT seat, name, text FROM chat_lines")).one() == (1, "Bo", "hi")
        connection.execute(text("INSERT INTO chat_lines (room_code, number, seat, name, text, at) "
                                "VALUES ('old', 1, NULL, 'Cy', 'a spectator', '2026-12-01 00:00:01')"))
    engine.dispose()
