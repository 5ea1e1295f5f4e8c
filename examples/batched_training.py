"""Does the batched engine pay in training? The same learner on the batched and on the Python engine.

    pip install -e '.[rl]'
    python examples/batched_training.py                      # a few minutes
    python examples/batched_training.py --budget 20          # a quick look

A linear softmax policy over the observation tensor (illegal actions masked out) learns two-player critter
capture against uniformly random opponents by REINFORCE: rollouts of `--rollout` steps in `--games` games
at once (half with the learner at seat 0, half at seat 1), each complete episode's steps weighted by its
return less the rollout's mean, one Adam step per rollout. The learner is the same array code for both
environments; only the environment differs: `BatchedVectorEnv` (the batched engine) or `BestiaryVectorEnv`
(the Python engine, one game after another). Every few updates the greedy policy plays `--eval-games`
seeded games on the batched engine (the same games for both runs, not counted as training time), and a run
stops when it scores `--target` or its training time reaches `--budget` seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
from gymnasium.vector import VectorEnv

from bestiary.rl.batched import BatchedVectorEnv
from bestiary.rl.vector import BestiaryVectorEnv

ACTIONS = 6


class LinearPolicy:
    def __init__(self, features: int, learning_rate: float) -> None:
        self.parameters = [np.zeros((features, ACTIONS)), np.zeros(ACTIONS)]
        self.moments = [[np.zeros_like(p), np.zeros_like(p)] for p in self.parameters]
        self.learning_rate = learning_rate
        self.updates = 0

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        scores = np.where(masks, observations @ self.parameters[0] + self.parameters[1], -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return exp / exp.sum(axis=1, keepdims=True)

    def ascend(self, observations: np.ndarray, masks: np.ndarray, actions: np.ndarray, advantages: np.ndarray,
               ) -> None:
        """One Adam step along the policy gradient: (one-hot(action) − probabilities) × advantage."""
        gradient = -self.probabilities(observations, masks)
        gradient[np.arange(len(actions)), actions] += 1.0
        gradient *= advantages[:, None] / len(actions)
        self.updates += 1
        for parameter, grad, moment in zip(self.parameters, (observations.T @ gradient, gradient.sum(axis=0)),
                                           self.moments, strict=True):
            moment[0] = 0.9 * moment[0] + 0.1 * grad
            moment[1] = 0.999 * moment[1] + 0.001 * grad**2
            step = (moment[0] / (1 - 0.9**self.updates)) / (np.sqrt(moment[1] / (1 - 0.999**self.updates)) + 1e-8)
            parameter += self.learning_rate * step


def playable(masks: np.ndarray) -> np.ndarray:
    """Boolean masks with every action allowed in a game that has just ended (its action is ignored)."""
    masks = masks.astype(bool)
    return masks | ~masks.any(axis=1, keepdims=True)


def evaluate(policy: LinearPolicy, games: int, seed: int) -> float:
    """The greedy policy's mean return over seeded games on the batched engine, half at each seat."""
    scores = []
    for seat in (0, 1):
        envs = BatchedVectorEnv("critter-capture", num_envs=games // 2, players=2, seat=seat)
        observations, infos = envs.reset(seed=seed + seat * games)
        done, total = np.zeros(games // 2, bool), np.zeros(games // 2)
        while not done.all():
            actions = policy.probabilities(observations, playable(infos["action_mask"])).argmax(axis=1)
            observations, rewards, terminated, _, infos = envs.step(actions)
            total += np.where(done, 0.0, rewards)
            done |= terminated
        scores.append(total.mean())
    return float(np.mean(scores))


def train(make: Callable[[int, int], VectorEnv], args: argparse.Namespace) -> tuple[float, float, int, float]:
    """Train until the target or the budget; returns (score, training wall seconds, learner steps, CPU s)."""
    envs = [make(args.games // 2, seat) for seat in (0, 1)]
    state = [env.reset(seed=args.seed + 10_000 * seat) for seat, env in enumerate(envs)]
    policy = LinearPolicy(envs[0].single_observation_space.shape[0], args.learning_rate)
    rng = np.random.default_rng(args.seed)
    wall = cpu = 0.0
    steps = 0
    score = evaluate(policy, args.eval_games, args.eval_seed)
    while score < args.target and wall < args.budget:
        began, began_cpu = time.perf_counter(), time.process_time()
        for _ in range(args.updates_between_evaluations):
            rollout = [[] for _ in range(6)]  # observations, masks, actions, rewards, terminated, counted
            ended = [np.zeros(args.games // 2, bool) for _ in envs]
            for _ in range(args.rollout):
                for seat, env in enumerate(envs):
                    observations, infos = state[seat]
                    masks = playable(infos["action_mask"])
                    probabilities = policy.probabilities(observations, masks)
                    actions = (probabilities.cumsum(axis=1) > rng.random((len(masks), 1))).argmax(axis=1)
                    next_observations, rewards, terminated, _, next_infos = env.step(actions)
                    for store, value in zip(rollout, (observations, masks, actions, rewards, terminated, ~ended[seat]),
                                            strict=True):
                        store.append(value)
                    ended[seat], state[seat] = terminated, (next_observations, next_infos)
                steps += args.games
            observations, masks, actions, rewards, terminated, counted = (np.stack(part) for part in rollout)
            # Each step's return is its episode's final reward; steps of episodes still going are left out.
            returns, finished = np.zeros_like(rewards), np.zeros_like(terminated)
            following, done = np.zeros(rewards.shape[1]), np.zeros(rewards.shape[1], bool)
            for t in reversed(range(len(rewards))):
                following = rewards[t] + np.where(terminated[t], 0.0, following)
                done = terminated[t] | done
                returns[t], finished[t] = following, done
            used = counted & finished
            policy.ascend(observations[used], masks[used], actions[used], returns[used] - returns[used].mean())
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
        score = evaluate(policy, args.eval_games, args.eval_seed)
        print(f"    {steps:>10,} learner steps, {wall:6.1f} s: greedy policy scores {score:.3f}", flush=True)
    return score, wall, steps, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", type=float, default=0.75, help="mean return against random to reach")
    parser.add_argument("--budget", type=float, default=300.0, help="training seconds at most, per run")
    parser.add_argument("--games", type=int, default=256, help="games stepped together (half at each seat)")
    parser.add_argument("--rollout", type=int, default=100, help="steps per rollout")
    parser.add_argument("--updates-between-evaluations", type=int, default=5)
    parser.add_argument("--learning-rate", type=float, default=0.01)
    parser.add_argument("--eval-games", type=int, default=1024)
    parser.add_argument("--eval-seed", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    runs = {"BatchedVectorEnv (batched engine)":
            lambda n, seat: BatchedVectorEnv("critter-capture", num_envs=n, players=2, seat=seat),
            "BestiaryVectorEnv (Python engine)":
            lambda n, seat: BestiaryVectorEnv("critter-capture", num_envs=n, players=2, seat=seat)}
    results = {}
    for name, make in runs.items():
        print(f"{name}: training to {args.target} against random opponents, {args.games} games")
        results[name] = train(make, args)
    print(f"\n{'environment':<36}{'score':>7}{'learner steps':>15}{'training s':>12}{'CPU s':>8}  target")
    for name, (score, wall, steps, cpu) in results.items():
        print(f"{name:<36}{score:>7.3f}{steps:>15,}{wall:>12.1f}{cpu:>8.1f}  "
              f"{'reached' if score >= args.target else 'not reached'}")


if __name__ == "__main__":
    main()
