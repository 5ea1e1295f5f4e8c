"""Does the batched engine pay in training? The same learner on the batched and on the Python engine.

    pip install -e '.[rl]'
    OPENBLAS_NUM_THREADS=1 python examples/batched_training.py            # 15 minutes or so, both engines
    OPENBLAS_NUM_THREADS=1 python examples/batched_training.py --budget 20 --target 0.7   # a quick look

A CleanRL-style PPO in numpy alone learns a two-player game (critter capture unless `--game` says otherwise)
against uniformly random opponents: a policy and a value network of one tanh hidden layer each, the action
mask applied to the policy's scores, rollouts of `--rollout` steps in `--games` games at once (half with the
learner at seat 0, half at seat 1), generalised advantage estimation, then `--epochs` passes of clipped
policy-gradient steps over `--minibatches` minibatches (Adam, its learning rate falling linearly over
`--anneal-steps` learner steps, an entropy bonus). The learner is the same array code for both environments;
only the environment differs: `BatchedVectorEnv` (the batched engine) or `BestiaryVectorEnv` (the Python
engine, one game after another).

What the networks read: the game's observation tensor and, for critter capture, card counts (`CardCounts`,
`--features card-counts`, the default there): numbers worked out from the tensor and the public card file,
what any player may count at the table (CRITTERS-6: the deck contents are public), such as each colour
deck's unseen cards' mean values and how many of them would beat, lose to, block or tie the card in play.
The tensor holds all of it, one card at a time; the counts only spare the network learning 48 cards' values
(`--features none` leaves them out).

When a run stops: every `--updates-between-evaluations` updates the greedy policy plays `--eval-games`
seeded games on the batched engine (the same games for both runs; evaluations are not counted as training
time). When it scores `--target` (by default the heuristic's own score against random), it plays
`--confirm-games` other seeded games, and the run stops if it scores the target there too; otherwise it goes
on training, up to `--budget` training seconds. As a run stops on a good measurement, which flatters it, the
policy it ends with is then scored on `--final-games` games used for nothing else: that figure is the one to
compare with the heuristic's.

The networks are small: run it with OPENBLAS_NUM_THREADS=1, so that numpy does not spread (and spin) each
product over threads, which on a busy machine costs more than it saves. `--engines batched` trains on the
batched engine alone.
"""

from __future__ import annotations

import argparse
import time
import tomllib
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv

from bestiary.core.cards import game_card_text
from bestiary.core.registry import load_game
from bestiary.rl.batched import BatchedVectorEnv
from bestiary.rl.vector import BestiaryVectorEnv

# The heuristic's mean return against one random opponent, both seats alike, with the half-width of its 95%
# interval: `bestiary simulate critter-capture --agents heuristic,random --games 40000 --seed 500000` and
# 400 seeded games of Cube Creatures on the scalar engine (docs/rl.md).
HEURISTIC_AGAINST_RANDOM = {"critter-capture": (0.883, 0.003), "cube-creatures": (0.965, 0.018)}
COLOURS = ("fish", "bird", "mammal", "other")  # critter capture's colours, in the tensor's order
ABILITIES = ("capture", "block", "trapped by")


