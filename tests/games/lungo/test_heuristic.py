"""The Lungo heuristic against random play: a quick seeded comparison."""

from __future__ import annotations

import random

import bestiary
from bestiary.agents import Agent, make_agent
from bestiary.agents.base import SeatView
from bestiary.core.api import CHANCE, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.conformance import random_step


def play(game: Game, agents: list[Agent], seed: int) -> State:
    """One game; races go to the quickest racer by the game's reaction-time model (LUNGO-62)."""
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        to_act = state.players_to_act()
        if state.decision_kind() != "race":
            player = to_act[0]
            state.apply_action(agents[player].act(SeatView(state, player), rng), player=player)
            continue
        moves = {p: agents[p].act(SeatView(state, p), rng) for p in to_act}
        racing = sorted((agents[p].reaction_delay(SeatView(state, p), rng), p) for p, a in moves.items()
                        if str(a) != "pass")
        player = racing[0][1] if racing else to_act[0]
        state.apply_action(moves[player], player=player)
    return state


def test_heuristic_beats_random_play() -> None:
    """LUNGO-56, LUNGO-60: pursuing the goal and grabbing at once wins far more often than random play."""
    game = bestiary.load_game("creatures-of-lungo", players=2)
    total = 0.0
    games = 0
    for seed in range(60):
        for seat in (0, 1):
            agents = [make_agent("random"), make_agent("random")]
            agents[seat] = make_agent("heuristic")
            total += play(game, agents, seed).returns()[seat]
            games += 1
    assert total / games > 0.3, total / games


def test_value_features_read_the_race_to_the_goal_and_the_draw_odds() -> None:
    """LUNGO-16, LUNGO-56: a goal met with nothing in front is ready to grab; the draw odds count the cards still
    missing that the draw pile holds."""
    from bestiary.games.lungo.heuristic import FEATURES, player_features
    from bestiary.games.lungo.state import LungoState

    game = bestiary.load_game("creatures-of-lungo", players=2)
    state = game.new_initial_state(seed=3)
    rng = random.Random(3)
    while state.is_chance_node() or min(state.goals) < 0:  # deal the goals
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    assert isinstance(state, LungoState)
    names = list(FEATURES)
    (count, fitting), *rest = game.goal_tables[state.goals[0]]
    needed = sorted(fitting)[:count]
    others = sorted(set(range(len(game.cards))) - set(fitting) - {c for _, f in rest for c in f})
    state.hands[0] = [*needed[:-1], *others[:1]]  # one card short of the first requirement
    state.afflictions[0] = []
    for later_count, later in rest:  # every later requirement met
        state.hands[0] += sorted(set(later) - set(state.hands[0]))[:later_count]
    state.pile = [needed[-1], *others[1:4]]
    features = dict(zip(names, player_features(state, 0, set(state.pile)), strict=True))
    assert features["cards_missing"] == 1 and features["goal_met"] == 0 and features["ready_to_grab"] == 0
    assert features["draw_odds"] == 1 / len(state.pile)
    assert features["draws_needed"] == (len(state.pile) + 1) / 2
    assert features["out_of_reach"] == 0
    state.pile = others[1:4]  # the missing card is gone from the pile
    features = dict(zip(names, player_features(state, 0, set(state.pile)), strict=True))
    assert features["out_of_reach"] == 1 and features["draw_odds"] == 0
    state.hands[0].append(needed[-1])
    features = dict(zip(names, player_features(state, 0, set(state.pile)), strict=True))
    assert features["goal_met"] == 1 and features["ready_to_grab"] == 1 and features["goal_progress"] == 1
    value = game.heuristic_policy().value(state)
    assert value[0] > value[1] and abs(sum(value)) < 1e-9
