"""Research adapter throughput per registered game, each beside the raw engine measured in the same run.

Table 1, per game and player count (random play, one step = one seat's decision, chance played inside):
  engine/s         the rules engine alone: legal actions, a random choice, apply
  +tensor/s        the same with the deciding seat's observation tensor at every decision
  tensor µs        one observation tensor, averaged over the distinct states of seeded random games
  dict µs          the same tensor encoded from the observation dict (what the tensor was built from before)
  AEC/s, AEC ×     PettingZoo's AEC loop (env.last(), env.step()), and its cost per step ÷ engine+tensor's
  Gymnasium/s      BestiaryEnv against the random agent (opponents' decisions count as steps too)
  OpenSpiel/s      the pyspiel adapter, random play
  spiel tensor ×   the tensor through the pyspiel state (state.observation_tensor) ÷ tensor µs
Table 2, per game at its smallest player count: learner steps per second of the single BestiaryEnv, of
Gymnasium's SyncVectorEnv over it, and of BestiaryVectorEnv, each with N games.
Table 3, for each game with a batched engine (two players, random opponents): learner steps per second of the
single BestiaryEnv, SyncVectorEnv and BestiaryVectorEnv with 256 games, BatchedVectorEnv with 256 games
and its multiple of the single env's rate; beside them OpenSpiel's C++ connect_four and hearts stepped from
Python through pyspiel (random play, chance sampled; every decision a step) and pgx where it is installed.
Table 4, per game with a batched engine: BatchedVectorEnv's learner steps per second and CPU µs per game-step
as the batch grows (1 … 4096).
Every figure is the benchmark process's own CPU time (time.process_time), so the time other processes hold
the cores does not count; and the loops of a row take turns, five turns each, each keeping its fastest turn
(the tensor timings keep the fastest of 15 runs of each batch of states), so that what the other processes
still cost (shared caches and memory) slows every column alike and counts least.

Everything runs in this one process on one core (numpy's thread pools are held to one thread).
Needs the rl extra. Run from the repository root (about two minutes with the defaults):
    python benchmarks/rl_adapters.py [--seconds 0.5] [--all-counts] [--envs 16]
                                     [--tables adapters|vectors|batched|scaling|all] [--batched GAME ...]
"""

from __future__ import annotations

import os

for _threads in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")  # one core: no numpy thread pool

import argparse  # noqa: E402
import importlib  # noqa: E402
import importlib.util  # noqa: E402
import random  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Sequence  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from gymnasium.vector import SyncVectorEnv  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import bestiary  # noqa: E402
from bestiary.core.api import Game, State  # noqa: E402
from bestiary.core.registry import game_class  # noqa: E402
from bestiary.rl import openspiel, pettingzoo  # noqa: E402
from bestiary.rl.batched import BatchedVectorEnv, has_batch_engine  # noqa: E402
from bestiary.rl.gymnasium import BestiaryEnv  # noqa: E402
from bestiary.rl.table import deciding_seat, play_chance  # noqa: E402
from bestiary.rl.vector import BestiaryVectorEnv  # noqa: E402

sys.path.insert(0, str(Path(__file__).parents[1]))  # the states along random games are the tests' own
from tests.random_play import states_along_random_games  # noqa: E402

BATCHED_GAMES = tuple(filter(has_batch_engine, bestiary.list_games()))
BATCH = 256  # games per vector environment in table 3
BATCH_SIZES = (1, 4, 16, 64, 256, 1024, 4096)  # table 4

ROUNDS = 5  # turns each loop of a row is timed in, interleaved with the others; its fastest turn counts


def rate(seconds: float, episode: Callable[[int], int]) -> float:
    """Steps per second of repeated seeded episodes (at least one episode)."""
    steps = episodes = 0
    start, cpu = time.perf_counter(), time.process_time()
    while episodes == 0 or time.perf_counter() - start < seconds:
        steps += episode(episodes)
        episodes += 1
    return steps / (time.process_time() - cpu)


def fastest_rates(seconds: float, loops: dict[str, Callable[[float], float]], rounds: int = ROUNDS) -> dict[str, float]:
    """Each loop's rate, timed in `rounds` turns of `seconds / rounds`, the loops taking turns, and its fastest
    turn kept: load from other processes then slows every loop alike and counts least."""
    best = dict.fromkeys(loops, 0.0)
    for _ in range(rounds):
        for name, loop in loops.items():
            best[name] = max(best[name], loop(seconds / rounds))
    return best


