"""States met along seeded random games, for tests that check a fast path against the rule it stands for."""

from __future__ import annotations

import random

from bestiary.core.api import Game, State


def states_along_random_games(game: Game, games: int) -> list[State]:
    """A copy of every state of `games` seeded random games (chance by its odds, the first listed player acting)."""
    states = []
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            states.append(state.clone())
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                player = state.players_to_act()[0]
                state.apply_action(rng.choice(state.legal_actions(player)), player)
    return states
