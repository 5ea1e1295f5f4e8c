"""The heuristic player is clearly better than random play (a small seeded comparison)."""

from __future__ import annotations

import bestiary
from tests.heuristic_match import heuristic_against_random


def test_heuristic_beats_random_play() -> None:
    game = bestiary.load_game("crits-creatures")
    results = [heuristic_against_random(game, seed, seed % 2).returns()[seed % 2] for seed in range(10)]
    assert sum(r > 0 for r in results) >= 8
