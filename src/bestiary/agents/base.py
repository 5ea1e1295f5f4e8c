"""The agent interface, the random and heuristic agents, and agents made by name."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable

from bestiary.core.api import JSON, Action, Game, State
from bestiary.core.errors import OptionError


class SeatView:
    """What an agent is given for one decision: its seat's observation and legal actions.

    The true state stays private; `sample_state` gives a full state consistent with the seat's
    observation (a determinization), which is all a search may use.
    """

    __slots__ = ("_observation", "_state", "legal_actions", "player")

    def __init__(self, state: State, player: int) -> None:
        self._state = state
        self.player = player
        self._observation: JSON | None = None
        self.legal_actions: list[Action] = state.legal_actions(player)

    @property
    def observation(self) -> JSON:
        """The seat's observation, made when first read: many agents never read it (a view is read during its
        decision, before the state moves on, as `sample_state` is)."""
        if self._observation is None:
            self._observation = self._state.observation(self.player)
        return self._observation

    @property
    def game(self) -> Game:
        return self._state.game

    def sample_state(self, rng: random.Random) -> State:
        return self._state.determinize(self.player, rng)


class Agent(ABC):
    name = "agent"

    @abstractmethod
    def act(self, view: SeatView, rng: random.Random) -> Action:
        """One of `view.legal_actions`."""

    def reaction_delay(self, view: SeatView, rng: random.Random) -> float:
        """Seconds this agent takes to react in a race: the game's reaction-time model where it has one."""
        delay = view.game.reaction_delay(view.player, rng)
        return 0.6 + rng.random() * 0.6 if delay is None else delay

    def __str__(self) -> str:
        return self.name


class RandomAgent(Agent):
    name = "random"

    def act(self, view: SeatView, rng: random.Random) -> Action:
        return rng.choice(view.legal_actions)


class HeuristicAgent(Agent):
    """Delegates to the game's own heuristic (random where a game has none)."""

    name = "heuristic"

    def act(self, view: SeatView, rng: random.Random) -> Action:
        policy = view.game.heuristic_policy()
        if policy is None:
            return rng.choice(view.legal_actions)
        return policy(view.observation, view.legal_actions, view.player, rng)


def _without_settings(agent: Callable[[], Agent]) -> Callable[[str], Agent]:
    def make(settings: str) -> Agent:
        made = agent()
        if settings.strip():
            raise OptionError(f"agent '{made.name}' takes no settings (got '{settings}')")
        return made

    return make


_FACTORIES: dict[str, Callable[[str], Agent]] = {
    "random": _without_settings(RandomAgent),
    "heuristic": _without_settings(HeuristicAgent),
}


def register_agent(name: str, factory: Callable[[str], Agent]) -> None:
    """Make an agent available by name; `factory` reads the settings after the colon."""
    _FACTORIES[name] = factory


def agent_names() -> list[str]:
    return sorted(_FACTORIES)


def make_agent(spec: str) -> Agent:
    """An agent from its name, e.g. "random", "mcts:hard" or "mcts:sims=800,rollout=heuristic"."""
    name, _, settings = spec.partition(":")
    factory = _FACTORIES.get(name.strip().lower())
    if factory is None:
        raise OptionError(f"no agent named '{name}' (agents: {', '.join(agent_names())})")
    return factory(settings)
