"""The games Bestiary ships; importing this package registers them."""

from bestiary.games import crits, critters, cube, lungo

__all__ = ["crits", "critters", "cube", "lungo"]
