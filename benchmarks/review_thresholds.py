"""The losses the review gives to a strong player's moves and to random moves planted among them, for choosing
and checking the decision classes' thresholds (docs/review.md, *Classes*).

One seat plays the hard search except at about one decision in seven (a seeded coin), where it plays a uniformly
random legal move; the other plays the heuristic. Prints, per game, the planted and the other moves' mean loss,
the quantiles of both, and what share of the seat's costliest decisions were planted.

    PYTHONPATH=src python benchmarks/review_thresholds.py cube-creatures --games 4 [--option win_at=3] [--sims N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import bestiary
from bestiary.agents.base import HeuristicAgent, make_agent
from bestiary.review import ReviewSettings, review_record

sys.path.insert(0, str(Path(__file__).parents[1]))  # the planted-error games are the tests' own

from tests.review.planted import findings, planted_game


def quantiles(values: list[float]) -> str:
    ordered = sorted(values)
    pick = [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in (0.5, 0.75, 0.9, 0.95, 0.99)]
    return " / ".join(f"{x:.3f}" for x in pick) + " (50/75/90/95/99 %)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--sims", type=int, default=ReviewSettings().sims)
    parser.add_argument("--strong", default="ismcts:hard")
    parser.add_argument("--option", action="append", default=[], help="game option key=value")
    args = parser.parse_args()
    options = {k: json.loads(v) for k, _, v in (o.partition("=") for o in args.option)}
    game = bestiary.load_game(args.game, players=2, **options)
    planted_loss: list[float] = []
    other_loss: list[float] = []
    top: list[bool] = []
    severe: list[bool] = []
    started = time.process_time()
    for seed in range(args.seed, args.seed + args.games):
        planted = planted_game(game, make_agent(args.strong), [HeuristicAgent()], 0, 0.15, seed)
        found = findings(review_record(planted.record, ReviewSettings(sims=args.sims), seed=seed).decisions, planted)
        planted_loss += found.planted_loss
        other_loss += found.other_loss
        top += found.top[:max(1, len(found.planted_loss) // 2)]
        severe += found.severe
    print(f"{args.game} {options or ''}: {args.games} games, seat 1 {args.strong} with planted random moves, "
          f"review sims {args.sims}; {time.process_time() - started:.0f} s of processor time")
    print(f"  planted: {len(planted_loss)} moves, mean loss {statistics.mean(planted_loss):.4f}, "
          f"{sum(x == 0 for x in planted_loss)} lost nothing; {quantiles(planted_loss)}")
    print(f"  others:  {len(other_loss)} moves, mean loss {statistics.mean(other_loss):.4f}, "
          f"{sum(x == 0 for x in other_loss)} lost nothing; {quantiles(other_loss)}")
    print(f"  the seat's costliest errors (half as many as were planted, per game): {sum(top)} of {len(top)} planted")
    print(f"  the seat's mistakes and blunders: {sum(severe)} of {len(severe)} planted")


if __name__ == "__main__":
    main()
