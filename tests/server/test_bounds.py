"""What one client may make the server build and keep: option ranges, configured games, waiting rooms, lobby
pages, and the search bots' thinking budget (server/limits.py, server/thinking.py, docs/reliability.md)."""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, func, select

from bestiary.agents import SeatView, register_agent
from bestiary.agents.search import SearchAgent
from bestiary.core.api import Action
from bestiary.core.registry import load_game
from bestiary.server import protocol
from bestiary.server.db import Store, open_database, rooms
from bestiary.server.hub import Hub
from bestiary.server.limits import OptionRange
from bestiary.server.settings import Settings
from bestiary.server.thinking import BOTS_ONLY, PEOPLE_FIRST, PrioritySlots
from tests.server.conftest import Server, create_room, join, view


def bounded(**limits: Any) -> Settings:
    return Settings(bot_delay=0.0, reaction_scale=0.0, **limits)


def rooms_stored(url: str) -> int:
    engine = create_engine(url)
    with engine.connect() as connection:
        count = int(connection.execute(select(func.count()).select_from(rooms)).scalar_one())
    engine.dispose()
    return count


# -- option ranges ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "options", "reason"), [
    ("crits-creatures", {"width": 26, "length": 60}, "width from 4 to 12 (asked for 26)"),
    ("crits-creatures", {"length": 60}, "length from 6 to 36 (asked for 60)"),
    ("crits-creatures", {"start_depth": 9}, "start_depth from 1 to 5 (asked for 9)"),
    ("critter-capture", {"players": 48, "ecoregions": 24}, "players from 2 to 12 (asked for 48)"),
    ("critter-capture", {"players": 2, "ecoregions": 24}, "ecoregions from 1 to 4 (asked for 24)"),
])
def test_options_that_build_a_larger_game_are_refused_out_of_range(client: TestClient, game: str,
                                                                   options: dict[str, Any], reason: str) -> None:
    answer = client.post("/api/rooms", json={"game": game, "options": options})
    assert answer.status_code == 400 and answer.json()["error"] == "bad-room", answer.text
    assert reason in answer.json()["message"]
    assert len(client.app.state.hub.games) == 0  # type: ignore[attr-defined]  # refused before it was built


def test_options_in_range_and_the_defaults_are_played(client: TestClient) -> None:
    assert create_room(client, "crits-creatures", options={"width": 12, "length": 36})["status"] == "waiting"
    assert create_room(client, "crits-creatures")["options"]["width"] == 10
    assert create_room(client, "critter-capture", options={"players": 12, "ecoregions": 2})["status"] == "waiting"


def test_an_option_range_reads_game_option_low_high() -> None:
    assert OptionRange.parse("crits-creatures.width=4..16") == OptionRange("crits-creatures", "width", 4, 16)
    for wrong in ("crits-creatures.width=16..4", "width=4..16", "crits-creatures.width=4-16"):
        with pytest.raises(ValueError, match=r"GAME\.OPTION=LOW\.\.HIGH"):
            OptionRange.parse(wrong)


def test_a_server_may_play_other_ranges(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(option_ranges=(OptionRange("crits-creatures", "width", 4, 8),))) as client:
        answer = client.post("/api/rooms", json={"game": "crits-creatures"})
        assert answer.status_code == 400 and "from 4 to 8 (asked for 10)" in answer.json()["message"]
        assert create_room(client, "critter-capture", options={"players": 48, "ecoregions": 8})["status"] \
            == "waiting"  # no range given for it here


# -- configured games ------------------------------------------------------------------------------
def test_configured_games_are_built_off_the_event_loop_one_at_a_time_and_kept_bounded(sqlite_url: str) -> None:
    threads: list[threading.Thread] = []
    at_once = [0, 0]  # now, most

    def build(name: str, **options: Any) -> Any:
        threads.append(threading.current_thread())
        at_once[0] += 1
        at_once[1] = max(at_once)
        time.sleep(0.05)
        at_once[0] -= 1
        return load_game(name, **options)

    async def scenario() -> tuple[int, bool]:
        hub = Hub(Store(open_database(sqlite_url)), bounded(games_kept=3))
        hub.games.build = build
        requests = [protocol.CreateRoom(game="creatures-of-lungo", options={"players": 2, "turn_limit": 50 + i})
                    for i in range(6)]
        made = await asyncio.gather(*(hub.create(request) for request in requests))
        again = await hub.create(requests[-1])  # the most recent: still kept
        hub.close()
        return len({room.code for room in made}), again.game is made[-1].game

    codes, shared = asyncio.run(scenario())
    assert codes == 6 and len(threads) == 6 and shared  # six builds, none for the seventh room
    assert threading.main_thread() not in threads
    assert at_once[1] == 1


