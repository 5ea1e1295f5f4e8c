"""Common Critters: critter capture."""

from bestiary.games.critters.game import CritterCapture

__all__ = ["CritterCapture"]
