"""Pacing for tables with people: a seat that can do nothing in a response window but pass, passes by itself
after a delay drawn like a computer player's answer. Every card-holder is asked in a window (CUBE-51), so
neither being asked nor the time taken tells the table who holds an answer. The server and the terminal
call `automatic_pass` from one place each."""

from __future__ import annotations

import random

from bestiary.agents.base import HeuristicAgent, SeatView
from bestiary.core.api import Action, State

PASS = "pass"


def automatic_pass(state: State, player: int) -> Action | None:
    """The pass `player` makes by itself now: in a response window where passing is all it may do."""
    if state.decision_kind() != "response" or player not in state.players_to_act():
        return None
    legal = state.legal_actions(player)
    return legal[0] if len(legal) == 1 and str(legal[0]) == PASS else None


def pass_delay(state: State, player: int, rng: random.Random) -> float:
    """Seconds before that pass: the delay a computer player takes to answer a window."""
    return HeuristicAgent().reaction_delay(SeatView(state, player), rng)
