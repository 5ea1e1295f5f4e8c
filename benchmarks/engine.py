"""Engine throughput: random playouts per registered game, side by side with reference engines.

For each Bestiary game: games/s, steps/s, µs per step (a step is one apply_action, chance included, after
legal_actions or chance_outcomes, or with --chance sampled each engine's own sampler) and clone µs (averaged
over states met along playouts). In the same run, OpenSpiel's C++ hearts and leduc_poker are driven by the
same kind of Python loop, and RLCard's raw uno game by its own step loop; each Bestiary figure is then given as
a ratio to hearts. The engines take turns in short slices (--rounds), so that a change of load on a shared
machine slows every engine alike. A reference engine that cannot be imported is reported as missing.

Run (the reference engines come with `pip install -e '.[bench]'`):
    python benchmarks/engine.py [--seconds 3] [--rounds 10] [--repeat 1] [--games critter-capture,cube-creatures]
On a busy machine, count instructions instead of time (docs/performance.md):
    valgrind --tool=cachegrind --cache-sim=no python benchmarks/engine.py --count critter-capture 20
    (add --chance sampled to either form for the loop that asks each engine for a drawn chance outcome)
"""

from __future__ import annotations

import argparse
import copy
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import bestiary
from bestiary.core.registry import game_class

CLONE_SAMPLE_EVERY = 7  # keep every n-th state of a playout for the clone timing
CLONES_PER_STATE = 4
CLONE_PASSES = 5
TARGET_RATIO_TO_HEARTS = 1.5  # the card games' step within 1.5x of OpenSpiel's C++ hearts
# How the loop plays a chance node: LISTED lists the outcomes and picks one with rng.choices on every side (the
# same Python code driving each engine); SAMPLED asks each engine for one drawn outcome by its own means
# (a Bestiary state's sample_chance_outcome, OpenSpiel's pyspiel.sample_action).
LISTED, SAMPLED = "listed", "sampled"


class Figures:
    def __init__(self, name: str, games: int, steps: int, elapsed: float, clone_us: float | None) -> None:
        self.name = name
        self.games_per_s = games / elapsed
        self.steps_per_s = steps / elapsed
        self.us_per_step = elapsed / steps * 1e6
        self.steps_per_game = steps / games
        self.clone_us = clone_us


class Engine:
    """One engine under test: `playout(seed, keep)` plays a whole random game and returns its steps, appending
    every CLONE_SAMPLE_EVERY-th state to `keep` when given; `clone` copies one of those states."""

    def __init__(self, name: str, playout: Callable[[int, list[Any] | None], int], clone: Callable[[Any], Any],
                 clone_games: int = 5) -> None:
        self.name = name
        self.playout = playout
        self.clone = clone
        self.clone_games = clone_games
        self.games = self.steps = 0
        self.elapsed = 0.0

    def play_for(self, seconds: float) -> None:
        """Whole games, continuing the seed sequence, until `seconds` have passed."""
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            self.steps += self.playout(self.games, None)
            self.games += 1
        self.elapsed += time.perf_counter() - start

    def figures(self) -> Figures:
        sampled: list[Any] = []
        for seed in range(self.clone_games):
            self.playout(seed, sampled)
        passes = []
        for _ in range(CLONE_PASSES):
            start = time.perf_counter()
            for state in sampled:
                for _ in range(CLONES_PER_STATE):
                    self.clone(state)
            passes.append((time.perf_counter() - start) / (len(sampled) * CLONES_PER_STATE) * 1e6)
        clone_us = min(passes)  # the least disturbed pass
        return Figures(self.name, self.games, self.steps, self.elapsed, clone_us)


# -- Bestiary ---------------------------------------------------------------------------------------
def bestiary_engine(name: str, players: int, chance: str = LISTED) -> Engine:
    game = bestiary.load_game(name, players=players)
    sampled = chance == SAMPLED

    def playout(seed: int, keep: list[Any] | None) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                if sampled:
                    state.apply_action(state.sample_chance_outcome(rng))
                else:
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                player = state.players_to_act()[0]
                state.apply_action(rng.choice(state.legal_actions(player)), player)
            steps += 1
            if keep is not None and steps % CLONE_SAMPLE_EVERY == 0:
                keep.append(state.clone())
        return steps

    return Engine(f"{name} ({players}p)", playout, lambda state: state.clone())


