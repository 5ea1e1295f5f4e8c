"""Crit's Creatures plays exactly the games it played before its order of play moved into flow.py: every step of
seeded random games over several option sets (legal lists, chance odds, observations, event logs, JSON, returns)
against the fingerprints recorded by the engine before (tests/step_fingerprint.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bestiary
from tests.step_fingerprint import game_fingerprint, recorded

RECORDED = recorded(Path(__file__).parent / "step_fingerprints.json")


@pytest.mark.parametrize("options", RECORDED["configurations"], ids=lambda options: json.dumps(options))
def test_random_games_are_played_step_for_step_as_recorded(options: dict[str, object]) -> None:
    game = bestiary.load_game("crits-creatures", **options)
    expected = RECORDED["fingerprints"][json.dumps(options, sort_keys=True)]
    played = {str(seed): game_fingerprint(game, seed) for seed in range(*RECORDED["seeds"])}
    assert played == expected
