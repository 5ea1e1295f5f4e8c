"""The template game (games/_template, Pebbles) is a working game, and registering it, one line, is all it takes
for the terminal's listing and play, the learning adapters' checks and the server's option ranges to take it in:
each reads what the game declares of itself, not a table of its own."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app as cli
from bestiary.core.api import OnlineRange
from bestiary.core.conformance import checked_playout
from bestiary.core.registry import register_game, unregister_game
from bestiary.games._template import PebblesGame

runner = CliRunner()


@pytest.fixture
def registered() -> Iterator[None]:
    register_game(PebblesGame)  # the one line a new game adds to games/__init__.py
    try:
        yield
    finally:
        unregister_game(PebblesGame.info.name)


def test_the_template_is_no_game_bestiary_ships() -> None:
    assert "pebbles" not in bestiary.list_games()
    listing = runner.invoke(cli, ["games"], terminal_width=200)
    assert listing.exit_code == 0 and "pebbles" not in listing.output


def test_a_declared_online_range_must_name_an_option() -> None:
    class Misdeclared(PebblesGame):
        info = replace(PebblesGame.info, name="misdeclared", online_ranges=(OnlineRange("stones", 3, 60),))

    with pytest.raises(ValueError, match="misdeclared: its online range names 'stones', which is none of its"):
        register_game(Misdeclared)
    assert "misdeclared" not in bestiary.list_games()


@pytest.mark.parametrize("players", PebblesGame.info.player_counts)
def test_the_template_keeps_every_promise_of_the_game_api(registered: None, players: int) -> None:
    game = PebblesGame.from_options(players=players, pebbles=9)
    for seed in range(4):
        state = checked_playout(game, seed)  # the declared returns and length hold at every step
        assert state.returns().count(1.0) == 1


def test_the_heuristic_leaves_a_multiple_of_three() -> None:
    game = PebblesGame.from_options(pebbles=8)
    state = game.new_initial_state(seed=1)
    heuristic = game.heuristic_policy()
    assert str(heuristic(state.observation(0), state.legal_actions(), 0, random.Random(1))) == "take 2"
    assert game.heuristic_state_ranking() is not None and game.heuristic_value(state) is None


def test_registered_it_is_listed_and_played_in_the_terminal(registered: None, tmp_path: Path) -> None:
    listing = runner.invoke(cli, ["games"], terminal_width=200)
    assert listing.exit_code == 0, listing.output
    assert "pebbles - Pebbles (the template game); players: 2, 3, 4" in listing.output
    assert "constant-sum returns from 0 to 1; online: pebbles 3-60" in listing.output
    played = runner.invoke(cli, ["play", "pebbles", "--seat", "heuristic", "--seat", "random", "--seed", "4",
                                 "--record", str(tmp_path / "game.json")], terminal_width=200)
    assert played.exit_code == 0, played.output
    assert "Game over" in played.output and "took the last pebble" in played.output


# PettingZoo's api_test suggests a plain array observation; action masks need the dict it also supports.
@pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy)",
                            "ignore:.*not able to test alternative render modes")
def test_registered_the_learning_adapters_read_its_declarations_and_pass_their_checks(registered: None) -> None:
    pytest.importorskip("pettingzoo", reason="the rl extra is not installed (pip install -e '.[rl]')")
    import pyspiel
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from bestiary.rl import openspiel
    from bestiary.rl import pettingzoo as bestiary_pz
    from bestiary.rl.batched import has_batch_engine
    from bestiary.rl.gymnasium import BestiaryEnv

    spiel = openspiel.load("pebbles", players=3, pebbles=12)
    kind = spiel.get_type()
    assert kind.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert (spiel.min_utility(), spiel.max_utility(), spiel.utility_sum()) == (0.0, 1.0, 1.0)
    assert spiel.max_game_length() == 24  # two actions a pebble at most: a roll and the die
    pyspiel.random_sim_test(spiel, num_sims=3, serialize=True, verbose=False)
    game = PebblesGame.from_options(players=2)
    check_env(BestiaryEnv(game, opponents=["heuristic"], seat=1))
    api_test(bestiary_pz.env(game), num_cycles=50)
    assert not has_batch_engine("pebbles")


def test_registered_a_server_plays_it_within_its_declared_ranges(registered: None, tmp_path: Path) -> None:
    pytest.importorskip("fastapi", reason="the server tests need the 'server' extra: pip install -e '.[server]'")
    from fastapi.testclient import TestClient

    from bestiary.server.app import create_app
    from bestiary.server.settings import Settings

    with TestClient(create_app(f"sqlite:///{tmp_path / 'rooms.sqlite3'}",
                               Settings(bot_delay=0.0, reaction_scale=0.0))) as client:
        assert "pebbles" in [game["name"] for game in client.get("/api/games").json()["games"]]
        refused = client.post("/api/rooms", json={"game": "pebbles", "options": {"pebbles": 100}})
        assert refused.status_code == 400, refused.text
        assert "this server plays pebbles with pebbles from 3 to 60 (asked for 100)" in refused.json()["message"]
        made = client.post("/api/rooms", json={"game": "pebbles", "options": {"pebbles": 60}})
        assert made.status_code == 201 and made.json()["status"] == "waiting", made.text
