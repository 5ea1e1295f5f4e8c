"""MCTS: UCT selection, chance handling, max-n backpropagation, joint choices, budgets, subtree reuse."""

from __future__ import annotations

import math
import random

import pytest

from bestiary.agents import MCTSAgent, SearchSettings, SeatView, make_agent, parse_settings, play_match
from bestiary.agents.base import Agent
from bestiary.agents.search import Edge, Node, ucb_choice
from bestiary.core.api import Action
from bestiary.core.errors import OptionError
from tests.agents.toy_games import DiceNim, Move, tree_game


def mcts(**settings: object) -> MCTSAgent:
    return MCTSAgent(SearchSettings(**settings))  # type: ignore[arg-type]


# -- UCT selection -------------------------------------------------------------------------------
def test_ucb_tries_every_action_once_before_scoring() -> None:
    node = Node()
    a, b, c = Move(0, "a"), Move(1, "b"), Move(2, "c")
    rng = random.Random(1)
    tried = set()
    for _ in range(3):
        action = ucb_choice(node, 0, [a, b, c], 1.4, rng)
        tried.add(action)
        node.edges[(0, action)].visits += 1
    assert tried == {a, b, c}


def test_ucb_picks_the_highest_upper_bound() -> None:
    a, b = Move(0, "a"), Move(1, "b")
    node = Node()
    # a: mean 0.6 over 100 visits; b: mean 0.5 over 5 visits. With c = 1.4, b's bonus wins;
    # with c = 0.1, a's mean does.
    for action, visits, total in ((a, 100, 60.0), (b, 5, 2.5)):
        edge = node.edges[(0, action)] = Edge()
        edge.visits, edge.total, edge.available = visits, total, 104
    def score(edge: Edge, c: float) -> float:
        return edge.total / edge.visits + c * math.sqrt(math.log(edge.available + 1) / edge.visits)
    assert score(node.edges[(0, b)], 1.4) > score(node.edges[(0, a)], 1.4)
    assert ucb_choice(node, 0, [a, b], 1.4, random.Random(0)) == b
    assert ucb_choice(node, 0, [a, b], 0.1, random.Random(0)) == a


def test_ucb_counts_availability_only_for_legal_actions() -> None:
    a, b = Move(0, "a"), Move(1, "b")
    node = Node()
    ucb_choice(node, 0, [a, b], 1.0, random.Random(0))
    ucb_choice(node, 0, [a], 1.0, random.Random(0))
    assert node.edges[(0, a)].available == 2
    assert node.edges[(0, b)].available == 1


# -- chance ---------------------------------------------------------------------------------------
# Betting wins with probability 0.2 (two unlikely winning outcomes, one likely losing one): folding's
# sure 0.5 is better. A search that treated outcomes as equally likely would value betting at 2/3.
GAMBLE = {"turn": 0, "moves": {
    "bet": {"chance": {"six": (0.1, (1.0, 0.0)), "five": (0.1, (1.0, 0.0)), "low": (0.8, (0.0, 1.0))}},
    "fold": (0.5, 0.5)}}


@pytest.mark.parametrize("branching", [12, 0])
def test_chance_outcomes_are_sampled_by_probability(branching: int) -> None:
    game = tree_game("gamble", 2, GAMBLE)
    agent = mcts(simulations=2000, chance_branching=branching)
    state = game.new_initial_state(seed=0)
    assert agent.act(SeatView(state, 0), random.Random(5)) == game.moves["fold"]
    root = agent.last_root
    assert root is not None
    bet = root.edges[(0, game.moves["bet"])]
    assert bet.visits > 20
    assert bet.mean() == pytest.approx(0.2, abs=0.12)
    chance_children = bet.child.outcomes if bet.child else {}
    if branching:
        assert set(chance_children) == set(game.outcomes.values())
        assert sum(n.edges == {} for n in chance_children.values()) == 3  # leaves follow the outcomes
    else:
        assert chance_children == {}  # open loop: no branch per outcome


