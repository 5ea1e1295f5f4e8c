"""Simulation: the same seed gives the same records whatever the jobs; every registered game runs."""

import sys

import pytest

from bestiary.analysis.backends import BackendError, chunks, simulate
from bestiary.analysis.simulate import SimulationSpec, game_seed, lineup, play_game
from bestiary.core.errors import BestiaryError, OptionError, UnknownGameError
from bestiary.core.registry import load_game
from tests.analysis.conftest import critter_spec
from tests.conftest import game_configurations


def test_process_pool_gives_the_same_records_as_one_process(critter_records):
    assert list(simulate(critter_spec(), 24, jobs=2)) == critter_records


def test_a_game_depends_only_on_master_seed_and_number(critter_records):
    spec = critter_spec()
    game = load_game("critter-capture", players=4)
    assert play_game(game, spec, 17) == critter_records[17]
    other = play_game(game, critter_spec(seed=12), 17)
    assert other["seed"] != critter_records[17]["seed"]


def test_records_come_in_game_order_with_the_agents_rotated(critter_records):
    assert [r["game_number"] for r in critter_records] == list(range(24))
    assert critter_records[0]["agents"] == ["heuristic", "random", "heuristic", "random"]
    assert critter_records[1]["agents"] == ["random", "heuristic", "random", "heuristic"]


def test_records_hold_result_length_and_card_events(critter_records):
    for record in critter_records:
        assert len(record["returns"]) == 4 and record["winners"]
        assert sum(record["returns"]) == pytest.approx(1.0)
        assert record["length"] > 0
        # critter capture flips every one of its 48 cards once, and corrals each of them once
        flipped = [card for cards in record["card_events"]["flip"].values() for card in cards]
        corralled = [card for cards in record["card_events"]["corral"].values() for card in cards]
        assert len(flipped) == 48 and sorted(flipped) == sorted(corralled)
        assert max(record["scores"]) == max(record["scores"][p] for p in record["winners"])


def test_game_seeds_differ_by_number_and_master_seed():
    seeds = {game_seed(master, number) for master in range(3) for number in range(100)}
    assert len(seeds) == 300 and all(0 <= s < 2**63 for s in seeds)


def test_lineup_puts_every_agent_in_every_seat_equally():
    seats = [lineup(["a", "b", "c"], 3, number) for number in range(3)]
    for seat in range(3):
        assert sorted(line[seat] for line in seats) == ["a", "b", "c"]


def test_chunks_cover_every_game_once():
    for games, workers in [(1, 4), (7, 2), (1001, 3)]:
        ranges = chunks(games, workers)
        assert [n for start, stop in ranges for n in range(start, stop)] == list(range(games))


@pytest.mark.parametrize(("game", "players"), game_configurations())
def test_every_registered_game_simulates(game, players):
    spec = SimulationSpec(game, {"players": players}, ("heuristic", "random"), 5)
    records = list(simulate(spec, 3))
    assert [len(r["returns"]) for r in records] == [players] * 3
    assert all(r["length"] > 0 and r["winners"] for r in records)


def test_bad_input_is_refused_before_anything_runs():
    with pytest.raises(UnknownGameError, match="no game named 'chess'"):
        SimulationSpec("chess", {"players": 2}, ("random",), 1)
    with pytest.raises(OptionError, match="no agent named 'genius'"):
        SimulationSpec("critter-capture", {"players": 2}, ("genius",), 1)
    with pytest.raises(OptionError, match="5 players cannot play"):
        SimulationSpec("critter-capture", {"players": 5}, ("random",), 1)
    with pytest.raises(OptionError, match="unknown option 'board'"):
        SimulationSpec("critter-capture", {"players": 2, "board": 3}, ("random",), 1)
    with pytest.raises(OptionError, match="at least one agent"):
        SimulationSpec("critter-capture", {"players": 2}, (), 1)
    spec = critter_spec()
    with pytest.raises(OptionError, match="at least 1"):
        list(simulate(spec, 0))
    with pytest.raises(OptionError, match="no backend named 'gpu'"):
        list(simulate(spec, 1, backend="gpu"))
    with pytest.raises(BestiaryError, match="--jobs"):
        list(simulate(spec, 1, jobs=0))


def test_ray_backend_without_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail as if it were not installed
    with pytest.raises(BackendError, match=r"pip install 'bestiary\[ray\]'"):
        list(simulate(critter_spec(), 1, backend="ray"))
