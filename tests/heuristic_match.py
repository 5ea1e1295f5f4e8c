"""A seeded game between a game's own heuristic and random play, for the heuristics' strength tests."""

from __future__ import annotations

import random

from bestiary.core.api import Game, State
from bestiary.core.chance import sample_chance


def heuristic_against_random(game: Game, seed: int, heuristic_seat: int) -> State:
    """The finished game; the heuristic sits in `heuristic_seat`, every other seat plays at random."""
    policy = game.heuristic_policy()
    assert policy is not None, f"{game.info.name} has no heuristic"
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        player = state.players_to_act()[0]
        legal = state.legal_actions(player)
        if player == heuristic_seat:
            action = policy(state.observation(player), legal, player, rng)
            assert action in legal
        else:
            action = rng.choice(legal)
        state.apply_action(action, player=player)
    return state
