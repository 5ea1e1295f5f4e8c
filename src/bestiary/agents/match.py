"""Agents at the referee's table (core/referee.py): a computer seat played by an agent, and one game between
agents played to the end, for tournaments, benchmarks and tests."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bestiary.agents.base import Agent, SeatView
from bestiary.core.api import Action, Game, State
from bestiary.core.referee import Referee


@dataclass
class AgentSeat:
    """An agent in a seat: it chooses from what the seat may see; its race and window reactions take its
    reaction time, times `reaction_scale` (the server's setting; 0 answers at once)."""

    agent: Agent
    reaction_scale: float = 1.0

    def choose(self, state: State, player: int, rng: random.Random) -> Action:
        return self.agent.act(SeatView(state, player), rng)

    def reaction(self, state: State, player: int, rng: random.Random) -> float:
        return self.agent.reaction_delay(SeatView(state, player), rng) * self.reaction_scale


def play_match(game: Game, agents: Sequence[Agent], seed: int,
               watch: Callable[[State], None] | None = None) -> State:
    """Play a game with one agent per seat; the same seed always gives the same game, the same as at any
    other table (core/referee.py: chance and each seat's choices and reactions drawn from the seed).
    `watch`, if given, sees every position before anything is done in it (the referee's view)."""
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} seats")
    referee = Referee(seed, [AgentSeat(agent) for agent in agents])
    return referee.play(game.new_initial_state(seed=seed), watch)
