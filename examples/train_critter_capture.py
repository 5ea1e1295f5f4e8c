"""Train a small policy for critter capture on the CPU, then measure it against Bestiary's own agents.

    pip install -e '.[rl]'
    python examples/train_critter_capture.py                 # about two minutes
    python examples/train_critter_capture.py --episodes 300  # a quick look

The policy is linear: one score per action from the observation tensor, illegal actions masked out,
softmax over the rest. It learns by REINFORCE (policy gradient) over batches of episodes with Adam, playing
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
          rng: np.random.Generator, batch: int = 8) -> None:
    """REINFORCE: batches of episodes, each step's log-probability gradient weighted by the episode's return
    less the batch's mean return, applied with Adam (steady steps whatever the gradient's scale)."""
    adam = Adam([policy.weights, policy.bias], learning_rate)
    started = time.perf_counter()
    recent: list[float] = []
    report_every = max(batch, episodes // 10 // batch * batch)
    for first in range(0, episodes, batch):
        played = []
        for _ in range(min(batch, episodes - first)):
            env = envs[int(rng.integers(len(envs)))]
            played.append(play_episode(env, policy, seed=int(rng.integers(2**31)), rng=rng))
        baseline = float(np.mean([total for total, _ in played]))
        grad_weights, grad_bias = np.zeros_like(policy.weights), np.zeros_like(policy.bias)
        for total, steps in played:
            for observation, mask, action in steps:
                # gradient of log softmax(action): one-hot(action) - probabilities
                grad = -policy.probabilities(observation, mask)
                grad[action] += 1.0
                grad_weights += (total - baseline) * np.outer(grad, observation)
                grad_bias += (total - baseline) * grad
            recent.append(total)
        adam.ascend([grad_weights / len(played), grad_bias / len(played)])
        if len(recent) % report_every == 0:
            print(f"  episode {len(recent):5d}: mean return of the last {report_every} "
                  f"{np.mean(recent[-report_every:]):.3f} ({time.perf_counter() - started:.0f} s)")


class Adam:
    def __init__(self, parameters: list[np.ndarray], learning_rate: float) -> None:
        self.parameters = parameters
        self.learning_rate = learning_rate
        self.first = [np.zeros_like(p) for p in parameters]
        self.second = [np.zeros_like(p) for p in parameters]
        self.steps = 0

    def ascend(self, gradients: list[np.ndarray], beta1: float = 0.9, beta2: float = 0.999) -> None:
        self.steps += 1
        for parameter, gradient, first, second in zip(self.parameters, gradients, self.first, self.second,
                                                      strict=True):
            first *= beta1
            first += (1 - beta1) * gradient
            second *= beta2
            second += (1 - beta2) * gradient**2
            corrected = first / (1 - beta1**self.steps)
            scale = np.sqrt(second / (1 - beta2**self.steps)) + 1e-8
            parameter += self.learning_rate * corrected / scale


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
    parser.add_argument("--learning-rate", type=float, default=0.002)
    parser.add_argument("--batch", type=int, default=8, help="episodes per update")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    envs = [BestiaryEnv("critter-capture", players=2, opponents=[args.opponent], seat=seat) for seat in (0, 1)]
    features = envs[0].observation_space.shape[0]
    policy = LinearPolicy(features, int(envs[0].action_space.n))
    print(f"Training a linear policy ({features} features) for {args.episodes} episodes against "
          f"{args.opponent}...")
    train(policy, envs, args.episodes, args.learning_rate, np.random.default_rng(args.seed), args.batch)

    print(f"\nMean return over {args.eval_games} seeded games (1 = a win, 0.5 = a shared win):")
    print(f"{'player':<18}{'vs random':>12}{'vs heuristic':>14}")
    for label, player in (("trained policy", policy), ("uniform random", None)):
        scores = [evaluate(player, opponent, args.eval_games, seed=10_000) for opponent in ("random", "heuristic")]
        print(f"{label:<18}{scores[0]:>12.3f}{scores[1]:>14.3f}")


if __name__ == "__main__":
    main()
