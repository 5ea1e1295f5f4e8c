"""Two clients sending moves for the same position at the same moment, over websockets and REST, on a real server.

Exactly one is applied and the other refused as `stale` (in a response window each listed player's answer
counts, docs/protocol.md), and the database holds exactly the applied moves.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
import websockets
from pydantic import Field
from sqlalchemy import create_engine, select

from bestiary.core.api import JSON, SIMULTANEOUS, TERMINAL, Action, Game, GameInfo, GameOptions, Payoffs, State
from bestiary.core.registry import register_game
from bestiary.server.db import moves
from tests.server.secret_duel import Word
from tests.server.tables import live_server

# -- a response window in which a player may answer more than once ---------------------------------
SING, PASS = Word(0, "sing"), Word(1, "pass")


class ChorusOptions(GameOptions):
    players: int = Field(2, ge=2, le=2)


class Chorus(Game):
    """Both players sing (up to three times each) until both have passed: one long response window."""

    info = GameInfo(name="chorus", title="Chorus (server test game)", rules_version="1", player_counts=(2,),
                    summary="a response window answered more than once", chance="explicit",
                    information="perfect", simultaneous=True, payoffs=Payoffs("general-sum", 0, 3))
    Options = ChorusOptions

    def new_initial_state(self, seed: int | None = None) -> ChorusState:
        return ChorusState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return (SING, PASS)

    def _state_from_dict(self, raw: JSON, seed: int | None) -> ChorusState:
        state = ChorusState(self, seed)
        state.sung, state.passed = list(raw["sung"]), set(raw["passed"])
        return state

    def render(self, observation: JSON) -> str:
        return str(observation)


class ChorusState(State):
    def __init__(self, game: Chorus, seed: int | None) -> None:
        super().__init__(game, seed)
        self.sung = [0, 0]
        self.passed: set[int] = set()

    def current_player(self) -> int:
        return TERMINAL if len(self.passed) == 2 else SIMULTANEOUS

    def players_to_act(self) -> list[int]:
        return [p for p in (0, 1) if p not in self.passed]

    def decision_kind(self) -> str:
        return "terminal" if len(self.passed) == 2 else "response"

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return (SING, PASS) if self.sung[player] < 3 else (PASS,)

    def _apply(self, action: Action, player: int) -> None:
        if action == SING:
            self.sung[player] += 1
        else:
            self.passed.add(player)

    def returns(self) -> list[float]:
        return [float(s) for s in self.sung]

    def observation(self, player: int | None) -> JSON:
        return {"sung": list(self.sung), "passed": sorted(self.passed)}

    def _to_dict(self) -> JSON:
        return {"sung": self.sung, "passed": sorted(self.passed)}

    def _copy_into(self, other: Any) -> None:
        other.sung, other.passed = self.sung.copy(), set(self.passed)

    def determinize(self, player: int, rng: random.Random) -> State:
        return self.clone()


# -- a race that a player may sit out ----------------------------------------------------------------
SWAT, SIT_OUT = Word(0, "swat"), Word(1, "pass")
ROUNDS = 3


class SlapOptions(GameOptions):
    players: int = Field(3, ge=3, le=3)


class Slap(Game):
    """Every round is a race: each player swats or passes; the first swat scores, or every player passes."""

    info = GameInfo(name="slap", title="Slap (server test game)", rules_version="1", player_counts=(3,),
                    summary="a race a player may pass", chance="explicit", information="perfect", simultaneous=True,
                    payoffs=Payoffs("general-sum", 0, ROUNDS))
    Options = SlapOptions

    def new_initial_state(self, seed: int | None = None) -> SlapState:
        return SlapState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return (SWAT, SIT_OUT)

    def _state_from_dict(self, raw: JSON, seed: int | None) -> SlapState:
        state = SlapState(self, seed)
        state.round, state.passed, state.points = raw["round"], set(raw["passed"]), list(raw["points"])
        return state

    def render(self, observation: JSON) -> str:
        return str(observation)


class SlapState(State):
    def __init__(self, game: Slap, seed: int | None) -> None:
        super().__init__(game, seed)
        self.round = 0
        self.passed: set[int] = set()
        self.points = [0, 0, 0]

    def current_player(self) -> int:
        return TERMINAL if self.round >= ROUNDS else SIMULTANEOUS

    def players_to_act(self) -> list[int]:
        return [] if self.round >= ROUNDS else [p for p in range(3) if p not in self.passed]

    def decision_kind(self) -> str:
        return "terminal" if self.round >= ROUNDS else "race"

    def _legal_actions(self, player: int) -> Sequence[Action]:
        return (SWAT, SIT_OUT)

    def _apply(self, action: Action, player: int) -> None:
        if action == SWAT:
            self.points[player] += 1
        else:
            self.passed.add(player)
        if action == SWAT or len(self.passed) == 3:
            self.round, self.passed = self.round + 1, set()

    def returns(self) -> list[float]:
        return [float(p) for p in self.points]

    def observation(self, player: int | None) -> JSON:
        return {"round": self.round, "passed": sorted(self.passed), "points": list(self.points)}

    def _to_dict(self) -> JSON:
        return {"round": self.round, "passed": sorted(self.passed), "points": self.points}

    def _copy_into(self, other: Any) -> None:
        other.round, other.passed, other.points = self.round, set(self.passed), self.points.copy()

    def determinize(self, player: int, rng: random.Random) -> State:
        return self.clone()


@pytest.fixture(autouse=True, scope="module")
def chorus_registered() -> None:
    register_game(Chorus)
    register_game(Slap)


# -- clients ---------------------------------------------------------------------------------------
class Player:
    """One seat with a websocket open and an HTTP connection warm, so that both can send at once."""

    def __init__(self, http: httpx.AsyncClient, host: str, code: str, token: str) -> None:
        self.http, self.host, self.code, self.token = http, host, code, token
        self.ws: Any = None

    async def connect(self) -> None:
        self.ws = await websockets.connect(f"ws://{self.host}/api/rooms/{self.code}/ws")
        await self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        assert json.loads(await self.ws.recv())["type"] == "welcome"

    async def by_socket(self, action: str, version: int) -> str:
        """The answer's outcome: "accepted" or the error code."""
        await self.ws.send(json.dumps({"type": "move", "action": action, "version": version, "ref": action}))
        while True:
            message = json.loads(await self.ws.recv())
            if message["type"] == "accepted":
                return "accepted"
            if message["type"] == "error":
                return str(message["error"])

    async def by_rest(self, action: str, version: int) -> str:
        answer = await self.http.post(f"/api/rooms/{self.code}/moves", json={"action": action, "version": version},
                                      headers={"Authorization": f"Bearer {self.token}"})
        return "accepted" if answer.status_code == 200 else str(answer.json()["error"])

    async def send(self, channel: str, action: str, version: int) -> str:
        return await (self.by_socket if channel == "socket" else self.by_rest)(action, version)

    async def second_tab(self) -> Player:
        """The same seat on another connection, as from a second browser tab."""
        twin = Player(self.http, self.host, self.code, self.token)
        await twin.connect()
        return twin