def engine_episode(game: Game, with_tensor: bool, seed: int) -> int:
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    steps = 0
    while True:
        play_chance(state, rng)
        if state.is_terminal():
            return steps
        seat = deciding_seat(state)
        if with_tensor:
            state.observation_tensor(seat)
        state.apply_action(rng.choice(state.legal_actions(seat)), player=seat)
        steps += 1


def legal_indices(mask: np.ndarray) -> np.ndarray:
    """The legal action indices of an int8 mask, read as booleans: numpy finds the nonzero entries of a bool
    array several times faster than of an int8 one (8 against 57 µs over Crit's Creatures' 15,484 actions), and
    the driver's own choice should cost little beside the adapter it measures."""
    return np.flatnonzero(mask.view(np.bool_))


def pettingzoo_episode(env: pettingzoo.BestiaryAECEnv, seed: int) -> int:
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        env.step(int(rng.choice(legal_indices(observation["action_mask"]))))
        steps += 1
    return steps


def gymnasium_episode(env: BestiaryEnv, seed: int) -> int:
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    start = len(env.game_state.history())
    done = False
    while not done:
        _, _, done, _, info = env.step(int(rng.choice(legal_indices(info["action_mask"]))))
    return sum(1 for player, _ in env.game_state.history()[start:] if player >= 0)


def openspiel_episode(game: openspiel.BestiarySpielGame, seed: int) -> int:
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            steps += 1
    return steps


def tensor_microseconds(game: Game, encode: Callable[[object, int], object], batch: int = 20,
                        repeats: int = 15, prepare: Callable[[State], object] = lambda state: state) -> float:
    """Mean cost of one tensor over the distinct states of seeded random games (each made ready by `prepare`
    before the clock starts). Each batch of states is timed `repeats` times and its fastest run kept, so that
    another process taking the core does not count."""
    bestiary_states = states_along_random_games(game, games=2)
    seats = [deciding_seat(s) if s.players_to_act() else 0 for s in bestiary_states]
    states = [prepare(state) for state in bestiary_states]
    total = 0.0
    for start in range(0, len(states), batch):
        chunk = list(zip(states[start:start + batch], seats[start:start + batch], strict=True))
        fastest = float("inf")
        for _ in range(repeats):
            began = time.process_time()
            for state, seat in chunk:
                encode(state, seat)
            fastest = min(fastest, time.process_time() - began)
        total += fastest
    return total / len(states) * 1e6


def from_the_observation(game: Game) -> Callable[[State, int], object]:
    """The game's tensor encoded from the observation dict, as before the tensors were read from the state."""
    encoder = importlib.import_module(type(game).__module__.rsplit(".", 1)[0] + ".tensor")
    return lambda state, seat: encoder.encode(game, state.observation(seat), seat)