def test_only_so_many_configured_games_are_held(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(games_kept=2)) as client:
        for limit in (50, 51, 52, 53):
            create_room(client, "creatures-of-lungo", options={"players": 2, "turn_limit": limit})
        games = client.app.state.hub.games  # type: ignore[attr-defined]
        assert len(games) == 2 and all('"turn_limit": 5' in key for key in games.games)


# -- waiting rooms ---------------------------------------------------------------------------------
def test_an_address_may_keep_only_so_many_rooms_waiting(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(waiting_rooms_per_address=2)) as client:
        first = create_room(client, "critter-capture", options={"players": 2})["code"]
        create_room(client, "critter-capture", options={"players": 2})
        third = client.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}})
        assert third.status_code == 429 and third.json()["error"] == "too-many-rooms"
        assert "you have 2 rooms waiting" in third.json()["message"]
        bots = [{"kind": "bot", "agent": "random"}] * 2  # starts at once: never waits
        assert create_room(client, "critter-capture", options={"players": 2}, seats=bots)["status"] != "waiting"
        join(client, first, 0)
        join(client, first, 1)  # it starts: no longer waiting
        assert create_room(client, "critter-capture", options={"players": 2})["status"] == "waiting"
        assert rooms_stored(sqlite_url) == 4  # a refusal stores nothing


def test_the_server_keeps_only_so_many_rooms_waiting(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(max_waiting_rooms=2)) as client:
        for _ in range(2):
            create_room(client, "critter-capture", options={"players": 2})
        full = client.post("/api/rooms", json={"game": "critter-capture", "options": {"players": 2}})
        assert full.status_code == 503 and "2 rooms waiting for players" in full.json()["message"]


