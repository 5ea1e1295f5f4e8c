"""Train sb3-contrib's MaskablePPO on two-player critter capture against the heuristic, then measure it.

    pip install -e '.[rl,train]'                       # sb3-contrib and PyTorch (CPU)
    python examples/maskable_ppo.py                     # about twelve minutes on a busy two-core machine
    python examples/maskable_ppo.py --clone-games 50 --steps 4000 --eval-games 40   # a quick look
    python examples/maskable_ppo.py --no-advice         # the observation alone, without the heuristic's choice

The policy sees the game's observation tensor with the heuristic's choice for the decision appended, one-hot
(`HeuristicAdvice`, asked of the public agent API), and learns where to follow it and where not to. Two
stages. First the policy clones the heuristic: seeded games of the heuristic against itself at both seats give
(observation, legal actions, the heuristic's action, the game's result) for each of the learner seat's
decisions, and the network is fitted to them, a smoothed cross-entropy over the legal actions for the policy
(the smoothing leaves PPO room to explore) and the squared error to the result for the value. Then
MaskablePPO fine-tunes it against the heuristic, so it starts at the heuristic's level and only has to
improve on it. The learner plays seat 0 in half the training environments and seat 1 in the other half,
through `bestiary.rl.gymnasium.BestiaryEnv`; MaskablePPO reads the legal actions from `action_masks()`.

Evaluation plays seeded games that neither stage trained on, at both seats against the heuristic (the policy
taking its most probable legal action), and reports the mean score, a win 1 and a shared win 0.5, with a 95%
interval (normal approximation), beside the cloned policy before fine-tuning, the heuristic itself and a
uniformly random player on the same games.
"""

from __future__ import annotations

import argparse
import math
import random
import time

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
EVALUATION_SEED = 10_000


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


def heuristic_decisions(games: int, seed: int, advice: bool) -> tuple[np.ndarray, ...]:
    """The heuristic's decisions in the learner's seat against the heuristic: observations, legal-action
    masks, the actions taken and each game's final score for every decision in it."""
    heuristic = make_agent("heuristic")
    observations, masks, actions, results = [], [], [], []
    for game in range(games):
        env = make_env(game % 2, advice)
        observation, _ = env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        done, total, decisions = False, 0.0, 0
        while not done:
            action = heuristic.act(SeatView(env.unwrapped.game_state, game % 2), rng)
            observations.append(observation)
            masks.append(env.action_masks())
            actions.append(action.index)
            observation, reward, done, _, _ = env.step(action.index)
            total += float(reward)
            decisions += 1
        results.extend([total] * decisions)
    return (np.array(observations, np.float32), np.array(masks, bool), np.array(actions, np.int64),
            np.array(results, np.float32))


def clone_heuristic(model: MaskablePPO, games: int, epochs: int, smoothing: float, seed: int,
                    advice: bool) -> float:
    """Fit the policy to the heuristic's actions and the value to the games' results; the share of the
    decisions on which the fitted policy's most probable action is the heuristic's."""
    observations, masks, actions, results = (torch.as_tensor(a) for a in heuristic_decisions(games, seed, advice))
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


def evaluate_policy(model: MaskablePPO, games: int, seed: int, advice: bool) -> list[float]:
    scores = []
    for game in range(games):
        env = make_env(game % 2, advice)
        observation, _ = env.reset(seed=seed + game)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(observation, action_masks=env.action_masks(), deterministic=True)
            observation, reward, done, _, _ = env.step(int(action))
            total += float(reward)
        scores.append(total)
    return scores


def evaluate_agent(name: str, games: int, seed: int) -> list[float]:
    """An agent in the learner's seat against the heuristic, on the same seeded games."""
    agent = make_agent(name)
    scores = []
    for game in range(games):
        env = make_env(seat=game % 2)
        env.reset(seed=seed + game)
        rng = random.Random(seed + game)
        done, total = False, 0.0
        while not done:
            action = agent.act(SeatView(env.game_state, env.seat), rng)
            _, reward, done, _, _ = env.step(action.index)
            total += float(reward)
        scores.append(total)
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clone-games", type=int, default=1000, help="heuristic games to clone (0: none)")
    parser.add_argument("--clone-epochs", type=int, default=10)
    parser.add_argument("--clone-smoothing", type=float, default=0.1,
                        help="the cloned target's share spread over all legal actions")
    parser.add_argument("--entropy", type=float, default=0.01, help="PPO's entropy bonus")
    parser.add_argument("--steps", type=int, default=200_000, help="learner decisions to fine-tune on")
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--envs", type=int, default=4, help="training environments (half at each seat)")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-advice", dest="advice", action="store_false",
                        help="leave the heuristic's choice out of the observation")
    args = parser.parse_args()
    torch.set_num_threads(1)  # a small network: more threads only contend for the cores

    envs = DummyVecEnv([lambda seat=k % 2: make_env(seat, args.advice) for k in range(args.envs)])
    model = MaskablePPO("MlpPolicy", envs, n_steps=512, batch_size=256, n_epochs=4,
                        learning_rate=args.learning_rate, gamma=1.0, clip_range=0.1, ent_coef=args.entropy,
                        policy_kwargs={"net_arch": [256, 256]}, seed=args.seed, verbose=0, device="cpu")
    evaluation_seed = EVALUATION_SEED + args.seed
    rows = []
    if args.clone_games:
        started = time.perf_counter()
        agreement = clone_heuristic(model, args.clone_games, args.clone_epochs, args.clone_smoothing,
                                    CLONE_SEED + args.seed, args.advice)
        print(f"Cloned the heuristic from {args.clone_games} games in {time.perf_counter() - started:.0f} s: "
              f"the policy takes the heuristic's action at {agreement:.1%} of its decisions")
        rows.append(("cloned policy", evaluate_policy(model, args.eval_games, evaluation_seed, args.advice)))
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"Trained MaskablePPO for {args.steps} decisions in {time.perf_counter() - started:.0f} s")

    print(f"\nMean score against the heuristic over {args.eval_games} seeded games at both seats "
          "(1 = a win, 0.5 = a shared win), with 95% intervals:")
    rows = [("MaskablePPO", evaluate_policy(model, args.eval_games, evaluation_seed, args.advice)), *rows,
            ("heuristic", evaluate_agent("heuristic", args.eval_games, evaluation_seed)),
            ("uniform random", evaluate_agent("random", args.eval_games, evaluation_seed))]
    for label, scores in rows:
        mean, half = mean_with_interval(scores)
        print(f"{label:<16}{mean:>8.3f} ± {half:.3f}")


if __name__ == "__main__":
    main()