# -- OpenSpiel --------------------------------------------------------------------------------------
def open_spiel_engine(name: str, chance: str = LISTED) -> Engine | str:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError as error:
        return f"missing (import pyspiel: {error})"
    game = pyspiel.load_game(name)
    sampled = chance == SAMPLED

    def playout(seed: int, keep: list[Any] | None) -> int:
        rng = random.Random(seed)
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                if sampled:
                    # OpenSpiel's own sampler (C++) over its listed outcomes: it has none that skips the list.
                    # With the same number from rng it picks the outcome rng.choices picks, so the games are
                    # those of the listed loop.
                    state.apply_action(pyspiel.sample_action(state.chance_outcomes(), rng.random())[0])
                else:
                    outcomes = state.chance_outcomes()
                    state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            if keep is not None and steps % CLONE_SAMPLE_EVERY == 0:
                keep.append(state.clone())
        return steps

    return Engine(f"OpenSpiel {name} (C++)", playout, lambda state: state.clone())


# -- RLCard -----------------------------------------------------------------------------------------
def rlcard_uno_engine() -> Engine | str:
    try:
        from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]
    except ImportError as error:
        return f"missing (import rlcard: {error})"
    import numpy as np

    def playout(seed: int, keep: list[Any] | None) -> int:
        rng = random.Random(seed)
        game = UnoGame()
        game.np_random = np.random.RandomState(seed)
        _, player = game.init_game()
        steps = 0
        while not game.is_over():
            legal = game.round.get_legal_actions(game.players, player)
            _, player = game.step(rng.choice(legal))
            steps += 1
            if keep is not None and steps % CLONE_SAMPLE_EVERY == 0:
                keep.append(copy.deepcopy(game))
        return steps

    # RLCard has no clone; a search would deep-copy the game, as its own step_back does.
    return Engine("RLCard uno (raw game)", playout, copy.deepcopy, clone_games=2)


# -- the report -------------------------------------------------------------------------------------
def one_run(seconds: float, rounds: int, games: list[str], chance: str) -> list[Figures | tuple[str, str]]:
    """Every engine in turn for a slice of `seconds`, `rounds` times over, so that a change of load on the
    machine falls on every engine alike."""
    engines: list[Engine | tuple[str, str]] = []
    for name in games:
        engines.append(bestiary_engine(name, game_class(name).info.player_counts[0], chance))
    for reference in ("hearts", "leduc_poker"):
        engine = open_spiel_engine(reference, chance)
        engines.append(engine if isinstance(engine, Engine) else (f"OpenSpiel {reference}", engine))
    uno = rlcard_uno_engine()
    engines.append(uno if isinstance(uno, Engine) else ("RLCard uno", uno))
    running = [engine for engine in engines if isinstance(engine, Engine)]
    for _ in range(rounds):
        for engine in running:
            engine.play_for(seconds / rounds)
    return [engine.figures() if isinstance(engine, Engine) else engine for engine in engines]


def print_run(rows: list[Figures | tuple[str, str]]) -> None:
    hearts = next((r for r in rows if isinstance(r, Figures) and r.name.startswith("OpenSpiel hearts")), None)
    print(f"{'engine':30s} {'games/s':>9s} {'steps/s':>10s} {'us/step':>8s} {'clone us':>9s} "
          f"{'steps/game':>10s} {'step/hearts':>11s} {'clone/hearts':>12s}")
    for row in rows:
        if not isinstance(row, Figures):
            print(f"{row[0]:30s} {row[1]}")
            continue
        step_ratio = f"{row.us_per_step / hearts.us_per_step:11.2f}" if hearts else f"{'-':>11s}"
        clone_ratio = (f"{row.clone_us / hearts.clone_us:12.2f}" if hearts and hearts.clone_us and row.clone_us
                       else f"{'-':>12s}")
        clone = f"{row.clone_us:9.2f}" if row.clone_us is not None else f"{'-':>9s}"
        print(f"{row.name:30s} {row.games_per_s:9.1f} {row.steps_per_s:10.0f} {row.us_per_step:8.2f} {clone} "
              f"{row.steps_per_game:10.1f} {step_ratio} {clone_ratio}")