def test_a_waiting_room_with_nobody_connected_expires(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(waiting_room_seconds=0.4)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        forgotten = create_room(client, "critter-capture", options={"players": 2})["code"]
        watched = create_room(client, "critter-capture", options={"players": 2})["code"]
        playing = create_room(client, "critter-capture", options={"players": 2})["code"]
        join(client, playing, 0)
        join(client, playing, 1)
        with client.websocket_connect(f"/api/rooms/{watched}/ws") as ws:
            ws.send_json({"type": "hello"})
            assert ws.receive_json()["type"] == "welcome"
            deadline = time.monotonic() + 10
            while forgotten in hub.rooms:
                assert time.monotonic() < deadline, "the forgotten room never expired"
                time.sleep(0.05)
            assert watched in hub.rooms  # someone is in it
        gone = client.get(f"/api/rooms/{forgotten}")
        assert gone.status_code == 404 and gone.json()["error"] == "no-room"  # from the database too
        deadline = time.monotonic() + 10
        while watched in hub.rooms:  # its last connection left
            assert time.monotonic() < deadline, "the room stayed after its last connection left"
            time.sleep(0.05)
        assert view(client, playing)["room"]["status"] == "playing"  # a game in play never expires
        assert rooms_stored(sqlite_url) == 1


# -- the lobby -------------------------------------------------------------------------------------
def test_the_lobby_is_paginated_oldest_first(client: TestClient) -> None:
    codes = [create_room(client, "critter-capture", options={"players": 2}, public=True)["code"] for _ in range(7)]
    create_room(client, "critter-capture", options={"players": 2})  # private: never listed
    pages = [[room["code"] for room in client.get("/api/rooms", params={"offset": offset, "limit": 3}).json()]
             for offset in (0, 3, 6)]
    assert pages == [codes[:3], codes[3:6], codes[6:]]
    assert [room["code"] for room in client.get("/api/rooms").json()] == codes  # a page of 50 by default
    too_many = client.get("/api/rooms", params={"limit": 10_000})
    assert too_many.status_code == 422 and too_many.json()["error"] == "bad-request"


def test_a_lobby_page_holds_at_most_fifty_rooms_unless_asked(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, bounded(waiting_rooms_per_address=60)) as client:
        for _ in range(55):
            create_room(client, "critter-capture", options={"players": 2}, public=True)
        assert len(client.get("/api/rooms").json()) == 50
        assert len(client.get("/api/rooms", params={"offset": 50}).json()) == 5


# -- the thinking budget ---------------------------------------------------------------------------
def test_slots_let_people_first_then_bots_in_arrival_order() -> None:
    async def scenario() -> list[str]:
        slots = PrioritySlots(1)
        order: list[str] = []
        await slots.acquire(BOTS_ONLY)  # held

        async def think(name: str, priority: int) -> None:
            await slots.acquire(priority)
            order.append(name)
            await asyncio.sleep(0.01)
            slots.release()

        waiting = [asyncio.create_task(think(name, priority)) for name, priority in
                   [("bots 1", BOTS_ONLY), ("people 1", PEOPLE_FIRST), ("bots 2", BOTS_ONLY),
                    ("people 2", PEOPLE_FIRST)]]
        await asyncio.sleep(0.01)
        cancelled = asyncio.create_task(think("cancelled", PEOPLE_FIRST))
        await asyncio.sleep(0)
        cancelled.cancel()
        slots.release()
        await asyncio.gather(*waiting)
        return order

    assert asyncio.run(scenario()) == ["people 1", "people 2", "bots 1", "bots 2"]


class PidSearch(SearchAgent):
    """A search as the server sees one; it writes the process it thinks in to a file, then moves first-listed."""

    name = "pid-search"

    def __init__(self, log: str) -> None:
        super().__init__()
        self.log = log

    def act(self, view: SeatView, rng: random.Random) -> Action:
        with open(self.log, "a") as out:
            out.write(f"{os.getpid()}\n")
        return view.legal_actions[0]


@pytest.fixture
def pid_log(tmp_path: Path) -> Path:
    log = tmp_path / "pids"
    register_agent("pid-search", lambda settings: PidSearch(str(log)))
    return log


def test_search_bots_think_in_the_servers_pool_of_processes(server: Server, sqlite_url: str, pid_log: Path) -> None:
    with server(sqlite_url, bounded(bot_processes=1)) as client:
        bots = [{"kind": "bot", "agent": "pid-search"}] * 2
        codes = [create_room(client, "critter-capture", options={"players": 2}, seats=bots)["code"]
                 for _ in range(2)]
        deadline = time.monotonic() + 120
        while any(view(client, code)["room"]["status"] != "finished" for code in codes):
            assert time.monotonic() < deadline, "the bots' games did not finish"
            time.sleep(0.1)
    pids = set(pid_log.read_text().split())
    assert len(pids) == 1 and str(os.getpid()) not in pids  # one process for the whole server, not this one


def test_with_no_processes_search_bots_think_on_a_thread(server: Server, sqlite_url: str, pid_log: Path) -> None:
    with server(sqlite_url, bounded(bot_processes=0)) as client:
        bots = [{"kind": "bot", "agent": "pid-search"}] * 2
        code = create_room(client, "critter-capture", options={"players": 2}, seats=bots)["code"]
        deadline = time.monotonic() + 60
        while view(client, code)["room"]["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' game did not finish"
            time.sleep(0.05)
    assert set(pid_log.read_text().split()) == {str(os.getpid())}



def test_serve_passes_its_bounds_to_the_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import uvicorn
    from typer.testing import CliRunner

    from bestiary.cli.main import app
    from bestiary.server import app as server_app

    made: dict[str, Any] = {}
    monkeypatch.setattr(server_app, "create_app", lambda url, settings, *_: made.update(settings=settings))
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: made.update(run=kwargs))
    result = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), "--option-range",
                                      "crits-creatures.width=4..16", "--option-range", "crits-creatures.length=6..40",
                                      "--games-kept", "4", "--waiting-rooms-per-address", "3",
                                      "--max-waiting-rooms", "30", "--waiting-room-seconds", "60",
                                      "--bot-processes", "2", "--ws-deflate"])
    assert result.exit_code == 0, result.output
    settings = made["settings"]
    assert settings.option_ranges == (OptionRange("crits-creatures", "width", 4, 16),
                                      OptionRange("crits-creatures", "length", 6, 40))
    assert (settings.games_kept, settings.waiting_rooms_per_address, settings.max_waiting_rooms,
            settings.waiting_room_seconds, settings.bot_processes) == (4, 3, 30, 60.0, 2)
    assert made["run"]["ws_per_message_deflate"] is True
    wrong = CliRunner().invoke(app, ["serve", "--data-dir", str(tmp_path), "--option-range", "width=4"])
    assert wrong.exit_code == 2 and "GAME.OPTION=LOW..HIGH" in wrong.output