@asynccontextmanager
async def room(host: str, game: str) -> AsyncIterator[tuple[str, list[Player]]]:
    async with httpx.AsyncClient(base_url=f"http://{host}") as http:
        created = await http.post("/api/rooms", json={"game": game, "window_seconds": 600})
        code = created.json()["code"]
        tokens = [(await http.post(f"/api/rooms/{code}/seats/{seat}", json={})).json()["token"]
                  for seat in range(len(created.json()["seats"]))]
        players = [Player(http, host, code, token) for token in tokens]
        await asyncio.gather(*(player.connect() for player in players))
        try:
            yield code, players
        finally:
            for player in players:
                await player.ws.close()


def stored(url: str, code: str) -> list[tuple[int, int, str]]:
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = [(r.number, r.player, r.action) for r in connection.execute(
            select(moves).where(moves.c.room_code == code).order_by(moves.c.number))]
    engine.dispose()
    return rows


CHANNELS = [("socket", "socket"), ("rest", "rest"), ("socket", "rest"), ("rest", "socket")]


async def two_answers_at_once(host: str, opening: str, channels: tuple[str, str], actions: tuple[str, str]
                              ) -> tuple[str, list[str]]:
    """P1 opens a secret duel's race (`ring`) or window (`claim`); P2 and P3 answer at version 1 at once."""
    async with room(host, "secret-duel") as (code, players):
        assert await players[0].by_rest(opening, 0) == "accepted"
        outcomes = await asyncio.gather(players[1].send(channels[0], actions[0], 1),
                                        players[2].send(channels[1], actions[1], 1))
        return code, list(outcomes)


def test_two_racers_at_once_one_wins_the_other_is_stale(database_url: str) -> None:
    with live_server(database_url) as host:
        for first, second in CHANNELS * 3:
            code, outcomes = asyncio.run(two_answers_at_once(host, "ring", (first, second), ("grab", "grab")))
            assert sorted(outcomes) == ["accepted", "stale"], (first, second, outcomes)
            winner = 1 + outcomes.index("accepted")
            assert stored(database_url, code) == [(0, 0, "ring"), (1, winner, "grab")]