def random_legal(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """A uniformly random legal action in each row of the masks, drawn for all rows at once as a learner
    samples its batch (the largest of uniform numbers over the legal actions; 0 for a row with none)."""
    return (rng.random(masks.shape) * masks).argmax(axis=-1)


class VectorLoop:
    """Learner steps per second of a vector environment fed random legal actions, each turn going on from where
    the last one stopped. Before the first turn it is reset and stepped, untimed, until as many episodes have
    ended as it holds games, so that the games are spread over their episodes as in training (right after a
    reset every game is at its start, whose steps can cost more or less than the rest)."""

    def __init__(self, envs: object, num_envs: int) -> None:
        self.envs, self.num_envs = envs, num_envs
        self.rng = np.random.default_rng(0)
        self.masks: np.ndarray | None = None

    def step(self) -> int:
        assert self.masks is not None
        _, _, terminated, _, infos = self.envs.step(random_legal(self.rng, self.masks))  # type: ignore[attr-defined]
        self.masks = infos["action_mask"]
        return int(terminated.sum())

    def __call__(self, seconds: float) -> float:
        if self.masks is None:
            _, infos = self.envs.reset(seed=0)  # type: ignore[attr-defined]
            self.masks = infos["action_mask"]
            ended = 0
            while ended < self.num_envs:
                ended += self.step()
        steps = 0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < seconds:
            self.step()
            steps += self.num_envs
        return steps / (time.process_time() - cpu)


def single_rate(seconds: float, env: BestiaryEnv) -> float:
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        _, _, done, _, info = env.step(int(random_legal(rng, info["action_mask"])))
        steps += 1
        if done:
            _, info = env.reset()
    return steps / (time.process_time() - cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="time per measurement")
    parser.add_argument("--all-counts", action="store_true", help="every player count, not just the smallest")
    parser.add_argument("--envs", type=int, default=16, help="games per vector environment")
    parser.add_argument("--tables", choices=("adapters", "vectors", "batched", "scaling", "all"), default="all",
                        help="which table to measure")
    parser.add_argument("--batched", nargs="+", choices=BATCHED_GAMES, default=BATCHED_GAMES,
                        help="the games with a batched engine that tables 3 and 4 measure")
    args = parser.parse_args()
    console = Console(width=160)
    if args.tables in ("adapters", "all"):
        console.print(adapter_table(args.seconds, args.all_counts, console))
    if args.tables in ("vectors", "all"):
        console.print(vector_table(args.seconds, args.envs))
    if args.tables in ("batched", "all"):
        console.print(batched_table(args.seconds, args.batched))
    if args.tables in ("scaling", "all"):
        for name in args.batched:
            console.print(scaling_table(args.seconds, name))


def adapter_table(seconds: float, all_counts: bool, console: Console) -> Table:

    adapters = Table(title="Adapters beside the raw engine (steps/s; one step = one seat's decision)")
    for column in ("game", "players", "engine/s", "+tensor/s", "tensor µs", "dict µs", "AEC/s", "AEC ×",
                   "Gymnasium/s", "OpenSpiel/s", "spiel tensor ×"):
        adapters.add_column(column, justify="left" if column == "game" else "right")
    for name in bestiary.list_games():
        counts = game_class(name).info.player_counts
        for players in counts if all_counts else counts[:1]:
            game = bestiary.load_game(name, players=players)
            rates = fastest_rates(seconds, {
                "engine": partial(rate, episode=partial(engine_episode, game, False)),
                "with_tensor": partial(rate, episode=partial(engine_episode, game, True)),
                "aec": partial(rate, episode=partial(pettingzoo_episode, pettingzoo.env(game))),
                "gym": partial(rate, episode=partial(gymnasium_episode, BestiaryEnv(game, opponents=["random"]))),
                "spiel": partial(rate, episode=partial(openspiel_episode, openspiel.load(name, players=players)))})
            engine, with_tensor, aec, gym, spiel = rates.values()
            direct = tensor_microseconds(game, lambda s, seat: s.observation_tensor(seat))  # type: ignore[attr-defined]
            spiel_game = openspiel.load(game)
            through_pyspiel = tensor_microseconds(
                game, lambda s, seat: s.observation_tensor(seat),  # type: ignore[attr-defined]
                prepare=partial(openspiel.BestiarySpielState, spiel_game))
            adapters.add_row(name, str(players), f"{engine:,.0f}", f"{with_tensor:,.0f}", f"{direct:.1f}",
                             f"{tensor_microseconds(game, from_the_observation(game)):.1f}",
                             f"{aec:,.0f}", f"{with_tensor / aec:.2f}",
                             f"{gym:,.0f}", f"{spiel:,.0f}", f"{through_pyspiel / direct:.2f}")
            console.print(f"measured {name} at {players} players", style="dim")
    return adapters


def vector_table(seconds: float, n: int) -> Table:
    vectors = Table(title=f"Learner steps/s against the random agent, {n} games per vector environment")
    for column in ("game", "players", "BestiaryEnv", f"SyncVectorEnv ×{n}", f"BestiaryVectorEnv ×{n}"):
        vectors.add_column(column, justify="left" if column == "game" else "right")
    for name in bestiary.list_games():
        players = game_class(name).info.player_counts[0]
        game = bestiary.load_game(name, players=players)
        single, sync, batched = fastest_rates(seconds, {
            "single": partial(single_rate, env=BestiaryEnv(game)),
            "sync": VectorLoop(SyncVectorEnv([partial(BestiaryEnv, game) for _ in range(n)]),
                            num_envs=n),
            "batched": VectorLoop(BestiaryVectorEnv(game, num_envs=n), num_envs=n)}).values()
        vectors.add_row(name, str(players), f"{single:,.0f}", f"{sync:,.0f}", f"{batched:,.0f}")
    return vectors


def spiel_rate(seconds: float, game: object) -> float:
    """Decisions per second of random play in an OpenSpiel game (chance sampled by its odds, not counted)."""
    rng = random.Random(0)
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()  # type: ignore[attr-defined]
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
    return steps / (time.process_time() - cpu)


def pgx_rate(seconds: float, env_id: str, n: int) -> float | None:
    """Steps per second of a pgx environment with `n` games (jax.vmap, jit), or None without pgx."""
    if importlib.util.find_spec("pgx") is None:
        return None
    import jax
    import pgx
    env = pgx.make(env_id)
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, n))

    def act(state: object, key: object) -> object:
        logits = jax.numpy.log(state.legal_action_mask.astype(float))  # type: ignore[attr-defined]
        return jax.random.categorical(key, logits)

    act = jax.jit(act)
    state = step(state, act(state, key))  # compiled before the clock starts
    steps = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        key, sub = jax.random.split(key)
        state = step(state, act(state, sub))
        state.rewards.block_until_ready()
        steps += n
    return steps / (time.process_time() - cpu)


