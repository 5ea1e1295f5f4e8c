"""IS-MCTS: every simulation from a fresh determinization, never from the true state."""

from __future__ import annotations

import random

import pytest

from bestiary.agents import ISMCTSAgent, MCTSAgent, SearchSettings, SeatView, make_agent, play_match
from bestiary.core.api import State
from tests.agents.toy_games import DEALS, KuhnPoker


class CountingView(SeatView):
    """A seat view that counts the determinizations asked of it."""

    __slots__ = ("samples",)

    def __init__(self, state: State, player: int) -> None:
        super().__init__(state, player)
        self.samples = 0

    def sample_state(self, rng: random.Random) -> State:
        self.samples += 1
        return super().sample_state(rng)


class ClairvoyantView(SeatView):
    """A seat view that cheats: it hands the search the true state. Only to show the test can fail."""

    __slots__ = ()

    def sample_state(self, rng: random.Random) -> State:
        return self._state.clone()


def kuhn_state(cards: tuple[int, int], bets: list[str]) -> State:
    state = KuhnPoker.from_options().new_initial_state(seed=0)
    state.apply_action(DEALS.index(cards))
    for bet in bets:
        state.apply_action(bet)
    return state


# Every information set of P1 (its card, P2's bet after P1 checked or not) with the two deals that
# give P1 the same observation.
INFORMATION_SETS = [(mine, bets) for mine in range(3) for bets in ([], ["check", "bet"])]


def twin_states(mine: int, bets: list[str]) -> tuple[State, State]:
    first, second = (c for c in range(3) if c != mine)
    return kuhn_state((mine, first), bets), kuhn_state((mine, second), bets)


@pytest.mark.parametrize("root", ["ucb", "halving"])
@pytest.mark.parametrize(("mine", "bets"), INFORMATION_SETS)
def test_same_observation_same_move_and_same_tree(mine: int, bets: list[str], root: str) -> None:
    one, other = twin_states(mine, bets)
    assert one.observation(0) == other.observation(0)
    assert one.to_json() != other.to_json()
    for seed in range(3):
        agents = [ISMCTSAgent(SearchSettings(simulations=300, root=root)) for _ in range(2)]
        moves = [agent.act(SeatView(state, 0), random.Random(seed))
                 for agent, state in zip(agents, (one, other), strict=True)]
        assert moves[0] == moves[1]
        trees = [{k: (e.visits, e.total) for k, e in agent.last_root.edges.items()} for agent in agents]
        assert trees[0] == trees[1]


def test_the_same_move_test_would_catch_a_search_of_the_true_state() -> None:
    # Holding the queen against a bet: call against the jack, fold against the king.
    against_jack, against_king = twin_states(1, ["check", "bet"])
    moves = [str(ISMCTSAgent(SearchSettings(simulations=300)).act(ClairvoyantView(state, 0), random.Random(0)))
             for state in (against_jack, against_king)]
    assert moves == ["call", "fold"]


def test_ismcts_determinizes_once_per_simulation_and_mcts_once_per_move() -> None:
    state = kuhn_state((1, 2), [])
    view = CountingView(state, 0)
    ISMCTSAgent(SearchSettings(simulations=77)).act(view, random.Random(0))
    assert view.samples == 77
    view = CountingView(state, 0)
    MCTSAgent(SearchSettings(simulations=77)).act(view, random.Random(0))
    assert view.samples == 1


@pytest.mark.parametrize("root", ["ucb", "halving"])
def test_ismcts_plays_kuhn_sensibly(root: str) -> None:
    # With the king, calling a bet always wins; with the jack, calling always loses.
    king, jack = kuhn_state((2, 0), ["check", "bet"]), kuhn_state((0, 2), ["check", "bet"])
    agent = ISMCTSAgent(SearchSettings(simulations=500, root=root))
    assert str(agent.act(SeatView(king, 0), random.Random(1))) == "call"
    assert str(agent.act(SeatView(jack, 0), random.Random(1))) == "fold"


def test_ismcts_wins_chips_from_random_at_kuhn() -> None:
    game = KuhnPoker.from_options()
    chips = 0.0
    for seed in range(120):  # each deal from both seats (the deal is the seed's at every table), so luck cancels
        for seat in (0, 1):
            agents = [make_agent("random"), make_agent("random")]
            agents[seat] = make_agent("ismcts:sims=200")
            chips += play_match(game, agents, seed).returns()[seat]
    # This search wins 0.25 chips a hand from a uniformly random player over 1200 hands (0.27 over these
    # 240; a hand's chips vary by 1.44, so 240 hands put 0.1 a standard error from a player no better than
    # random, 1.8 below this search). Best play would win about 0.5.
    assert chips / 240 > 0.1
