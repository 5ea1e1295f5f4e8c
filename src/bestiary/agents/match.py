"""One game between agents, played to the end: the referee for tournaments, benchmarks and tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from bestiary.agents.base import Agent, SeatView
from bestiary.core.api import Game, State
from bestiary.core.chance import sample_chance


def seat_rng(seed: int, seat: int) -> random.Random:
    """The generator of the agent in `seat` for the game with `seed`: its own, so seats never disturb
    each other or the dice."""
    return random.Random(f"bestiary-agent/{seed}/{seat}")


def play_match(game: Game, agents: Sequence[Agent], seed: int,
               watch: Callable[[State], None] | None = None) -> State:
    """Play a game with one agent per seat; the same seed always gives the same game.

    Each agent sees only its SeatView. Chance uses its own generator. In a race every racer chooses,
    and the shortest reaction delay arrives first (ties to the lower seat); otherwise the first listed
    player acts, so simultaneous choices and response windows are asked one player at a time.
    `watch`, if given, sees every position before anything is done in it (the referee's view).
    """
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} seats")
    state = game.new_initial_state(seed=seed)
    chance = random.Random(f"bestiary-chance/{seed}")
    rngs = [seat_rng(seed, seat) for seat in range(game.num_players)]
    while not state.is_terminal():
        if watch is not None:
            watch(state)
        kind = state.decision_kind()
        if kind == "chance":
            state.apply_action(sample_chance(state, chance))
        elif kind == "race":
            arrivals = []
            for player in state.players_to_act():
                view = SeatView(state, player)
                action = agents[player].act(view, rngs[player])
                arrivals.append((agents[player].reaction_delay(view, rngs[player]), player, action))
            _, player, action = min(arrivals, key=lambda arrival: (arrival[0], arrival[1]))
            state.apply_action(action, player=player)
        else:
            player = state.players_to_act()[0]
            state.apply_action(agents[player].act(SeatView(state, player), rngs[player]), player=player)
    return state
