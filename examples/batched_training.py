"""Does the batched engine pay in training? The same learner on the batched and on the Python engine.

    pip install -e '.[rl]'
    python examples/batched_training.py                      # up to ten minutes and more
    python examples/batched_training.py --budget 20          # a quick look

A CleanRL-style PPO in numpy alone learns a two-player game (critter capture unless `--game` says otherwise)
against uniformly random opponents: a policy and a value network of one tanh hidden layer each, the action
mask applied to the policy's scores, rollouts of `--rollout` steps in `--games` games at once (half with the
learner at seat 0, half at seat 1), generalised advantage estimation, then `--epochs` passes of clipped
policy-gradient steps over `--minibatches` minibatches (Adam, an entropy bonus). The learner is the same array
code for both environments; only the environment differs: `BatchedVectorEnv` (the batched engine) or
`BestiaryVectorEnv` (the Python engine, one game after another). Every few updates the greedy policy plays
`--eval-games` seeded games on the batched engine (the same games for both runs, not counted as training
time), and a run stops when it scores `--target` (by default the heuristic's score against random) or its
training time reaches `--budget` seconds. A policy that stops at the target is then scored again on
`--confirm-games` games it was never measured on, as the first evaluation to reach the target flatters it.

The networks are small: run it with OPENBLAS_NUM_THREADS=1, so that numpy does not spread (and spin) each
product over threads, which on a busy machine costs more than it saves. `--engines batched` trains on the
batched engine alone.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv

from bestiary.rl.batched import BatchedVectorEnv
from bestiary.rl.vector import BestiaryVectorEnv

# The heuristic's mean return against one random opponent, both seats alike (seeded games of the scalar
# engine: 4096 of critter capture, 400 of Cube Creatures; docs/rl.md), with the half-width of its 95% interval.
HEURISTIC_AGAINST_RANDOM = {"critter-capture": (0.885, 0.010), "cube-creatures": (0.965, 0.018)}


class Network:
    """One tanh hidden layer; `scale` sizes the output layer's first weights (small for a policy's scores)."""

    def __init__(self, inputs: int, hidden: int, outputs: int, scale: float, rng: np.random.Generator) -> None:
        self.parameters = [rng.normal(0.0, np.sqrt(1 / inputs), (inputs, hidden)).astype(np.float32),
                           np.zeros(hidden, np.float32),
                           (rng.normal(0.0, np.sqrt(1 / hidden), (hidden, outputs)) * scale).astype(np.float32),
                           np.zeros(outputs, np.float32)]

    def forward(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(the hidden layer, the outputs)."""
        hidden = np.tanh(inputs @ self.parameters[0] + self.parameters[1])
        return hidden, hidden @ self.parameters[2] + self.parameters[3]

    def gradients(self, inputs: np.ndarray, hidden: np.ndarray, output_gradient: np.ndarray) -> list[np.ndarray]:
        hidden_gradient = (output_gradient @ self.parameters[2].T) * (1 - hidden**2)
        return [inputs.T @ hidden_gradient, hidden_gradient.sum(axis=0), hidden.T @ output_gradient,
                output_gradient.sum(axis=0)]


class Adam:
    """Adam over a list of arrays, the whole gradient's norm clipped to `max_norm` first."""

    def __init__(self, parameters: list[np.ndarray], learning_rate: float, max_norm: float = 0.5) -> None:
        self.parameters, self.learning_rate, self.max_norm = parameters, learning_rate, max_norm
        self.moments = [(np.zeros_like(p), np.zeros_like(p)) for p in parameters]
        self.steps = 0

    def descend(self, gradients: list[np.ndarray]) -> None:
        self.steps += 1
        norm = float(np.sqrt(sum(float((g**2).sum()) for g in gradients)))
        shrink = min(1.0, self.max_norm / (norm + 1e-8))
        for parameter, gradient, (mean, square) in zip(self.parameters, gradients, self.moments, strict=True):
            gradient = gradient * shrink
            mean *= 0.9
            mean += 0.1 * gradient
            square *= 0.999
            square += 0.001 * gradient**2
            parameter -= self.learning_rate * (mean / (1 - 0.9**self.steps)) / (
                np.sqrt(square / (1 - 0.999**self.steps)) + 1e-5)