# -- multi-player returns (max-n) -----------------------------------------------------------------
# P2 answers each of P1's moves with the move best for P2 itself. Max-n: after L P2 picks a
# (0.5 for P1), after R P2 picks c (0.4 for P1), so P1 plays L. Paranoid search (P2 minimises P1)
# would play R; so would a search where P2 helps P1 (d gives P1 everything).
THREE_WAY = {"turn": 0, "moves": {
    "L": {"turn": 1, "moves": {"a": (0.5, 0.5, 0.0), "b": (0.0, 0.3, 0.7)}},
    "R": {"turn": 1, "moves": {"c": (0.4, 0.6, 0.0), "d": (1.0, 0.0, 0.0)}}}}


def test_each_player_backs_up_its_own_return() -> None:
    game = tree_game("three-way", 3, THREE_WAY)
    agent = mcts(simulations=3000)
    assert agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(2)) == game.moves["L"]
    root = agent.last_root
    assert root is not None
    moves = game.moves
    left = root.edges[(0, moves["L"])]
    assert left.mean() == pytest.approx(0.5, abs=0.05)
    assert left.child is not None
    assert left.child.edges[(1, moves["a"])].mean() == pytest.approx(0.5)  # P2's own return
    assert left.child.edges[(1, moves["b"])].mean() == pytest.approx(0.3)
    right = root.edges[(0, moves["R"])].child
    assert right is not None
    assert right.edges[(1, moves["d"])].mean() == pytest.approx(0.0)
    assert right.edges[(1, moves["c"])].visits > right.edges[(1, moves["d"])].visits


# -- simultaneous choices, races, response windows --------------------------------------------------
# P1 should pick "hi" whatever P2 does; P2 should pick "up" whatever P1 does.
DOMINANT = {"simultaneous": {0: ["lo", "hi"], 1: ["up", "down"]}, "then": {
    ("lo", "up"): (0.2, 0.8), ("lo", "down"): (0.4, 0.6), ("hi", "up"): (0.5, 0.5), ("hi", "down"): (0.9, 0.1)}}
# Matching pennies: P2 wins on a match. Whoever could see the other's choice would always win.
PENNIES = {"simultaneous": {0: ["heads", "tails"], 1: ["heads", "tails"]}, "then": {
    ("heads", "heads"): (0.0, 1.0), ("tails", "tails"): (0.0, 1.0),
    ("heads", "tails"): (1.0, 0.0), ("tails", "heads"): (1.0, 0.0)}}


@pytest.mark.parametrize("p1_chose_first", [False, True])
def test_simultaneous_choice_finds_each_dominant_move(p1_chose_first: bool) -> None:
    game = tree_game("dominant", 2, DOMINANT)
    state = game.new_initial_state(seed=0)
    assert agent_choice(game, state, 0) == game.moves["hi"]
    if p1_chose_first:
        state.apply_action("lo", player=0)  # hidden from P2, resampled in its determinization
    assert agent_choice(game, state, 1) == game.moves["up"]


def agent_choice(game: object, state: object, seat: int) -> Action:
    return mcts(simulations=400).act(SeatView(state, seat), random.Random(seat))  # type: ignore[arg-type]


def test_simultaneous_choices_do_not_see_each_other() -> None:
    game = tree_game("pennies", 2, PENNIES)
    agent = mcts(simulations=2000)
    agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(3))
    root = agent.last_root
    assert root is not None
    for name in ("heads", "tails"):
        # Decoupled choices settle near the game's value 0.5; had P2 seen P1's coin, P1 would get ~0.
        assert root.edges[(0, game.moves[name])].mean() == pytest.approx(0.5, abs=0.2)
    assert len(root.joint) == 4


SNAP = {"race": {0: ["snap", "wait"], 1: ["snap", "wait"]}, "then": {
    (0, "snap"): (1.0, 0.0), (1, "snap"): (0.0, 1.0), (0, "wait"): (0.0, 1.0), (1, "wait"): (1.0, 0.0)}}


