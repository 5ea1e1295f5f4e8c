"""Chat that stays: lines kept with the room (the newest CHAT_KEPT), sent again to a page that reconnects and
after a restart, read by spectators, bounded in size and rate; and the count of those watching."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from bestiary.server import protocol
from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock
from tests.server.conftest import Server, create_room, join, view
from tests.server.test_realtime import hello, receive_until

SETTINGS = Settings(bot_delay=3600, reaction_scale=0.0)


def say(ws: WebSocketTestSession, text: str) -> dict[str, Any]:
    ws.send_json({"type": "chat", "text": text})
    return receive_until(ws, "chat")


def history_on_connect(client: TestClient, code: str, token: str | None) -> list[dict[str, Any]]:
    with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws, token)
        return list(receive_until(ws, "chat_history")["lines"])


def test_chat_lines_are_kept_across_a_reconnect_and_a_restart_and_spectators_read_them(
        server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, SETTINGS) as client:
        code = create_room(client, "secret-duel", seats=[{"kind": "human"}, {"kind": "human"},
                                                         {"kind": "bot", "agent": "random"}])["code"]
        tokens = [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
            hello(ada, tokens[0])
            assert say(ada, "hello <b>Bo</b>")["text"] == "hello <b>Bo</b>"  # plain text, kept as sent
            say(ada, "good luck")
        assert [line["text"] for line in history_on_connect(client, code, tokens[1])] == [
            "hello <b>Bo</b>", "good luck"]
        spectator = history_on_connect(client, code, None)
        assert [(line["seat"], line["name"]) for line in spectator] == [(0, "Ada"), (0, "Ada")]
    with server(sqlite_url, SETTINGS) as client:  # the server restarted
        assert [line["text"] for line in history_on_connect(client, code, tokens[1])] == [
            "hello <b>Bo</b>", "good luck"]


def test_chat_is_bounded_in_count_and_rate(server: Server, sqlite_url: str, clock: ManualClock,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "CHAT_KEPT", 8)  # a few lines past the bound, within the websocket's own limits
    settings = Settings(bot_delay=3600, reaction_scale=0.0, clock=clock)
    with server(sqlite_url, settings) as client:
        code = create_room(client, "secret-duel", seats=[{"kind": "human"}, {"kind": "bot", "agent": "random"},
                                                         {"kind": "bot", "agent": "random"}])["code"]
        token = join(client, code, 0, "Ada")
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
            hello(ada, token)
            for number in range(Settings().chat_burst):
                say(ada, f"line {number}")
            ada.send_json({"type": "chat", "text": "one too many"})
            refused = receive_until(ada, "error")
            assert refused["error"] == "too-fast", refused
            sent = Settings().chat_burst
            while sent < protocol.CHAT_KEPT + 3:
                clock.advance(Settings().chat_burst_seconds)
                for _ in range(Settings().chat_burst):
                    say(ada, f"line {sent}")
                    sent += 1
        kept = history_on_connect(client, code, token)
        assert len(kept) == protocol.CHAT_KEPT  # the newest only
        assert kept[-1]["text"] == f"line {sent - 1}" and kept[0]["text"] == f"line {sent - protocol.CHAT_KEPT}"
        assert all(line["text"] != "one too many" for line in kept)


def test_the_table_counts_those_watching(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, SETTINGS) as client:
        code = create_room(client, "secret-duel", seats=[{"kind": "human"}, {"kind": "bot", "agent": "random"},
                                                         {"kind": "bot", "agent": "random"}])["code"]
        token = join(client, code, 0, "Ada")
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ada:
            assert hello(ada, token)["view"]["room"]["watching"] == 0
            with client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
                assert hello(watcher)["view"]["room"]["watching"] == 1
                assert receive_until(ada, "watching")["count"] == 1
            assert receive_until(ada, "watching")["count"] == 0
            assert view(client, code)["room"]["watching"] == 0


def test_every_page_is_told_when_a_turn_clock_runs_out(server: Server, sqlite_url: str, clock: ManualClock) -> None:
    with server(sqlite_url, Settings(bot_delay=0.0, reaction_scale=0.0, clock=clock)) as client:
        code = create_room(client, "critter-capture", options={"players": 2}, turn_seconds=30)["code"]
        join(client, code, 0, "Ada")
        join(client, code, 1, "Bo")
        with client.websocket_connect(f"/api/rooms/{code}/ws") as watcher:
            hello(watcher)
            clock.advance(30)
            notice = receive_until(watcher, "notice")
            assert notice["text"] == "P1 Ada's turn clock ran out: the computer moved for them.", notice
