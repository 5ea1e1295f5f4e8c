"""The Lungo heuristic against random play: a quick seeded comparison."""

from __future__ import annotations

import random

import bestiary
from bestiary.agents import Agent, make_agent
from bestiary.agents.base import SeatView
from bestiary.core.api import Game, State
from bestiary.core.chance import sample_chance


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
