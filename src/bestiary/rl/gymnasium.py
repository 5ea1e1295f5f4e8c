"""A Bestiary game as a single-agent Gymnasium environment: the learner holds one seat, Bestiary agents
(`bestiary.agents.make_agent`) play the others.

    from bestiary.rl.gymnasium import BestiaryEnv
    env = BestiaryEnv("critter-capture", players=2, opponents=["heuristic"])

The observation is the game's observation tensor for the learner's seat; `info["action_mask"]` marks the
legal action indices. The reward is the change in the learner's `State.returns()`. Chance and the
opponents play inside the environment from the seed given to `reset`.

Importing this module registers every game for `gymnasium.make` as "bestiary/<game>-v0" (keyword arguments
as for BestiaryEnv; `gymnasium.make("bestiary.rl.gymnasium:bestiary/critter-capture-v0")` imports it first),
and for `gymnasium.make_vec(..., vectorization_mode="vector_entry_point")` as `bestiary.rl.batched`'s
BatchedVectorEnv where the game has a batched engine and the opponents are random, else `bestiary.rl.vector`'s
BestiaryVectorEnv.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from bestiary.agents import Agent, SeatView, make_agent
from bestiary.core.api import Game, State
from bestiary.core.errors import IllegalActionError
from bestiary.core.registry import list_games
from bestiary.rl.table import (
    IllegalActionRule,
    action_at,
    check_illegal_rule,
    deciding_seat,
    legal_mask,
    play_chance,
    render_state,
    require,
    resolve_game,
)

require("gymnasium")
import gymnasium  # noqa: E402
from gymnasium import spaces  # noqa: E402

DEALS_BEFORE_GIVING_UP = 100


class BestiaryEnv(gymnasium.Env[np.ndarray, np.int64]):
    """The learner plays `seat`; `opponents` name an agent for each other seat (one name serves all).

    `illegal_action`: "end" (default) ends the episode with `illegal_reward` and says why in
    `info["illegal_action"]`, the game unchanged, as learners that ignore the mask expect; "raise" raises
    IllegalActionError. Once an episode is over, `step` raises until `reset`.
    """

    metadata = {"render_modes": ["human", "ansi"]}  # noqa: RUF012 (Gymnasium declares it a plain attribute)

    def __init__(self, game: Game | str, opponents: Sequence[str | Agent] = ("random",), seat: int = 0,
                 illegal_action: IllegalActionRule = "end", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **options: Any) -> None:
        self.game = resolve_game(game, options)
        players = self.game.num_players
        check_illegal_rule(illegal_action)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            # A warning, as gymnasium.make gives, so that tools that ask for "rgb_array" by default
            # (Stable-Baselines3's make_vec_env) still get an environment: one that does not render.
            gymnasium.logger.warn(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}: "
                                  "the environment does not render (render_mode=None)")
            render_mode = None
        self.opponents = seat_opponents(players, seat, opponents)
        self.seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.render_mode = render_mode
        low, high = self.game.observation_tensor_bounds()
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self._actions = self.game.player_action_table()
        self.action_space = spaces.Discrete(len(self._actions))
        self._over = True

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        self.game_state, self._rng = deal(self.game, self.seat, self.opponents, self.np_random)
        self._learner_return = self.game_state.returns()[self.seat]
        self._over = False
        return self._observation(), self._info()

    def step(self, action: np.int64) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise IllegalActionError(action, self.seat, "the episode is over: call reset()")
        try:
            self.game_state.apply_action(action_at(self._actions, int(action)), player=self.seat)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self._over = True
            return self._observation(), self.illegal_reward, True, False, {**self._info(),
                                                                          "illegal_action": str(error)}
        play_others(self.game_state, self.seat, self.opponents, self._rng)
        now = self.game_state.returns()[self.seat]
        reward, self._learner_return = now - self._learner_return, now
        self._over = self.game_state.is_terminal()
        return self._observation(), reward, self._over, False, self._info()

    def _observation(self) -> np.ndarray:
        return self.game_state.observation_tensor(self.seat)

    def _info(self) -> dict[str, Any]:
        if self._over:
            return {"action_mask": np.zeros(len(self._actions), np.int8)}
        return {"action_mask": legal_mask(self.game_state, self.seat, len(self._actions))}

    def action_masks(self) -> np.ndarray:
        """The legal actions now as booleans, under the name maskable learners (sb3-contrib) ask for."""
        mask: np.ndarray = self._info()["action_mask"]
        return mask.astype(bool)

    def render(self) -> str | None:
        return render_state(self.game_state, self.render_mode)


def seat_opponents(players: int, seat: int, opponents: Sequence[str | Agent]) -> dict[int, Agent]:
    """The agent at each seat but the learner's: one named for all, or one for each."""
    if not 0 <= seat < players:
        raise ValueError(f"seat must be from 0 to {players - 1}, not {seat}")
    if len(opponents) not in (1, players - 1):
        raise ValueError(f"give one opponent for all other seats or one for each of the {players - 1}")
    made = [make_agent(o) if isinstance(o, str) else o for o in opponents]
    others = [s for s in range(players) if s != seat]
    return {s: made[0] if len(made) == 1 else made[k] for k, s in enumerate(others)}


def play_others(state: State, seat: int, opponents: dict[int, Agent], rng: random.Random) -> None:
    """Chance and the opponents play until `seat` is asked or the game ends."""
    while True:
        play_chance(state, rng)
        if state.is_terminal():
            return
        deciding = deciding_seat(state)
        if deciding == seat:
            return
        state.apply_action(opponents[deciding].act(SeatView(state, deciding), rng), player=deciding)


def deal(game: Game, seat: int, opponents: dict[int, Agent], seeds: np.random.Generator) -> tuple[State, random.Random]:
    """A new game, played by the others up to `seat`'s first decision, and its generator.

    A game can end before the learner is ever asked (in Creatures of Lungo the other seats may win the token
    race that decides it); such a game is no episode, so the next seed is dealt instead."""
    for _ in range(DEALS_BEFORE_GIVING_UP):
        game_seed = int(seeds.integers(2**63 - 1))
        rng = random.Random(game_seed)
        state = game.new_initial_state(seed=game_seed)
        play_others(state, seat, opponents, rng)
        if not state.is_terminal():
            return state, rng
    raise RuntimeError(f"{DEALS_BEFORE_GIVING_UP} games in a row ended before seat {seat} was asked")


def gymnasium_id(name: str) -> str:
    return f"bestiary/{name}-v0"


def register_games() -> list[str]:
    """Register every Bestiary game for `gymnasium.make`; returns their ids."""
    ids = []
    for name in list_games():
        env_id = gymnasium_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="bestiary.rl.gymnasium:BestiaryEnv", kwargs={"game": name},
                               vector_entry_point="bestiary.rl.batched:make_vector_env")
        ids.append(env_id)
    return ids


register_games()
