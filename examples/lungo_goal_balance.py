"""How often each Creatures of Lungo goal card's holder takes the first token, with 95 % intervals.

The secret goal is dealt through a private event that names neither the seat nor the card, so the
simulation records cannot tell goals apart; this script plays the same games as `bestiary simulate`
(the same seeds, lineups and agents) and reads each seat's goal from the final state.

    python examples/lungo_goal_balance.py --games 2000 --players 4 --seed 2026 [--cards my-deck.toml]
"""

from __future__ import annotations

import argparse
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from bestiary.agents import make_agent
from bestiary.analysis.simulate import game_seed, lineup, play_out
from bestiary.analysis.stats import wilson_interval
from bestiary.core.registry import load_game

GAME = "creatures-of-lungo"


def goal_outcomes(players: int, agents: tuple[str, ...], master_seed: int, cards: str | None,
                  start: int, stop: int) -> list[tuple[list[str], int | None]]:
    """For games start..stop-1: each seat's goal card id and the first token taker (None: nobody)."""
    game = load_game(GAME, players=players, **({"cards": cards} if cards else {}))
    outcomes = []
    for number in range(start, stop):
        seed = game_seed(master_seed, number)
        state = game.new_initial_state(seed)
        play_out(state, [make_agent(name) for name in lineup(agents, players, number)], seed)
        goals = [game.goal_cards[g].id for g in state.goals]
        outcomes.append((goals, state.takers[0] if state.takers else None))
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--agents", default="heuristic")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cards", default=None, help="a card file (default: the starter set)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    agents = tuple(args.agents.split(","))
    chunk = max(1, args.games // (args.jobs * 8))
    bounds = [(start, min(start + chunk, args.games)) for start in range(0, args.games, chunk)]
    dealt: Counter[str] = Counter()
    first: Counter[str] = Counter()
    undecided = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(goal_outcomes, args.players, agents, args.seed, args.cards, a, b) for a, b in bounds]
        for future in futures:
            for goals, taker in future.result():
                dealt.update(goals)
                if taker is None:
                    undecided += 1
                else:
                    first[goals[taker]] += 1
    fair = 1 / args.players
    print(f"{args.games} games, {args.players} players, agents {args.agents}, seed {args.seed}; "
          f"fair share {fair:.1%}; {undecided} games without a token taker")
    print("| goal | dealt | first token | 95 % interval | covers fair share |")
    print("|---|---|---|---|---|")
    for goal, times in sorted(dealt.items(), key=lambda item: first[item[0]] / item[1]):
        low, high = wilson_interval(first[goal], times)
        print(f"| {goal} | {times} | {first[goal] / times:.1%} | [{low:.1%}, {high:.1%}] | "
              f"{'yes' if low <= fair <= high else 'NO'} |")


if __name__ == "__main__":
    main()
