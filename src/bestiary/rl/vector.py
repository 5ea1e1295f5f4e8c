"""Many games of one Bestiary game stepped together: a Gymnasium vector environment.

    from bestiary.rl.vector import BestiaryVectorEnv
    envs = BestiaryVectorEnv("critter-capture", num_envs=64, players=2, opponents=["heuristic"])
    observations, infos = envs.reset(seed=0)                  # (64, D) float32; infos["action_mask"] (64, A)
    observations, rewards, terminated, truncated, infos = envs.step(actions)   # actions: (64,) ints

Each game is what `BestiaryEnv` runs (the learner at `seat`, Bestiary agents at the others, chance played
inside), but the N games live in one object that writes every step's observations, masks and rewards into
rows of preallocated batch arrays: no environment object, wrapper, info dict or mask array per game. The loop
over the games remains, because each game's rules engine is Python: its moves are its own calls. Games that
end are dealt again on the next step (Gymnasium's next-step autoreset: that step's action for them is ignored
and its reward is 0), as `SyncVectorEnv` does.
`gymnasium.make_vec("bestiary/<game>-v0", num_envs=N, vectorization_mode="vector_entry_point")` makes one,
except for a game with a batched engine and random opponents (`bestiary.rl.batched`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from bestiary.agents import Agent
from bestiary.core.api import Game, State
from bestiary.core.errors import IllegalActionError
from bestiary.rl.gymnasium import deal, play_others, seat_opponents
from bestiary.rl.table import IllegalActionRule, action_at, check_illegal_rule, mark_legal, require, resolve_game

require("gymnasium")
from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402


class BestiaryVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """`num_envs` games; the learner plays `seat` in each, `opponents` the other seats (as for BestiaryEnv).

    `step` returns stacked arrays: observations (N, D) float32, rewards (N,) float64, terminated and
    truncated (N,) bool, and `infos["action_mask"]` (N, A) int8 (all 0 for a game that has just ended).
    An illegal action ends that game's episode with `illegal_reward` (`illegal_action="end"`), or raises."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012 (as Gymnasium declares it)

    def __init__(self, game: Game | str, num_envs: int = 8, opponents: Sequence[str | Agent] = ("random",),
                 seat: int = 0, illegal_action: IllegalActionRule = "end", illegal_reward: float = -1.0,
                 **options: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        check_illegal_rule(illegal_action)
        self.game = resolve_game(game, options)
        self.num_envs = num_envs
        self.seat = seat
        self.opponents = seat_opponents(self.game.num_players, seat, opponents)
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        low, high = self.game.observation_tensor_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self._actions = self.game.player_action_table()
        self.single_action_space = spaces.Discrete(len(self._actions))
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        # The batch arrays each step fills in place, row by row; the caller gets copies.
        self._observations = np.zeros((num_envs, *low.shape), np.float32)
        self._masks = np.zeros((num_envs, len(self._actions)), np.int8)
        self._rewards = np.zeros(num_envs)
        self._terminated = np.zeros(num_envs, bool)
        self._truncated = np.zeros(num_envs, bool)  # never set: a Bestiary game always ends
        self._learner_returns = [0.0] * num_envs
        self._ended = [True] * num_envs  # dealt again at the next step
        self.game_states: list[State] = []
        self._rngs: list[random.Random] = []
        self._seeds = [np.random.default_rng() for _ in range(num_envs)]

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is not None:  # game i deals from seed + i, as SyncVectorEnv seeds its environments
            self._seeds = [np.random.default_rng(seed + slot) for slot in range(self.num_envs)]
        self.game_states, self._rngs = [], []
        self._masks.fill(0)
        for slot in range(self.num_envs):
            state, rng = deal(self.game, self.seat, self.opponents, self._seeds[slot])
            self.game_states.append(state)
            self._rngs.append(rng)
            self._deal_shown(slot, state)
        self._ended = [False] * self.num_envs
        return self._observations.copy(), {"action_mask": self._masks.copy()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self.game_states:
            raise IllegalActionError(None, self.seat, "call reset() before step()")
        seat, opponents, table = self.seat, self.opponents, self._actions
        states, rngs, ended, returns = self.game_states, self._rngs, self._ended, self._learner_returns
        rewards, terminated, observations = self._rewards, self._terminated, self._observations
        rewards.fill(0.0)
        terminated.fill(False)
        self._masks.fill(0)  # a game that ends keeps an empty mask; every other one is marked below
        for slot, action in enumerate(np.asarray(actions).tolist()):
            if ended[slot]:
                states[slot], rngs[slot] = deal(self.game, seat, opponents, self._seeds[slot])
                self._deal_shown(slot, states[slot])
                continue
            state = states[slot]
            try:
                state.apply_action(action_at(table, action), player=seat)
            except IllegalActionError:
                if self.illegal_action == "raise":
                    raise
                rewards[slot] = self.illegal_reward
                terminated[slot] = True
                continue
            play_others(state, seat, opponents, rngs[slot])
            now = state.returns()[seat]
            rewards[slot] = now - returns[slot]
            returns[slot] = now
            observations[slot] = state.observation_tensor(seat)
            if state.is_terminal():
                terminated[slot] = True
            else:
                mark_legal(self._masks[slot], state.legal_actions(seat))
        self._ended = terminated.tolist()
        return (observations.copy(), rewards.copy(), terminated.copy(), self._truncated.copy(),
                {"action_mask": self._masks.copy()})

    def _deal_shown(self, slot: int, state: State) -> None:
        """A game just dealt: its learner's return so far, observation and legal actions into the batch."""
        self._learner_returns[slot] = state.returns()[self.seat]
        self._observations[slot] = state.observation_tensor(self.seat)
        mark_legal(self._masks[slot], state.legal_actions(self.seat))

    def action_masks(self) -> np.ndarray:
        """(N, A) booleans: the legal actions in each game now."""
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        self.game_states = []