async def one_seat_twice(host: str, game: str, channels: tuple[str, str], actions: tuple[str, str]
                         ) -> tuple[str, list[str]]:
    """Seat 1 sends two moves at version 0 at once, from two connections (two browser tabs)."""
    async with room(host, game) as (code, players):
        tab = await players[0].second_tab()
        outcomes = await asyncio.gather(players[0].send(channels[0], actions[0], 0),
                                        tab.send(channels[1], actions[1], 0))
        await tab.ws.close()
        return code, list(outcomes)


def test_one_seat_sending_two_moves_at_once_gets_one_applied(sqlite_url: str) -> None:
    with live_server(sqlite_url) as host:
        for first, second in CHANNELS * 2:
            code, outcomes = asyncio.run(one_seat_twice(host, "secret-duel", (first, second), ("ring", "claim")))
            assert sorted(outcomes) == ["accepted", "stale"], (first, second, outcomes)
            assert stored(sqlite_url, code) == [(0, 0, ["ring", "claim"][outcomes.index("accepted")])]


def test_a_response_window_takes_both_answers_at_once_but_each_only_once(sqlite_url: str) -> None:
    with live_server(sqlite_url) as host:
        for first, second in CHANNELS:
            code, both = asyncio.run(two_answers_at_once(host, "claim", (first, second), ("challenge", "pass")))
            assert both == ["accepted", "accepted"]
            answers = stored(sqlite_url, code)[1:]
            assert [number for number, _, _ in answers] == [1, 2]
            assert sorted((seat, action) for _, seat, action in answers) == [(1, "challenge"), (2, "pass")]
            code, again = asyncio.run(one_seat_twice(host, "chorus", (first, second), ("sing", "sing")))
            assert sorted(again) == ["accepted", "stale"], again
            assert stored(sqlite_url, code) == [(0, 0, "sing")]


def test_a_replayed_answer_in_an_open_window_is_stale(sqlite_url: str) -> None:
    """Once a second `sing` chosen at the same version was taken again: a resent message counted twice."""
    async def replay(host: str) -> tuple[str, list[str]]:
        async with room(host, "chorus") as (code, singers):
            outcomes = [await singers[0].by_socket("sing", 0), await singers[1].by_rest("sing", 1),
                        await singers[0].by_rest("sing", 0), await singers[0].by_socket("sing", 1),
                        await singers[0].by_socket("sing", 2)]
            return code, outcomes

    with live_server(sqlite_url) as host:
        code, outcomes = asyncio.run(replay(host))
    # P1's own move at version 0 made version 0 stale for P1; P2's answer at 1 did not make 1 stale for P1
    assert outcomes == ["accepted", "accepted", "stale", "accepted", "stale"]
    assert stored(sqlite_url, code) == [(0, 0, "sing"), (1, 1, "sing"), (2, 0, "sing")]


async def one_then_another(host: str, channels: tuple[str, str], actions: tuple[str, str]) -> tuple[str, list[str]]:
    """In a race of Slap, P1 sends `actions[0]` and P2 `actions[1]` one millisecond later, both at version 0."""
    async with room(host, "slap") as (code, players):
        async def later(player: Player, channel: str, action: str) -> str:
            await asyncio.sleep(0.001)
            return await player.send(channel, action, 0)

        outcomes = await asyncio.gather(players[0].send(channels[0], actions[0], 0),
                                        later(players[1], channels[1], actions[1]))
        return code, list(outcomes)


def test_a_pass_in_a_race_takes_out_only_its_sender(database_url: str) -> None:
    """LUNGO-53: a pass 1 ms before another player's swat leaves the race open for that swat."""
    with live_server(database_url) as host:
        for first, second in CHANNELS * 2:
            code, outcomes = asyncio.run(one_then_another(host, (first, second), ("pass", "swat")))
            assert outcomes == ["accepted", "accepted"], (first, second, outcomes)
            assert stored(database_url, code) == [(0, 0, "pass"), (1, 1, "swat")]


def test_a_race_ends_with_its_first_swat_or_when_every_player_has_passed(sqlite_url: str) -> None:
    async def play(host: str) -> tuple[str, list[str]]:
        async with room(host, "slap") as (code, players):
            outcomes = [await players[0].by_socket("swat", 0), await players[1].by_rest("pass", 0),  # over: stale
                        await players[0].by_rest("pass", 1), await players[1].by_socket("pass", 1),
                        await players[2].by_socket("pass", 1),  # everyone passed: the next race
                        await players[0].by_socket("swat", 2), await players[0].by_socket("pass", 4)]
            return code, outcomes

    with live_server(sqlite_url) as host:
        code, outcomes = asyncio.run(play(host))
    assert outcomes == ["accepted", "stale", "accepted", "accepted", "accepted", "stale", "accepted"]
    assert stored(sqlite_url, code) == [(0, 0, "swat"), (1, 0, "pass"), (2, 1, "pass"), (3, 2, "pass"),
                                        (4, 0, "pass")]
