"""A Bestiary game as a single-agent Gymnasium environment: the learner holds one seat, Bestiary agents
(`bestiary.agents.make_agent`) play the others.

    from bestiary.rl.gymnasium import BestiaryEnv
    env = BestiaryEnv("critter-capture", players=2, opponents=["heuristic"])

The observation is the game's observation tensor for the learner's seat; `info["action_mask"]` marks the
legal action indices. The reward is the change in the learner's `State.returns()`. Chance and the
opponents play inside the environment from the seed given to `reset`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from bestiary.agents import Agent, SeatView, make_agent
from bestiary.core.api import Game
from bestiary.core.errors import IllegalActionError
from bestiary.rl.table import deciding_seat, play_chance, require, resolve_game

require("gymnasium")
import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

DEALS_BEFORE_GIVING_UP = 100

IllegalActionRule = Literal["end", "raise"]


class BestiaryEnv(gymnasium.Env[np.ndarray, np.int64]):
    """The learner plays `seat`; `opponents` name an agent for each other seat (one name serves all).

    `illegal_action`: "end" (default) ends the episode with `illegal_reward` and says why in
    `info["illegal_action"]`, the game unchanged, as learners that ignore the mask expect; "raise" raises
    IllegalActionError.
    """

    def __init__(self, game: Game | str, opponents: Sequence[str | Agent] = ("random",), seat: int = 0,
                 illegal_action: IllegalActionRule = "end", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **options: Any) -> None:
        self.game = resolve_game(game, options)
        players = self.game.num_players
        if not 0 <= seat < players:
            raise ValueError(f"seat must be from 0 to {players - 1}, not {seat}")
        if len(opponents) not in (1, players - 1):
            raise ValueError(f"give one opponent for all other seats or one for each of the {players - 1}")
        if illegal_action not in ("end", "raise"):
            raise ValueError(f"illegal_action must be 'end' or 'raise', not {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        made = [make_agent(o) if isinstance(o, str) else o for o in opponents]
        others = [s for s in range(players) if s != seat]
        self.opponents = {s: made[0] if len(made) == 1 else made[k] for k, s in enumerate(others)}
        self.seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        self.metadata = {"render_modes": ["ansi"]}
        self.observation_space = spaces.Box(-np.inf, np.inf, self.game.observation_tensor_shape(), np.float32)
        self.action_space = spaces.Discrete(self.game.num_distinct_actions())

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        # A game can end before the learner is ever asked (in Creatures of Lungo the other seats may win
        # the token race that decides it); such a game is no episode, so the next seed is dealt instead.
        for _ in range(DEALS_BEFORE_GIVING_UP):
            game_seed = int(self.np_random.integers(2**63 - 1))
            self._rng = random.Random(game_seed)
            self.game_state = self.game.new_initial_state(seed=game_seed)
            self._play_others()
            if not self.game_state.is_terminal():
                break
        else:
            raise RuntimeError(f"{DEALS_BEFORE_GIVING_UP} games in a row ended before seat {self.seat} was asked")
        self._learner_return = self.game_state.returns()[self.seat]
        return self._observation(), self._info()

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self.game_state.is_terminal():
            raise IllegalActionError(action, self.seat, "the episode is over: call reset()")
        try:
            self.game_state.apply_action(int(action), player=self.seat)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            return self._observation(), self.illegal_reward, True, False, {**self._info(),
                                                                          "illegal_action": str(error)}
        self._play_others()
        now = self.game_state.returns()[self.seat]
        reward, self._learner_return = now - self._learner_return, now
        return self._observation(), reward, self.game_state.is_terminal(), False, self._info()

    def _play_others(self) -> None:
        """Chance and the opponents play until the learner is asked or the game ends."""
        state = self.game_state
        while True:
            play_chance(state, self._rng)
            if state.is_terminal():
                return
            seat = deciding_seat(state)
            if seat == self.seat:
                return
            state.apply_action(self.opponents[seat].act(SeatView(state, seat), self._rng), player=seat)

    def _observation(self) -> np.ndarray:
        return self.game_state.observation_tensor(self.seat)

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.game_state.legal_actions_mask(self.seat)}

    def render(self) -> str | None:
        return None if self.render_mode is None else str(self.game_state)