def log_probabilities(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Log-softmax over the legal actions; an illegal action gets a probability of (almost exactly) 0."""
    scores = np.where(masks, scores, -1e9)
    scores = scores - scores.max(axis=1, keepdims=True)
    return scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))


def playable(masks: np.ndarray) -> np.ndarray:
    """Boolean masks with every action allowed in a game that has just ended (its action is ignored)."""
    masks = masks.astype(bool)
    return masks | ~masks.any(axis=1, keepdims=True)


class Learner:
    """PPO's policy and value networks, their optimiser and the update from one rollout."""

    def __init__(self, features: int, actions: int, args: argparse.Namespace, rng: np.random.Generator) -> None:
        self.policy = Network(features, args.hidden, actions, 0.01, rng)
        self.value = Network(features, args.hidden, 1, 1.0, rng)
        self.optimiser = Adam(self.policy.parameters + self.value.parameters, args.learning_rate)
        self.args, self.rng = args, rng

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.where(playable(masks), self.policy.forward(observations)[1], -np.inf).argmax(axis=1)

    def sample(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions drawn from the policy, their log-probabilities, the value of each observation)."""
        logs = log_probabilities(self.policy.forward(observations)[1], masks)
        actions = (np.exp(logs).cumsum(axis=1) > self.rng.random((len(masks), 1))).argmax(axis=1)
        return actions, logs[np.arange(len(actions)), actions], self.value.forward(observations)[1][:, 0]

    def update(self, observations: np.ndarray, masks: np.ndarray, actions: np.ndarray, old_logs: np.ndarray,
               advantages: np.ndarray, returns: np.ndarray) -> None:
        """`--epochs` passes of clipped PPO steps over shuffled minibatches of one rollout's decisions."""
        args = self.args
        for _ in range(args.epochs):
            for batch in np.array_split(self.rng.permutation(len(actions)), args.minibatches):
                size, chosen = len(batch), actions[batch]
                advantage = advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                hidden, scores = self.policy.forward(observations[batch])
                logs = log_probabilities(scores, masks[batch])
                probabilities = np.exp(logs)
                ratio = np.exp(logs[np.arange(size), chosen] - old_logs[batch])
                # The clipped objective's gradient flows only where the unclipped term is the smaller one.
                unclipped = ratio * advantage <= np.clip(ratio, 1 - args.clip, 1 + args.clip) * advantage
                score_gradient = -probabilities * (-(advantage * ratio * unclipped) / size)[:, None]
                score_gradient[np.arange(size), chosen] -= advantage * ratio * unclipped / size
                legal_logs = np.where(masks[batch], logs, 0.0)
                entropy = -(probabilities * legal_logs).sum(axis=1, keepdims=True)
                score_gradient += args.entropy * probabilities * (legal_logs + entropy) / size
                value_hidden, values = self.value.forward(observations[batch])
                value_gradient = (values[:, 0] - returns[batch])[:, None] * (2 * args.value_weight / size)
                self.optimiser.descend(
                    self.policy.gradients(observations[batch], hidden, score_gradient.astype(np.float32))
                    + self.value.gradients(observations[batch], value_hidden, value_gradient.astype(np.float32)))


def evaluate(learner: Learner, game: str, games: int, seed: int) -> tuple[float, float]:
    """The greedy policy's mean return over seeded games on the batched engine, half at each seat, with the
    half-width of its 95% interval."""
    scores = []
    for seat in (0, 1):
        envs = BatchedVectorEnv(game, num_envs=games // 2, players=2, seat=seat)
        observations, infos = envs.reset(seed=seed + seat * games)
        done, total = np.zeros(games // 2, bool), np.zeros(games // 2)
        while not done.all():
            observations, rewards, terminated, _, infos = envs.step(learner.greedy(observations,
                                                                                   infos["action_mask"]))
            total += np.where(done, 0.0, rewards)
            done |= terminated
        scores.append(total)
    every = np.concatenate(scores)
    return float(every.mean()), float(1.96 * every.std(ddof=1) / np.sqrt(len(every))) if len(every) > 1 else 0.0


def rollout(learner: Learner, envs: list[VectorEnv], state: list[tuple[np.ndarray, dict[str, Any]]],
            ended: list[np.ndarray], length: int) -> tuple[tuple[np.ndarray, ...], float]:
    """`length` steps of every game; returns the decisions made (observations, masks, actions, their
    log-probabilities, advantages and returns; the steps that only deal a new game left out) and the wall
    seconds spent in the environments' `step`."""
    record: list[list[np.ndarray]] = [[] for _ in range(8)]
    stepping = 0.0
    for _ in range(length):
        for seat, env in enumerate(envs):
            observations, infos = state[seat]
            masks = playable(infos["action_mask"])
            actions, logs, values = learner.sample(observations, masks)
            began = time.perf_counter()
            next_observations, rewards, terminated, _, next_infos = env.step(actions)
            stepping += time.perf_counter() - began
            # Next-step autoreset: the step after a game's end deals the next game and is no decision.
            for store, part in zip(record, (observations, masks, actions, logs, values, rewards, terminated,
                                            ~ended[seat]), strict=True):
                store.append(part)
            ended[seat], state[seat] = terminated, (next_observations, next_infos)
    # Time along the first axis, the games of both seats along the second.
    observations, masks, actions, logs, values, rewards, terminated, decided = (
        np.stack([np.concatenate(steps[t:t + len(envs)]) for t in range(0, len(steps), len(envs))])
        for steps in record)
    following = np.concatenate([learner.value.forward(state[seat][0])[1][:, 0] for seat in range(len(envs))])
    advantages, running = np.zeros_like(rewards, dtype=np.float32), np.zeros(rewards.shape[1], np.float32)
    args = learner.args
    for t in reversed(range(length)):
        going_on = 1.0 - terminated[t]
        running = (rewards[t] + args.gamma * following * going_on - values[t]
                   + args.gamma * args.gae_lambda * going_on * running)
        advantages[t], following = running, values[t]
    returns = advantages + values
    used = decided.reshape(-1)
    return tuple(part.reshape(-1, *part.shape[2:])[used] for part in
                 (observations, masks, actions, logs, advantages, returns)), stepping


def train(make: Callable[[int, int], VectorEnv], args: argparse.Namespace,
          ) -> tuple[Learner, tuple[float, float], float, int, float, float]:
    """Train until the target or the budget; returns (the learner, its last evaluation, training wall seconds,
    learner steps, training CPU seconds, wall seconds of them in the environment's `step`)."""
    envs = [make(args.games // 2, seat) for seat in (0, 1)]
    state = [env.reset(seed=args.seed + 10_000 * seat) for seat, env in enumerate(envs)]
    ended = [np.zeros(args.games // 2, bool) for _ in envs]
    rng = np.random.default_rng(args.seed)
    observation_space, action_space = envs[0].single_observation_space, envs[0].single_action_space
    assert observation_space.shape is not None and isinstance(action_space, spaces.Discrete)
    learner = Learner(observation_space.shape[0], int(action_space.n), args, rng)
    wall = cpu = stepping = 0.0
    steps = 0
    score = evaluate(learner, args.game, args.eval_games, args.eval_seed)
    while score[0] < args.target and wall < args.budget:
        began, began_cpu = time.perf_counter(), time.process_time()
        for _ in range(args.updates_between_evaluations):
            decisions, seconds = rollout(learner, envs, state, ended, args.rollout)
            learner.update(*decisions)
            stepping += seconds
            steps += args.games * args.rollout
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
        score = evaluate(learner, args.game, args.eval_games, args.eval_seed)
        print(f"    {steps:>10,} learner steps, {wall:6.1f} s: greedy policy scores {score[0]:.3f} ± {score[1]:.3f}",
              flush=True)
    return learner, score, wall, steps, cpu, stepping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(HEURISTIC_AGAINST_RANDOM), default="critter-capture")
    parser.add_argument("--target", type=float, help="mean return against random to reach (default: the "
                        "heuristic's)")
    parser.add_argument("--budget", type=float, default=300.0, help="training seconds at most, per run")
    parser.add_argument("--games", type=int, default=256, help="games stepped together (half at each seat)")
    parser.add_argument("--rollout", type=int, default=32, help="steps per rollout")
    parser.add_argument("--updates-between-evaluations", type=int, default=10)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--hidden", type=int, default=128, help="units in each network's hidden layer")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--minibatches", type=int, default=4)
    parser.add_argument("--clip", type=float, default=0.2)
    parser.add_argument("--entropy", type=float, default=0.002, help="the entropy bonus's weight")
    parser.add_argument("--value-weight", type=float, default=0.5)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--eval-games", type=int, default=1024)
    parser.add_argument("--eval-seed", type=int, default=1_000_000)
    parser.add_argument("--confirm-games", type=int, default=4096)
    parser.add_argument("--confirm-seed", type=int, default=2_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", choices=("both", "batched", "python"), default="both")
    args = parser.parse_args()
    heuristic, heuristic_half = HEURISTIC_AGAINST_RANDOM[args.game]
    if args.target is None:
        args.target = heuristic
    runs = {"BatchedVectorEnv (batched engine)":
            lambda n, seat: BatchedVectorEnv(args.game, num_envs=n, players=2, seat=seat),
            "BestiaryVectorEnv (Python engine)":
            lambda n, seat: BestiaryVectorEnv(args.game, num_envs=n, players=2, seat=seat)}
    results = {}
    for name, make in runs.items():
        if args.engines != "both" and args.engines not in name.lower():
            continue
        print(f"{name}: training to {args.target} against random opponents on {args.game}, {args.games} games")
        learner, score, wall, steps, cpu, stepping = train(make, args)
        confirmed = evaluate(learner, args.game, args.confirm_games, args.confirm_seed)
        results[name] = score, confirmed, wall, steps, cpu, stepping
    print(f"\nheuristic against random: {heuristic:.3f} ± {heuristic_half:.3f}; the target: {args.target}")
    print(f"\n{'environment':<36}{'score':>7}{'fresh games':>16}{'learner steps':>15}{'training s':>12}{'CPU s':>8}"
          f"{'in step s':>11}  target")
    for name, (score, confirmed, wall, steps, cpu, stepping) in results.items():
        print(f"{name:<36}{score[0]:>7.3f}{confirmed[0]:>9.3f} ± {confirmed[1]:.3f}{steps:>15,}{wall:>12.1f}"
              f"{cpu:>8.1f}{stepping:>11.1f}  {'reached' if score[0] >= args.target else 'not reached'}")


if __name__ == "__main__":
    main()