class FixedDelay(Agent):
    def __init__(self, action: str, delay: float) -> None:
        self.action, self.delay = action, delay

    def act(self, view: SeatView, rng: random.Random) -> Action:
        return next(a for a in view.legal_actions if str(a) == self.action)

    def reaction_delay(self, view: SeatView, rng: random.Random) -> float:
        return self.delay


def test_race_search_snaps_and_the_referee_lets_the_quickest_win() -> None:
    game = tree_game("snap", 2, SNAP)
    state = game.new_initial_state(seed=0)
    assert agent_choice(game, state, 0) == game.moves["snap"]
    assert agent_choice(game, state, 1) == game.moves["snap"]
    assert play_match(game, [FixedDelay("snap", 0.5), FixedDelay("snap", 0.3)], seed=1).returns() == [0.0, 1.0]
    assert play_match(game, [FixedDelay("snap", 0.2), FixedDelay("snap", 0.3)], seed=1).returns() == [1.0, 0.0]


# P1 attacks; P2 and P3 may each block or pass. Blocking never pays for P2 (0.1 against at least 0.2
# by passing) and always pays for P3 (0.5 against 0.0, since P2 will not block), in either order.
WINDOW = {"turn": 0, "moves": {"attack": {"response": {1: ["block"], 2: ["block"]}, "then": {
    (1, "block"): (0.0, 0.1, 0.5), (2, "block"): (0.2, 0.3, 0.5)}, "passed": (0.8, 0.2, 0.0)}}}


def test_response_window_answers_by_each_responders_return() -> None:
    game = tree_game("window", 3, WINDOW)
    state = game.new_initial_state(seed=0)
    state.apply_action("attack")
    assert state.decision_kind() == "response"
    assert agent_choice(game, state, 1) == game.moves["pass"]
    assert agent_choice(game, state, 2) == game.moves["block"]  # asked before P2 has answered
    final = play_match(game, [make_agent("mcts:sims=300")] * 3, seed=4)
    assert final.returns() == [0.2, 0.3, 0.5]


# -- the heuristic as a prior ------------------------------------------------------------------------
def test_ucb_prior_tries_the_hint_first_and_favours_it() -> None:
    a, b = Move(0, "a"), Move(1, "b")
    node = Node()
    assert ucb_choice(node, 0, [a, b], 1.0, random.Random(0), order=[b], prior=1.0) == b
    for action in (a, b):
        edge = node.edges[(0, action)]
        edge.visits, edge.total = 4, 2.0  # equal statistics: only the prior tells them apart
    assert all(ucb_choice(node, 0, [a, b], 1.0, random.Random(seed), order=[b], prior=1.0) == b for seed in range(5))


def test_search_with_a_prior_starts_from_the_heuristics_move() -> None:
    game = DiceNim.from_options(tokens=10)  # the heuristic takes 2, leaving 8
    state = game.new_initial_state(seed=0)
    hinted = mcts(simulations=1, prior=1.0).act(SeatView(state, 0), random.Random(0))
    assert hinted == game.moves[1]
    unhinted = {mcts(simulations=1).act(SeatView(state, 0), random.Random(seed)) for seed in range(12)}
    assert len(unhinted) > 1  # without the prior the single simulation tries any move


# -- budgets --------------------------------------------------------------------------------------
def test_simulation_budget_is_exact() -> None:
    game = DiceNim.from_options(tokens=9)
    agent = mcts(simulations=123, reuse=False)
    agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(0))
    root = agent.last_root
    assert root is not None
    assert agent.last_simulations == 123
    assert sum(edge.visits for edge in root.edges.values()) == 123


def test_time_budget_stops_at_the_deadline() -> None:
    ticks = iter(range(10_000))
    agent = MCTSAgent(SearchSettings(simulations=None, seconds=1.0), clock=lambda: next(ticks) / 10)
    game = DiceNim.from_options(tokens=9)
    agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(0))
    # The deadline is read at 0.0 (so it is 1.0); the first simulation runs unconditionally, the next
    # ones after the clock reads 0.1, 0.2, ... 0.9; at 1.0 the search stops: ten.
    assert agent.last_simulations == 10


