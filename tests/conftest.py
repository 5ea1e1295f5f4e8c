"""Shared test helpers: every registered game with the player counts the conformance suite covers."""

from __future__ import annotations

import bestiary
from bestiary.core.registry import game_class


def game_configurations() -> list[tuple[str, int]]:
    configurations = []
    for name in bestiary.list_games():
        for players in game_class(name).info.player_counts:
            configurations.append((name, players))
    return configurations
