"""What judging a take-back costs (server/takeback.py), once a position, for the seat to act: random games of
each game, every position where the player who just moved is still to act on an ordinary turn judged, with
how many of those moves could be taken back and why the others could not.

    PYTHONPATH=src python benchmarks/take_back.py [--games 3] [--steps 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from bestiary.core.registry import list_games, load_game
from bestiary.server.takeback import judge

GAMES = ("critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="random games of each game")
    parser.add_argument("--steps", type=int, default=300, help="at most this many actions a game")
    args = parser.parse_args()
    for name in GAMES:
        if name not in list_games():
            continue
        game = load_game(name)
        rng = random.Random(name)
        times: list[float] = []
        allowed: Counter[str] = Counter()
        refused: Counter[str] = Counter()
        for seed in range(args.games):
            state = game.new_initial_state(seed=seed)
            for _ in range(args.steps):
                if state.is_terminal():
                    break
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                    continue
                player = rng.choice(state.players_to_act())
                action = rng.choice(state.legal_actions(player))
                before = state.clone()
                state.apply_action(action, player=player)
                if state.decision_kind() != "turn" or state.players_to_act() != [player]:
                    continue
                started = time.perf_counter()
                verdict = judge(before, state, player, seed)
                times.append(time.perf_counter() - started)
                if verdict.allowed:
                    allowed[str(action).split()[0]] += 1
                else:
                    refused[verdict.why] += 1
        if not times:
            print(f"{name}: no position to judge (n/a)")
            continue
        print(f"{name}: {len(times)} positions judged, {sum(allowed.values())} moves could be taken back; "
              f"judging took {1000 * statistics.mean(times):.2f} ms on average, {1000 * max(times):.2f} ms at most")
        print(f"  taken back by kind: {dict(allowed.most_common(6))}; refused: {dict(refused)}")


if __name__ == "__main__":
    main()