class CardCounts:
    """Card counts for two-player critter capture, worked out from the observation tensor (its layout in
    docs/rl.md) and the game's public card file, for every game of a batch at once."""

    def __init__(self, players: int = 2) -> None:
        text = game_card_text(load_game("critter-capture", players=players))
        assert text is not None
        cards: list[dict[str, Any]] = tomllib.loads(text)["cards"]
        self.cards = len(cards)
        self.values = np.array([[c["commonness"], c["size"]] for c in cards], np.float32)  # (cards, 2)
        one_hot = np.eye(len(COLOURS), dtype=np.float32)
        self.colour = one_hot[[COLOURS.index(c["colour"]) for c in cards]]  # (cards, colours)
        abilities = [c["ability"].rsplit(" ", 1) for c in cards]
        self.ability = np.eye(len(ABILITIES), dtype=np.float32)[[ABILITIES.index(kind) for kind, _ in abilities]]
        # [k, j]: card k's ability takes effect when it challenges card j (its colour is j's: CRITTERS-26)
        self.takes_effect = one_hot[[COLOURS.index(colour) for _, colour in abilities]] @ self.colour.T
        # The card places follow phase, progress, seat roles, two attributes, face-down colour, deck sizes.
        self.places_at = 9 + 2 + 5 * players + 2 + 2 + 4 + 4
        self.places = 3 + players  # unseen, active, under the active card, each seat's corral
        self.size = len(self.names())

    @staticmethod
    def names() -> list[str]:
        decks = [f"{colour} deck" for colour in COLOURS]
        return ([f"{deck}: unseen cards / 12" for deck in decks]
                + [f"{deck}: unseen mean {a} / 10" for deck in decks for a in ("commonness", "size")]
                + [f"active card's {a} / 10" for a in ("commonness", "size")]
                + [f"active card is {colour}" for colour in COLOURS] + ["cards under the active card / 10"]
                + [f"{deck}: share of its unseen cards that {outcome} the active card by {a}"
                   for deck in decks for a in ("commonness", "size") for outcome in ("beat", "lose to", "block",
                                                                                     "tie")]
                + [f"share of all unseen cards below the active card's {a}" for a in ("commonness", "size")]
                + [f"{deck}: share beating the active card by {a} × cards under it / 10" for deck in decks
                   for a in ("commonness", "size")])

    def __call__(self, tensors: np.ndarray) -> np.ndarray:
        games = len(tensors)
        places = tensors[:, self.places_at:self.places_at + self.cards * self.places].reshape(games, self.cards,
                                                                                             self.places)
        unseen, active, under = places[:, :, 0], places[:, :, 1], places[:, :, 2]
        in_deck = unseen @ self.colour  # (games, colours)
        per_deck = np.maximum(in_deck, 1.0)
        means = np.einsum("gk,ka,kc->gca", unseen, self.values, self.colour) / per_deck[:, :, None]
        in_play = active.sum(axis=1)  # 1 once the active card is flipped
        active_values = active @ self.values
        stacked = under.sum(axis=1) / 10
        # Each unseen card against the active card (CRITTERS-26, CRITTERS-20): its ability if it takes
        # effect, else its value against the active card's, for each attribute.
        effect = active @ self.takes_effect.T  # (games, cards)
        plain = (1 - effect)[:, :, None]
        higher = (self.values[None] > active_values[:, None, :]).astype(np.float32)  # (games, cards, 2)
        lower = (self.values[None] < active_values[:, None, :]).astype(np.float32)
        capture, block, trapped = (effect * self.ability[None, :, k] for k in range(3))
        outcomes = np.stack([plain * higher + capture[:, :, None], plain * lower + trapped[:, :, None],
                             np.broadcast_to(block[:, :, None], higher.shape), plain * (1 - higher - lower)],
                            axis=-1)  # (games, cards, 2, beat/lose/block/tie)
        shares = (np.einsum("gk,gkao,kc->gcao", unseen, outcomes, self.colour)
                  / per_deck[:, :, None, None] * in_play[:, None, None, None])
        below = (np.einsum("gk,gka->ga", unseen, lower) / np.maximum(unseen.sum(axis=1), 1.0)[:, None]
                 * in_play[:, None])
        return np.concatenate([in_deck / 12, means.reshape(games, -1) / 10, active_values / 10, active @ self.colour,
                               stacked[:, None], shares.reshape(games, -1), below,
                               (shares[..., 0] * stacked[:, None, None]).reshape(games, -1)],
                              axis=1).astype(np.float32)


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

    def __init__(self, tensor_size: int, actions: int, counts: CardCounts | None, args: argparse.Namespace,
                 rng: np.random.Generator) -> None:
        inputs = tensor_size + (counts.size if counts else 0)
        self.policy = Network(inputs, args.hidden, actions, 0.01, rng)
        self.value = Network(inputs, args.hidden, 1, 1.0, rng)
        self.optimiser = Adam(self.policy.parameters + self.value.parameters, args.learning_rate)
        self.counts, self.args, self.rng = counts, args, rng

    def inputs(self, observations: np.ndarray) -> np.ndarray:
        """What the networks read: the observation tensors, and the card counts where there are any."""
        return observations if self.counts is None else np.concatenate([observations, self.counts(observations)],
                                                                       axis=1)

    def greedy(self, inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.where(playable(masks), self.policy.forward(inputs)[1], -np.inf).argmax(axis=1)

    def sample(self, inputs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(actions drawn from the policy, their log-probabilities, the value of each position)."""
        logs = log_probabilities(self.policy.forward(inputs)[1], masks)
        actions = (np.exp(logs).cumsum(axis=1) > self.rng.random((len(masks), 1))).argmax(axis=1)
        return actions, logs[np.arange(len(actions)), actions], self.value.forward(inputs)[1][:, 0]

    def update(self, inputs: np.ndarray, masks: np.ndarray, actions: np.ndarray, old_logs: np.ndarray,
               advantages: np.ndarray, returns: np.ndarray) -> None:
        """`--epochs` passes of clipped PPO steps over shuffled minibatches of one rollout's decisions."""
        args = self.args
        for _ in range(args.epochs):
            for batch in np.array_split(self.rng.permutation(len(actions)), args.minibatches):
                size, chosen = len(batch), actions[batch]
                advantage = advantages[batch]
                advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                hidden, scores = self.policy.forward(inputs[batch])
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
                value_hidden, values = self.value.forward(inputs[batch])
                value_gradient = (values[:, 0] - returns[batch])[:, None] * (2 * args.value_weight / size)
                self.optimiser.descend(
                    self.policy.gradients(inputs[batch], hidden, score_gradient.astype(np.float32))
                    + self.value.gradients(inputs[batch], value_hidden, value_gradient.astype(np.float32)))


def evaluate(learner: Learner, game: str, games: int, seed: int) -> tuple[float, float]:
    """The greedy policy's mean return over seeded games on the batched engine, half at each seat, with the
    half-width of its 95% interval."""
    scores = []
    for seat in (0, 1):
        envs = BatchedVectorEnv(game, num_envs=games // 2, players=2, seat=seat)
        observations, infos = envs.reset(seed=seed + seat * games)
        done, total = np.zeros(games // 2, bool), np.zeros(games // 2)
        while not done.all():
            actions = learner.greedy(learner.inputs(observations), infos["action_mask"])
            observations, rewards, terminated, _, infos = envs.step(actions)
            total += np.where(done, 0.0, rewards)
            done |= terminated
        scores.append(total)
    every = np.concatenate(scores)
    return float(every.mean()), float(1.96 * every.std(ddof=1) / np.sqrt(len(every))) if len(every) > 1 else 0.0


def rollout(learner: Learner, envs: list[VectorEnv], state: list[tuple[np.ndarray, dict[str, Any]]],
            ended: list[np.ndarray], length: int) -> tuple[tuple[np.ndarray, ...], float]:
    """`length` steps of every game; returns the decisions made (the networks' inputs, masks, actions, their
    log-probabilities, advantages and returns; the steps that only deal a new game left out) and the wall
    seconds spent in the environments' `step`."""
    record: list[list[np.ndarray]] = [[] for _ in range(8)]
    stepping = 0.0
    for _ in range(length):
        for seat, env in enumerate(envs):
            inputs, masks = learner.inputs(state[seat][0]), playable(state[seat][1]["action_mask"])
            actions, logs, values = learner.sample(inputs, masks)
            began = time.perf_counter()
            next_observations, rewards, terminated, _, next_infos = env.step(actions)
            stepping += time.perf_counter() - began
            # Next-step autoreset: the step after a game's end deals the next game and is no decision.
            for store, part in zip(record, (inputs, masks, actions, logs, values, rewards, terminated,
                                            ~ended[seat]), strict=True):
                store.append(part)
            ended[seat], state[seat] = terminated, (next_observations, next_infos)
    # Time along the first axis, the games of both seats along the second.
    inputs, masks, actions, logs, values, rewards, terminated, decided = (
        np.stack([np.concatenate(steps[t:t + len(envs)]) for t in range(0, len(steps), len(envs))])
        for steps in record)
    following = np.concatenate([learner.value.forward(learner.inputs(state[seat][0]))[1][:, 0]
                                for seat in range(len(envs))])
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
                 (inputs, masks, actions, logs, advantages, returns)), stepping


def train(make: Callable[[int, int], VectorEnv], counts: CardCounts | None, args: argparse.Namespace,
          curve: list[tuple[float, int, float, float]],
          ) -> tuple[Learner, tuple[float, float], tuple[float, float] | None, float, int, float, float]:
    """Train until the target or the budget, adding (training seconds, learner steps, score, its half-width)
    to `curve` at each evaluation; returns (the learner, its last evaluation, its last confirmation if any,
    training wall seconds, learner steps, training CPU seconds, wall seconds of them in the environment's
    `step`)."""
    envs = [make(args.games // 2, seat) for seat in (0, 1)]
    state = [env.reset(seed=args.seed + 10_000 * seat) for seat, env in enumerate(envs)]
    ended = [np.zeros(args.games // 2, bool) for _ in envs]
    rng = np.random.default_rng(args.seed)
    observation_space, action_space = envs[0].single_observation_space, envs[0].single_action_space
    assert observation_space.shape is not None and isinstance(action_space, spaces.Discrete)
    learner = Learner(observation_space.shape[0], int(action_space.n), counts, args, rng)
    wall = cpu = stepping = 0.0
    steps = 0
    score, confirmed = evaluate(learner, args.game, args.eval_games, args.eval_seed), None
    curve.append((wall, steps, *score))
    while wall < args.budget:
        began, began_cpu = time.perf_counter(), time.process_time()
        for _ in range(args.updates_between_evaluations):
            learner.optimiser.learning_rate = args.learning_rate * max(0.05, 1 - steps / args.anneal_steps)
            decisions, seconds = rollout(learner, envs, state, ended, args.rollout)
            learner.update(*decisions)
            stepping += seconds
            steps += args.games * args.rollout
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
        score = evaluate(learner, args.game, args.eval_games, args.eval_seed)
        curve.append((wall, steps, *score))
        print(f"    {steps:>10,} learner steps, {wall:6.1f} s: greedy policy scores {score[0]:.3f} ± {score[1]:.3f}",
              flush=True)
        if score[0] >= args.target:
            confirmed = evaluate(learner, args.game, args.confirm_games, args.confirm_seed)
            print(f"    {'':>10}  the same policy on {args.confirm_games} other games: {confirmed[0]:.3f} ± "
                  f"{confirmed[1]:.3f}", flush=True)
            if confirmed[0] >= args.target:
                break
    return learner, score, confirmed, wall, steps, cpu, stepping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(HEURISTIC_AGAINST_RANDOM), default="critter-capture")
    parser.add_argument("--target", type=float, help="mean return against random to reach (default: the "
                        "heuristic's)")
    parser.add_argument("--budget", type=float, default=900.0, help="training seconds at most, per run")
    parser.add_argument("--features", choices=("card-counts", "none"),
                        help="card counts beside the tensor (default: card-counts for critter capture, which "
                        "alone has them)")
    parser.add_argument("--games", type=int, default=256, help="games stepped together (half at each seat)")
    parser.add_argument("--rollout", type=int, default=32, help="steps per rollout")
    parser.add_argument("--updates-between-evaluations", type=int, default=10)
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--anneal-steps", type=float, default=12e6,
                        help="learner steps over which the learning rate falls linearly to a twentieth")
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
    parser.add_argument("--final-games", type=int, default=16384)
    parser.add_argument("--final-seed", type=int, default=3_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", choices=("both", "batched", "python"), default="both")
    parser.add_argument("--plot", help="draw the learning curves into this picture (.png, .svg)")
    args = parser.parse_args()
    heuristic, heuristic_half = HEURISTIC_AGAINST_RANDOM[args.game]
    if args.target is None:
        args.target = heuristic
    if args.features is None:
        args.features = "card-counts" if args.game == "critter-capture" else "none"
    if args.features == "card-counts" and args.game != "critter-capture":
        parser.error("card counts are worked out for critter capture only: use --features none")
    counts = CardCounts() if args.features == "card-counts" else None
    runs = {"BatchedVectorEnv (batched engine)":
            lambda n, seat: BatchedVectorEnv(args.game, num_envs=n, players=2, seat=seat),
            "BestiaryVectorEnv (Python engine)":
            lambda n, seat: BestiaryVectorEnv(args.game, num_envs=n, players=2, seat=seat)}
    results, curves = {}, {}
    for name, make in runs.items():
        if args.engines != "both" and args.engines not in name.lower():
            continue
        print(f"{name}: training to {args.target} against random opponents on {args.game}, {args.games} games, "
              f"{'with' if counts else 'without'} card counts")
        curves[name] = []
        learner, score, confirmed, wall, steps, cpu, stepping = train(make, counts, args, curves[name])
        final = evaluate(learner, args.game, args.final_games, args.final_seed)
        results[name] = score, confirmed, final, wall, steps, cpu, stepping
    print(f"\nthe heuristic against random: {heuristic:.3f} ± {heuristic_half:.3f}; the target: {args.target}")
    print(f"\n{'environment':<36}{'last score':>11}{'confirmed':>11}{'final games':>16}{'learner steps':>15}"
          f"{'training s':>12}{'CPU s':>8}{'in step s':>11}  target")
    for name, (score, confirmed, final, wall, steps, cpu, stepping) in results.items():
        reached = confirmed is not None and confirmed[0] >= args.target
        print(f"{name:<36}{score[0]:>11.3f}{'n/a' if confirmed is None else f'{confirmed[0]:.3f}':>11}"
              f"{final[0]:>9.3f} ± {final[1]:.3f}{steps:>15,}{wall:>12.1f}{cpu:>8.1f}{stepping:>11.1f}  "
              f"{'reached' if reached else 'not reached'}")
    if args.plot:
        plot(curves, args, heuristic, heuristic_half)
        print(f"\nlearning curves drawn in {args.plot}")


def plot(curves: dict[str, list[tuple[float, int, float, float]]], args: argparse.Namespace, heuristic: float,
         heuristic_half: float) -> None:
    """The greedy policy's score against random as training goes on, by training seconds and by learner
    steps, for each engine, beside the heuristic's score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, (by_time, by_steps) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for (name, curve), colour in zip(curves.items(), ("tab:blue", "tab:orange"), strict=False):
        seconds, steps, scores, halves = (np.array(column, dtype=float) for column in zip(*curve, strict=True))
        for axes, x in ((by_time, seconds), (by_steps, steps / 1e6)):
            axes.plot(x, scores, color=colour, label=name, linewidth=1.4)
            axes.fill_between(x, scores - halves, scores + halves, color=colour, alpha=0.15, linewidth=0)
    for axes in (by_time, by_steps):
        axes.axhspan(heuristic - heuristic_half, heuristic + heuristic_half, color="0.6", alpha=0.35, linewidth=0)
        axes.axhline(heuristic, color="0.3", linestyle="--", linewidth=1, label="the heuristic (95% interval)")
        axes.grid(alpha=0.3)
    by_time.set_xlabel("training wall seconds (evaluations left out)")
    by_steps.set_xlabel("learner steps (millions)")
    by_time.set_ylabel(f"greedy policy's mean return against random\n({args.eval_games} seeded games, 95% band)")
    by_time.legend(loc="lower right", fontsize=8)
    counts = "with card counts" if args.features == "card-counts" else "tensor only"
    figure.suptitle(f"PPO learning two-player {args.game} against random ({counts}): the same learner on the "
                    "batched and the Python engine", fontsize=10)
    figure.tight_layout()
    figure.savefig(args.plot, dpi=110)
    plt.close(figure)


if __name__ == "__main__":
    main()
