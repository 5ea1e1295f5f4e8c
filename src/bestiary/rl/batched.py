"""N games stepped as arrays: a Gymnasium vector environment over a game's batched engine.

    from bestiary.rl.batched import BatchedVectorEnv
    envs = BatchedVectorEnv("critter-capture", num_envs=256, players=2)
    observations, infos = envs.reset(seed=0)          # (256, D) float32; infos["action_mask"]: (256, A) bool
    observations, rewards, terminated, truncated, infos = envs.step(actions)

A batched engine (`games/<game>/batch.py`, named by the game's `GameInfo.batch_engine`) holds N games' state
as arrays and advances all of them with a fixed number of numpy operations, so a step's cost grows with N far
slower than N games stepped one by one (Cube Creatures' engine has a compiled kernel as well, which plays each
game from the learner's action to its next decision in one call: `engine.advance`). The learner plays `seat`;
the other seats play uniformly random legal actions, chosen for all games at once. Randomness (chance and the
random seats) comes from `Streams`: game i draws from its own counter-based stream keyed by its seed, so a
game's trajectory depends on its seed alone, whatever N is and whichever other games share the batch. Games
that end are dealt again at the next step (Gymnasium's next-step autoreset: that step's action for them is
ignored and its reward is 0).

`gymnasium.make_vec("bestiary/<game>-v0", num_envs=N, vectorization_mode="vector_entry_point")` makes one
for a game with a batched engine and random opponents, and `bestiary.rl.vector.BestiaryVectorEnv` (the
Python engine, any agents) otherwise.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from bestiary.agents import Agent
from bestiary.core.api import Game
from bestiary.core.errors import IllegalActionError
from bestiary.core.registry import game_info, list_games
from bestiary.rl.table import IllegalActionRule, check_illegal_rule, require, resolve_game

require("gymnasium")
from gymnasium import spaces  # noqa: E402
from gymnasium.vector import AutoresetMode, VectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(value: int) -> int:
    """SplitMix64's output function on one 64-bit number (the reference `Streams.draw` follows)."""
    z = (value + GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def stream_draw(seed: int, counter: int, count: int) -> int:
    """The `counter`-th number (from 0 to count − 1) of the stream with this seed: what `Streams` gives game
    by game, written for one game (tests and scalar replays use it)."""
    z = mix64((mix64(seed & MASK64) + counter * GOLDEN) & MASK64)
    return ((z >> 11) * count) >> 53


def _mix64_array(values: np.ndarray) -> np.ndarray:
    z = values + np.uint64(GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


class Streams:
    """One counter-based random stream per game: its j-th number is SplitMix64 of the seed's key plus j times
    the golden ratio constant, so a game's draws depend on its seed alone. The numbers are made 32 at a time
    for every game that needs more (one array operation for many games and draws), and a draw is exact
    integer arithmetic: the number's top 53 bits times the count, shifted down, so each of `count` outcomes
    comes up alike often (to within 2^-53)."""

    block = 32

    def __init__(self, num_games: int) -> None:
        self.keys = np.zeros(num_games, np.uint64)
        self.blocks_made = np.zeros(num_games, np.uint64)
        self.numbers = np.zeros((num_games, self.block), np.uint64)  # the top 53 bits of the next draws
        self.used = np.full(num_games, self.block, np.int64)  # draws taken from the block made last

    def seed(self, games: np.ndarray, seeds: np.ndarray) -> None:
        self.keys[games] = _mix64_array(np.asarray(seeds, np.uint64))
        self.blocks_made[games] = 0
        self.used[games] = self.block

    def draw(self, games: np.ndarray, counts: np.ndarray) -> np.ndarray:
        numbers = self.seed_bits(games)
        drawn: np.ndarray = ((numbers * np.asarray(counts, np.uint64)) >> np.uint64(53)).astype(np.int64)
        return drawn

    def seed_bits(self, games: np.ndarray) -> np.ndarray:
        """For each game, its stream's next number as 53 bits: `stream_draw(seed, counter, 2**53)`, a seed for
        what the game shuffles with its own generator."""
        used = self.used[games]
        spent = used == self.block
        if spent.any():
            self._make_block(games[spent])
            used[spent] = 0
        self.used[games] = used + 1
        bits: np.ndarray = self.numbers[games, used]
        return bits

    def _make_block(self, games: np.ndarray) -> None:
        first = self.blocks_made[games] * np.uint64(self.block)
        counters = first[:, None] + np.arange(self.block, dtype=np.uint64)
        mixed = _mix64_array(self.keys[games][:, None] + counters * np.uint64(GOLDEN))
        self.numbers[games] = mixed >> np.uint64(11)
        self.blocks_made[games] += np.uint64(1)


class BatchEngine(Protocol):
    num_games: int
    num_actions: int
    size: int

    def reset(self, games: np.ndarray, streams: Streams) -> None: ...
    def step(self, actions: np.ndarray, games: np.ndarray, streams: Streams) -> None: ...
    def legal_mask(self, games: np.ndarray | None = None) -> np.ndarray: ...
    def players_to_act(self, games: np.ndarray) -> np.ndarray: ...
    def returns(self, games: np.ndarray | None = None) -> np.ndarray: ...
    def observation(self, viewers: np.ndarray) -> np.ndarray: ...
    @property
    def current_player(self) -> np.ndarray: ...
    @property
    def terminal(self) -> np.ndarray: ...


def has_batch_engine(game: Game | str) -> bool:
    info = game_info(game) if isinstance(game, str) else game.info
    return info.batch_engine is not None


def batch_engine(game: Game, num_games: int) -> BatchEngine:
    """The batched engine of a configured game, for `num_games` games."""
    where = game.info.batch_engine
    if where is None:
        with_one = [name for name in list_games() if game_info(name).batch_engine is not None]
        raise ValueError(f"{game.info.name} has no batched engine; games with one: {', '.join(with_one)}")
    module, name = where.split(":")
    engine: BatchEngine = getattr(importlib.import_module(module), name)(game, num_games)
    return engine


def kth_true(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """In each row of a boolean mask, the column of its k-th True (counting from 0)."""
    # Summed down the transposed mask: numpy adds whole rows at a time, and rows of a few actions are slow.
    counts = np.cumsum(mask.T, axis=0, dtype=np.int16 if mask.shape[1] < 2**15 else np.int64)
    columns: np.ndarray = (counts <= k).sum(axis=0)
    return columns


def random_seat_actions(engine: BatchEngine, games: np.ndarray, streams: Streams) -> np.ndarray:
    """A uniformly random legal action in each game of `games` (the k-th legal index for a drawn k); an
    engine may offer its own `random_actions(games, streams)` that picks the same without the mask."""
    own = getattr(engine, "random_actions", None)
    if own is not None:
        picked: np.ndarray = own(games, streams)
        return picked
    actions = np.zeros(engine.num_games, np.int64)
    legal = engine.legal_mask(games)
    actions[games] = kth_true(legal, streams.draw(games, legal.sum(axis=1)))
    return actions


class BatchedVectorEnv(VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """`num_envs` games of one game with a batched engine; the learner plays `seat`, uniformly random legal
    actions the other seats (the only opponents the batch plays: `opponents=("random",)`).

    `step` returns observations (N, D) float32, rewards (N,) float64, terminated and truncated (N,) bool and
    `infos["action_mask"]` (N, A) bool (all False for a game that has just ended). An illegal action ends
    that game's episode with `illegal_reward` (`illegal_action="end"`) or raises (`"raise"`). `reset(seed=s)`
    seeds game i with s + i; `reset(seed=[s0, s1, ...])` gives each game its own seed."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012 (as Gymnasium declares it)

    def __init__(self, game: Game | str, num_envs: int = 8, opponents: Sequence[str | Agent] = ("random",),
                 seat: int = 0, illegal_action: IllegalActionRule = "end", illegal_reward: float = -1.0,
                 **options: Any) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if list(opponents) != ["random"]:
            raise ValueError("the batched engine plays uniformly random opponents only (opponents=['random']); "
                             "bestiary.rl.vector.BestiaryVectorEnv plays any Bestiary agent")
        check_illegal_rule(illegal_action)
        self.game = resolve_game(game, options)
        if not 0 <= seat < self.game.num_players:
            raise ValueError(f"seat must be from 0 to {self.game.num_players - 1}, not {seat}")
        self.engine = batch_engine(self.game, num_envs)
        self.streams = Streams(num_envs)
        self.num_envs = num_envs
        self.seat = seat
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        low, high = self.game.observation_tensor_bounds()
        self.single_observation_space = spaces.Box(low, high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(self.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._viewers = np.full(num_envs, seat, np.int64)
        self._all = np.arange(num_envs)
        self._ended = np.ones(num_envs, bool)
        self._started = False
        self._legal = np.zeros((num_envs, self.engine.num_actions), bool)  # the engine's mask after the last step
        self._seed_source = np.random.default_rng()  # seeds for a reset without one

    def reset(self, *, seed: int | Sequence[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        if seed is None:  # new games, from the sequence the last seed began
            seeds = self._seed_source.integers(2**63, size=self.num_envs, dtype=np.uint64)
        elif isinstance(seed, int):
            seeds = (seed + np.arange(self.num_envs, dtype=np.uint64)).astype(np.uint64)
            self._seed_source = np.random.default_rng(seed)
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"give one seed for each of the {self.num_envs} games, not {len(seed)}")
            seeds = np.asarray(seed, np.uint64)
            self._seed_source = np.random.default_rng(seeds)
        self.streams.seed(self._all, seeds)
        self._deal(self._all)
        self._ended[:] = False
        self._started = True
        self._legal = self.engine.legal_mask()
        return self.engine.observation(self._viewers), {"action_mask": self._legal.copy()}

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise IllegalActionError(None, self.seat, "call reset() before step()")
        engine = self.engine
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        rewards = np.zeros(self.num_envs)
        redealt = np.flatnonzero(self._ended)
        playing = ~self._ended
        in_range = (actions >= 0) & (actions < engine.num_actions)
        legal = np.zeros(self.num_envs, bool)
        legal[in_range] = self._legal[self._all[in_range], actions[in_range]]
        illegal = playing & ~legal
        if illegal.any() and self.illegal_action == "raise":
            first = int(np.flatnonzero(illegal)[0])
            raise IllegalActionError(int(actions[first]), self.seat, f"action {int(actions[first])} is not legal "
                                     f"in game {first} (see infos['action_mask'])")
        moving = np.flatnonzero(playing & legal)
        self._play(actions, moving)
        if len(redealt):
            self._deal(redealt)
        terminated = engine.terminal.copy()
        ended = np.flatnonzero(terminated)
        rewards[ended] = engine.returns(ended)[:, self.seat]  # returns change only at the end
        rewards[illegal] = self.illegal_reward
        terminated |= illegal
        self._ended = terminated.copy()
        self._legal = engine.legal_mask()
        masks = self._legal.copy()
        masks[terminated] = False
        observations = engine.observation(self._viewers)
        return observations, rewards, terminated, np.zeros(self.num_envs, bool), {"action_mask": masks}

    def _deal(self, games: np.ndarray) -> None:
        self.engine.reset(games, self.streams)
        self._play(None, games)

    def _play(self, actions: np.ndarray | None, games: np.ndarray) -> None:
        """The learner's actions (None for games just dealt), then the random seats play, all games at once,
        until the learner is asked or the game ends; an engine that offers `advance(actions, games, seat,
        streams)` does it all itself."""
        engine = self.engine
        advance = getattr(engine, "advance", None)
        if advance is not None:
            advance(actions, games, self.seat, self.streams)
            return
        if actions is not None:
            engine.step(actions, games, self.streams)
        while len(games):
            to_act = engine.players_to_act(games)
            games = games[(to_act != self.seat) & (to_act >= 0)]  # a game leaves the loop for good
            if len(games):
                engine.step(random_seat_actions(engine, games, self.streams), games, self.streams)

    def action_masks(self) -> np.ndarray:
        """(N, A) booleans: the legal actions in each game now (none in a game that has just ended)."""
        masks = self._legal.copy()
        masks[self._ended] = False
        return masks


def make_vector_env(game: Game | str, num_envs: int = 8, opponents: Sequence[str | Agent] = ("random",),
                    **kwargs: Any) -> VectorEnv:
    """What `gymnasium.make_vec(..., vectorization_mode="vector_entry_point")` makes: the batched engine for a
    game with one and random opponents, else the Python engine's vector environment."""
    if has_batch_engine(game) and list(opponents) == ["random"]:
        return BatchedVectorEnv(game, num_envs, opponents, **kwargs)
    from bestiary.rl.vector import BestiaryVectorEnv
    return BestiaryVectorEnv(game, num_envs, opponents, **kwargs)
