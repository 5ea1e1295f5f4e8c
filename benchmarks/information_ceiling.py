"""How much hidden information is worth: a search that sees the true state, against a named opponent.

    python benchmarks/information_ceiling.py creatures-of-lungo --agent ismcts:hard --against random \
        --games 100 --seed 86

The agent plays with every determinization replaced by the true state, so it sees every hand (and, at a
simultaneous choice, a choice already made): not a fair player, an experiment. If it scores no better
than the fair search, what the seat cannot see is not what decides the games; the future draws are.
docs/agents.md (Creatures of Lungo) reports such a run.
"""

from __future__ import annotations

import argparse
import random

from bestiary.agents.base import Agent, SeatView, make_agent, register_agent
from bestiary.agents.tournament import run_tournament
from bestiary.core.api import Action, State


class TrueStateView(SeatView):
    """A seat's view whose every sample is the true state."""

    def sample_state(self, rng: random.Random) -> State:
        return self._state.clone()


class Seeing(Agent):
    """The agent named by `spec`, given the true state instead of determinizations."""

    def __init__(self, spec: str) -> None:
        self.agent = make_agent(spec)
        self.name = f"seeing {spec}"

    def act(self, view: SeatView, rng: random.Random) -> Action:
        return self.agent.act(TrueStateView(view._state, view.player), rng)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--agent", default="ismcts:hard")
    parser.add_argument("--against", default="random")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=86)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    register_agent("seeing", Seeing)  # the workers are forked after this, so they know it too
    result = run_tournament(args.game, [f"seeing:{args.agent}", args.against], args.games, seed=args.seed,
                            options={"players": args.players}, jobs=args.jobs, timed=True)
    row = result["agents"][0]
    low, high = row["ci95"]
    print(f"{args.game}: {args.agent} seeing the true state against {args.against}: {row['points']} of "
          f"{row['games']} ({row['win_rate']:.1%}, 95 % CI {low:.1%} - {high:.1%}), "
          f"{row['seconds_per_decision']:.3f} s a decision")


if __name__ == "__main__":
    main()
