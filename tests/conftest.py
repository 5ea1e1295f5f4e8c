"""Shared test helpers: every game Bestiary ships, with the player counts the conformance suite covers."""

from __future__ import annotations

import bestiary
from bestiary.core.registry import game_class


def shipped_games() -> list[str]:
    """The registered games that Bestiary ships (toy games that tests register are left out)."""
    return [name for name in bestiary.list_games() if game_class(name).__module__.startswith("bestiary.games.")
            and not game_class(name).__module__.startswith("bestiary.games._")]  # games/_template: an example


def game_configurations() -> list[tuple[str, int]]:
    return [(name, players) for name in shipped_games() for players in game_class(name).info.player_counts]
