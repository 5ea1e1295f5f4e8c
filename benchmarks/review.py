"""How long a review takes: one game of each of the four games between heuristic players, reviewed at the default
settings on one core; prints the processor time per game and per decision, and each review's summary.

    PYTHONPATH=src python benchmarks/review.py [--games 1] [--sims N] [--seed 1] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import time

import bestiary
from bestiary.agents.base import HeuristicAgent
from bestiary.agents.match import play_match
from bestiary.core.record import record_of
from bestiary.review import ReviewSettings, review_record
from bestiary.review.report import costliest, seat_name, summary_lines, verdict

GAMES = ("critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games reviewed per game kind")
    parser.add_argument("--sims", type=int, default=ReviewSettings().sims, help="the review's sims")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (the next: seed + 1, ...)")
    parser.add_argument("--only", action="append", help="review only this game (repeatable)")
    parser.add_argument("--json", help="write every review's JSON here")
    args = parser.parse_args()
    settings = ReviewSettings(sims=args.sims)
    saved = {}
    print(f"review settings: {settings}")
    for name in args.only or GAMES:
        game = bestiary.load_game(name, players=2)
        for number in range(args.games):
            seed = args.seed + number
            record = record_of(play_match(game, [HeuristicAgent(), HeuristicAgent()], seed), ["heuristic"] * 2)
            started = time.process_time()
            review = review_record(record, settings, seed=seed)
            spent = time.process_time() - started
            decisions = len(review.decisions)
            unforced = sum(d.kind != "forced" for d in review.decisions)
            print(f"\n{name}, game seed {seed}: {len(record.actions)} steps, {decisions} decisions ({unforced} not "
                  f"forced), {len(review.chance)} chance events; {spent:.1f} s of processor time, "
                  f"{1000 * spent / max(1, decisions):.0f} ms a decision")
            for line in summary_lines(review):
                print("  " + line)
            for sentence in verdict(review).sentences:
                print("  " + sentence)
            for d in costliest(review, 3):
                print(f"  step {d.step}: {seat_name(d.player)} played {d.action}, best {d.best}: {d.kind}, "
                      f"lost {d.loss:.3f}")
            saved[f"{name}/{seed}"] = {"seconds": round(spent, 2), **review.to_json()}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(saved, out)


if __name__ == "__main__":
    main()
