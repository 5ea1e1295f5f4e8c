"""A finished game's review on the server: asked for from the end screen, made once in the background, kept
with the room across a restart, and shown to each viewer only as the replay shows the game to it
(docs/review.md, *In the browser*)."""

from __future__ import annotations

import json
import random
import re
import time
from dataclasses import replace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bestiary.review import ReviewSettings
from bestiary.server import reviews
from tests.server.conftest import INSTANT, Server, auth, create_room, join, move, view

CHEAP = ReviewSettings(sims=8, candidates=3, luck_outcomes=3, depth=2)
QUICK = replace(INSTANT, review=CHEAP, bot_processes=0)  # the review's shares on a thread: no pool to start
CARD = re.compile(r"\b[a-z]+(?:-[a-z]+)+(?:#\d+)?\b")  # a card's id, as the games name cards: "ember-pup", "poison#2"


def cube_game(client: TestClient, seed: int = 1) -> tuple[str, list[str]]:
    """A finished game of Cube Creatures (to three defeated creatures) between two people playing seeded random
    moves through the REST API: its room code and seat tokens."""
    code = create_room(client, "cube-creatures", options={"players": 2, "win_at": 3})["code"]
    tokens = [join(client, code, 0), join(client, code, 1)]
    rng = random.Random(seed)
    for _ in range(2000):
        state = view(client, code)
        if state["room"]["status"] == "finished":
            return code, tokens
        for seat in state["to_act"]:
            mine = view(client, code, tokens[seat])
            if mine["legal_actions"]:
                move(client, code, tokens[seat], rng.choice(mine["legal_actions"]), mine["version"])
    raise AssertionError("the game did not end")


def reviewed(client: TestClient, code: str, token: str | None = None) -> dict[str, Any]:
    """The review, once made, as the token's seat sees it."""
    for _ in range(600):
        answer = client.get(f"/api/rooms/{code}/review", headers=auth(token) if token else {})
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] in ("done", "failed"):
            assert answer.json()["status"] == "done", answer.json()
            return dict(answer.json()["review"])
        time.sleep(0.05)
    raise AssertionError("the review was not made in 30 s")


def test_a_review_before_the_game_ends_is_refused_and_asks_nothing(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, QUICK) as client:
        code = create_room(client, "cube-creatures", options={"players": 2, "win_at": 3})["code"]
        waiting = client.post(f"/api/rooms/{code}/review")
        assert waiting.status_code == 409 and waiting.json()["error"] == "not-finished"
        assert "has not started" in waiting.json()["message"]
        join(client, code, 0)
        join(client, code, 1)
        playing = client.post(f"/api/rooms/{code}/review")
        assert playing.status_code == 409 and "is still being played" in playing.json()["message"]
        assert client.get(f"/api/rooms/{code}/review").json()["status"] == "none"
        assert client.post("/api/rooms/nosuchroom000000/review").status_code == 404
        assert client.get(f"/api/rooms/{code}/review", headers=auth("not-a-seat-token")).status_code in (401, 403)


