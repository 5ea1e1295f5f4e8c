"""Research adapter throughput per registered game: environment steps per second through PettingZoo (AEC),
Gymnasium (against the random agent) and OpenSpiel (random play), and the observation tensor's cost.

Needs the rl extra. Run:
    python benchmarks/rl_adapters.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from functools import partial

import numpy as np

import bestiary
from bestiary.core.registry import game_class
from bestiary.rl import openspiel, pettingzoo
from bestiary.rl.gymnasium import BestiaryEnv


def rate(seconds: float, episode: Callable[[int], int]) -> float:
    """Steps per second of repeated seeded episodes."""
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps += episode(episodes)
        episodes += 1
    return steps / (time.perf_counter() - start)


def pettingzoo_episode(env: pettingzoo.BestiaryAECEnv, seed: int) -> int:
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return steps


def gymnasium_episode(env: BestiaryEnv, seed: int) -> int:
    rng = random.Random(seed)
    _, info = env.reset(seed=seed)
    steps, done = 0, False
    while not done:
        _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        steps += 1
    return steps


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


def tensor_microseconds(name: str, players: int, repeats: int = 2000) -> float:
    state = bestiary.load_game(name, players=players).new_initial_state(seed=0)
    start = time.perf_counter()
    for _ in range(repeats):
        state.observation_tensor(0)
    return (time.perf_counter() - start) / repeats * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    print(f"{'game':<18}{'players':>8}{'PettingZoo/s':>14}{'Gymnasium/s':>13}{'OpenSpiel/s':>13}{'tensor µs':>11}")
    for name in bestiary.list_games():
        for players in game_class(name).info.player_counts:
            aec = pettingzoo.env(name, players=players)
            gym = BestiaryEnv(name, players=players, opponents=["random"])
            spiel = openspiel.load(name, players=players)
            print(f"{name:<18}{players:>8}"
                  f"{rate(args.seconds, partial(pettingzoo_episode, aec)):>14.0f}"
                  f"{rate(args.seconds, partial(gymnasium_episode, gym)):>13.0f}"
                  f"{rate(args.seconds, partial(openspiel_episode, spiel)):>13.0f}"
                  f"{tensor_microseconds(name, players):>11.0f}")


if __name__ == "__main__":
    main()