def shown(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def numpy_twin_loop(game: Game, n: int) -> dict[tuple[str, str], Callable[[float], float]]:
    """For a batched engine with a compiled kernel (`engine.compiled`), the same environment on its numpy twin."""
    env = BatchedVectorEnv(game, num_envs=n)
    if not getattr(env.engine, "compiled", False):
        return {}
    env.engine = type(env.engine)(env.game, n, compiled_kernel=False)  # type: ignore[call-arg]
    return {("BatchedVectorEnv, numpy twin", str(n)): VectorLoop(env, num_envs=n)}


def batched_table(seconds: float, names: Sequence[str], n: int = BATCH) -> Table:
    """Per game with a batched engine, every environment's learner steps/s, OpenSpiel's C++ games beside."""
    table = Table(title=f"Steps/s, two players, random opponents, {n} games per vector environment "
                        "(one process, one core; every loop of a game timed in turns)")
    for column in ("game", "environment", "games", "steps/s", "÷ BestiaryEnv"):
        table.add_column(column, justify="left" if column in ("game", "environment") else "right")
    for name in names:
        game = bestiary.load_game(name, players=2)
        loops: dict[tuple[str, str], Callable[[float], float]] = {
            ("BestiaryEnv", "1"): partial(single_rate, env=BestiaryEnv(game)),
            ("SyncVectorEnv", str(n)): VectorLoop(
                SyncVectorEnv([partial(BestiaryEnv, game) for _ in range(n)]), num_envs=n),
            ("BestiaryVectorEnv", str(n)): VectorLoop(BestiaryVectorEnv(game, num_envs=n),
                                                   num_envs=n),
            ("BatchedVectorEnv", str(n)): VectorLoop(BatchedVectorEnv(game, num_envs=n), num_envs=n),
            **numpy_twin_loop(game, n),
            **{(f"OpenSpiel {spiel} (C++ via pyspiel)", "1"): partial(spiel_rate, game=pyspiel.load_game(spiel))
               for spiel in ("connect_four", "hearts")}}
        rates = fastest_rates(seconds, loops)  # type: ignore[arg-type]
        single = rates[("BestiaryEnv", "1")]  # type: ignore[index]
        for (environment, games), value in rates.items():
            table.add_row(name, environment, games, f"{value:,.0f}", f"{value / single:.1f}×")
        for spiel in ("connect_four", "hearts"):
            value = pgx_rate(seconds, spiel, n)
            table.add_row(name, f"pgx {spiel} (JAX; n/a: not installed)" if value is None else f"pgx {spiel}",
                          str(n), shown(value), "n/a" if value is None else f"{value / single:.1f}×")
    return table


def scaling_table(seconds: float, name: str) -> Table:
    table = Table(title=f"BatchedVectorEnv as the batch grows: {name}, two players, random opponents")
    for column in ("games", "learner steps/s", "µs per game-step", "÷ BestiaryEnv"):
        table.add_column(column, justify="right")
    game = bestiary.load_game(name, players=2)
    loops: dict[str, Callable[[float], float]] = {"single": partial(single_rate, env=BestiaryEnv(game))}
    for n in BATCH_SIZES:
        loops[str(n)] = VectorLoop(BatchedVectorEnv(game, num_envs=n), num_envs=n)
    rates = fastest_rates(seconds, loops)
    single = rates.pop("single")
    table.add_row("BestiaryEnv (1)", f"{single:,.0f}", f"{1e6 / single:.2f}", "1.0×")
    for n, value in rates.items():
        table.add_row(n, f"{value:,.0f}", f"{1e6 / value:.2f}", f"{value / single:.1f}×")
    return table


if __name__ == "__main__":
    main()
