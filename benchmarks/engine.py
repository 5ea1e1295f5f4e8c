"""Engine throughput: random playouts per registered game — games/s, steps/s, µs per step, clone µs.

A step is one apply_action (chance included) after legal_actions or chance_outcomes. Run:
    python benchmarks/engine.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time

import bestiary
from bestiary.core.registry import game_class


def playout(game: bestiary.Game, seed: int) -> tuple[int, bestiary.State]:
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            player = state.players_to_act()[0]
            state.apply_action(rng.choice(state.legal_actions(player)), player=player)
        steps += 1
    return steps, state


def measure(name: str, players: int, seconds: float) -> dict[str, float]:
    game = bestiary.load_game(name, players=players)
    games = steps = 0
    start = time.perf_counter()
    mid_game = None
    while time.perf_counter() - start < seconds:
        n, state = playout(game, games)
        steps += n
        games += 1
        if mid_game is None:
            mid_game = state
    elapsed = time.perf_counter() - start
    sample = game.new_initial_state(seed=0)
    clones = 2000
    t0 = time.perf_counter()
    for _ in range(clones):
        sample.clone()
    clone_us = (time.perf_counter() - t0) / clones * 1e6
    return {"games/s": games / elapsed, "steps/s": steps / elapsed, "us/step": elapsed / steps * 1e6,
            "clone us": clone_us, "steps/game": steps / games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per game configuration")
    args = parser.parse_args()
    print(f"{'game':22s} {'players':>7s} {'games/s':>9s} {'steps/s':>10s} {'us/step':>8s} {'clone us':>9s} "
          f"{'steps/game':>10s}")
    for name in bestiary.list_games():
        players = game_class(name).info.player_counts[0]
        figures = measure(name, players, args.seconds)
        print(f"{name:22s} {players:7d} {figures['games/s']:9.1f} {figures['steps/s']:10.0f} "
              f"{figures['us/step']:8.2f} {figures['clone us']:9.2f} {figures['steps/game']:10.1f}")


if __name__ == "__main__":
    main()
