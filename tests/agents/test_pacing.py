"""A seat that can only pass a response window passes by itself, after a delay like a computer player's."""

from __future__ import annotations

import random

from bestiary.agents import pacing
from tests.games.cube.helpers import position


def test_only_a_pass_only_seat_in_a_window_passes_by_itself() -> None:
    # CUBE-51: the window is open to P2 (a card, no answer) and P3 (an answer); P1 is not in it.
    state = position(players=3, hands=[[], ["not-so-fast"], ["dodge-roll"]],
                     battlefields=[["thunder-cube"], ["anvil-tortoise"], ["moss-cube"]])
    assert pacing.automatic_pass(state, 0) is None  # an ordinary turn
    state.apply_action("attack P2 guard with guard")
    assert state.players_to_act() == [1, 2]
    passing = pacing.automatic_pass(state, 1)
    assert passing is not None and str(passing) == "pass"
    assert pacing.automatic_pass(state, 2) is None  # P3 has a choice to make
    delays = [pacing.pass_delay(state, 1, random.Random(seed)) for seed in range(20)]
    assert all(0.0 < d < 5.0 for d in delays) and len(set(delays)) > 1
