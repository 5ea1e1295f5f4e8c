"""One referee at every table (core/referee.py): the same seeded game of Creatures of Lungo, computer seats only,
played by the simulator, the terminal and the server, is the same game move for move, races and all."""

from __future__ import annotations

import io
import time
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console

from bestiary.agents import make_agent
from bestiary.analysis.simulate import play_out
from bestiary.cli.play import TerminalTable
from bestiary.core.registry import load_game
from tests.server.clocks import ManualClock
from tests.server.conftest import INSTANT, Server, create_room, view

GAME, PLAYERS = "creatures-of-lungo", 3
SEATS = ["heuristic", "random", "heuristic"]

Record = list[tuple[int, str]]


def simulated(seed: int) -> Record:
    state = load_game(GAME, players=PLAYERS).new_initial_state(seed)
    play_out(state, [make_agent(name) for name in SEATS], seed)
    return [(player, str(action)) for player, action in state.history()]


def at_the_terminal(seed: int) -> Record:
    table = TerminalTable(load_game(GAME, players=PLAYERS), SEATS, seed, Console(file=io.StringIO(), width=100))
    return [(player, str(action)) for player, action in table.play().history()]


def served(server: Server, url: str, seed: int) -> Record:
    clock = ManualClock()
    settings = replace(INSTANT, bot_delay=0.5, reaction_scale=1.0, clock=clock, new_seed=lambda: seed)
    with server(url, settings) as client:
        code = create_room(client, GAME, options={"players": PLAYERS},
                           seats=[{"kind": "bot", "agent": name} for name in SEATS])["code"]
        deadline = time.monotonic() + 60
        while view(client, code)["room"]["status"] != "finished":
            assert time.monotonic() < deadline, "the bots' game did not finish"
            clock.advance(0.1)  # the bots move when their pace or reaction time is up, on the server's clock
        room: Any = client.app.state.hub.rooms[code]  # type: ignore[attr-defined]
        return [(player, str(action)) for player, action in room.state.history()]


@pytest.mark.parametrize("seed", [7, 2024])
def test_the_same_seed_gives_the_same_lungo_game_at_every_table(server: Server, sqlite_url: str,
                                                                 seed: int) -> None:
    record = simulated(seed)
    races = [action for _, action in record if action in ("swat", "grab token")]
    assert races, "a game with no race tests no race model"
    assert at_the_terminal(seed) == record
    assert served(server, sqlite_url, seed) == record
