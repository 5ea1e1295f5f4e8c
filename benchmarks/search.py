"""Search speed: simulations per second of MCTS and IS-MCTS for every registered game, and of OpenSpiel's
Python MCTSBot on the same positions, in the same run.

    python benchmarks/search.py [--sims 400] [--positions 4] [--game critter-capture]

On a busy machine, count instructions instead of time (docs/agents.md, *Speed*): `--count ours` runs our MCTS
with random rollouts on the positions, `--count openspiel` OpenSpiel's MCTSBot, `--count none` neither (the
start-up to subtract), untimed:

    valgrind --tool=cachegrind --cache-sim=no python benchmarks/search.py --game crits-creatures --sims 30 --count ours

Each game is searched from a few decision points spread evenly over a seeded random game (by default
its start and a quarter, half and three quarters of the way in), with the smallest standard player
count. Figures are simulations per second (one simulation: select, expand, play out to the end, back
up), so they fall with the length of the game left to play.

The comparison: OpenSpiel's `MCTSBot` (open_spiel.python.algorithms.mcts, UCT constant 1.4, one random
rollout per leaf, no solver) searches the same positions through Bestiary's OpenSpiel adapter
(bestiary.rl.openspiel) with the same number of simulations, and the last column is the ratio of our
MCTS with random rollouts to it. MCTSBot searches the true state: it has no notion of hidden
information. A game the adapter or MCTSBot cannot run is reported as such; OpenSpiel itself comes with
`pip install -e '.[bench]'`.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import bestiary
from bestiary.agents import ISMCTSAgent, MCTSAgent, SearchSettings, SeatView
from bestiary.agents.search import SearchAgent
from bestiary.core.api import CHANCE, State
from bestiary.core.conformance import random_step
from bestiary.core.registry import game_class

CONFIGURATIONS: dict[str, Callable[[int], SearchAgent]] = {
    "mcts, random rollouts": lambda sims: MCTSAgent(SearchSettings(simulations=sims, reuse=False)),
    "mcts, heuristic rollouts": lambda sims: MCTSAgent(SearchSettings(simulations=sims, rollout="heuristic",
                                                                      reuse=False)),
    "ismcts, random rollouts": lambda sims: ISMCTSAgent(SearchSettings(simulations=sims)),
    "ismcts, cutoff 20": lambda sims: ISMCTSAgent(SearchSettings(simulations=sims, cutoff=20)),
}
COMPARED = "mcts, random rollouts"  # the configuration that does what OpenSpiel's MCTSBot does


def decision_positions(name: str, players: int, count: int, seed: int) -> list[State]:
    """`count` positions where a player decides, evenly spread over one seeded random game."""
    game = bestiary.load_game(name, players=players)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    decisions = []
    while not state.is_terminal():
        if not state.is_chance_node():
            decisions.append(state.clone())
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    return [decisions[len(decisions) * k // count] for k in range(count)]


def simulations_per_second(agent: SearchAgent, positions: list[State], seed: int) -> float:
    rng = random.Random(seed)
    total, elapsed = 0, 0.0
    for state in positions:
        player = state.players_to_act()[0]
        start = time.perf_counter()
        agent.search(SeatView(state, player), rng)
        elapsed += time.perf_counter() - start
        total += agent.last_simulations
    return total / elapsed


def openspiel_simulations_per_second(name: str, positions: list[State], sims: int, seed: int) -> float | str:
    """OpenSpiel's MCTSBot on the same positions: simulations per second, or why it cannot run."""
    try:
        import numpy as np
        from open_spiel.python.algorithms import mcts

        from bestiary.rl import openspiel
    except ImportError as error:
        return f"OpenSpiel is not installed ({error.name})"
    try:
        spiel_game = openspiel.load(positions[0].game)
        bot = mcts.MCTSBot(spiel_game, uct_c=1.4, max_simulations=sims, solve=False,
                           evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                           random_state=np.random.RandomState(seed))
        elapsed = 0.0
        for state in positions:
            spiel_state = openspiel.BestiarySpielState(spiel_game, state.clone())
            start = time.perf_counter()
            bot.step(spiel_state)
            elapsed += time.perf_counter() - start
    except Exception as error:  # a game the adapter or MCTSBot cannot handle is reported, not fatal
        return f"cannot run: {type(error).__name__}: {error}"
    return sims * len(positions) / elapsed


def count_simulations(names: list[str], sims: int, positions_per_game: int, seed: int, mode: str) -> None:
    """A fixed amount of search, untimed, for counting instructions: (this run's count minus that of
    `--count none`) / the simulations printed is the instructions a simulation."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    from bestiary.rl import openspiel

    for name in names:
        positions = decision_positions(name, min(game_class(name).info.player_counts), positions_per_game, seed)
        rng = random.Random(seed)
        if mode == "ours":
            agent = CONFIGURATIONS[COMPARED](sims)
            for state in positions:
                agent.search(SeatView(state, state.players_to_act()[0]), rng)
        elif mode == "openspiel":
            spiel_game = openspiel.load(positions[0].game)
            bot = mcts.MCTSBot(spiel_game, uct_c=1.4, max_simulations=sims, solve=False,
                               evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)),
                               random_state=np.random.RandomState(seed))
            for state in positions:
                bot.step(openspiel.BestiarySpielState(spiel_game, state.clone()))
        done = 0 if mode == "none" else sims * len(positions)
        print(f"{name}: {mode}: {done} simulations from {len(positions)} positions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sims", type=int, default=400, help="simulations per position")
    parser.add_argument("--positions", type=int, default=4, help="positions per game")
    parser.add_argument("--game", action="append", help="only this game (repeatable)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", choices=("ours", "openspiel", "none"), default=None,
                        help="run one side's searches untimed (or neither), for counting instructions under valgrind")
    args = parser.parse_args()
    names = args.game or bestiary.list_games()
    if args.count:
        count_simulations(names, args.sims, args.positions, args.seed, args.count)
        return
    print(f"{'game':<18} {'players':>7}  {'search':<26} {'sims/s':>8}  {'vs OpenSpiel':>12}")
    for name in names:
        players = min(game_class(name).info.player_counts)
        positions = decision_positions(name, players, args.positions, args.seed)
        ours = {}
        for label, make in CONFIGURATIONS.items():
            ours[label] = simulations_per_second(make(args.sims), positions, args.seed)
            print(f"{name:<18} {players:>7}  {label:<26} {ours[label]:>8.0f}", flush=True)
        theirs = openspiel_simulations_per_second(name, positions, args.sims, args.seed)
        if isinstance(theirs, str):
            print(f"{name:<18} {players:>7}  {'OpenSpiel MCTSBot':<26} {theirs}")
        else:
            print(f"{name:<18} {players:>7}  {'OpenSpiel MCTSBot':<26} {theirs:>8.0f}  "
                  f"{ours[COMPARED] / theirs:>11.1f}x")


if __name__ == "__main__":
    main()