def test_a_spent_time_budget_still_runs_one_simulation() -> None:
    ticks = iter(range(10_000))
    agent = MCTSAgent(SearchSettings(simulations=None, seconds=0.5), clock=lambda: float(next(ticks)))
    game = DiceNim.from_options(tokens=9)
    agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(0))
    assert agent.last_simulations == 1


def test_the_smaller_of_two_budgets_applies() -> None:
    ticks = iter(range(10_000))
    agent = MCTSAgent(SearchSettings(simulations=5, seconds=100.0), clock=lambda: float(next(ticks)))
    game = DiceNim.from_options(tokens=9)
    agent.act(SeatView(game.new_initial_state(seed=0), 0), random.Random(0))
    assert agent.last_simulations == 5


# -- subtree reuse --------------------------------------------------------------------------------
@pytest.mark.parametrize("reuse", [True, False])
def test_subtree_of_the_position_reached_is_kept(reuse: bool) -> None:
    game = DiceNim.from_options(tokens=15)
    state = game.new_initial_state(seed=0)
    agent = mcts(simulations=300, reuse=reuse)
    rng = random.Random(0)
    mine = agent.act(SeatView(state, 0), rng)
    old_root = agent.last_root
    assert old_root is not None
    state.apply_action(mine)
    if state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    reply = game.moves[0]
    state.apply_action(reply)
    expected = old_root.edges[(0, mine)].child
    for step in state.history()[1:]:
        assert expected is not None
        expected = expected.outcomes.get(step[1]) if step[0] < 0 else expected.edges[(1, reply)].child
    agent.act(SeatView(state, 0), rng)
    root = agent.last_root
    assert root is not None
    visits = sum(edge.visits for edge in root.edges.values())
    if reuse:
        assert root is expected
        assert visits > 300
    else:
        assert root is not expected
        assert visits == 300


# -- names and settings -----------------------------------------------------------------------------
def test_levels_and_settings_by_name() -> None:
    hard = make_agent("mcts:hard")
    assert isinstance(hard, MCTSAgent)
    settings = hard.settings
    assert (settings.root, settings.simulations, settings.candidates, settings.rollout, settings.cutoff,
            settings.prior) == ("halving", 200, 16, "heuristic", "auto", 4.0)
    assert parse_settings("medium").cutoff == "auto" and parse_settings("easy").cutoff is None
    custom = parse_settings("hard,sims=50,c=0.5,rollout=random")
    assert (custom.simulations, custom.exploration, custom.rollout) == (50, 0.5, "random")
    assert parse_settings("sims=50,easy").simulations == 50  # a setting given wins over the level
    timed = parse_settings("time=0.25")
    assert (timed.simulations, timed.seconds) == (None, 0.25)
    assert make_agent("ismcts:sims=40").settings.simulations == 40  # type: ignore[attr-defined]
    assert parse_settings("").simulations == SearchSettings().simulations


@pytest.mark.parametrize(("spec", "message"), [
    ("mcts:sims=0", "at least 1"), ("mcts:sims=many", "wants a number"), ("mcts:depth=3", "unknown search setting"),
    ("mcts:brutal", "unknown search level"), ("mcts:rollout=smart", "rollout must be"),
    ("mcts:reuse=maybe", "true or false"), ("mcts:prior=-1", "prior must not be negative"),
    ("random:sims=3", "takes no settings"), ("alphazero", "no agent named"),
])
def test_bad_agent_specs_are_refused_clearly(spec: str, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        make_agent(spec)


# -- strength ---------------------------------------------------------------------------------------
def test_mcts_beats_random_at_dice_nim() -> None:
    game = DiceNim.from_options(tokens=15)
    wins = 0.0
    for seed in range(20):
        seat = seed % 2
        agents = [make_agent("random"), make_agent("random")]
        agents[seat] = make_agent("mcts:sims=300")
        wins += play_match(game, agents, seed).returns()[seat]
    assert wins >= 18
