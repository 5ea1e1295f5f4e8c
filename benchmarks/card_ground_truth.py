"""Ground truth for the card effects at full size: false discoveries on decks whose cards make no difference,
the planted strong and weak cards' ranks, and the unmodified Cube deck with one agent on every seat (by what
chance gave a seat, and by what it chose, for contrast). Prints figures; the same checks run small in
tests/analysis/test_card_ground_truth.py.

    PYTHONPATH=src:. python benchmarks/card_ground_truth.py [--games 1000] [--null-runs 20] [--null-games 300]
"""

from __future__ import annotations

import argparse
import time

from tests.analysis.test_card_ground_truth import cube_deck, headline, ranks, twin_critter_deck


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--null-runs", type=int, default=20)
    parser.add_argument("--null-games", type=int, default=300)
    args = parser.parse_args()
    started = time.perf_counter()

    flagged_runs = 0
    flags = 0
    for seed in range(args.null_runs):
        group = headline("critter-capture", 2, "heuristic", args.null_games, 100 + seed, twin_critter_deck())
        found = sum(e.flagged for e in group.headline_effects())
        flags += found
        flagged_runs += found > 0
    print(f"critter capture, 48 twin cards (no card makes a difference), {args.null_runs} runs of "
          f"{args.null_games} games, heuristic on every seat: {flagged_runs} runs flagged any card "
          f"({flags} false discoveries of {48 * args.null_runs} cards; the stated rate allows 5 % of runs)")

    group = headline("critter-capture", 2, "heuristic", args.games, 5, twin_critter_deck("brook-trout", "bluegill"))
    found = ranks(group)
    others = sum(flag for card, (_, flag) in found.items() if card not in ("brook-trout", "bluegill"))
    print(f"critter capture, twins with brook-trout raised to 7/7 and bluegill lowered to 3/3, {args.games} games: "
          f"brook-trout ranks {found['brook-trout']}, bluegill {found['bluegill']} (rank, flagged) of {len(found)}; "
          f"{others} other cards flagged")

    group = headline("critter-capture", 2, "heuristic", args.games, 5)
    effects = group.headline_effects()
    print(f"critter capture, shipped deck, {args.games} games: {sum(e.flagged for e in effects)} of {len(effects)} "
          "cards flagged: " + ", ".join(f"{e.card} {e.difference * 100:+.1f}" for e in effects if e.flagged))

    group = headline("cube-creatures", 2, "heuristic", args.games, 8)
    effects = group.headline_effects()
    played = group.card_effects("creature")
    print(f"Cube Creatures, shipped deck, {args.games} games, heuristic on every seat: "
          f"{sum(e.flagged for e in effects)} of {len(effects)} cards flagged by what chance dealt or drew "
          "(mean effect "
          f"{sum(e.difference for e in effects) / len(effects) * 100:+.2f} points); by creatures played "
          f"(an association): {sum(e.flagged for e in played)} of {len(played)} flagged, mean "
          f"{sum(e.difference for e in played) / len(played) * 100:+.1f} points")

    group = headline("cube-creatures", 2, "random", 2 * args.games, 3, cube_deck("dicey-boar", "square-toad"))
    found = ranks(group)
    print(f"Cube Creatures, dicey-boar raised to 12/20 and square-toad lowered to 0/1, {2 * args.games} games, "
          f"random on every seat: dicey-boar {found['dicey-boar']}, square-toad {found['square-toad']} "
          f"(rank, flagged) of {len(found)}")
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
