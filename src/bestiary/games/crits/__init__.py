"""Crit's Creatures: miniatures, dice combat, Kings and crowns."""

from bestiary.games.crits.game import CritsCreatures

__all__ = ["CritsCreatures"]
