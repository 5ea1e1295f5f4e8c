"""Train sb3-contrib's MaskablePPO on two-player critter capture against the heuristic, then measure it.

    pip install -e '.[rl,train]'                       # sb3-contrib and PyTorch (CPU)
    python examples/maskable_ppo.py                     # about 28 minutes on a shared two-core machine
    python examples/maskable_ppo.py --clone-games 50 --steps 4000 --eval-games 40   # a quick look
    python examples/maskable_ppo.py --no-advice         # the observation alone, without the heuristic's choice
    python examples/maskable_ppo.py --teacher "mcts:hard,sims=100" --clone-games 300 --clone-jobs 2 \
        --clone-cache mcts.npz                          # clone a search instead (its games take long to record)

The policy sees the game's observation tensor with the heuristic's choice for the decision appended, one-hot
(`HeuristicAdvice`, asked of the public agent API), and learns where to follow it and where not to. Two
stages. First the policy clones the heuristic (or the agent named by `--teacher`): seeded games of the
teacher in the learner's seat against the heuristic, at both seats, give (observation, legal actions, the
teacher's action, the game's result) for each of the teacher's decisions, and the network is fitted to them,
a smoothed cross-entropy over the legal actions for the policy (the smoothing leaves PPO room to explore)
and the squared error to the result for the value. Then
MaskablePPO fine-tunes it against the heuristic, so it starts at the heuristic's level and only has to
improve on it. The learner plays seat 0 in half the training environments and seat 1 in the other half,
through `bestiary.rl.gymnasium.BestiaryEnv`; MaskablePPO reads the legal actions from `action_masks()`.

Evaluation plays seeded games that neither stage trained on, at both seats against the heuristic (the policy
taking its most probable legal action), beside the cloned policy before fine-tuning, the heuristic itself and
a uniformly random player on the same games. For each it reports, with 95% intervals (normal approximation),
the mean score (a win 1, a shared win 0.5), the margin over its opponent and the gain over the heuristic in
its place, both paired game by game (`report`).
"""

from __future__ import annotations

import argparse
import functools
import math
import multiprocessing
import random
import time
from pathlib import Path
from typing import Any

import numpy as np

from bestiary.agents import SeatView, make_agent
from bestiary.rl.gymnasium import BestiaryEnv

try:
    import gymnasium
    import torch
    from gymnasium import spaces
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError as error:  # the example's own extra
    raise SystemExit("this example needs sb3-contrib and PyTorch: pip install -e '.[rl,train]'") from error

GAME = "critter-capture"
CLONE_SEED = 1_000_000  # the cloned games' seeds, far from the evaluation's
EVALUATION_SEED = 20_000  # games no variant of the example was chosen on (docs/rl.md)


class HeuristicAdvice(gymnasium.ObservationWrapper[np.ndarray, np.int64, np.ndarray]):
    """The observation with the heuristic's choice for this decision appended, one-hot (all zero once the
    game is over), asked of the public agent API: the policy can follow it and learn where not to."""

    def __init__(self, env: BestiaryEnv) -> None:
        super().__init__(env)
        self.bestiary = env
        self.heuristic = make_agent("heuristic")
        self.rng = random.Random(0)  # critter capture's heuristic never draws from it
        actions = int(env.action_space.n)
        low, high = env.observation_space.low, env.observation_space.high
        self.observation_space = spaces.Box(np.concatenate([low, np.zeros(actions, np.float32)]),
                                            np.concatenate([high, np.ones(actions, np.float32)]))

    def observation(self, observation: np.ndarray) -> np.ndarray:
        advice = np.zeros(int(self.bestiary.action_space.n), np.float32)
        if not self.bestiary.game_state.is_terminal():
            view = SeatView(self.bestiary.game_state, self.bestiary.seat)
            advice[self.heuristic.act(view, self.rng).index] = 1.0
        return np.concatenate([observation, advice])

    def action_masks(self) -> np.ndarray:
        return self.bestiary.action_masks()


def make_env(seat: int, advice: bool = False) -> BestiaryEnv | HeuristicAdvice:
    env = BestiaryEnv(GAME, players=2, seat=seat, opponents=["heuristic"])
    return HeuristicAdvice(env) if advice else env


