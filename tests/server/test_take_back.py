"""Taking back a move where fair play allows it (server/takeback.py): your own last moves of the turn you are
playing, while nothing was drawn or rolled, no one else acted and nothing hidden was shown; the others see
it in their log, nothing hidden leaks through it, and it survives a restart."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from bestiary.core.registry import register_game
from bestiary.server.authority import TAKE_BACK_DEPTH
from bestiary.server.settings import Settings
from bestiary.server.takeback import judge
from tests.server.clocks import ManualClock, advance_until
from tests.server.conftest import Server, auth, create_room, join, view
from tests.server.errand import CARDS, Errand, ErrandState
from tests.server.test_persistence import stored_moves
from tests.server.test_realtime import hello, receive_until

SETTINGS = Settings(bot_delay=3600, reaction_scale=0.0)


@pytest.fixture(autouse=True, scope="module")
def errand_registered() -> None:
    register_game(Errand)


def table(client: TestClient) -> tuple[str, list[str]]:
    code = create_room(client, "errand")["code"]
    return code, [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]


def play(client: TestClient, code: str, token: str, *actions: str) -> dict[str, Any]:
    for action in actions:
        answer = client.post(f"/api/rooms/{code}/moves", headers=auth(token),
                             json={"action": action, "version": view(client, code)["version"]})
        assert answer.status_code == 200, answer.text
    return view(client, code, token)


def take_back(client: TestClient, code: str, token: str, version: int | None = None) -> Any:
    version = view(client, code)["version"] if version is None else version
    return client.post(f"/api/rooms/{code}/take-back", headers=auth(token), json={"version": version})


def refused(client: TestClient, code: str, token: str, why: str) -> None:
    """The seat's view says it may not take back, why; and asking anyway is refused, naming the same reason."""
    offer = view(client, code, token)["take_back"]
    assert offer is not None and not offer["allowed"] and why in offer["why"], offer
    answer = take_back(client, code, token)
    assert answer.status_code == 409 and answer.json()["error"] == "no-take-back", answer.text
    assert why in answer.json()["message"]


@pytest.fixture
def running(server: Server, sqlite_url: str) -> Iterator[TestClient]:
    with server(sqlite_url, SETTINGS) as client:
        yield client


def test_a_player_takes_back_their_own_moves_of_this_turn_one_at_a_time(running: TestClient) -> None:
    code, (ada, bo) = table(running)
    start = view(running, code, ada)
    play(running, code, ada, "step", "step")
    assert view(running, code, ada)["take_back"] == {"allowed": True, "why": ""}
    refused(running, code, bo, "only the player whose turn it is")  # Bo is not to act
    stale = take_back(running, code, ada, version=1)
    assert stale.status_code == 409 and stale.json()["error"] == "stale"
    assert take_back(running, code, ada).json()["observation"]["position"] == 1
    after = take_back(running, code, ada).json()
    assert (after["version"], after["observation"]) == (start["version"], start["observation"])
    refused(running, code, ada, "nothing has been played yet")


def test_no_take_back_after_a_chance_event(running: TestClient) -> None:
    code, (ada, _) = table(running)
    play(running, code, ada, "step", "roll")  # the die is rolled at once; Ada plays on
    refused(running, code, ada, "a chance event")


def test_no_take_back_once_another_player_acted(running: TestClient) -> None:
    code, (ada, bo) = table(running)
    play(running, code, ada, "step", "ask")
    play(running, code, bo, "answer")
    assert view(running, code, ada)["to_act"] == [0]
    refused(running, code, ada, "the last move was P2's")


@pytest.mark.parametrize("revealing", ["peek", "show"])
def test_no_take_back_of_a_move_that_revealed_hidden_information(running: TestClient, revealing: str) -> None:
    # peek logs a private event; show logs a public line without the card, but changes what Bo sees
    code, (ada, _) = table(running)
    play(running, code, ada, "step", revealing)
    refused(running, code, ada, "revealed hidden information")
    play(running, code, ada, "step")  # a later move can be taken back, back to after the reveal
    assert take_back(running, code, ada).status_code == 200
    refused(running, code, ada, "revealed hidden information")


def test_no_take_back_in_a_new_turn(running: TestClient) -> None:
    code, (ada, bo) = table(running)
    play(running, code, ada, "step", "end")
    refused(running, code, ada, "only the player whose turn it is")
    refused(running, code, bo, "the last move was P1's")


def test_the_others_see_the_take_back_in_their_log_and_lose_the_lines_it_undid(running: TestClient) -> None:
    code, (ada, bo) = table(running)
    play(running, code, ada, "step")
    before = view(running, code, bo)
    with running.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws, bo)
        play(running, code, ada, "step")
        assert receive_until(ws, "state")["view"]["events"][-1]["text"] == "P1 steps to 2."
        take_back(running, code, ada)
        again = receive_until(ws, "state")["view"]
        assert again["events_from"] == 0  # the log is sent whole: the taken back line is gone
        assert [e["text"] for e in again["events"]] == [e["text"] for e in before["events"]] == ["P1 steps to 1."]
        assert receive_until(ws, "notice")["text"] == "P1 Ada takes back their last move (P1 steps to 2.)."
    # a page that reconnects having seen more of the log than there now is gets it whole too
    with running.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        ws.send_json({"type": "hello", "token": bo, "events_seen": 2})
        welcome = ws.receive_json()["view"]
        assert (welcome["events_from"], len(welcome["events"])) == (0, 1)


