"""How long a review takes: one game of each of the four games between heuristic players, reviewed at the default
settings on one core; prints the processor time per game and per decision, and each review's summary. With
`--shares`, the review is made as the server makes it (server/reviews.py), in shares of steps, and the longest
share is printed: how long a table's search may wait behind a review.

    PYTHONPATH=src python benchmarks/review.py [--games 1] [--sims N] [--seed 1] [--json out.json] [--shares]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import bestiary
from bestiary.agents.base import HeuristicAgent
from bestiary.agents.match import play_match
from bestiary.core.record import record_of
from bestiary.review import ReviewSettings, review_record
from bestiary.review.report import costliest, seat_name, summary_lines, verdict
from bestiary.server.reviews import SHARE_STEPS, review_share, review_views

GAMES = ("critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games reviewed per game kind")
    parser.add_argument("--sims", type=int, default=ReviewSettings().sims, help="the review's sims")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (the next: seed + 1, ...)")
    parser.add_argument("--only", action="append", help="review only this game (repeatable)")
    parser.add_argument("--json", help="write every review's JSON here")
    parser.add_argument("--shares", action="store_true", help="review as the server does, timing each share")
    args = parser.parse_args()
    settings = ReviewSettings(sims=args.sims)
    saved = {}
    print(f"review settings: {settings}")
    for name in args.only or GAMES:
        game = bestiary.load_game(name, players=2)
        for number in range(args.games):
            seed = args.seed + number
            record = record_of(play_match(game, [HeuristicAgent(), HeuristicAgent()], seed), ["heuristic"] * 2)
            if args.shares:
                server_shares(game, seed, record.actions, settings)
                continue
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


def server_shares(game: bestiary.Game, seed: int, actions: list[tuple[int, str]], settings: ReviewSettings) -> None:
    """The review made in the server's shares: each share's processor time, and the viewers' copies'."""
    times, steps = [], []
    options = game.options_dict()
    for start in range(0, len(actions), SHARE_STEPS):
        began = time.process_time()
        steps += review_share(type(game), options, seed, actions, settings, start,
                              min(len(actions), start + SHARE_STEPS))
        times.append(time.process_time() - began)
    began = time.process_time()
    review_views(type(game), options, seed, actions, settings, steps)
    copies = time.process_time() - began
    print(f"{game.info.name}, game seed {seed}: {len(actions)} steps in {len(times)} shares of {SHARE_STEPS}; "
          f"{sum(times):.1f} s of processor time; a share {statistics.median(times):.2f} s (median), "
          f"{max(times):.2f} s at most; each viewer's copy {copies:.2f} s in all")


if __name__ == "__main__":
    main()