def mean_with_interval(scores: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval."""
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(len(scores) - 1, 1))
    return mean, 1.96 * spread / math.sqrt(len(scores))


def teacher_game(teacher: str, game: int, seed: int, advice: bool) -> tuple[list[Any], ...]:
    """One seeded game of the teacher in the learner's seat (seat 0 in even games, 1 in odd ones) against
    the heuristic: the observations, legal-action masks and actions of each of the teacher's decisions and
    the game's final score for each."""
    agent = make_agent(teacher)  # afresh for every game: a search keeps its tree between moves
    env = make_env(game % 2, advice)
    observation, _ = env.reset(seed=seed + game)
    rng = random.Random(seed + game)
    observations, masks, actions = [], [], []
    done, total = False, 0.0
    while not done:
        action = agent.act(SeatView(env.unwrapped.game_state, game % 2), rng)
        observations.append(observation)
        masks.append(env.action_masks())
        actions.append(action.index)
        observation, reward, done, _, _ = env.step(action.index)
        total += float(reward)
    return observations, masks, actions, [total] * len(actions)


def teacher_decisions(teacher: str, games: int, seed: int, advice: bool, jobs: int) -> tuple[np.ndarray, ...]:
    """The teacher's decisions over seeded games (`teacher_game`), played on `jobs` processes."""
    record = functools.partial(teacher_game, teacher, seed=seed, advice=advice)
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            played = pool.map(record, range(games), chunksize=4)
    else:
        played = [record(game) for game in range(games)]
    columns = [[item for game in played for item in game[k]] for k in range(4)]
    return (np.array(columns[0], np.float32), np.array(columns[1], bool), np.array(columns[2], np.int64),
            np.array(columns[3], np.float32))


def recorded_decisions(teacher: str, games: int, seed: int, advice: bool, jobs: int,
                       cache: Path | None) -> tuple[np.ndarray, ...]:
    """`teacher_decisions`, kept in `cache` (a .npz file) when one is named: a search teacher's games take
    long to record, and the same teacher, games, seed and advice give the same decisions."""
    key = np.array([teacher, str(games), str(seed), str(advice)])
    if cache is not None and cache.exists():
        stored = np.load(cache)
        if np.array_equal(stored["key"], key):
            return stored["observations"], stored["masks"], stored["actions"], stored["results"]
        raise SystemExit(f"{cache} holds other decisions ({' '.join(stored['key'])}); name another file")
    decisions = teacher_decisions(teacher, games, seed, advice, jobs)
    if cache is not None:
        np.savez_compressed(cache, key=key, observations=decisions[0], masks=decisions[1], actions=decisions[2],
                            results=decisions[3])
    return decisions


def clone_teacher(model: MaskablePPO, decisions: tuple[np.ndarray, ...], epochs: int, smoothing: float,
                  seed: int) -> float:
    """Fit the policy to the teacher's actions and the value to the games' results; the share of the
    decisions on which the fitted policy's most probable action is the teacher's."""
    observations, masks, actions, results = (torch.as_tensor(a) for a in decisions)
    policy = model.policy
    optimiser = torch.optim.Adam(policy.parameters(), lr=1e-3)
    order = torch.Generator().manual_seed(seed)
    policy.set_training_mode(True)
    for _ in range(epochs):
        for batch in torch.randperm(len(actions), generator=order).split(512):
            legal = masks[batch]
            distribution = policy.get_distribution(observations[batch], action_masks=legal)
            log_probabilities = distribution.distribution.logits  # normalised, illegal ones at -1e8
            chosen = log_probabilities.gather(1, actions[batch, None]).flatten()
            spread = (log_probabilities * legal).sum(1) / legal.sum(1)  # smoothing keeps PPO exploring
            value = policy.predict_values(observations[batch]).flatten()
            loss = (-((1 - smoothing) * chosen + smoothing * spread).mean()
                    + 0.5 * torch.nn.functional.mse_loss(value, results[batch]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        chosen = policy.get_distribution(observations, action_masks=masks.numpy()).mode()
    return float((chosen == actions).float().mean())


Scores = list[tuple[float, float]]  # per evaluation game: the learner seat's score and its opponent's


def final_scores(env: BestiaryEnv | HeuristicAdvice) -> tuple[float, float]:
    bestiary = env.unwrapped
    assert isinstance(bestiary, BestiaryEnv)
    returns = bestiary.game_state.returns()
    return float(returns[bestiary.seat]), float(returns[1 - bestiary.seat])


def evaluate_policy(model: MaskablePPO, games: int, seed: int, advice: bool) -> Scores:
    scores = []
    for game in range(games):
        env = make_env(game % 2, advice)
        observation, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
            observation, _, done, _, _ = env.step(int(action))
        scores.append(final_scores(env))
    return scores


def evaluate_agent(name: str, games: int, seed: int) -> Scores:
    """An agent in the learner's seat against the heuristic, on the same seeded games."""
    agent = make_agent(name)
    scores = []
    for game in range(games):
        env = make_env(seat=game % 2)
        env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        done = False
        while not done:
            action = agent.act(SeatView(env.game_state, env.seat), rng)
            _, _, done, _, _ = env.step(action.index)
        scores.append(final_scores(env))
    return scores


def report(rows: list[tuple[str, Scores]], baseline: Scores) -> None:
    """Each player's mean score, its margin over its opponent (the heuristic) in the same games, and its gain
    over the heuristic playing in its place on the same seeded games, each with a 95% interval. The last two
    are paired game by game, so they see differences that the scores' own intervals hide: a player that plays
    the heuristic's move at most decisions plays mostly the same games."""
    print(f"{'':<16}{'score':>15}{'margin over its opponent':>27}{'gain over the heuristic':>27}")
    for label, scores in rows:
        score = mean_with_interval([own for own, _ in scores])
        margin = mean_with_interval([own - other for own, other in scores])
        gain = mean_with_interval([own - base for (own, _), (base, _) in zip(scores, baseline, strict=True)])
        print(f"{label:<16}{score[0]:>7.3f} ± {score[1]:.3f}"
              + "".join(f"{mean:>+19.3f} ± {half:.3f}" for mean, half in (margin, gain)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teacher", default="heuristic", help="the agent cloned first, by name (mcts:hard, ...)")
    parser.add_argument("--clone-games", type=int, default=1000, help="the teacher's games to clone (0: none)")
    parser.add_argument("--clone-jobs", type=int, default=1, help="processes recording the teacher's games")
    parser.add_argument("--clone-cache", type=Path, help="a .npz file keeping the teacher's recorded decisions")
    parser.add_argument("--clone-epochs", type=int, default=10)
    parser.add_argument("--clone-smoothing", type=float, default=0.1,
                        help="the cloned target's share spread over all legal actions")
    parser.add_argument("--entropy", type=float, default=0.01, help="PPO's entropy bonus")
    parser.add_argument("--steps", type=int, default=1_000_000, help="learner decisions to fine-tune on")
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--envs", type=int, default=4, help="training environments (half at each seat)")
    parser.add_argument("--eval-games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--eval-seed", type=int,
                        help=f"the first evaluation game's seed (default: {EVALUATION_SEED} + the seed)")
    parser.add_argument("--save", type=Path, help="save the trained model here (MaskablePPO.load reads it)")
    parser.add_argument("--no-advice", dest="advice", action="store_false",
                        help="leave the heuristic's choice out of the observation")
    args = parser.parse_args()
    torch.set_num_threads(1)  # a small network: more threads only contend for the cores

    envs = DummyVecEnv([lambda seat=k % 2: make_env(seat, args.advice) for k in range(args.envs)])
    model = MaskablePPO("MlpPolicy", envs, n_steps=512, batch_size=256, n_epochs=4,
                        learning_rate=args.learning_rate, gamma=1.0, clip_range=0.1, ent_coef=args.entropy,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, verbose=0, device="cpu")
    evaluation_seed = EVALUATION_SEED + args.seed if args.eval_seed is None else args.eval_seed
    rows = []
    if args.clone_games:
        started = time.perf_counter()
        decisions = recorded_decisions(args.teacher, args.clone_games, CLONE_SEED + args.seed, args.advice,
                                       args.clone_jobs, args.clone_cache)
        agreement = clone_teacher(model, decisions, args.clone_epochs, args.clone_smoothing, CLONE_SEED + args.seed)
        seconds = time.perf_counter() - started
        print(f"Cloned the teacher ({args.teacher}) from {args.clone_games} games in {seconds:.0f} s: "
              f"the policy takes its action at {agreement:.1%} of its decisions")
        rows.append(("cloned policy", evaluate_policy(model, args.eval_games, evaluation_seed, args.advice)))
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"Trained MaskablePPO for {args.steps} decisions in {time.perf_counter() - started:.0f} s")
    if args.save:
        model.save(args.save)

    print(f"\nAgainst the heuristic over {args.eval_games} seeded games at both seats (a score: 1 for a win, "
          "0.5 for a shared win), with 95% intervals:")
    heuristic = evaluate_agent("heuristic", args.eval_games, evaluation_seed)
    rows = [("MaskablePPO", evaluate_policy(model, args.eval_games, evaluation_seed, args.advice)), *rows,
            ("heuristic", heuristic), ("uniform random", evaluate_agent("random", args.eval_games, evaluation_seed))]
    report(rows, heuristic)


if __name__ == "__main__":
    main()