def test_a_take_back_over_the_websocket_is_answered_like_a_move(running: TestClient) -> None:
    code, (ada, _) = table(running)
    play(running, code, ada, "step")
    with running.websocket_connect(f"/api/rooms/{code}/ws") as ws:
        hello(ws, ada)
        ws.send_json({"type": "take_back", "version": 1, "ref": "t1"})
        assert receive_until(ws, "accepted") == {"type": "accepted", "ref": "t1", "version": 0}
        ws.send_json({"type": "take_back", "version": 0, "ref": "t2"})
        error = receive_until(ws, "error")
        assert (error["error"], error["ref"]) == ("no-take-back", "t2")


def test_a_take_back_survives_a_restart(server: Server, database_url: str) -> None:
    with server(database_url, SETTINGS) as client:
        code, (ada, bo) = table(client)
        play(client, code, ada, "step", "step", "step")
        assert take_back(client, code, ada).status_code == 200
        before = [view(client, code, token) for token in (ada, bo)]
        assert stored_moves(database_url, code) == 2  # the record is cut back with it
    with server(database_url, SETTINGS) as client:
        after = [view(client, code, token) for token in (ada, bo)]
        assert [(v["version"], v["observation"], v["events"], v["take_back"]) for v in after] == \
            [(v["version"], v["observation"], v["events"], v["take_back"]) for v in before]
        assert take_back(client, code, ada).json()["observation"]["position"] == 1  # the earlier move too
        play(client, code, ada, "step")  # the game goes on from there
        assert stored_moves(database_url, code) == 2


def seen_by(state: ErrandState, player: int) -> tuple[Any, list[str]]:
    return state.observation(player), [event.text for event in state.events(player)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.lists(st.integers(0, 5), max_size=25))
def test_a_move_that_may_be_taken_back_told_no_player_anything_hidden(seed: int, moves: list[int]) -> None:
    """Whatever the hidden cards were (every one the player could not rule out, not a sample), the move shows
    each player the same: so taking it back hides nothing that the move had shown."""
    game = Errand.from_options()
    state = game.new_initial_state(seed=seed)
    for choice in moves:
        if state.is_terminal():
            break
        before = state.clone()
        if state.is_chance_node():
            state.apply_action(state.legal_actions()[choice % 3])
            continue
        seat = state.players_to_act()[0]
        action = state.legal_actions()[choice % len(state.legal_actions())]
        state.apply_action(action, player=seat)
        if not judge(before, state, seat, seed).allowed:
            continue
        assert not state.is_chance_node() and state.players_to_act() == [seat]
        for player in (0, 1):
            hidden = 1 - player
            known = before.shown[hidden] or before.peeked[player]
            for card in [before.cards[hidden]] if known else [c for c in CARDS if c != before.cards[player]]:
                world = before.clone()
                world.cards[hidden] = card
                world.apply_action(str(action), player=seat)
                assert seen_by(world, player) == seen_by(state, player)


def test_the_judge_needs_the_position_just_before_the_last_move() -> None:
    state = Errand.from_options().new_initial_state(seed=1)
    state.apply_action("step", player=0)
    earlier = state.clone()
    state.apply_action("step", player=0)
    assert judge(state.clone(), state, 0, 1).why == "that move cannot be taken back"
    assert judge(earlier, state, 0, 1).allowed


def test_taking_back_never_winds_the_turn_clock_back_up(server: Server, sqlite_url: str,
                                                        clock: ManualClock) -> None:
    with server(sqlite_url, Settings(bot_delay=3600, reaction_scale=0.0, clock=clock)) as client:
        code = create_room(client, "errand", turn_seconds=60)["code"]
        ada, _ = join(client, code, 0, "Ada"), join(client, code, 1, "Bo")
        play(client, code, ada, "step")
        clock.advance(40)
        assert play(client, code, ada, "step")["turn_closes_in"] == 60  # a move starts the clock afresh
        clock.advance(10)
        assert take_back(client, code, ada).json()["turn_closes_in"] == 50  # a take-back does not
        clock.advance(40)
        assert play(client, code, ada, "step")["turn_closes_in"] == 10  # nor a move after it, this turn
        version = view(client, code)["version"]
        advance_until(clock, lambda: view(client, code)["version"] != version, step=5)
        assert clock.time() == 100  # the computer moved for Ada when the clock ran out, not before or after


@pytest.mark.parametrize("game", ["critter-capture", "cube-creatures", "crits-creatures"])
def test_in_each_game_a_take_back_returns_every_viewer_to_the_position_before(running: TestClient,
                                                                               game: str) -> None:
    """Judged from the game API alone: the same code takes back a draw choice, a swap or a piece's move."""
    code = create_room(running, game, options={"players": 2})["code"]
    tokens = [join(running, code, seat) for seat in range(2)]
    rng = random.Random(game)
    for _ in range(150):
        public = view(running, code)
        seat = public["to_act"][0]
        before = [view(running, code, token) for token in [*tokens, None]]
        mine = play(running, code, tokens[seat], rng.choice(before[seat]["legal_actions"]))
        if mine["take_back"]["allowed"]:
            break
    else:
        raise AssertionError(f"no move of {game} could be taken back in 150")
    take_back(running, code, tokens[seat])
    after = [view(running, code, token) for token in [*tokens, None]]
    assert [(v["version"], v["observation"], v["events"], v["legal_actions"]) for v in after] == \
        [(v["version"], v["observation"], v["events"], v["legal_actions"]) for v in before]


def test_at_most_the_last_moves_of_a_long_turn_can_be_taken_back(running: TestClient) -> None:
    code, (ada, _) = table(running)
    play(running, code, ada, *["step"] * (TAKE_BACK_DEPTH + 1))
    for _ in range(TAKE_BACK_DEPTH):
        assert take_back(running, code, ada).status_code == 200
    assert view(running, code, ada)["observation"]["position"] == 1
    refused(running, code, ada, "that move cannot be taken back")
