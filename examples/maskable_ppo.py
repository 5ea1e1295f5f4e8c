"""Train sb3-contrib's MaskablePPO on two-player critter capture against the heuristic, then measure it.

    pip install -e '.[rl,train]'                       # sb3-contrib and PyTorch (CPU)
    python examples/maskable_ppo.py                     # about ten minutes on a busy two-core machine
    python examples/maskable_ppo.py --steps 2000 --eval-games 20   # a quick look

The learner plays seat 0 in half the training environments and seat 1 in the other half, against Bestiary's
heuristic agent, through `bestiary.rl.gymnasium.BestiaryEnv`; MaskablePPO reads the legal actions from the
environment's `action_masks()`. Evaluation plays seeded games at both seats against the heuristic (the policy
taking its most probable legal action) and reports the mean score, a win 1 and a shared win 0.5, with a 95%
interval (normal approximation), beside the heuristic playing itself and a uniformly random player.
"""

from __future__ import annotations

import argparse
import math
import random
import time

from bestiary.agents import SeatView, make_agent
from bestiary.rl.gymnasium import BestiaryEnv

try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError as error:  # the example's own extra
    raise SystemExit("this example needs sb3-contrib and PyTorch: pip install -e '.[rl,train]'") from error

GAME = "critter-capture"


def make_env(seat: int) -> BestiaryEnv:
    return BestiaryEnv(GAME, players=2, seat=seat, opponents=["heuristic"])


def mean_with_interval(scores: list[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95% interval."""
    mean = sum(scores) / len(scores)
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(len(scores) - 1, 1))
    return mean, 1.96 * spread / math.sqrt(len(scores))


def evaluate_policy(model: MaskablePPO, games: int, seed: int) -> list[float]:
    scores = []
    for game in range(games):
        env = make_env(seat=game % 2)
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
    parser.add_argument("--steps", type=int, default=150_000, help="learner decisions to train on")
    parser.add_argument("--envs", type=int, default=4, help="training environments (half at each seat)")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)  # a small network: more threads only contend for the cores

    envs = DummyVecEnv([lambda seat=k % 2: make_env(seat) for k in range(args.envs)])
    model = MaskablePPO("MlpPolicy", envs, n_steps=256, batch_size=256, learning_rate=3e-4, gamma=1.0,
                        ent_coef=0.01, seed=args.seed, verbose=0, device="cpu")
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    print(f"Trained MaskablePPO for {args.steps} decisions in {time.perf_counter() - started:.0f} s")

    evaluation_seed = 10_000 + args.seed  # games never seen in training
    print(f"\nMean score against the heuristic over {args.eval_games} seeded games at both seats "
          "(1 = a win, 0.5 = a shared win), with 95% intervals:")
    rows = [("MaskablePPO", evaluate_policy(model, args.eval_games, evaluation_seed)),
            ("heuristic", evaluate_agent("heuristic", args.eval_games, evaluation_seed)),
            ("uniform random", evaluate_agent("random", args.eval_games, evaluation_seed))]
    for label, scores in rows:
        mean, half = mean_with_interval(scores)
        print(f"{label:<16}{mean:>8.3f} ± {half:.3f}")


if __name__ == "__main__":
    main()