def print_spread(runs: list[list[Figures | tuple[str, str]]]) -> None:
    """Across repeated runs: the median and the range of µs/step and of its ratio to hearts."""
    print(f"\nacross runs: us/step median [min-max]; ratio to hearts median [min-max] (target for the card games: "
          f"at most {TARGET_RATIO_TO_HEARTS}x)")
    names = [r.name for r in runs[0] if isinstance(r, Figures)]
    for name in names:
        per_run = [next(r for r in run if isinstance(r, Figures) and r.name == name) for run in runs]
        hearts = [next((r for r in run if isinstance(r, Figures) and r.name.startswith("OpenSpiel hearts")), None)
                  for run in runs]
        us = [f.us_per_step for f in per_run]
        line = f"{name:30s} {statistics.median(us):7.2f} [{min(us):.2f}-{max(us):.2f}]"
        if all(h is not None for h in hearts):
            ratios = [f.us_per_step / h.us_per_step for f, h in zip(per_run, hearts, strict=True) if h]
            line += f"   x{statistics.median(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="playout time per engine and run")
    parser.add_argument("--rounds", type=int, default=10, help="slices each engine's time is cut into")
    parser.add_argument("--repeat", type=int, default=1, help="runs, each with every engine, to show the noise")
    parser.add_argument("--games", default=None,
                        help="comma-separated Bestiary games to run (default: all); the references always run")
    parser.add_argument("--count", nargs=2, metavar=("ENGINE", "GAMES"), default=None,
                        help="play GAMES seeded games of one engine (a Bestiary game, hearts or leduc_poker), "
                             "untimed, and print the steps: for counting instructions under valgrind")
    parser.add_argument("--chance", choices=(LISTED, SAMPLED), default=LISTED,
                        help="how the loop plays a chance node: 'listed' lists the outcomes and picks one with "
                             "rng.choices, the same code on every side (default); 'sampled' asks each engine for "
                             "one drawn by its own means (Bestiary: State.sample_chance_outcome; OpenSpiel: "
                             "pyspiel.sample_action over its list)")
    args = parser.parse_args()
    if args.count:
        count_steps(parser, args.count[0], int(args.count[1]), args.chance)
        return
    games = args.games.split(",") if args.games else bestiary.list_games()
    unknown = sorted(set(games) - set(bestiary.list_games()))
    if unknown:
        parser.error(f"no game named {', '.join(unknown)} (games: {', '.join(bestiary.list_games())})")
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.python_implementation()} "
          f"{platform.python_version()} on {platform.machine()}, {platform.processor() or platform.system()}, "
          f"{os.cpu_count()} cores; load average {load_average()} (1/5/15 min); chance nodes {args.chance}")
    runs = []
    for number in range(args.repeat):
        if args.repeat > 1:
            print(f"\nrun {number + 1} of {args.repeat}")
        runs.append(one_run(args.seconds, args.rounds, games, args.chance))
        print_run(runs[-1])
    if args.repeat > 1:
        print_spread(runs)
    print(f"\nload average at the end {load_average()}")


def count_steps(parser: argparse.ArgumentParser, name: str, games: int, chance: str) -> None:
    """A fixed amount of work, the same whatever the load: instructions per step are (the count of this run
    minus that of a run with 0 games) / steps."""
    if name in bestiary.list_games():
        engine: Engine | str = bestiary_engine(name, game_class(name).info.player_counts[0], chance)
    elif name in ("hearts", "leduc_poker"):
        engine = open_spiel_engine(name, chance)
    else:
        parser.error(f"--count: no engine named {name} (a Bestiary game, hearts or leduc_poker)")
    if isinstance(engine, str):
        parser.error(f"--count: {name}: {engine}")
    print(f"{engine.name}: {sum(engine.playout(seed, None) for seed in range(games))} steps in {games} games")


def load_average() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
