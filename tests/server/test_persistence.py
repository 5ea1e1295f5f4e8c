"""Durability on SQLite and PostgreSQL: moves stored before they are announced, games resumed after a restart."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.exc import OperationalError

from bestiary.server.db import MIGRATIONS, moves, open_database, rooms
from bestiary.server.settings import Settings
from tests.server.conftest import create_room, join, move, view


def newest_migration() -> str:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return str(ScriptDirectory.from_config(config).get_current_head())


def stored_moves(url: str, code: str) -> int:
    engine = create_engine(url)
    with engine.connect() as connection:
        count = connection.execute(select(func.count()).select_from(moves).where(moves.c.room_code == code)).scalar()
    engine.dispose()
    return int(count or 0)


def test_every_acknowledged_move_is_already_in_the_database(server: Any, database_url: str) -> None:
    with server(database_url) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        tokens = [join(client, code, 0), join(client, code, 1)]
        for _ in range(12):
            state = view(client, code)
            seat = state["to_act"][0]
            assert move(client, code, tokens[seat], view(client, code, tokens[seat])["legal_actions"][0],
                        state["version"]).status_code == 200
            # chance's flips count too: the version is the number of stored moves
            assert stored_moves(database_url, code) == view(client, code)["version"]


def test_a_restart_resumes_every_unfinished_game_and_tokens_still_work(server: Any, database_url: str) -> None:
    with server(database_url) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        tokens = [join(client, code, 0), join(client, code, 1)]
        waiting = create_room(client, "critter-capture", options={"players": 3}, public=True)["code"]
        join(client, waiting, 1, "early")
        for _ in range(10):
            state = view(client, code)
            seat = state["to_act"][0]
            move(client, code, tokens[seat], view(client, code, tokens[seat])["legal_actions"][-1], state["version"])
        before = [view(client, code, token) for token in tokens]
    with server(database_url) as client:
        after = [view(client, code, token) for token in tokens]
        assert without_grace(after) == without_grace(before)  # the grace of an away seat counts from the restart
        assert [s["name"] for s in client.get(f"/api/rooms/{waiting}").json()["seats"]] == [None, "early", None]
        assert waiting in [r["code"] for r in client.get("/api/rooms").json()]
        stale = move(client, code, tokens[0], "draw fish", before[0]["version"] - 1)
        assert stale.status_code == 409 and stale.json()["error"] == "stale"
        for _ in range(6):
            state = view(client, code)
            seat = state["to_act"][0]
            mine = view(client, code, tokens[seat])
            assert move(client, code, tokens[seat], mine["legal_actions"][0], mine["version"]).status_code == 200


def test_a_game_stopped_inside_a_response_window_resumes_and_finishes(server: Any, database_url: str) -> None:
    with server(database_url) as client:
        code = create_room(client, "secret-duel")["code"]
        tokens = [join(client, code, seat) for seat in range(3)]
        assert move(client, code, tokens[0], "claim", 0).status_code == 200
        assert move(client, code, tokens[1], "challenge", 1).status_code == 200
        before = view(client, code, tokens[2])
    with server(database_url) as client:
        after = view(client, code, tokens[2])
        assert after["observation"] == before["observation"] and after["events"] == before["events"]
        assert after["window"]["kind"] == "response"  # open again, its timer started afresh
        assert move(client, code, tokens[2], "pass", after["version"]).status_code == 200
        for seat, action in [(1, "ring"), (0, "grab"), (2, "ring"), (1, "grab"), (0, "ring"), (2, "grab")]:
            assert move(client, code, tokens[seat], action, view(client, code)["version"]).status_code == 200
        final = view(client, code)
        assert final["room"]["status"] == "finished" and final["observation"]["points"] == [1, 2, 1]
    with server(database_url) as client:  # finished games stay, with their replay
        assert without_grace([view(client, code)]) == without_grace([final])
        replay = client.get(f"/api/rooms/{code}/replay", params={"step": final["version"]}).json()
        assert replay["observation"] == final["observation"]
    engine = create_engine(database_url)
    with engine.connect() as connection:
        status = connection.execute(select(rooms.c.status).where(rooms.c.code == code)).scalar()
    engine.dispose()
    assert status == "finished"


def test_a_bot_whose_move_was_due_at_shutdown_makes_it_after_the_restart(server: Any, database_url: str) -> None:
    slow = Settings(bot_delay=600.0, reaction_scale=1.0)
    with server(database_url, slow) as client:
        code = create_room(client, "critter-capture", options={"players": 2},
                           seats=[{"kind": "bot", "agent": "heuristic"}, {"kind": "human"}])["code"]
        token = join(client, code, 1)
        assert view(client, code)["to_act"] == [0]  # the bot's turn, not taken before the shutdown
    with server(database_url) as client:
        for _ in range(100):
            if view(client, code)["to_act"] != [0]:
                break
            client.get("/api/games")
        state = view(client, code, token)
        assert state["version"] > 0
        assert stored_moves(database_url, code) == state["version"]


def test_a_move_that_cannot_be_stored_is_refused_and_changes_nothing(server: Any, sqlite_url: str,
                                                                    monkeypatch: Any) -> None:
    with server(sqlite_url) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        tokens = [join(client, code, 0), join(client, code, 1)]
        before = view(client, code, tokens[0])
        store = client.app.state.hub.store

        def database_down(*_: Any, **__: Any) -> None:
            raise OperationalError("INSERT", {}, Exception("database is locked"))

        monkeypatch.setattr(store, "record_moves", database_down)
        answer = move(client, code, tokens[0], "draw fish", before["version"])
        assert answer.status_code == 503 and answer.json()["error"] == "unavailable"
        assert without_grace([view(client, code, tokens[0])]) == without_grace([before])
        assert stored_moves(sqlite_url, code) == before["version"]
        monkeypatch.undo()
        assert move(client, code, tokens[0], "draw fish", before["version"]).status_code == 200


def test_an_older_database_is_upgraded_in_place_and_keeps_its_games(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    engine = create_engine(url)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")  # the first schema, before turn clocks
        connection.execute(text(
            "INSERT INTO rooms (code, game, options, seed, status, window_seconds, created_at) "
            "VALUES ('oldroom', 'critter-capture', :options, 7, 'waiting', 10, '2026-01-01')"),
            {"options": '{"players": 2}'})
        connection.execute(text("INSERT INTO seats (room_code, seat, kind) VALUES ('oldroom', 0, 'human'), "
                                "('oldroom', 1, 'bot')"))
    engine.dispose()
    upgraded = open_database(url)
    with upgraded.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == newest_migration()
        row = connection.execute(select(rooms.c.code, rooms.c.turn_seconds)).one()
    upgraded.dispose()
    assert tuple(row) == ("oldroom", None)


def without_grace(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The views with each seat's presence left out: an away seat's grace runs on while we look, and counts
    again from a restart."""
    for seen in views:
        for seat in seen["room"]["seats"]:
            assert seat["presence"] in ("connected", "away")
            seat["presence"] = seat["hand_over_at"] = None
    return views
