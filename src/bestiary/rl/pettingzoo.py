"""Bestiary games as PettingZoo environments: `env(...)` (AEC) and `parallel_env(...)`.

    from bestiary.rl import pettingzoo
    env = pettingzoo.env("critter-capture", players=4)

Agents are "player_0" ... "player_{n-1}". Each observation is a dict: "observation" (the game's observation
tensor for that seat) and "action_mask" (1 for each legal action index; all 0 when the seat is not asked).
Rewards are the change in `State.returns()`, so a game's rewards sum to its returns. Chance is played inside
the environment from the seed given to `reset`.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from bestiary.core.api import Game, State
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import IllegalActionError
from bestiary.rl.table import (
    agent_names,
    asking_order,
    deciding_seat,
    play_chance,
    require,
    resolve_game,
)

require("pettingzoo")
from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv, ParallelEnv  # noqa: E402

ObsDict = dict[str, np.ndarray]


def env(game: Game | str, render_mode: str | None = None, **options: Any) -> BestiaryAECEnv:
    """An AEC environment, e.g. `env("critter-capture", players=4)` or `env(game)` for a configured game."""
    return BestiaryAECEnv(resolve_game(game, options), render_mode)


def parallel_env(game: Game | str, render_mode: str | None = None, **options: Any) -> BestiaryParallelEnv:
    """A Parallel environment: each step takes an action from every seat asked at once."""
    return BestiaryParallelEnv(resolve_game(game, options), render_mode)


class _Seats:
    """What the two environments share: spaces, the seeded game, observations and rewards."""

    game: Game
    game_state: State  # the referee's full state; `state()` is PettingZoo's name for a global observation
    render_mode: str | None

    def _setup(self, game: Game, render_mode: str | None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.possible_agents = agent_names(game)
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        tensor = spaces.Box(-np.inf, np.inf, game.observation_tensor_shape(), np.float32)
        actions = game.num_distinct_actions()
        self._observation_spaces = {
            agent: spaces.Dict({"observation": tensor, "action_mask": spaces.Box(0, 1, (actions,), np.int8)})
            for agent in self.possible_agents}
        self._action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        self._seeds = random.Random(fresh_seed())
        self._returns = [0.0] * game.num_players

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
        game_seed = self._seeds.randrange(2**63)
        self._chance = random.Random(game_seed)
        self.game_state = self.game.new_initial_state(seed=game_seed)
        play_chance(self.game_state, self._chance)
        self._returns = self.game_state.returns()

    def _observe_seat(self, seat: int, asked: bool) -> ObsDict:
        state = self.game_state
        mask = state.legal_actions_mask(seat) if asked else np.zeros(self.game.num_distinct_actions(), np.int8)
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def _reward_changes(self) -> list[float]:
        now = self.game_state.returns()
        changes = [after - before for after, before in zip(now, self._returns, strict=True)]
        self._returns = now
        return changes

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        return str(self.game_state)

    def close(self) -> None:
        pass


class BestiaryAECEnv(_Seats, AECEnv[str, ObsDict, int]):  # type: ignore[misc]
    """One seat decides at a time, in the order `players_to_act()` lists the seats asked (rotated in a race)."""

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        super().__init__()
        self._setup(game, render_mode)
        self.metadata = {"name": f"bestiary_{game.info.name}", "render_modes": ["ansi"],
                         "is_parallelizable": False}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[deciding_seat(self.game_state)]

    def observe(self, agent: str) -> ObsDict:
        asked = agent == self.agent_selection and not self.game_state.is_terminal()
        return self._observe_seat(self.seat_of[agent], asked)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise IllegalActionError(action, self.seat_of[agent], "a live seat must choose an action, not None")
        self.game_state.apply_action(int(action), player=self.seat_of[agent])
        play_chance(self.game_state, self._chance)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.possible_agents, self._reward_changes(), strict=True))
        self._accumulate_rewards()
        if self.game_state.is_terminal():
            self.terminations = dict.fromkeys(self.agents, True)
            following = (self.agents.index(agent) + 1) % len(self.agents)
            self.agent_selection = self.agents[following]
        else:
            self.agent_selection = self.possible_agents[deciding_seat(self.game_state)]


class BestiaryParallelEnv(_Seats, ParallelEnv[str, ObsDict, int]):  # type: ignore[misc]
    """Every seat asked at once acts in one step; the actions of seats not asked are ignored.

    The actions are checked against the position the seats saw before any is applied, then applied in
    the order `players_to_act()` lists the seats (rotated in a race); one made moot by an earlier one (a
    race already won, a window already closed) lapses.
    """

    def __init__(self, game: Game, render_mode: str | None = None) -> None:
        self._setup(game, render_mode)
        self.metadata = {"name": f"bestiary_{game.info.name}", "render_modes": ["ansi"]}
        self.agents: list[str] = []

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, ObsDict]:
        asked = set(self.game_state.players_to_act())
        return {agent: self._observe_seat(self.seat_of[agent], self.seat_of[agent] in asked)
                for agent in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            raise IllegalActionError(None, None, "the game is over: call reset()")
        asked = asking_order(self.game_state)
        chosen = {}
        for seat in asked:
            agent = self.possible_agents[seat]
            if agent not in actions:
                raise IllegalActionError(None, seat, f"{agent} is asked to act and gave no action")
            action = int(actions[agent])
            mask = self.game_state.legal_actions_mask(seat)
            if not (0 <= action < len(mask) and mask[action]):
                raise IllegalActionError(action, seat, "not a legal action index now")
            chosen[seat] = action
        for seat, action in chosen.items():
            if seat in self.game_state.players_to_act() and self.game_state.legal_actions_mask(seat)[action]:
                self.game_state.apply_action(action, player=seat)
                play_chance(self.game_state, self._chance)
        rewards = dict(zip(self.possible_agents, self._reward_changes(), strict=True))
        over = self.game_state.is_terminal()
        observations = self._observations()
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        rewards = {agent: rewards[agent] for agent in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos
