"""The OpenSpiel adapter passes OpenSpiel's random simulation test, and OpenSpiel's MCTS and IS-MCTS bots
play through it."""

from __future__ import annotations

import numpy as np
import pytest

from tests.rl.games import GAMES, RL_EXTRA, TOY_GAME, make_game
from tests.rl.hidden_bid import HiddenBid

pytest.importorskip("pyspiel", reason=RL_EXTRA)
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from bestiary.rl import openspiel as bestiary_os

TOY_PAYOFFS = {2: bestiary_os.Payoffs("zero-sum", -0.5, 0.5, 0.0, 8),
               3: bestiary_os.Payoffs("zero-sum", -1 / 3, 1 - 1 / 3, 0.0, 12)}


def spiel_game(name: str, players: int) -> bestiary_os.BestiarySpielGame:
    payoffs = TOY_PAYOFFS[players] if name == HiddenBid.info.name else None
    return bestiary_os.load(make_game(name, players), payoffs=payoffs)


@TOY_GAME
def test_random_sim_test_passes(name: str, players: int) -> None:
    pyspiel.random_sim_test(spiel_game(name, players), num_sims=2, serialize=False, verbose=False)


def test_game_type_says_what_the_game_is() -> None:
    critters = spiel_game("critter-capture", 2).get_type()
    assert critters.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert critters.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert critters.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert critters.utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert critters.provides_information_state_tensor
    toy = spiel_game("hidden-bid", 2)
    assert toy.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert not toy.get_type().provides_information_state_tensor
    assert toy.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert (toy.num_distinct_actions(), toy.max_chance_outcomes()) == (6, 3)
    assert toy.observation_tensor_shape() == [5 + 10 * 2]


def play_chance(state, rng: np.random.Generator) -> None:
    actions, probs = zip(*state.chance_outcomes(), strict=True)
    state.apply_action(int(rng.choice(actions, p=probs)))


def random_decision_states(game, seed: int):
    """Every decision state of a random game."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            play_chance(state, rng)
            continue
        yield state
        state.apply_action(int(rng.choice(state.legal_actions())))


@GAMES
def test_resampling_the_information_state_changes_nothing_the_seat_sees(name: str, players: int) -> None:
    """As the conformance suite does, through OpenSpiel's resampling, strings and tensors."""
    game = spiel_game(name, players)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for state in random_decision_states(game, seed=1):
        seat = state.current_player()
        sampled = state.resample_from_infostate(seat, sampler)
        assert sampled.information_state_string(seat) == state.information_state_string(seat)
        assert sampled.observation_string(seat) == state.observation_string(seat)
        assert np.array_equal(sampled.observation_tensor(seat), state.observation_tensor(seat))
        assert sampled.legal_actions() == state.legal_actions()


def test_the_information_state_hides_an_earlier_secret_bid() -> None:
    seen = []
    for first_bid in (0, 2):
        state = spiel_game("hidden-bid", 2).new_initial_state()
        state.apply_action(0)
        state.apply_action(2)  # cards 1 and 3
        state.apply_action(first_bid)
        assert state.current_player() == 1
        seen.append((state.information_state_string(1), state.observation_tensor(1).tolist()))
    assert seen[0] == seen[1]
    assert state.information_state_string(0) != state.information_state_string(1)


def play_with_bot(game, bot, seed: int) -> list[float]:
    """The bot holds seat 0; the others play at random."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            play_chance(state, rng)
        elif state.current_player() == 0:
            action = bot.step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state.returns()


def test_mcts_bot_plays_critter_capture() -> None:
    game = spiel_game("critter-capture", 2)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    returns = play_with_bot(game, bot, seed=0)
    assert sorted(returns) in ([0.0, 1.0], [0.5, 0.5])


@pytest.mark.parametrize("players", [2, 3])
def test_ismcts_bot_plays_through_the_adapter(players: int) -> None:
    """IS-MCTS takes imperfect-information games only (critter capture has perfect information)."""
    game = spiel_game("hidden-bid", players)
    rng = np.random.RandomState(1)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=50,
                           random_state=rng)
    for seed in range(3):
        returns = play_with_bot(game, bot, seed)
        assert sum(returns) == pytest.approx(0.0)


def test_ismcts_finds_the_better_bid_with_the_best_card() -> None:
    """With a 3 and the bids hidden, bidding 2 beats or ties every opposing total: IS-MCTS should see it."""
    game = spiel_game("hidden-bid", 2)
    state = game.new_initial_state()
    state.apply_action(2)
    state.apply_action(1)  # P1 holds a 3, P2 a 2 that P1 cannot see
    rng = np.random.RandomState(2)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(4, rng), uct_c=2.0, max_simulations=400,
                           random_state=rng)
    assert bot.step(state) == 2


def test_registered_game_loads_by_name_with_options() -> None:
    name = bestiary_os.register("critter-capture")
    assert bestiary_os.register("critter-capture") == name == "bestiary_critter_capture"
    game = pyspiel.load_game(name, {"players": 3, "options": '{"first_player": "random"}'})
    assert game.num_players() == 3
    assert game.get_parameters()["players"] == 3
    assert game.new_initial_state().is_chance_node()  # chance picks the first player
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)  # reloads the game by name


def test_ismcts_bot_plays_a_shipped_hidden_card_game() -> None:
    """Cube Creatures hides hands and the deck: OpenSpiel's IS-MCTS plays a whole game of it."""
    game = spiel_game("cube-creatures", 2)
    rng = np.random.RandomState(2)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0, max_simulations=3,
                           random_state=rng)
    returns = play_with_bot(game, bot, seed=0)  # every IS-MCTS move is checked legal on the way
    assert sorted(returns) in ([0.0, 1.0], [0.5, 0.5])


@GAMES
def test_the_declared_payoffs_hold_in_random_games(name: str, players: int) -> None:
    game = spiel_game(name, players)
    kind = game.get_type().utility
    for seed in range(3):
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                play_chance(state, rng)
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        returns = state.returns()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns), returns
        assert state.move_number() <= game.max_game_length()
        if kind == pyspiel.GameType.Utility.ZERO_SUM:
            assert sum(returns) == pytest.approx(0.0)
        elif kind == pyspiel.GameType.Utility.CONSTANT_SUM:
            assert sum(returns) == pytest.approx(game.utility_sum())
