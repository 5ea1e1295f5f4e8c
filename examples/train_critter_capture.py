"""Train a small policy for critter capture on the CPU, then measure it against Bestiary's own agents.

    pip install -e '.[rl]'
    python examples/train_critter_capture.py                 # about two minutes
    python examples/train_critter_capture.py --episodes 300  # a quick look

The policy is linear: one score per action from the observation tensor, illegal actions masked out,
softmax over the rest. It learns by REINFORCE (policy gradient) with a running-average baseline, playing
seat 0 or 1 at random against the opponent named by --opponent through `bestiary.rl.gymnasium`.
Evaluation plays seeded games at both seats and reports the mean return (a win is 1, a shared win 0.5).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bestiary.rl.gymnasium import BestiaryEnv


class LinearPolicy:
    def __init__(self, features: int, actions: int) -> None:
        self.weights = np.zeros((actions, features), np.float64)
        self.bias = np.zeros(actions, np.float64)

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        scores = self.weights @ observation + self.bias
        scores = np.where(mask.astype(bool), scores, -np.inf)
        scores -= scores.max()
        exp = np.exp(scores)
        return exp / exp.sum()

    def act(self, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator | None) -> int:
        """A sampled action when `rng` is given, else the most probable one."""
        p = self.probabilities(observation, mask)
        return int(rng.choice(len(p), p=p)) if rng is not None else int(np.argmax(p))


def play_episode(env: BestiaryEnv, policy: LinearPolicy, seed: int, rng: np.random.Generator | None,
                 ) -> tuple[float, list[tuple[np.ndarray, np.ndarray, int]]]:
    observation, info = env.reset(seed=seed)
    steps = []
    total, done = 0.0, False
    while not done:
        action = policy.act(observation, info["action_mask"], rng)
        steps.append((observation, info["action_mask"], action))
        observation, reward, done, _, info = env.step(action)
        total += float(reward)
    return total, steps


def train(policy: LinearPolicy, envs: list[BestiaryEnv], episodes: int, learning_rate: float,
          rng: np.random.Generator) -> None:
    baseline = 0.5
    started = time.perf_counter()
    recent: list[float] = []
    report_every = max(1, episodes // 10)
    for episode in range(episodes):
        env = envs[int(rng.integers(len(envs)))]
        total, steps = play_episode(env, policy, seed=int(rng.integers(2**31)), rng=rng)
        advantage = total - baseline
        baseline += 0.02 * (total - baseline)
        for observation, mask, action in steps:
            # gradient of log softmax(action): one-hot(action) - probabilities
            grad = -policy.probabilities(observation, mask)
            grad[action] += 1.0
            policy.weights += learning_rate * advantage * np.outer(grad, observation)
            policy.bias += learning_rate * advantage * grad
        recent.append(total)
        if (episode + 1) % report_every == 0:
            print(f"  episode {episode + 1:5d}: mean return of the last {report_every} "
                  f"{np.mean(recent[-report_every:]):.3f} ({time.perf_counter() - started:.0f} s)")


def evaluate(policy: LinearPolicy | None, opponent: str, games: int, seed: int) -> float:
    """Mean return over `games` seeded games, half at each seat; None plays uniformly at random."""
    rng = np.random.default_rng(seed)
    totals = []
    for game in range(games):
        env = BestiaryEnv("critter-capture", players=2, opponents=[opponent], seat=game % 2)
        observation, info = env.reset(seed=seed + game)
        total, done = 0.0, False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            action = int(rng.choice(legal)) if policy is None else policy.act(observation, info["action_mask"], None)
            observation, reward, done, _, info = env.step(action)
            total += float(reward)
        totals.append(total)
    return float(np.mean(totals))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=2000)
    parser.add_argument("--opponent", default="random", help="the agent trained against: random or heuristic")
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    envs = [BestiaryEnv("critter-capture", players=2, opponents=[args.opponent], seat=seat) for seat in (0, 1)]
    features = envs[0].observation_space.shape[0]
    policy = LinearPolicy(features, int(envs[0].action_space.n))
    print(f"Training a linear policy ({features} features) for {args.episodes} episodes against "
          f"{args.opponent}...")
    train(policy, envs, args.episodes, args.learning_rate, np.random.default_rng(args.seed))

    print(f"\nMean return over {args.eval_games} seeded games (1 = a win, 0.5 = a shared win):")
    print(f"{'player':<18}{'vs random':>12}{'vs heuristic':>14}")
    for label, player in (("trained policy", policy), ("uniform random", None)):
        scores = [evaluate(player, opponent, args.eval_games, seed=10_000) for opponent in ("random", "heuristic")]
        print(f"{label:<18}{scores[0]:>12.3f}{scores[1]:>14.3f}")


if __name__ == "__main__":
    main()