def test_a_review_is_made_once_stored_and_kept_across_a_restart(server: Server, database_url: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    put_together = reviews.review_views
    monkeypatch.setattr(reviews, "review_views", lambda *args: made.append(1) or put_together(*args))
    with server(database_url, QUICK) as client:
        code, tokens = cube_game(client)
        steps = view(client, code)["version"]
        first = client.post(f"/api/rooms/{code}/review")
        assert first.status_code == 202 and first.json()["status"] in ("running", "done")
        assert first.json()["total"] == steps
        again = client.post(f"/api/rooms/{code}/review", headers=auth(tokens[0]))  # asked twice: one review
        assert again.status_code == 202
        mine = reviewed(client, code, tokens[0])
        assert client.post(f"/api/rooms/{code}/review").json()["status"] == "done"
        assert made == [1]
        assert mine["game"] == "cube-creatures" and mine["viewer"] == 0 and mine["steps"] == steps
        assert len(mine["win_probability"]) == steps and len(mine["players"]) == 2
        assert {d["step"] for d in mine["decisions"]} | {c["step"] for c in mine["chance"]} == set(range(steps))
        assert mine["verdict"] and all(step in {d["step"] for d in mine["decisions"]} for step in mine["costliest"])
    with server(database_url, QUICK) as client:  # a restart: the review is read back, not made again
        assert reviewed(client, code, tokens[0]) == mine
        assert made == [1]


def replay_text(client: TestClient, code: str, steps: int, token: str | None) -> str:
    """Everything the replay shows the viewer, at every step of the game."""
    seen = []
    for step in range(steps + 1):
        answer = client.get(f"/api/rooms/{code}/replay", params={"step": step}, headers=auth(token) if token else {})
        assert answer.status_code == 200, answer.text
        seen.append(json.dumps(answer.json()))
    return "\n".join(seen)


def test_each_viewer_sees_no_hidden_card_of_another_seat(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, QUICK) as client:
        code, tokens = cube_game(client, seed=2)
        steps = view(client, code)["version"]
        assert client.post(f"/api/rooms/{code}/review").status_code == 202
        viewers: list[str | None] = [*tokens, None]
        shown = {viewer: set(CARD.findall(replay_text(client, code, steps, viewer))) for viewer in viewers}
        answers = {viewer: json.dumps(reviewed(client, code, viewer)) for viewer in viewers}
        leaked_somewhere = False
        for viewer in viewers:
            # a card some seat saw and this viewer never did: hidden from it the whole game
            hidden = set().union(*shown.values()) - shown[viewer]
            assert hidden, "a Cube Creatures game keeps some card from every viewer"
            named = set(CARD.findall(answers[viewer]))
            assert not hidden & named, (viewer, hidden & named)
            # the others' reviews name cards hidden from this viewer: the filter is what keeps them out
            leaked_somewhere |= any(hidden & set(CARD.findall(answers[other])) for other in viewers if other != viewer)
        assert leaked_somewhere


def test_other_seats_moves_read_as_the_replay_shows_them(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, QUICK) as client:
        code, tokens = cube_game(client, seed=3)
        assert client.post(f"/api/rooms/{code}/review").status_code == 202
        mine, spectator = reviewed(client, code, tokens[0]), reviewed(client, code)
        for own, public in zip(mine["decisions"], spectator["decisions"], strict=True):
            assert own["step"] == public["step"] and own["loss"] == public["loss"]
            assert public["action"] == public["seen"]  # a spectator reads every move in the replay's words
            if own["player"] == 0:  # a seat reads its own moves as it made them
                assert own["action"] and own["best"]
            else:
                assert own["action"] == own["seen"]
        assert mine["win_probability"] == spectator["win_probability"]


def test_reviews_are_bounded_on_the_server(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, replace(QUICK, reviews_waiting=0)) as client:
        code, _ = cube_game(client)
        busy = client.post(f"/api/rooms/{code}/review")
        assert busy.status_code == 503 and busy.json()["error"] == "busy"
        assert client.get(f"/api/rooms/{code}/review").json()["status"] == "none"


def test_the_review_runs_in_the_search_bots_pool(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, replace(QUICK, bot_processes=1)) as client:
        code, tokens = cube_game(client)
        assert client.post(f"/api/rooms/{code}/review", headers=auth(tokens[1])).status_code == 202
        assert reviewed(client, code, tokens[1])["viewer"] == 1


def test_a_review_cut_short_by_a_restart_is_made_at_the_next_look(server: Server, sqlite_url: str) -> None:
    with server(sqlite_url, QUICK) as client:
        code, tokens = cube_game(client)
        hub = client.app.state.hub  # type: ignore[attr-defined]
        hub.store.ask_review(code, {"sims": 8})  # stored as running, as a server stopped mid-review leaves it
        assert client.get(f"/api/rooms/{code}/review").json()["status"] in ("running", "done")
        assert reviewed(client, code, tokens[1])["viewer"] == 1
